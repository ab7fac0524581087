"""`{.no-notes}` on a slide's heading: the missing-notes check skips that slide and asks everywhere else."""

from __future__ import annotations

import re

import pytest

from support import ROOT, run_cli
from jaxdeck.check.deck import notebook_problems
from jaxdeck.errors import display_path
from jaxdeck.read import deck_to_notebook

EXAMPLE = ROOT / "tests" / "fixtures" / "first_hour" / "header_example.md"
ASKED = ("no speaker notes; add a paragraph starting with 'Note:' "
         "(or, on a slide that needs none, write {.no-notes} after its heading)")


def test_a_slide_marked_no_notes_is_not_asked_for_notes_and_the_others_are(write_deck):
    deck = write_deck("# Talk\n\nNote: said.\n\n---\n\n## Quiet slide\n\n---\n\n## Questions? {.no-notes}\n\n"
                      "--\n\n### Thanks {.smaller .no-notes}\n")
    problems = notebook_problems(deck, deck_to_notebook(deck))
    assert [str(p) for p in problems] == [f"{display_path(deck)}:5 (slide 2): notes: {ASKED}"]


def test_without_the_class_the_closing_slide_is_asked_for_notes(write_deck):
    deck = write_deck("# Talk\n\nNote: said.\n\n---\n\n## Questions?\n")
    problems = notebook_problems(deck, deck_to_notebook(deck))
    assert [(p.slide, p.kind, p.message) for p in problems] == [(2, "notes", ASKED)]


@pytest.mark.heavy
@pytest.mark.browser
def test_the_readme_header_and_a_no_notes_closing_slide_build_and_check_clean(tmp_path):
    """slides/README.md's header (a YAML date), a closing slide with `{.no-notes}`: `build` then `check`, as
    `make check` runs them: no round-trip complaint, no notes asked for, and the class never shows."""
    out = tmp_path / "build"
    deck = str(EXAMPLE.relative_to(ROOT))
    built = run_cli("build", deck, "--out", str(out))
    assert built.returncode == 0 and built.stderr == "", built.stderr
    checked = run_cli("check", deck, "--out", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == f"{deck}: ok"
    html = (out / "html" / "header_example.html").read_text(encoding="utf-8")
    assert "no-notes}" not in html and "<h2>Questions?</h2>" in html
    assert re.search(r'<section[^>]*class="no-notes"', html)  # a class on the slide, styled by nothing
    assert "2026-11-22" in html  # the date as written, in the title slide's byline


@pytest.mark.heavy
@pytest.mark.browser
def test_check_asks_for_the_notes_of_a_closing_slide_without_the_class(tmp_path):
    deck = tmp_path / "talk.md"
    deck.write_text(EXAMPLE.read_text(encoding="utf-8").replace(" {.no-notes}", ""), encoding="utf-8")
    out = tmp_path / "build"
    assert run_cli("build", "talk.md", "--out", str(out), cwd=tmp_path).returncode == 0
    checked = run_cli("check", "talk.md", "--out", str(out), cwd=tmp_path)
    assert checked.returncode == 1
    assert checked.stdout.splitlines() == [f"talk.md:23 (slide 3): notes: {ASKED}"]  # at its "---"
