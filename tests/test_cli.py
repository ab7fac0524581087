"""The command line as a user meets it: bad input gives one line, a non-zero exit, and loses nothing."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from support import run_cli

GOOD = "# Talk\n\nHello.\n\nNote: hi\n\n---\n\n## Demo\n\n```python\n21 * 2\n```\n\nNote: the answer\n"

#: case -> (deck content, line the error names, words the message must contain)
BAD = {
    "unclosed fence": ("# Talk\n\n```python\nx = 1\n", 3, "never closed"),
    "invalid header metadata": ("---\njupyter:\n  jaxdeck:\n    title: [x\n---\n\n# Talk\n", 4, "YAML"),
    "invalid fence metadata": ('# Talk\n\n```python tags=[slow]\n1\n```\n', 3, "metadata"),
    "unknown slide spelling": ("# Talk\n\n----\n\n## Two\n", 3, "'---'"),
    "cell that raises": ("# Talk\n\n---\n\n## Two\n\n```python\nraise ValueError('boom')\n```\n", 8, "(slide 2): ValueError: boom"),
    "cell that hangs": ("# Talk\n\n```python timeout=2\nimport time\ntime.sleep(120)\n```\n", 3, "did not finish in 2 s"),
    "claim that no longer holds": ("# Talk\n\n---\n\n## Two\n\n```python\nx = 0.1 + 0.2\n```\n\n"
                                   '```python tags=["check"]\nassert x == 0.3, f"expected 0.3, got {x!r}"\n```\n', 12,
                                   "(slide 2): the claim no longer holds on this machine ("),
    "JAXDECK_DEVICES not a count": (GOOD, None, "JAXDECK_DEVICES must be a whole number"),
    "missing image": ("# Talk\n\n![chart](images/missing.png)\n", 3, "not found"),
    "empty file": ("", 1, "empty"),
    "non-UTF-8 file": ("# Talk\n\ncaf\udce9\n".encode("utf-8", "surrogateescape"), 3, "UTF-8"),
}


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "assets" not in p.parts}


@pytest.fixture(scope="module")
def good_build(tmp_path_factory):
    """A project folder with a deck built once; each bad case starts from a copy of it."""
    root = tmp_path_factory.mktemp("project")
    (root / "slides").mkdir()
    (root / "slides" / "talk.md").write_text(GOOD)
    done = run_cli("build", "slides/talk.md", "--out", "build", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.mark.heavy
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_clear_line_and_loses_nothing(good_build, tmp_path, case):
    content, line, words = BAD[case]
    project = tmp_path / "project"
    shutil.copytree(good_build, project)
    before = digest(project / "build")
    deck = project / "slides" / "talk.md"
    deck.write_bytes(content if isinstance(content, bytes) else content.encode())
    source = deck.read_bytes()

    env = {"JAXDECK_DEVICES": "two"} if "JAXDECK_DEVICES" in case else None
    done = run_cli("build", "slides/talk.md", "--out", "build", cwd=project, env=env)

    assert done.returncode != 0
    lines = [text for text in done.stderr.splitlines() if text.strip() and "WARNING" not in text]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[0].startswith(f"error: slides/talk.md:{line}" if line else "error: "), lines[0]
    assert words in lines[0]
    after = digest(project / "build")
    kept = after.pop("notebooks/talk.error.txt", None)  # a failing cell's whole traceback, named in the line
    assert (kept is not None) == ("is in build/notebooks/talk.error.txt" in lines[0]), lines[0]
    assert kept is not None or "cell" not in case, "a failing cell keeps its traceback"
    assert after == before  # earlier outputs intact
    assert deck.read_bytes() == source  # the source is never touched


def test_good_build_writes_notebook_and_html(good_build):
    assert (good_build / "build" / "notebooks" / "talk.ipynb").is_file()
    assert (good_build / "build" / "html" / "talk.html").is_file()
    assert (good_build / "slides" / "talk.md").read_text() == GOOD


def test_missing_deck_argument(tmp_path):
    done = run_cli("build", "nope.md", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.strip() == ("error: nope.md: no such deck; give the path of a Markdown "
                                                            "file, or make one with `make new DECK=NAME`")


@pytest.mark.heavy
@pytest.mark.parametrize("verb", ["build", "pdf", "check", "rehearse", "present", "preview"])
def test_a_deck_is_named_as_make_names_it_and_a_typo_gets_the_closest_names(tmp_path, verb):
    (tmp_path / "slides").mkdir()
    for name in ("01-intro", "02-vmap", "talk"):
        (tmp_path / "slides" / f"{name}.md").write_text("# T\n", encoding="utf-8")
    done = run_cli(verb, "vmpa", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "error: vmpa: no such deck; did you mean 02-vmap? (the decks are in slides/)"
    done = run_cli(verb, "nothing-like-it", cwd=tmp_path)
    assert done.stderr.strip().endswith("no such deck; name a deck in slides/, e.g. 01-intro, or give the path of a "
                                        "Markdown file"), done.stderr


@pytest.mark.heavy
@pytest.mark.parametrize("argument", ["talk", "talk.md", "slides/talk", "slides/talk.md"])
def test_a_bare_name_builds_the_deck_in_slides(tmp_path, argument):
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "talk.md").write_text("# Talk\n\nHello.\n", encoding="utf-8")
    done = run_cli("build", argument, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "slides/talk.md: HTML" and (tmp_path / "build" / "html" / "talk.html").is_file()


@pytest.mark.heavy
@pytest.mark.parametrize("verb", ["build", "pdf", "check", "rehearse"])
def test_two_decks_of_one_name_are_refused_before_anything_is_built(tmp_path, verb):
    """a/talk.md and b/talk.md would both build into talk.html: the second would silently replace the first."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "talk.md").write_text(GOOD)
    done = run_cli(verb, "a/talk.md", "b/talk.md", "a/talk.md", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.strip() == (
        "error: b/talk.md: has the same name as a/talk.md, so both would build into talk.html; "
        "rename one of them, or build them into different --out folders")
    assert not (tmp_path / "build").exists()


def test_the_same_deck_named_twice_is_built_once(tmp_path):
    from jaxdeck.decks import find_decks

    (tmp_path / "talk.md").write_text(GOOD)
    assert find_decks([str(tmp_path / "talk.md"), str(tmp_path / "." / "talk.md")]) == [tmp_path / "talk.md"]


def test_help_lists_the_verbs():
    done = run_cli("--help")
    assert done.returncode == 0
    for verb in ("build", "pdf", "check", "present", "rehearse", "preview", "bench"):
        assert verb in done.stdout


#: how a cell kills its kernel -> the exit code the error names
DEATHS = {
    "os._exit": ("import os\nos._exit(3)", 3),
    "segfault": ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", -11),
    "SIGKILL, as the OOM killer sends": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", -9),
}


@pytest.mark.heavy
@pytest.mark.parametrize("case", sorted(DEATHS))
def test_a_dying_kernel_stops_the_build_with_one_line(good_build, tmp_path, case):
    code, exit_code = DEATHS[case]
    project = tmp_path / "project"
    shutil.copytree(good_build, project)
    before = digest(project / "build")
    deck = project / "slides" / "talk.md"
    deck.write_text(f"# Talk\n\n```python\n1 + 1\n```\n\n---\n\n## Crash\n\n```python\n{code}\n```\n\nNote: gone\n")

    # a hang guard, not a performance budget: a dead kernel used to make the build wait forever
    done = run_cli("build", "slides/talk.md", "--out", "build", cwd=project, timeout=30)

    assert done.returncode == 1
    lines = [text for text in done.stderr.splitlines() if text.strip()]
    assert lines == [lines[0]] and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"error: slides/talk.md:11 (slide 2): the kernel died (exit code {exit_code}) "
                               "while running this cell; "), lines[0]
    assert digest(project / "build") == before  # earlier outputs intact
    assert not [p for p in (project / "build").rglob("*") if p.name.endswith(".tmp")]  # nothing half-written


def imported(*args: str, cwd: Path) -> set[str]:
    """The modules `python -X importtime -m jaxdeck ARGS` imports."""
    import os
    import subprocess
    import sys

    from support import ROOT

    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "jaxdeck", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split("|")[2].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def test_help_imports_no_heavy_library(tmp_path):
    names = imported("--help", cwd=tmp_path)
    assert "jaxdeck.cli" in names
    heavy = {"nbformat", "jsonschema", "jupytext", "nbconvert", "nbclient", "jupyter_client", "playwright", "rich"}
    assert not names & heavy, names & heavy


@pytest.mark.heavy
def test_a_rebuild_never_compiles_the_iri_grammars(good_build, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(good_build, project)
    deck = project / "slides" / "talk.md"
    deck.write_text(deck.read_text() + "\n---\n\n## More\n\nA sentence.\n")
    names = imported("build", "slides/talk.md", "--out", "build", cwd=project)
    assert {"nbformat", "jsonschema"} <= names  # the notebook is still read, validated and written
    # rfc3987_syntax is looked for (a line of its own, microseconds) but its ~1.5 s of Lark grammars never load
    assert not names & {"rfc3987_syntax.syntax_helpers", "lark"}
    # nor do the other format checkers' libraries that no notebook schema needs (isoduration brings arrow)
    assert not names & {"arrow", "isoduration.parser", "rfc3986_validator.rfc3986_validator", "webcolors._html5"}
