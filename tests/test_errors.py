"""jaxdeck.errors' display of paths: a file's name goes to the terminal as text, never as its commands."""

from __future__ import annotations

import pytest

from support import run_cli

#: deck names that a terminal would act on: a colour escape, a newline, a carriage return, a bell
NAMES = {"escape": ("zz-\x1b[31mred\x1b[0m.md", "zz-\\x1b[31mred\\x1b[0m.md"),
         "newline": ("zz-nl\nname.md", "zz-nl\\nname.md"),
         "return": ("zz-\rcr\a.md", "zz-\\rcr\\x07.md")}


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_a_deck_name_with_control_characters_is_said_escaped_in_its_one_error_line(tmp_path, kind):
    name, said = NAMES[kind]
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / name).write_text("---\njupyter: [\n---\n\n# x\n")
    done = run_cli("check", "--", f"slides/{name}", cwd=tmp_path, timeout=120)
    assert done.returncode == 1, done.stderr
    assert not any(c in done.stderr for c in "\x1b\r\a"), repr(done.stderr)
    lines = done.stderr.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith(f"error: slides/{said}:3: invalid YAML in the header"), lines


def test_a_printable_name_is_said_as_it_is():
    from jaxdeck.errors import display_path

    assert display_path("slides/zz-ünï cödé [1].md") == "slides/zz-ünï cödé [1].md"


def test_a_built_decks_line_says_its_name_escaped(tmp_path):
    name, said = NAMES["escape"]
    (tmp_path / name).write_text("# Talk\n\nWords.\n\nNote: said.\n")
    done = run_cli("build", "--", name, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and done.stdout.splitlines() == [f"{said}: HTML"], repr(done.stdout)
