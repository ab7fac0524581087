"""Auto-fit of marker-less decks: sections cut at block boundaries where the laid-out slide runs out."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import nbformat
import pytest

from jaxdeck.html import myst
from jaxdeck.html.fit import fit, fit_in_browser
from jaxdeck.html.fit_blocks import explode, is_piece
from jaxdeck.html.fit_cuts import cuts_of
from jaxdeck.html.fit_measure import CellBox, SlideFill, cell_ids, fills_from_page, measure_page
from jaxdeck.html.fit_record import CONTINUED
from jaxdeck.read import deck_to_notebook
from jaxdeck.read.structure import NOTES, SLIDE, SUBSLIDE
from support import DECKS, deck_id

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fit"
ROOM = 600.0
LINE = 100.0  # every non-blank source line of a shown cell is this tall on the fake slide


def slides_of(nb) -> list[list[int]]:
    """The cells of each slide, by the slide types the HTML layout reads."""
    slides: list[list[int]] = []
    for index, cell in enumerate(nb.cells):
        if index == 0 or cell.metadata.get("jaxdeck", {}).get("slide_type") in (SLIDE, SUBSLIDE):
            slides.append([])
        slides[-1].append(index)
    return slides


class FakeDeck:
    """``render`` and ``measure`` with deterministic heights: LINE per non-blank line, stacked from 0."""

    def __init__(self):
        self.renders: list[nbformat.NotebookNode] = []

    def render(self, nb):
        self.renders.append(copy.deepcopy(nb))
        return len(self.renders) - 1

    def measure(self, handle) -> list[SlideFill]:
        nb = self.renders[handle]
        fills = []
        for number, cells in enumerate(slides_of(nb)):
            top, boxes = 0.0, []
            for index in cells:
                if not is_piece(nb.cells[index]):
                    continue
                height = LINE * sum(1 for line in nb.cells[index].source.split("\n") if line.strip())
                boxes.append(CellBox(index, top, top + height))
                top += height
            fills.append(SlideFill(number, ROOM, tuple(boxes)))
        return fills


def run_fit(nb, **kwargs):
    fake = FakeDeck()
    return fit(nb, fake.render, fake.measure, **kwargs), fake


def shown(nb, cells) -> list[str]:
    return [nb.cells[i].source for i in cells if is_piece(nb.cells[i])]


def paragraphs(count: int) -> str:
    return "".join(f"Paragraph {k}.\n\n" for k in range(1, count + 1))


def test_a_long_section_becomes_two_slides_with_a_continued_heading(write_deck):
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(10)))
    before = copy.deepcopy(nb)
    fitted, fake = run_fit(nb)
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert slides == [["## Heading"] + [f"Paragraph {k}." for k in range(1, 6)],
                      ["## Heading" + CONTINUED] + [f"Paragraph {k}." for k in range(6, 11)]]
    assert nb == before  # the notebook given is never changed
    assert len(fake.renders) == 2  # one cut, one measurement that finds nothing left to cut
    continued = next(c for c in fitted.cells if c.source.endswith(CONTINUED))
    assert continued.metadata["jaxdeck"]["slide_type"] == SUBSLIDE
    assert continued.metadata["slideshow"]["slide_type"] == SUBSLIDE
    assert len({c.id for c in fitted.cells}) == len(fitted.cells)


def test_one_measurement_cuts_a_long_section_several_times(write_deck):
    fitted, fake = run_fit(deck_to_notebook(write_deck("# Heading\n\n" + paragraphs(25))))
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert len(slides) == 5 and all(len(s) == 6 for s in slides)
    assert [s[0] for s in slides] == ["# Heading"] + ["# Heading" + CONTINUED] * 4
    assert len(fake.renders) == 2


def test_a_code_cell_is_never_split(write_deck):
    code = "\n".join(f"x{k} = {k}" for k in range(3))
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(4) + f"```python\n{code}\n```\n\nAfter.\n"))
    fitted, _ = run_fit(nb)
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert slides == [["## Heading"] + [f"Paragraph {k}." for k in range(1, 5)],
                      ["## Heading" + CONTINUED, code, "After."]]
    assert [c.source for c in fitted.cells if c.cell_type == "code"] == [code]


def test_a_list_stays_whole(write_deck):
    items = "\n".join(f"- item {k}" for k in range(1, 5))
    fitted, _ = run_fit(deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(3) + items + "\n")))
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert slides == [["## Heading"] + [f"Paragraph {k}." for k in range(1, 4)], ["## Heading" + CONTINUED, items]]


def test_a_piece_taller_than_a_slide_stays_alone_and_fitting_stops(write_deck):
    tall = "\n".join(f"line {k} of one long paragraph" for k in range(8))
    nb = deck_to_notebook(write_deck(f"## Heading\n\nBefore.\n\n{tall}\n\nAfter.\n"))
    fitted, fake = run_fit(nb, max_rounds=10)
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert slides == [["## Heading", "Before."], ["## Heading" + CONTINUED, tall], ["## Heading" + CONTINUED, "After."]]
    assert len(fake.renders) == 2  # the second measurement still overflows, but there is nothing to cut


def test_a_heading_last_on_a_slide_moves_with_what_it_heads(write_deck):
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(4) + "#### Sub\n\nUnder it.\n"))
    sub = next(c for c in nb.cells if c.source.startswith("#### Sub"))
    sub.metadata["jaxdeck"]["slide_type"] = "-"  # a heading inside the section, not a slide of its own
    fitted, _ = run_fit(nb)
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert slides == [["## Heading"] + [f"Paragraph {k}." for k in range(1, 5)],
                      ["## Heading" + CONTINUED, "#### Sub", "Under it."]]


def test_a_lead_in_ending_with_a_colon_moves_with_the_code_it_introduces(write_deck):
    code = "x = 1\ny = 2"
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(3) + "As follows:\n\n"
                                     f"```python\n{code}\n```\n\nAfter.\n"))
    fitted, _ = run_fit(nb)
    slides = [shown(fitted, cells) for cells in slides_of(fitted)]
    assert slides == [["## Heading"] + [f"Paragraph {k}." for k in range(1, 4)],
                      ["## Heading" + CONTINUED, "As follows:", code, "After."]]


def test_a_deck_with_markers_is_returned_unchanged(write_deck):
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(10) + "---\n\n## Next\n\n" + paragraphs(10)))
    assert nb.metadata["jaxdeck_build"]["marker_mode"]
    fitted, fake = run_fit(nb)
    assert fitted == nb and fitted is not nb
    assert fake.renders == []


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_the_decks_in_slides_keep_their_own_layout(deck):
    """Every deck in slides/ has markers: never measured, never cut, no cuts file for the live view."""
    nb = deck_to_notebook(deck)
    fitted, fake = run_fit(nb)
    assert fitted == nb and fake.renders == []
    assert cuts_of(fitted) == []


def test_a_deck_that_fits_is_measured_once_and_only_exploded(write_deck):
    fitted, fake = run_fit(deck_to_notebook(write_deck("## Heading\n\nOne.\n\nTwo.\n")))
    assert len(fake.renders) == 1
    assert [c.source for c in fitted.cells] == ["## Heading", "One.", "Two."]
    assert [c.metadata["jaxdeck"]["slide_type"] for c in fitted.cells] == [SLIDE, "-", "-"]
    assert [c.metadata["jaxdeck"]["line"] for c in fitted.cells] == [1, 3, 5]


MIXED = """(intro)=
## Heading

A paragraph
on two lines with a [link][ref].

- loose

- list

| a | b |
|---|---|
| 1 | 2 |

```python
x = 1

y = 2
```

<div class="box">
raw html
</div>

$$
a + b
$$

> quote
>
> more

[ref]: https://example.org/
"""


def test_exploding_a_cell_keeps_what_it_renders():
    cell = nbformat.v4.new_markdown_cell(MIXED.rstrip("\n"))
    cell.metadata["jaxdeck"] = {"line": 10, "slide": 1, "slide_type": SLIDE}
    pieces = explode(cell)
    assert len(pieces) == 8  # the target travels with its heading; lists, tables, fences stay whole
    assert pieces[0].source.startswith("(intro)=\n## Heading")
    assert "".join(myst.render(p.source) for p in pieces) == myst.render(cell.source)
    assert [p.metadata["jaxdeck"]["slide_type"] for p in pieces] == [SLIDE] + ["-"] * 7
    assert pieces[2].metadata["jaxdeck"]["line"] == 10 + MIXED.split("\n").index("- loose")


def test_notes_removed_and_empty_cells_are_no_pieces():
    notes = nbformat.v4.new_markdown_cell("Note: first.\n\nSecond paragraph of the notes.")
    notes.metadata["jaxdeck"] = {"line": 1, "slide": 1, "slide_type": NOTES}
    removed = nbformat.v4.new_markdown_cell("One.\n\nTwo.")
    removed.metadata.update(tags=["remove-cell"], jaxdeck={"line": 1, "slide": 1, "slide_type": "-"})
    empty = nbformat.v4.new_markdown_cell("  \n")
    for cell in (notes, removed, empty):
        assert not is_piece(cell) and explode(cell) == [cell]


def test_a_note_paragraph_of_a_marker_less_file_is_prose_cut_like_any_other(write_deck):
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(6) + "Note: said aloud.\n\nMore notes.\n"))
    fitted, _ = run_fit(nb)
    slides = slides_of(fitted)
    assert not [c for c in fitted.cells if c.metadata["jaxdeck"]["slide_type"] == NOTES]
    assert "Note: said aloud." in shown(fitted, slides[-1])


# ---------------------------------------------------------------------- a real browser

def test_the_page_names_cells_by_index_or_by_id():
    found = [{"index": 0, "available": 700, "cells": [{"cell": 3, "id": None, "top": 1, "bottom": 2},
                                                       {"cell": None, "id": "cell-007", "top": 2, "bottom": 9},
                                                       {"cell": None, "id": "unknown", "top": 9, "bottom": 10}]}]
    assert fills_from_page(found, {"cell-007": 5}) == [SlideFill(0, 700.0, (CellBox(3, 1.0, 2.0), CellBox(5, 2.0, 9.0)))]


def test_a_page_without_cell_markup_is_an_error_not_a_silent_no_op(write_deck, monkeypatch):
    from jaxdeck.html import fit as module

    monkeypatch.setattr(module, "measure_page", lambda *args: [SlideFill(0, 720.0, ())])
    nb = deck_to_notebook(write_deck("## Heading\n\n" + paragraphs(3)))
    with pytest.raises(RuntimeError, match="data-jd-cell"):
        fit_in_browser(nb, lambda candidate: "deck.html", browser=None, size=(1280, 720))


@pytest.mark.heavy
@pytest.mark.browser
def test_a_tutorial_without_markers_fits_in_chromium(tmp_path, browser):
    from jaxdeck.check.deck import browser_problems
    from jaxdeck.html.export import export_html

    deck = tmp_path / "slides" / "tutorial.md"
    deck.parent.mkdir()
    shutil.copy(FIXTURES / "tutorial.md", deck)
    source = deck.read_bytes()
    nb = deck_to_notebook(deck)
    before = copy.deepcopy(nb)
    size = (1280, 720)
    out = tmp_path / "html" / "tutorial.html"

    def export(candidate):
        return export_html(candidate, deck, out, fit=False)

    unfitted = measure_page(browser, export(nb), size, cell_ids(nb))
    assert any(fill.overflows for fill in unfitted)
    assert sum(len(f.cells) for f in unfitted) == sum(1 for c in nb.cells if is_piece(c))

    fitted = fit_in_browser(nb, export, browser, size)
    html = export(fitted)
    fills = measure_page(browser, html, size, cell_ids(fitted))
    assert fills and not [f.index for f in fills if f.overflows]
    assert len(fills) > len(unfitted)
    assert not [p for p in browser_problems(deck, fitted, html, browser) if p.kind == "overflow"]

    # every slide after a cut opens with its section's heading, marked as continued
    headings = [fitted.cells[f.cells[0].cell].source for f in fills]
    assert "## Tracing a function" + CONTINUED in headings and "## Compiling with XLA" + CONTINUED in headings
    # nothing lost, nothing split: each code cell whole, each paragraph once, in order
    assert [c.source for c in fitted.cells if c.cell_type == "code"] == [c.source for c in nb.cells if c.cell_type == "code"]
    blocks = [b for c in nb.cells if c.cell_type == "markdown" for b in c.source.split("\n\n")]
    kept = [c.source for c in fitted.cells if c.cell_type == "markdown" and not c.source.endswith(CONTINUED)]
    assert kept == blocks
    assert deck.read_bytes() == source and nb == before


def test_a_pause_marker_stays_with_the_block_it_reveals(write_deck):
    nb = deck_to_notebook(write_deck("## Heading\n\nFirst.\n\n. . .\n\nRevealed.\n\nAfter it.\n"))
    assert not nb.metadata["jaxdeck_build"]["marker_mode"]
    fitted, _ = run_fit(nb)
    assert [(c.source, c.metadata["jaxdeck"]["slide_type"]) for c in fitted.cells] == [
        ("## Heading", SLIDE), ("First.", "-"), (". . .\n\nRevealed.", "fragment"), ("After it.", "-")]
