"""Every deck in slides/: builds cleanly, round-trips, stays in budget, has notes, presents offline.

Parametrised over the files in slides/, so a new deck is covered without new test code.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
from markdown_it import MarkdownIt

from support import DECKS, ROOT, deck_id
from jaxdeck.check.budget import busy_words, held_to_budget, judged_seconds
from jaxdeck.claims import is_check
from jaxdeck.execute import cell_durations
from jaxdeck.records import cell_info
from jaxdeck.read.structure import notes_by_slide, slide_count

BUDGET_S = 2.0

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


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_plain_jupytext_gives_the_deck_back_byte_for_byte(built, deck, tmp_path):
    outputs, _ = built(deck)
    back = tmp_path / deck.name
    subprocess.run([sys.executable, "-m", "jupytext", "--to", "md", "-o", str(back), str(outputs.notebook)],
                   cwd=ROOT, check=True, capture_output=True)
    assert back.read_bytes() == deck.read_bytes()


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
    load = {cell_info(c).get("line"): (cell_info(c).get("others_share"), cell_info(c).get("cpu_s"))
            for c in nb.cells if c.cell_type == "code"}
    over = [f"{deck}:{line} (slide {slide}) took {seconds:.2f} s{busy_words(seconds, *load.get(line, (None, None)))}"
            for line, slide, seconds, tags in rows
            if judged_seconds(seconds, *load.get(line, (None, None))) > budget and held_to_budget(tags)]
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
    notes = notes_by_slide(nb)
    missing = [k for k in range(1, slide_count(nb) + 1) if not "".join(notes.get(k, [])).strip()]
    assert not missing, f"{deck}: slides without notes: {missing}"


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_html_presents_offline_with_every_slide(built, browser, deck):
    from jaxdeck.browser import open_deck, script

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
