"""The live slideshow cut into the static deck's slides: MyST cells at their breaks, long sections where the fit cut them.

A MyST Markdown cell stays one cell in the notebook (jupytext writes ``+++`` between two
markdown cells, so a split could not be written back as it was), and a deck without slide
markers is cut to fit only in the copy the HTML export renders (:mod:`jaxdeck.html.fit`,
which keeps its cuts in ``build/html/NAME.cuts.json``). RISE shows one cell's slides only if
they are cells of their own, so :func:`cut_view` cuts the served notebook the same way:

- a cell with recorded breaks (``metadata.jaxdeck.breaks``) becomes one cell per piece;
- at each cut of the last fit whose line still reads as it did, a sub-slide starts, headed
  by the section's heading and " (continued)" as in the static deck.

Each piece remembers the cell it came from, the blank lines it ended with and the
``slideshow`` value it had; :func:`join_view` glues the pieces back on save (with the
presenter's edits), so the file changes only where a line was edited. A piece whose
neighbours were deleted or moved away is saved as a cell of its own.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import nbformat

from jaxdeck.html.fit_record import Cut
from jaxdeck.live import stash
from jaxdeck.read.structure import CONTINUE, SUBSLIDE
from jaxdeck.records import cell_info, set_cell_info, update_cell_info

#: what a piece remembers, in ``metadata.jaxdeck``: {"of", "n", "tail", "prefix", "slideshow"} or {"inserted": True}
PIECE_KEY = "live_piece"


def _trailing_blank(text: str) -> tuple[str, str]:
    """``text`` without its trailing blank lines, and those lines (to put back on save)."""
    lines = text.split("\n")
    kept = len(lines)
    while kept > 1 and not lines[kept - 1].strip():
        kept -= 1
    shown = "\n".join(lines[:kept])
    return shown, text[len(shown):]


def _starts(cell, cuts: dict[int, Cut]) -> dict[int, tuple[dict, str | None]]:
    """Where a cell is cut: line offset -> (the piece's ``jaxdeck`` info, continued heading or None)."""
    info = cell_info(cell)
    line = info.get("line")
    found: dict[int, tuple[dict, str | None]] = {}
    slide = info.get("slide", 1)
    slides = {0: slide}
    for piece in info.get("breaks") or []:
        offset = int(piece["offset"])
        found[offset] = ({k: v for k, v in piece.items() if k != "offset"}, None)
        slides[offset] = piece.get("slide", slide)
    if line is None:
        return found
    lines = cell.source.split("\n")
    last = len(lines) if cell.cell_type == "markdown" else 1
    for offset in range(last):
        cut = cuts.get(int(line) + offset)
        if cut is None or offset in found or lines[offset] != cut.text:
            continue  # a break already starts a slide here, or the line changed since the fit
        within = max(k for k in slides if k <= offset)
        found[offset] = ({"line": int(line) + offset, "slide": slides[within], "slide_type": SUBSLIDE}, cut.heading)
    return found


def _slideshow(cell, kind: str) -> None:
    cell.metadata["slideshow"] = dict(cell.metadata.get("slideshow") or {}, slide_type=kind)


def _heading_cell(heading: str, info: dict) -> nbformat.NotebookNode:
    """A continued heading above a code cell a cut falls before (dropped on save)."""
    cell = nbformat.v4.new_markdown_cell(heading)
    set_cell_info(cell, {**info, PIECE_KEY: {"inserted": True}})
    cell.metadata["slideshow"] = {"slide_type": SUBSLIDE}
    return cell


def _pieces(cell, starts: dict[int, tuple[dict, str | None]]) -> list:
    """One cell as the cells RISE shows, each with its effective slide type in ``slideshow`` and
    remembering what :func:`join_view` needs."""
    own = copy.deepcopy(cell.metadata.get("slideshow"))
    info = {k: v for k, v in cell_info(cell).items() if k != "breaks"}
    kept = {k: info[k] for k in ("images",) if k in info}
    head = starts.pop(0, None)
    if head is not None:
        info = {**info, "slide_type": head[0]["slide_type"]}

    def remember(piece, number: int, tail: str = "", prefix: str = "") -> None:
        update_cell_info(piece, **{PIECE_KEY: {
            "of": cell.get("id"), "n": number, "tail": tail, "prefix": prefix, "slideshow": own}})
        kind = cell_info(piece).get("slide_type")
        if kind is not None:  # RISE reads ``slideshow``, which a deck may set on some cells only
            _slideshow(piece, kind)

    if cell.cell_type != "markdown":
        out = []
        heading = head[1] if head is not None else None
        if heading:
            out.append(_heading_cell(heading, head[0]))
            info["slide_type"] = CONTINUE
        set_cell_info(cell, info)
        remember(cell, 0)
        return out + [cell]
    lines = cell.source.split("\n")
    offsets = [0] + sorted(starts)
    out = []
    for number, start in enumerate(offsets):
        end = offsets[number + 1] if number + 1 < len(offsets) else len(lines)
        shown, tail = _trailing_blank("\n".join(lines[start:end]))
        piece = cell if number == 0 else copy.deepcopy(cell)
        piece_info, heading = (info, head[1] if head else None) if number == 0 else starts[start]
        prefix = f"{heading}\n\n" if heading else ""
        piece.source = prefix + shown
        set_cell_info(piece, {**piece_info, **kept})
        remember(piece, number, tail, prefix)
        if number:
            piece["id"] = f"{str(cell.get('id') or 'cell')[:50]}-live{number}"
        out.append(piece)
    return out


def cut_view(nb: nbformat.NotebookNode, cuts: Sequence[Cut] = ()) -> None:
    """Cut the served notebook's cells at their recorded breaks and at the fit's ``cuts``, and give
    every cell its effective slide type (``metadata.jaxdeck.slide_type``) where RISE reads it."""
    by_line = {cut.line: cut for cut in cuts}
    nb.cells = [piece for cell in nb.cells for piece in _pieces(cell, _starts(cell, by_line))]


def join_view(nb: dict) -> None:
    """Undo :func:`cut_view` on the JSON model a save receives: consecutive pieces of one cell
    become that cell again, the continued headings go, each cell gets its own ``slideshow`` back."""
    cells: list[dict] = []
    last: tuple | None = None  # (cell id, piece number) of the piece cells[-1] ends with
    for cell in nb.get("cells", []):
        metadata = cell.setdefault("metadata", {})
        piece = stash.take(cell, PIECE_KEY)
        if not isinstance(piece, dict):
            cells.append(cell)
            last = None
            continue
        if piece.get("inserted"):
            continue
        source = stash.text(cell)
        prefix = piece.get("prefix") or ""
        if prefix and source.startswith(prefix):
            source = source[len(prefix):]
        source += piece.get("tail") or ""
        number = piece.get("n", 0)
        if number and last == (piece.get("of"), number - 1):
            cells[-1]["source"] = stash.text(cells[-1]) + "\n" + source
        else:
            cell["source"] = source
            if piece.get("slideshow") is None:
                metadata.pop("slideshow", None)
            else:
                metadata["slideshow"] = piece["slideshow"]
            cells.append(cell)
        last = (piece.get("of"), number)
    nb["cells"] = cells
