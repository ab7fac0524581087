"""jaxdeck.read.formats: a jupytext configuration file that does not read is one line naming it."""

from __future__ import annotations

import pytest

from support import ROOT, run_cli

DECK = "---\njupyter:\n  jaxdeck:\n    title: N\n---\n\n# N\n\ntext\n"

#: what a broken jupytext.toml holds -> the start of the line that names it
BROKEN = {
    "broken-toml": (b"formats = [\n", "error: jupytext.toml:1: the jupytext configuration does not read: "),
    "wrong-types": (b"# kept\nformats = 5\nnotebook_metadata_filter = 7\n",
                    "error: jupytext.toml:2: the jupytext configuration does not read: 'formats' expected "),
    "binary": (b"\xff\xfe", "error: jupytext.toml: the jupytext configuration is not UTF-8 text (byte 0xff at offset 0)"),
}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "talk.md").write_text(DECK)
    return tmp_path


@pytest.mark.parametrize("command", [["build"], ["check"], ["present", "--no-browser", "--port", "0"]],
                         ids=lambda c: c[0])
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_jupytext_configuration_that_does_not_read_is_one_line_naming_it(project, kind, command):
    data, start = BROKEN[kind]
    (project / "jupytext.toml").write_bytes(data)
    done = run_cli(*command, "slides/talk.md", cwd=project, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(start), lines[0]
    assert lines[0].endswith("fix it as https://jupytext.readthedocs.io/en/latest/config.html says, or remove it")
    assert not (project / "build" / "html" / "talk.html").exists()
    assert (project / "jupytext.toml").read_bytes() == data


def test_the_projects_own_jupytext_configuration_still_reads(project):
    from pathlib import Path

    from jaxdeck.read.formats import jupytext_config

    (project / "jupytext.toml").write_bytes((ROOT / "jupytext.toml").read_bytes())
    assert jupytext_config(Path(project / "slides" / "talk.md")).formats
