"""Where an auto-fit cuts a slide, and how it cuts it.

:func:`plan_cuts` reads the measured layout (:class:`~jaxdeck.html.fit_measure.SlideFill`)
and picks the pieces before which a new sub-slide starts; :func:`apply_cuts` starts them,
headed by the section's heading and " (continued)"; :func:`cuts_of` reads the cuts made back
out of a fitted deck as the :class:`~jaxdeck.html.fit_record.Cut` records kept beside the HTML.
"""

from __future__ import annotations

from typing import Iterable

import nbformat

from jaxdeck.html.fit_blocks import heading_of, is_piece, leads_in, only_heading, set_slide_type, slide_type, unique_ids
from jaxdeck.html.fit_measure import TOLERANCE_PX, CellBox, SlideFill
from jaxdeck.html.fit_record import CONTINUED, Cut
from jaxdeck.records import cell_info, set_cell_info, update_cell_info
from jaxdeck.markers import SLIDE, SUBSLIDE


def _slide_start(nb: nbformat.NotebookNode, index: int) -> int:
    """The cell that starts the slide ``index`` is on."""
    while index > 0 and slide_type(nb.cells[index]) not in (SLIDE, SUBSLIDE):
        index -= 1
    return index


def _section_heading(cell) -> tuple[int, str] | None:
    """The heading a continuation of the slide ``cell`` starts repeats (level, text)."""
    continues = cell_info(cell).get("continues")
    if continues:
        return int(continues["level"]), str(continues["title"])
    return heading_of(cell)


def plan_cuts(nb: nbformat.NotebookNode, fills: Iterable[SlideFill]) -> list[int]:
    """The cells before which a new sub-slide starts, from how each slide was laid out.

    On an overflowing slide the cut falls at the first piece whose bottom is below the room;
    further cuts on the same slide follow from the same measurement, each piece shifted up by
    what the earlier cut moved away (the next round measures again, so an estimate that is
    off is corrected there). A heading or a lead-in ending with a colon left last on a slide
    moves with what it introduces. A piece
    taller than the slide stays on a slide of its own (after its heading): with nothing else
    to cut, the round plans nothing and fitting ends.
    """
    cuts: list[int] = []
    for fill in fills:
        if not fill.overflows:
            continue
        boxes = sorted((b for b in fill.cells if 0 <= b.cell < len(nb.cells)), key=lambda b: b.cell)
        if not boxes:
            continue
        start = _slide_start(nb, boxes[0].cell)
        headed = only_heading(nb.cells[start]) and boxes[0].cell == start
        # where content begins on this slide: under its heading, else at its first cell
        content_top = boxes[1].top if headed and len(boxes) > 1 else boxes[0].top
        shift = 0.0
        current: list[CellBox] = []  # what the slide being filled holds so far
        for box in boxes:
            fits = box.bottom - shift <= fill.available + TOLERANCE_PX
            if fits or not is_piece(nb.cells[box.cell]):
                current.append(box)
                continue
            content = [b.cell for b in current if is_piece(nb.cells[b.cell]) and not only_heading(nb.cells[b.cell])]
            if content:  # else the piece is alone under its heading: too tall for any slide, it stays
                at = len(current)
                while at > 1 and leads_in(nb.cells[current[at - 1].cell]) and content[0] < current[at - 1].cell:
                    at -= 1
                moved = current[at:]
                cut = moved[0] if moved else box
                cuts.append(cut.cell)
                shift = cut.top - content_top
                current = moved
            current.append(box)
    return sorted(set(cuts))


def apply_cuts(nb: nbformat.NotebookNode, cuts: Iterable[int]) -> int:
    """Start a sub-slide at each cut, headed by the section's heading + " (continued)"; how many."""
    done = 0
    for at in sorted(set(cuts), reverse=True):
        if at <= 0 or at >= len(nb.cells):
            continue
        start = _slide_start(nb, at)
        if start == at:
            continue
        cell = nb.cells[at]
        update_cell_info(cell, cut=True)  # for :func:`cuts_of`
        head = _section_heading(nb.cells[start]) if only_heading(nb.cells[start]) else None
        if head is None:
            set_slide_type(cell, SUBSLIDE)
        else:
            level, title = head
            heading = nbformat.v4.new_markdown_cell(f"{'#' * level} {title}{CONTINUED}")
            info = {"slide_type": SUBSLIDE, "continues": {"level": level, "title": title}}
            for key in ("line", "slide"):
                if key in cell_info(cell):
                    info[key] = cell_info(cell)[key]
            set_cell_info(heading, info)
            if "slideshow" in cell.metadata:
                heading.metadata["slideshow"] = {"slide_type": SUBSLIDE}
            heading["id"] = f"{str(cell.get('id') or f'cell-{at:03d}')[:50]}-cont"
            nb.cells.insert(at, heading)
        done += 1
    if done:
        unique_ids(nb)
    return done


def cuts_of(fitted: nbformat.NotebookNode) -> list[Cut]:
    """The cuts :func:`apply_cuts` made in a fitted deck, in order."""
    found = []
    for index, cell in enumerate(fitted.cells):
        info = cell_info(cell)
        if not info.get("cut") or "line" not in info:
            continue
        before = cell_info(fitted.cells[index - 1]) if index else {}
        continues = before.get("continues")
        heading = f"{'#' * int(continues['level'])} {continues['title']}{CONTINUED}" if continues else None
        found.append(Cut(int(info["line"]), cell.source.split("\n")[0], heading))
    return found
