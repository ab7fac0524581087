"""How a rendered deck lies on its slides, measured in Chromium: the ``measure`` of an auto-fit.

The page runs the theme's ``fit.js`` (:func:`jaxdeck.browser.script`), which reports every
reveal.js slide with the room its content has and where each notebook cell on it lies;
:func:`fills_from_page` turns that answer into :class:`SlideFill` records, the only thing
the cutting (:mod:`jaxdeck.html.fit_cuts`) reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import nbformat

#: a bottom this far past the room is sub-pixel rounding, not overflow (check reports from 2 px)
TOLERANCE_PX = 1.0


@dataclass(frozen=True)
class CellBox:
    """Where one notebook cell lies on its slide, in slide pixels from the slide's top."""

    cell: int
    top: float
    bottom: float


@dataclass(frozen=True)
class SlideFill:
    """One reveal.js slide as laid out: its place in ``Reveal.getSlides()``, the height its
    content may use, and the cells shown on it."""

    index: int
    available: float
    cells: tuple[CellBox, ...]

    @property
    def overflows(self) -> bool:
        return any(box.bottom > self.available + TOLERANCE_PX for box in self.cells)


def fills_from_page(found: Sequence[dict], ids: dict[str, int]) -> list[SlideFill]:
    """fit.js's answer as records: a cell element names its index (``data-jd-cell``) or its id."""
    fills = []
    for slide in found:
        boxes = []
        for cell in slide["cells"]:
            index = cell.get("cell")
            if index is None:
                index = ids.get(cell.get("id") or "")
            if index is not None:
                boxes.append(CellBox(int(index), float(cell["top"]), float(cell["bottom"])))
        fills.append(SlideFill(int(slide["index"]), float(slide["available"]), tuple(boxes)))
    return fills


def measure_page(browser, html: str | Path, size: tuple[int, int], ids: dict[str, int]) -> list[SlideFill]:
    """Every slide of an HTML deck as laid out in Chromium at the deck's size (fit.js)."""
    from jaxdeck.browser import fonts_ready, run_script
    from jaxdeck.pages import open_deck

    width, height = size
    with open_deck(browser, html, width=width, height=height) as (page, _requests):
        fonts_ready(page)
        found = run_script(page, "fit.js")
    return fills_from_page(found, ids)


def cell_ids(nb: nbformat.NotebookNode) -> dict[str, int]:
    """Cell id -> index, to read back cells the page names by id."""
    return {str(c.get("id")): i for i, c in enumerate(nb.cells) if c.get("id")}
