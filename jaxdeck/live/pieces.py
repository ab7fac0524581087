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

from jaxdeck.html.fit_record import Block, Cut
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


def _block(cell, blocks: dict[int, Block], offset: int = 0) -> Block | None:
    """The fitted block of the fit that starts at ``offset`` lines into ``cell``, if its text still reads so."""
    line = cell_info(cell).get("line")
    block = blocks.get(int(line) + offset) if line is not None else None
    lines = cell.source.split("\n")
    return block if block is not None and offset < len(lines) and lines[offset] == block.text else None


def _starts(cell, cuts: dict[int, Cut], blocks: dict[int, Block] | None = None) -> dict[int, tuple[dict, str | None]]:
    """Where a cell is cut: line offset -> (the piece's ``jaxdeck`` info, continued heading or None).

    A code cell is cut where the fit split it (its :class:`Block`'s ``split``), at the top-level
    statement the fit chose, so that each piece runs on its own."""
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
    at = 0  # a split part may have been split again: each part's block names where the next starts
    while cell.cell_type == "code" and (block := _block(cell, blocks or {}, at)) is not None and block.split:
        at += block.split
        if not 0 < at < len(lines):
            break
        cut = cuts.get(int(line) + at)
        found[at] = ({"line": int(line) + at, "slide": info.get("slide", 1), "slide_type": SUBSLIDE},
                     cut.heading if cut is not None else None)
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


def _pieces(cell, starts: dict[int, tuple[dict, str | None]], blocks: dict[int, Block]) -> list:
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

    if cell.cell_type != "markdown" and not starts:
        out = []
        heading = head[1] if head is not None else None
        if heading:
            out.append(_heading_cell(heading, head[0]))
            info["slide_type"] = CONTINUE
        set_cell_info(cell, {**info, **_fit(cell, blocks, 0)})
        remember(cell, 0)
        return out + [cell]
    lines = cell.source.split("\n")
    offsets = [0] + sorted(starts)
    outputs = cell.get("outputs") if cell.cell_type == "code" else None
    fits = [_fit(cell, blocks, start) for start in offsets]  # read before the first piece's source changes
    out = []
    for number, start in enumerate(offsets):
        end = offsets[number + 1] if number + 1 < len(offsets) else len(lines)
        shown, tail = _trailing_blank("\n".join(lines[start:end]))
        piece = cell if number == 0 else copy.deepcopy(cell)
        piece_info, heading = (info, head[1] if head else None) if number == 0 else starts[start]
        if outputs is not None:  # a code cell's pieces: its outputs under the last, a heading cell above the others
            piece.outputs = outputs if number == len(offsets) - 1 else []
            if heading:
                out.append(_heading_cell(heading, piece_info))
                piece_info, heading = {**piece_info, "slide_type": CONTINUE}, None
        prefix = f"{heading}\n\n" if heading else ""
        piece.source = prefix + shown
        set_cell_info(piece, {**piece_info, **kept, **fits[number]})
        remember(piece, number, tail, prefix)
        if number:
            piece["id"] = f"{str(cell.get('id') or 'cell')[:50]}-live{number}"
        out.append(piece)
    return out


def _fit(cell, blocks: dict[int, Block], offset: int) -> dict:
    """The fit record of the piece of ``cell`` that starts ``offset`` lines in (as ``{"fit": ...}``), or none."""
    block = _block(cell, blocks, offset)
    return {"fit": block.fit} if block is not None and block.fit else {}


def cut_view(nb: nbformat.NotebookNode, cuts: Sequence[Cut] = (), blocks: Sequence[Block] = ()) -> None:
    """Cut the served notebook's cells at their recorded breaks and at the fit's ``cuts``, split
    and fit its tall blocks as the fit did (``blocks``: ``metadata.jaxdeck.fit``, which the live
    extension draws as the static deck does), and give every cell its effective slide type
    (``metadata.jaxdeck.slide_type``) where RISE reads it."""
    by_line = {cut.line: cut for cut in cuts}
    fitted = {block.line: block for block in blocks}
    nb.cells = [piece for cell in nb.cells for piece in _pieces(cell, _starts(cell, by_line, fitted), fitted)]


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
