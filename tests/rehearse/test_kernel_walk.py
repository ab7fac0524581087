"""The kernel walk's reading of the slideshow notebook, and what ``rehearse --no-browser`` refuses before
anything starts: no kernel, server or browser here (the runs are in test_no_browser.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from support import ROOT, run_cli
from jaxdeck.rehearse.kernel_walk import slides_of, title_of

FIXTURE = ROOT / "tests" / "fixtures" / "rehearsed_on_kernel.md"


def served(root, deck: str):
    """The notebook the live server's contents manager serves for ``deck``: what the slideshow runs."""
    pytest.importorskip("jupyter_server")
    from jaxdeck.live.contents import DeckContentsManager

    manager = DeckContentsManager(root_dir=str(root), decks_dir="slides", build_dir="build")
    return manager.get(deck)["content"]


def test_the_slides_are_numbered_as_the_slideshow_numbers_them_with_the_code_each_runs(tmp_path):
    (tmp_path / "slides").mkdir()
    shutil.copy(FIXTURE, tmp_path / "slides" / "talk.md")
    slides = slides_of(served(tmp_path, "slides/talk.md"))
    assert [s.title for s in slides] == ["A talk rehearsed on its kernel", "Setup", "A claim", "A wait", "A table",
                                         "An error", "A listing", "A hang"]
    assert [s.number for s in slides] == list(range(1, 9)) and [s.h for s in slides] == list(range(8))
    steps = {s.number: s.steps for s in slides}
    assert [step.tags for step in steps[2]] == [["setup"]]
    claim = steps[3]
    assert len(claim) == 1 and claim[0].line == 33 and claim[0].source.startswith("answer = ")
    assert [(c.line, c.tags) for c in claim[0].checks] == [(38, ["check"])]  # run after it, not a cell of its own
    assert steps[7] == []  # the listing is shown, never run
    assert slides[0].text == ["# A talk rehearsed on its kernel"]  # its words, not its notes


def test_sub_slides_and_headings_written_as_html_are_read_as_on_the_slideshow(tmp_path):
    (tmp_path / "slides").mkdir()
    shutil.copy(ROOT / "slides" / "example.md", tmp_path / "slides" / "example.md")
    shutil.copytree(ROOT / "slides" / "images", tmp_path / "slides" / "images")
    slides = slides_of(served(tmp_path, "slides/example.md"))
    assert len(slides) == 16
    sub = slides[4]
    assert (sub.number, sub.h, sub.v, sub.title) == (5, 3, 1, "A sub-slide")
    assert slides[11].title == "Lists and words that step in"  # served as HTML by the spellings view
    assert slides[12].title == "A crowded slide"  # its {.smaller} is not part of it
    assert [s.number for s in slides if s.steps] == [3, 4, 6, 8, 9, 10]
    assert [step.tags for step in slides[7].steps] == [["raises-exception"]]


def test_a_fences_own_timeout_is_the_cells_limit_and_the_decks_is_the_others(write_deck):
    deck = write_deck("# A talk\n\n```python timeout=120\nx = 1\n```\n\n```python\ny = 2\n```\n")
    first, second = slides_of(served(deck.parent.parent, "slides/talk.md"))[0].steps
    assert (first.limit(60), second.limit(60)) == (120, 60)


def test_a_title_is_the_first_heading_as_text():
    assert title_of("Some words\n\n## The *title* {.smaller}\n\n# later") == "The *title*"
    assert title_of("<p>x</p><h2 class='a'>A &amp; <code>B</code></h2>") == "A & B"
    assert title_of("#### too deep\n\nno heading") == ""


@pytest.mark.parametrize("flag", [["--faults"], ["--size", "1600x900"]])
def test_what_needs_the_browser_is_refused_with_no_browser_in_one_line(write_deck, flag):
    deck = write_deck("# A talk\n\n```python\nx = 1\n```\n")
    done = run_cli("rehearse", "--no-browser", "slides/talk.md", *flag, cwd=deck.parent.parent)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: {flag[0]} needs the browser: ") and done.stderr.count("\n") == 1, done.stderr


def test_a_bad_deck_is_one_line_naming_file_and_line_before_anything_starts(write_deck):
    deck = write_deck("# A talk\n\nWords.\n\n----\n\n## Two\n\n```python\nx = 1\n```\n")
    done = run_cli("rehearse", "--no-browser", "slides/talk.md", cwd=deck.parent.parent)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: slides/talk.md:5: unknown slide break '----'"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "rehearsing" not in done.stdout and not (deck.parent.parent / "build" / "rehearsal").exists()


def test_the_no_browser_path_imports_neither_the_browser_module_nor_playwright():
    code = ("import sys\n"
            "import jaxdeck.commands.rehearse\n"
            "from jaxdeck.rehearse import compare, kernel_channel, kernel_walk, rehearsal, report\n"
            "import jaxdeck.live.server\n"
            "print(sorted(m for m in sys.modules if m.startswith(('jaxdeck.browser', 'playwright'))))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
