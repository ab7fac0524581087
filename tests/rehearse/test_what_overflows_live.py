"""`jaxdeck rehearse` and `jaxdeck check` agree on what overflows: the same slides, the same pixels,
the same culprit named, on tests/fixtures/overflow_kinds.md rehearsed live (its real server, kernel and
headless Chromium) and checked static from the same build."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from support import ROOT, run_cli
from jaxdeck.check.deck import check_deck

DECK = ROOT / "tests" / "fixtures" / "overflow_kinds.md"
SIZE = "1280x720"

pytestmark = [pytest.mark.heavy, pytest.mark.browser]


@pytest.fixture(scope="module")
def rehearsed(tmp_path_factory):
    """The deck built, then rehearsed: the CLI's result and its JSON report."""
    root = tmp_path_factory.mktemp("rehearse-overflow").resolve()
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    (root / "slides").mkdir()
    shutil.copy(DECK, root / "slides" / "talk.md")
    built = run_cli("build", "slides/talk.md", cwd=root)
    assert built.returncode == 0, built.stdout + built.stderr
    done = run_cli("rehearse", "slides/talk.md", cwd=root, timeout=300)
    report = json.loads((root / "build" / "rehearsal" / "talk.json").read_text())
    return root, done, report


def pixels(message: str) -> int:
    return int(re.search(r" by (\d+) px below it;", message).group(1))


def test_rehearse_names_the_output_and_the_code_that_overflow_and_nothing_else(rehearsed):
    _, done, report = rehearsed
    assert done.returncode == 1, done.stdout + done.stderr
    found = {(p["slide"], p["kind"]) for p in report["problems"]}
    assert found == {(4, "overflow"), (5, "overflow")}, report["problems"]
    said = {p["slide"]: p["message"] for p in report["problems"] if SIZE in p["message"]}
    assert "the output overflows the 1280x720 slide frame by " in said[4] and "print less" in said[4]
    assert "the code overflows the 1280x720 slide frame by " in said[5] and "split the cell" in said[5]
    assert re.search(r"^slide 4\b.*: overflow: at 1280x720, with its live outputs, the output overflows", done.stdout,
                     re.M), done.stdout


def test_a_scrollable_slide_and_a_wrapped_code_line_fit_live(rehearsed):
    _, _, report = rehearsed
    scrolls, long_line = report["slides"][1], report["slides"][2]
    assert scrolls["title"] == "A slide that scrolls" and long_line["title"] == "A long line of code"
    for size, fit in scrolls["fits"].items():
        assert fit["scrollable"] and fit["down"] > 50, (size, fit)  # it does run below: it scrolls there
    for size, fit in long_line["fits"].items():
        assert fit["wide"] == [] and fit["right"] <= 2 and fit["down"] <= 2, (size, fit)


def test_check_and_rehearse_give_the_same_pixels_for_the_same_slides(rehearsed, browser):
    root, _, report = rehearsed
    nb = nbformat.read(root / "build" / "notebooks" / "talk.ipynb", as_version=4)
    found = check_deck(root / "slides" / "talk.md", nb, root / "build" / "html" / "talk.html", browser=browser)
    # the long code is also over the line limit, which the rehearsal does not measure: pixels are compared
    assert [(p.slide, p.kind) for p in found] == [(4, "overflow"), (5, "overflow"), (5, "code-length")], found
    static = [p for p in found if p.kind == "overflow"]
    live = {p["slide"]: p["message"] for p in report["problems"] if f"at {SIZE}," in p["message"]}
    for problem in static:
        assert pixels(problem.message) == pixels(live[problem.slide]) > 50, (problem, live[problem.slide])
        assert report["slides"][problem.slide - 1]["fits"][SIZE]["down"] == pixels(problem.message)
        assert live[problem.slide].endswith(problem.message), (problem.message, live[problem.slide])
