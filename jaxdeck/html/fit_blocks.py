"""The pieces an auto-fit may cut between: markdown cells split into their top-level blocks.

A cut can only fall between cells, so :func:`explode` turns each markdown cell into one cell
per top-level Markdown block (a list, a table, a fence, a blockquote, an HTML block or a
directive stays whole), parsed by the deck's own MyST parser so that blocks split exactly as
they render. Code cells are never split. The helpers here also say what a cell is to a cut:
a piece of content (:func:`is_piece`), a heading alone (:func:`only_heading`), or a lead-in
that belongs with what follows (:func:`leads_in`).
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass

import nbformat

from jaxdeck.html import myst
from jaxdeck.records import cell_info, update_cell_info
from jaxdeck.html.myst import cell_view
from jaxdeck.markers import CONTINUE, NOTES, SKIP

#: top-level blocks that render nothing: they travel with the block after them
_INVISIBLE = frozenset({"myst_target", "myst_line_comment", "myst_block_break"})


@dataclass(frozen=True)
class _Block:
    """A run of lines of a markdown cell that renders on its own (one top-level block)."""

    start: int
    end: int
    kind: str


# ------------------------------------------------------------------------- the parser

@functools.lru_cache(maxsize=4096)
def _parse(source: str) -> tuple[list[_Block], list[int], tuple[int, str] | None]:
    """Top-level blocks, lines that belong to none (link reference definitions), and the
    heading (level, text) when the first visible block is one."""
    tokens = myst._MD.parse(source)  # the deck's own parser: blocks split as they render
    blocks: list[_Block] = []
    heading = None
    for index, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        kind = token.type
        blocks.append(_Block(token.map[0], token.map[1], kind))
        if kind == "heading_open" and not any(b.kind not in _INVISIBLE for b in blocks[:-1]):
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            heading = (int(token.tag[1:]), inline.content.strip() if inline is not None else "")
    lines = source.split("\n")
    covered = set()
    for block in blocks:
        covered.update(range(block.start, block.end))
    loose = [n for n, text in enumerate(lines) if n not in covered and text.strip()]
    return blocks, loose, heading


def heading_of(cell) -> tuple[int, str] | None:
    """The heading a markdown cell starts with (level, text), if it does."""
    if cell.cell_type != "markdown":
        return None
    return _parse(cell.source)[2]


def only_heading(cell) -> bool:
    """A markdown cell that shows a heading and nothing else (it belongs with what follows)."""
    if heading_of(cell) is None:
        return False
    return sum(1 for b in _parse(cell.source)[0] if b.kind not in _INVISIBLE) == 1


def leads_in(cell) -> bool:
    """A heading alone, or a paragraph that ends with a colon: it introduces what follows, and a
    cut never leaves it last on a slide."""
    if only_heading(cell):
        return True
    if cell.cell_type != "markdown":
        return False
    blocks = [b for b in _parse(cell.source)[0] if b.kind not in _INVISIBLE]
    return len(blocks) == 1 and blocks[0].kind == "paragraph_open" and cell.source.rstrip().endswith(":")


# ---------------------------------------------------------------------- cell helpers

def slide_type(cell) -> str:
    return cell_info(cell).get("slide_type", CONTINUE)


def set_slide_type(cell, kind: str) -> None:
    """The effective slide type in both places the readers look (layout: jaxdeck, RISE: slideshow)."""
    update_cell_info(cell, slide_type=kind)
    if "slideshow" in cell.metadata:
        cell.metadata["slideshow"] = dict(cell.metadata["slideshow"] or {}, slide_type=kind)


def is_piece(cell) -> bool:
    """Whether a cell is shown on a slide as content a cut may fall before."""
    return (cell.cell_type in ("markdown", "code") and bool(cell.source.strip()) and not cell_view(cell).removed
            and slide_type(cell) not in (NOTES, SKIP) and not cell_info(cell).get("in_columns"))


# --------------------------------------------------------------------------- explode

def _spans(cell) -> list[tuple[int, int]]:
    """Line ranges (start, end) of the pieces of a markdown cell: one per visible top-level
    block, invisible blocks (targets, comments, ``+++``) and a leading marker line joined to
    the block after them."""
    blocks, _loose, _heading_ = _parse(cell.source)
    lines = cell.source.split("\n")
    marker = cell_info(cell).get("marker")
    starts: list[int] = []
    carry = False
    for number, block in enumerate(blocks):
        text = "\n".join(lines[block.start:block.end]).strip()
        joins_next = block.kind in _INVISIBLE or (number == 0 and marker is not None and text == marker)
        if not carry:
            starts.append(block.start)
        carry = joins_next
    if not starts:
        return [(0, len(lines))]
    starts[0] = 0
    return [(s, starts[i + 1] if i + 1 < len(starts) else len(lines)) for i, s in enumerate(starts)]


def explode(cell) -> list:
    """One markdown cell as one cell per top-level block, rendering as the whole cell did.

    Trailing blank lines go (a block never needs them); link reference definitions, which
    render nothing, are repeated in every piece so that each piece's links still resolve.
    The first piece keeps the cell's slide type, the others continue its slide.
    """
    if cell.cell_type != "markdown" or not is_piece(cell):
        return [cell]
    spans = _spans(cell)
    if len(spans) < 2:
        return [cell]
    lines = cell.source.split("\n")
    loose = set(_parse(cell.source)[1])
    references = [lines[n] for n in sorted(loose)]
    pieces = []
    for number, (start, end) in enumerate(spans):
        chunk = [text for n, text in enumerate(lines[start:end], start) if n not in loose]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        if references:
            chunk += [""] + references
        piece = nbformat.v4.new_markdown_cell("\n".join(chunk))
        piece.metadata = copy.deepcopy(cell.metadata)
        piece.metadata.pop("lines_to_next_cell", None)
        info = update_cell_info(piece)
        if "line" in info:
            info["line"] = info["line"] + start
        if number:
            for key in ("marker", "column_start"):
                info.pop(key, None)
            set_slide_type(piece, CONTINUE)
        piece["id"] = cell.get("id")
        pieces.append(piece)
    return pieces


def unique_ids(nb: nbformat.NotebookNode) -> None:
    """Every cell a distinct id: the browser side finds cells by it (``id="cell-id=…"``)."""
    nb.nbformat, nb.nbformat_minor = 4, max(5, int(nb.get("nbformat_minor", 5)))
    used: set[str] = set()
    for index, cell in enumerate(nb.cells):
        base = str(cell.get("id") or f"cell-{index:03d}")[:56]
        name, count = base, 0
        while name in used:
            count += 1
            name = f"{base}-{count}"
        used.add(name)
        cell["id"] = name
