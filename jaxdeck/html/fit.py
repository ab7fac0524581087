"""Auto-fit for decks without slide markers: each section becomes as many slides as it needs.

A tutorial notebook without ``---``/``--`` gets one slide per ``#``/``##`` heading (sub-slide
per ``###``) from :mod:`jaxdeck.read.structure`, so a whole section lands on one slide and
overflows it. :func:`fit` cuts such a deck where the laid-out page says a slide runs out of
room:

1. MyST cells are cut at their recorded slide breaks, then every markdown cell is exploded into one cell per top-level Markdown block (a list, a
   table, a fence, a blockquote, an HTML block or a directive stays whole), so that a cut
   can fall between paragraphs; code cells are never split (:mod:`jaxdeck.html.fit_blocks`),
   but one longer than slides could show keeps only its first lines (:mod:`jaxdeck.html.fit_long`),
   so that every round renders and measures a bounded deck;
2. the candidate is rendered and measured in the browser (``render`` and ``measure`` are
   injected, :func:`fit_in_browser` builds them from Chromium and ``fit.js``:
   :mod:`jaxdeck.html.fit_measure`); on every slide whose cells reach below the room it has,
   a new sub-slide starts at the first piece that does not fit, headed by the section's
   heading and " (continued)" (:mod:`jaxdeck.html.fit_cuts`; the cuts made are kept beside the
   HTML for the live view and the PDF: :mod:`jaxdeck.html.fit_record`);
3. that repeats until nothing overflows or ``max_rounds`` renders were made;
4. a piece taller than a slide, left alone under its heading, is made to fit by what
   ``tall`` reports from the page (smaller type, side by side, outputs cut at a line, a code
   cell split into as many slides as it needs: :mod:`jaxdeck.html.fit_tall`), again until
   nothing changes.

Each round is said as it starts (``step``; at a terminal, on the deck's line of the build's
display: :func:`jaxdeck.progress.step`), and a page that never answers ends the fit in one line
naming the deck (:func:`jaxdeck.browser.about`).

Only the copy the HTML export renders is cut: the source file and the executed notebook
stay as they are, so the round trip to the source stays lossless. A deck with markers
(the build record's ``marker_mode``) is the presenter's own layout and is never re-split.
Continuation slides keep the section's ``metadata.jaxdeck.slide`` number, so ``jaxdeck
check`` and the speaker notes still point at the section's line in the source.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import nbformat

from jaxdeck import progress
from jaxdeck.browser import about
from jaxdeck.html.fit_blocks import explode, unique_ids
from jaxdeck.html.fit_long import MAX_LINES, shorten, too_long
from jaxdeck.html.fit_cuts import apply_cuts, cuts_of, plan_cuts
from jaxdeck.html.fit_measure import SlideFill, cell_ids, measure_page
from jaxdeck.html.fit_record import write_cuts
from jaxdeck.html.fit_tall import Decision, apply_tall, measure_tall
from jaxdeck.html.layout import split_breaks
from jaxdeck.markers import BREAKING
from jaxdeck.records import BuildRecord, cell_info

#: the HTML export imports these from here (cuts_of lives in fit_cuts, write_cuts in fit_record)
__all__ = ["cuts_of", "fit", "fit_in_browser", "marker_less", "write_cuts"]

Render = Callable[[nbformat.NotebookNode], Any]
Measure = Callable[[Any], Sequence[SlideFill]]
Tall = Callable[[Any], Sequence[Decision]]


def marker_less(nb: nbformat.NotebookNode) -> bool:
    """A deck read without ``---``/``--`` markers: its slides are the headings', and may be cut."""
    if BuildRecord.of(nb).marker_mode is not False:  # unknown, or markers found
        return False
    return not any(cell_info(c).get("marker") in BREAKING for c in nb.cells)


def fit(nb: nbformat.NotebookNode, render: Render, measure: Measure, *, max_rounds: int = 3,
        tall: Tall | None = None, max_tall_rounds: int = 4,
        step: Callable[[str], None] | None = None) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose slides fit: exploded into blocks, code cells longer than slides
    could show cut to their first lines (:mod:`jaxdeck.html.fit_long`), cut where the measured
    layout overflows, then its blocks taller than a slide fitted by ``tall`` (see the module
    docstring). ``nb`` itself is left as it is; a deck with slide markers comes back as an
    unchanged copy, without a render. ``step(what)`` hears of each round as it starts."""
    fitted = copy.deepcopy(nb)
    if not marker_less(fitted):
        return fitted
    said = step or (lambda what: None)
    fitted.cells = [block for cell in fitted.cells for piece in split_breaks(cell) for block in explode(piece)]
    unique_ids(fitted)
    shorten(fitted)
    for number in range(1, max_rounds + 1):
        said(f"fit: measuring {len(fitted.cells)} blocks, round {number} of at most {max_rounds}")
        fills = measure(render(fitted))
        if not apply_cuts(fitted, plan_cuts(fitted, fills)):
            break
    if tall is not None:  # also where nothing overflows: code lines wider than their frame
        for number in range(1, max_tall_rounds + 1):
            said(f"fit: blocks taller than a slide, round {number} of at most {max_tall_rounds}")
            if not apply_tall(fitted, list(tall(render(fitted)))):
                break
    return fitted


def fit_in_browser(nb: nbformat.NotebookNode, export_to_html: Callable[[nbformat.NotebookNode], str | Path],
                   browser, size: tuple[int, int], *, max_rounds: int = 3) -> nbformat.NotebookNode:
    """:func:`fit` with the deck's own exporter as ``render`` and Chromium as ``measure``.

    ``export_to_html(nb)`` writes an HTML deck (assets beside it) and returns its path;
    ``size`` is the deck's (width, height). Raises when the page names no cells at all:
    without per-cell markup nothing could be measured, and silently fitting nothing would hide it.
    A code cell cut to its first lines is said on stderr; the rounds on the build's display; a page
    that never answers as one line naming the deck.
    """
    rendered: dict[str, dict[str, int]] = {}

    def render(candidate: nbformat.NotebookNode):
        rendered["ids"] = cell_ids(candidate)
        return export_to_html(candidate)

    def measure(html) -> list[SlideFill]:
        fills = measure_page(browser, html, size, rendered["ids"])
        if fills and not any(f.cells for f in fills):
            raise RuntimeError(f"{html}: no cell elements found (fit.js looks for data-jd-cell or "
                               "id=\"cell-id=…\" on each cell's wrapper)")
        return fills

    def tall(html) -> list[Decision]:
        return measure_tall(browser, html, size)

    source = BuildRecord.of(nb).source
    deck = Path(source).name if source else None
    for long in too_long(nb) if marker_less(nb) else ():  # said here, once: fit() cuts its own copy
        where = f"{source}:{long.line}" if source and long.line else (source or "a deck")
        print(f"jaxdeck: {where}: a code cell of {long.lines:,} lines; the slides show its first {MAX_LINES} "
              "(the notebook has them all)", file=sys.stderr)
    with about(source):
        return fit(nb, render, measure, max_rounds=max_rounds, tall=tall,
                   step=(lambda what: progress.step(deck, what)) if deck else None)
