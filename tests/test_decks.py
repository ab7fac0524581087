"""Every deck in slides/: builds cleanly, round-trips, stays in budget, has notes, presents offline.

Parametrised over the files in slides/, so a new deck is covered without new test code;
``JAXDECK_TEST_DECK=PATH`` (what ``make test DECK=NAME`` sets) runs them on that one deck file.
"""

from __future__ import annotations

import difflib
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
from markdown_it import MarkdownIt

from support import DECKS, deck_id
from jaxdeck.check.budget import busy_words, held_to_budget, judged_seconds
from jaxdeck.claims import is_check
from jaxdeck.execute import cell_durations
from jaxdeck.records import cell_info
from jaxdeck.markers import NO_NOTES
from jaxdeck.read.formats import write_back
from jaxdeck.read.structure import notes_by_slide, slide_count, slides_with_class

BUDGET_S = 2.0
#: the deck files the tests run on: every deck in slides/, or the one JAXDECK_TEST_DECK names
DECKS = [Path(os.environ["JAXDECK_TEST_DECK"]).resolve()] if os.environ.get("JAXDECK_TEST_DECK") else DECKS

pytestmark = pytest.mark.skipif(not DECKS, reason="no decks in slides/")


def source_slide_count(deck: Path) -> int:
    """Slides counted straight from the Markdown: 1 + the `---`/`--` breaks outside code."""
    nb = jupytext.read(deck)
    parser = MarkdownIt("commonmark")
    breaks = 0
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for token in parser.parse(cell.source):
            if token.level == 0 and token.map and token.type in ("hr", "paragraph_open"):
                breaks += lines[token.map[0]].strip() in ("---", "--") and token.map[1] - token.map[0] == 1
    return 1 + breaks


def written_back_difference(deck: Path, notebook: Path) -> str:
    """A unified diff of the lines the write-back of ``notebook`` changes in ``deck`` ("" when none)."""
    import nbformat

    back = write_back(nbformat.read(notebook, as_version=4), deck)
    theirs = deck.read_bytes().decode("utf-8")
    if back == theirs:
        return ""
    return "".join(difflib.unified_diff(theirs.splitlines(keepends=True), back.splitlines(keepends=True),
                                        f"{deck.name} (the deck)", f"{deck.name} (written back)"))


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_the_write_back_gives_the_deck_back_byte_for_byte(built, deck):
    """The built notebook, written back as the live save and `make check` write it (jupytext with
    the repository's configuration, the header as the author wrote it), is the deck itself."""
    outputs, _ = built(deck)
    difference = written_back_difference(deck, outputs.notebook)
    assert not difference, f"{deck}: the write-back changes these lines:\n{difference}"


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_no_cell_errors_except_those_tagged(built, deck):
    _, nb = built(deck)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        assert not errors or tagged, f"{deck}:{cell.metadata['jaxdeck']['line']}: {errors[0]['ename']}"
        stderr = [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"
                  and ("Traceback" in o.text or "Error" in o.text)]
        assert not stderr or tagged, f"{deck}:{cell.metadata['jaxdeck']['line']}: error text on stderr"


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_cell_within_budget_unless_tagged_slow(built, deck):
    _, nb = built(deck)
    budget = float(nb.metadata.get("jaxdeck", {}).get("budget_s", BUDGET_S))
    rows = cell_durations(nb)
    assert rows, "no recorded timings"
    slow = [r for r in rows if "slow" in r[3]]
    assert len(slow) <= 1, f"{deck}: at most one cell may be tagged slow"
    setup = [k for k, r in enumerate(rows) if "setup" in r[3]]
    assert setup == list(range(len(setup))), f"{deck}: setup cells lead the deck (the first code cells), found at {setup}"
    # a cell timed while another build shared the CPUs is held to what is left of its time (make check's rule)
    load = {cell_info(c).get("line"): tuple(cell_info(c).get(k) for k in ("others_share", "cpu_s", "waited_s"))
            for c in nb.cells if c.cell_type == "code"}
    over = [f"{deck}:{line} (slide {slide}) took {seconds:.2f} s{busy_words(seconds, *load.get(line, (None,) * 3))}"
            for line, slide, seconds, tags in rows
            if judged_seconds(seconds, *load.get(line, (None,) * 3)) > budget and held_to_budget(tags)]
    assert not over, "; ".join(over)


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_headline_figure_shows_its_computed_verdict(built, deck):
    """A cell that compares against a source figure prints a verdict beside its chart, in both the
    HTML and the plain-text output, computed by demos (never typed into the deck)."""
    _, nb = built(deck)
    for cell in nb.cells:
        if cell.cell_type != "code" or "figure=" not in cell.source or "reference=" not in cell.source:
            continue
        where = f"{deck}:{cell.metadata['jaxdeck']['line']}"
        shown = [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")]
        assert shown, f"{where}: the comparison is not displayed"
        html = "".join(o.data.get("text/html", "") for o in shown)
        text = "".join(o.data.get("text/plain", "") for o in shown)
        assert 'class="verdict"' in html, f"{where}: no verdict beside the chart"
        assert "reproduced" in text, f"{where}: no verdict in the text form"


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_no_demo_shows_a_skip_line(built, deck):
    """A demo the machine cannot run is a listing with its source, never a "skipped" line on a slide."""
    _, nb = built(deck)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            said = output.get("text", "") + output.get("data", {}).get("text/plain", "")
            assert not re.search(r"(?im)^\s*skipped\b", said), f"{deck}:{cell.metadata['jaxdeck']['line']}: {said[:80]!r}"


#: a numbered talk states at least this many of its claims as checks; any other deck at least one
TALK_CHECKS = 3


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_claims_are_checked_in_every_build_and_shown_nowhere(built, deck):
    outputs, nb = built(deck)
    checks = [c for c in nb.cells if is_check(c)]
    assert len(checks) >= (TALK_CHECKS if deck.stem[:2].isdigit() else 1), f"{deck}: {len(checks)} claim checks"
    page = outputs.html.read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # what the slides say, highlighting spans and all
    shown = "\n".join(c.source for c in nb.cells if c.cell_type == "code" and not is_check(c))  # may repeat a line
    for check in checks:
        assert check.outputs == [], f"{deck}:{check.metadata['jaxdeck']['line']}: a check prints nothing"
        for line in check.source.splitlines():
            if len(line.strip()) > 12 and line.strip() not in shown:
                assert line.strip() not in text, f"{deck}: check text on a slide: {line!r}"


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_slide_has_notes(built, deck):
    _, nb = built(deck)
    notes, needs_none = notes_by_slide(nb), slides_with_class(nb, NO_NOTES)  # `## Questions? {.no-notes}`
    missing = [k for k in range(1, slide_count(nb) + 1)
               if k not in needs_none and not "".join(notes.get(k, [])).strip()]
    assert not missing, f"{deck}: slides without notes: {missing}"


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_html_presents_offline_with_every_slide(built, browser, deck):
    from jaxdeck.browser import script
    from jaxdeck.pages import open_deck

    outputs, nb = built(deck)
    with open_deck(browser, outputs.html) as (page, requests):
        assert page.evaluate(script("reveal-ready.js")) is True
        total = page.evaluate("Reveal.getTotalSlides()")
        page.evaluate("Reveal.slide(Reveal.getHorizontalSlides().length - 1)")
        page.wait_for_timeout(100)
    assert requests == []
    assert total == slide_count(nb) == source_slide_count(deck)


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_the_build_never_touches_the_source(built, deck):
    before = deck.read_bytes()
    built(deck)
    assert deck.read_bytes() == before


@pytest.fixture(scope="module")
def authors_deck(tmp_path_factory):
    """slides/example.md as a new author may write it, `make check` clean: the header's keys in the
    author's order (not jupytext's alphabetical one) and a closing slide with ``{.no-notes}``; copied
    into a slides/ folder of its own (its pictures beside it) and built there. Returns (deck, built)."""
    import shutil

    from session_builds import deck_builder
    from support import ROOT

    root = tmp_path_factory.mktemp("author")
    shutil.copytree(ROOT / "slides" / "images", root / "slides" / "images")
    text = (ROOT / "slides" / "example.md").read_text(encoding="utf-8")
    header = text.split("\n---\n", 1)[0].split("\n")
    keys = [line for line in header if line.startswith("    ")]
    assert keys == sorted(keys), "example.md's header is in jupytext's order"
    text = text.replace("\n".join(keys), "\n".join(reversed(keys)), 1)
    deck = root / "slides" / "example.md"
    deck.write_text(text.rstrip("\n") + "\n\n---\n\n## Questions? {.no-notes}\n", encoding="utf-8")
    return deck, deck_builder(root / "build")


def test_a_header_in_the_authors_order_passes_the_round_trip_as_it_passes_check(authors_deck):
    from jaxdeck.check.deck import round_trip

    deck, built = authors_deck
    assert round_trip(deck, built(deck)[1], {}) == []
    test_the_write_back_gives_the_deck_back_byte_for_byte(built, deck)


def test_a_no_notes_slide_passes_the_notes_test_as_it_passes_check(authors_deck):
    from jaxdeck.check.deck import missing_notes

    deck, built = authors_deck
    nb = built(deck)[1]
    assert slides_with_class(nb, NO_NOTES) == {slide_count(nb)}
    assert missing_notes(deck, nb, {}) == []
    test_every_slide_has_notes(built, deck)


def test_a_round_trip_failure_shows_the_lines_that_differ(authors_deck, tmp_path):
    import shutil

    deck, built = authors_deck
    outputs, _ = built(deck)
    edited = tmp_path / "slides" / deck.name  # the deck edited after its build: the notebook writes back the old line
    shutil.copytree(deck.parent, edited.parent)
    edited.write_text(deck.read_text(encoding="utf-8").replace("# An example deck\n", "# An edited deck\n", 1),
                      encoding="utf-8")
    with pytest.raises(AssertionError) as failed:
        test_the_write_back_gives_the_deck_back_byte_for_byte(lambda _: built(deck), edited)
    said = str(failed.value).split("\nassert ")[0].splitlines()  # pytest indents a message's later lines
    diff = [line.removeprefix("  ") for line in said[1:]]
    assert diff[:3] == ["--- example.md (the deck)", "+++ example.md (written back)", "@@ -8,7 +8,7 @@"], said
    changed = [line for line in diff[3:] if line.startswith(("-", "+"))]
    assert changed == ["-# An edited deck", "+# An example deck"], said  # the line that differs, with its context


def test_the_deck_tests_run_on_the_one_deck_make_test_names(authors_deck):
    """`make test DECK=NAME` sets JAXDECK_TEST_DECK: the deck tests run on that file alone, wherever it is."""
    from support import ROOT

    deck, _ = authors_deck
    env = {**os.environ, "JAXDECK_TEST_DECK": str(deck)}
    chosen = "write_back_gives or every_slide_has_notes"
    listed = subprocess.run([sys.executable, "-m", "pytest", "-q", "--co", "-p", "no:randomly", __file__, "-k", chosen],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    ids = [line.split("::")[1] for line in listed.stdout.splitlines() if "::" in line]
    assert ids == ["test_the_write_back_gives_the_deck_back_byte_for_byte[example]",
                   "test_every_slide_has_notes[example]"], listed.stdout + listed.stderr
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", __file__, "-k", chosen],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and "2 passed" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-2000:]
