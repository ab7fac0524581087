"""Stage 1b: derive the slideshow structure of a deck from its reveal.js-style markers.

The deck's markdown cells are split at the marker lines (``---`` slide, ``--``
sub-slide, ``. . .`` pause, ``|||`` column, ``Note:`` speaker notes) into the
cells RISE and reveal.js need. The marker lines stay in the cell sources and each
split records how many blank lines preceded it (jupytext's ``lines_to_next_cell``),
so plain jupytext writes the notebook back to the very same Markdown.

Every cell gets ``metadata.jaxdeck`` (never written back: jupytext's filter drops
it) with its source line, slide number and effective slide type. ``slideshow`` is
set too, for RISE, unless the deck sets ``slideshow`` metadata itself somewhere:
then only the deck's own ``slideshow`` values are kept, so that they round-trip,
and the effective type lives in ``jaxdeck.slide_type`` alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from jupytext.cell_metadata import _JUPYTEXT_CELL_METADATA
from markdown_it import MarkdownIt

from jaxdeck.errors import DeckError

SLIDE, SUBSLIDE, FRAGMENT, NOTES, CONTINUE, SKIP = "slide", "subslide", "fragment", "notes", "-", "skip"

#: marker line -> slide type of the cell it starts
MARKERS = {"---": SLIDE, "--": SUBSLIDE, ". . .": FRAGMENT, "|||": CONTINUE}
NOTE_PREFIX = "Note:"

_markdown = MarkdownIt("commonmark")

_NEAR_MISSES = [
    (re.compile(r"^(\*{3,}|_{3,}|-{4,}|(- ){2,}-)$"), "use '---' for a new slide or '--' for a sub-slide"),
    (re.compile(r"^[\u2013\u2014]$"), "use '---' for a new slide or '--' for a sub-slide (this is a typographic dash)"),
    (re.compile(r"^(\.{2,}|(\. ?){2}|(\. ){3,}\.|\u2026)$"), "use '. . .' (three dots with spaces) for a pause"),
    (re.compile(r"^\|{2}$|^\|{4,}$"), "use '|||' to start a column"),
    (re.compile(r"^(Notes|notes|note|NOTE|NOTES|Note)\s*:|^Notes?\s+:"), "speaker notes start with 'Note:'"),
]


@dataclass
class Piece:
    """A run of lines of one markdown cell that becomes its own notebook cell."""

    start: int  # first line index within the cell
    kind: str  # slide type this piece starts with
    marker: str | None  # the marker line that opened it (None for the cell's first piece)


def explicit_metadata(cell) -> dict:
    """The cell metadata the deck wrote itself (jupytext's own bookkeeping keys excluded)."""
    return {k: v for k, v in cell.metadata.items() if k not in _JUPYTEXT_CELL_METADATA}


def _marker_of(token_type: str, token, inline, source_lines: list[str]) -> str | None:
    if token_type == "hr":
        return source_lines[token.map[0]].strip()
    if token_type == "paragraph_open" and inline is not None:
        return inline.content.strip()
    return None


def split_points(cell_source: str, path: Path, line: int, headings: bool) -> list[Piece]:
    """Where a markdown cell starts new pieces, with the kind each piece starts."""
    tokens = _markdown.parse(cell_source)
    source_lines = cell_source.split("\n")
    pieces: list[Piece] = []
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start = token.map[0]
        where = line + start
        inline = tokens[index + 1] if index + 1 < len(tokens) and tokens[index + 1].type == "inline" else None
        if token.type == "heading_open" and token.markup in ("-",) and inline is not None:
            underline = cell_source.split("\n")[token.map[1] - 1].strip()
            if underline in ("--", "---"):
                raise DeckError(path, line + token.map[1] - 1,
                                f"'{underline}' right under a line of text makes that line a heading",
                                f"leave a blank line before '{underline}' to start a new slide")
        text = _marker_of(token.type, token, inline, source_lines)
        if text is not None and token.type == "hr" and text != "---":
            raise DeckError(path, where, f"unknown slide break '{text}'", _NEAR_MISSES[0][1])
        if token.type == "paragraph_open" and inline is not None:
            content = inline.content.strip()
            first_line = content.split("\n")[0].strip()
            if content in MARKERS:
                pieces.append(Piece(start, MARKERS[content], content))
                continue
            if first_line.startswith(NOTE_PREFIX):
                pieces.append(Piece(start, NOTES, NOTE_PREFIX))
                continue
            for pattern, hint in _NEAR_MISSES:
                probe = first_line if hint.startswith("speaker") else content
                if pattern.match(probe):
                    raise DeckError(path, where, f"unknown slide spelling '{first_line}'", hint)
        if token.type == "hr":
            pieces.append(Piece(start, SLIDE, "---"))
            continue
        if headings and token.type == "heading_open":
            level = len(token.markup) if token.markup.startswith("#") else (1 if token.markup == "=" else 2)
            pieces.append(Piece(start, SLIDE if level <= 2 else SUBSLIDE, None))
    return pieces


def is_breaking(pieces: list[Piece]) -> bool:
    """True when a cell spells a slide break with ``---``/``--`` (else headings start slides)."""
    return any(p.kind in (SLIDE, SUBSLIDE) and p.marker for p in pieces)


def _split_cell(cell, pieces: list[Piece]):
    """Cut one markdown cell into pieces, keeping the blank lines jupytext must write back."""
    lines = cell.source.split("\n")
    starts = [p.start for p in pieces]
    if not starts or starts[0] != 0:
        pieces = [Piece(0, CONTINUE, None)] + pieces
    out = []
    for number, piece in enumerate(pieces):
        end = pieces[number + 1].start if number + 1 < len(pieces) else len(lines)
        chunk = lines[piece.start:end]
        blank = 0
        last = number + 1 == len(pieces)
        while chunk and not chunk[-1].strip() and not last:
            chunk.pop()
            blank += 1
        new = nbformat.v4.new_markdown_cell("\n".join(chunk))
        new.pop("id", None)
        if number + 1 < len(pieces):
            if blank == 0:
                return None  # no blank line before the marker: leave the cell whole
            new.metadata["lines_to_next_cell"] = blank - 1
        elif "lines_to_next_cell" in cell.metadata:
            new.metadata["lines_to_next_cell"] = cell.metadata["lines_to_next_cell"]
        out.append((new, piece))
    return out


def derive(nb: nbformat.NotebookNode, lines: list[int], path: str | Path) -> nbformat.NotebookNode:
    """Split markdown cells at markers and record each cell's slide type, line and slide number."""
    path = Path(path)
    explicit_slideshow = any("slideshow" in explicit_metadata(c) for c in nb.cells)
    splittable = [c.cell_type == "markdown" and not explicit_metadata(c) for c in nb.cells]
    found = [split_points(c.source, path, line, False) if ok else [] for c, line, ok in zip(nb.cells, lines, splittable)]
    marker_mode = any(is_breaking(pieces) for pieces in found)
    cells = []
    for cell, line, ok, pieces in zip(nb.cells, lines, splittable, found):
        if not ok:
            cells.append((cell, Piece(0, CONTINUE, None), line))
            continue
        if not marker_mode:
            pieces = split_points(cell.source, path, line, headings=True)
        split = _split_cell(cell, pieces) if pieces else None
        if not split:
            kind = pieces[0].kind if pieces and pieces[0].start == 0 else CONTINUE
            marker = pieces[0].marker if pieces and pieces[0].start == 0 else None
            cells.append((cell, Piece(0, kind, marker), line))
            continue
        for new, piece in split:
            cells.append((new, piece, line + piece.start))

    slide = 0
    column = False
    result = []
    for index, (cell, piece, line) in enumerate(cells):
        explicit = cell.metadata.get("slideshow", {}).get("slide_type") if "slideshow" in explicit_metadata(cell) else None
        kind = explicit or piece.kind
        if index == 0 and kind in (CONTINUE, FRAGMENT):
            kind = SLIDE
        if kind in (SLIDE, SUBSLIDE):
            slide += 1
            column = False
        info = {"line": line, "slide": max(slide, 1), "slide_type": kind}
        if piece.marker and piece.marker != NOTE_PREFIX:
            info["marker"] = piece.marker
        if piece.marker == "|||":
            info["column_start"] = True
            column = True
        if column:
            info["in_columns"] = True
        cell.metadata["jaxdeck"] = info
        cell["id"] = f"cell-{index:03d}"  # stable ids: the same deck gives the same notebook
        if not explicit_slideshow:
            cell.metadata["slideshow"] = {"slide_type": kind}
        result.append(cell)
    nb.cells = result
    nb.metadata["jaxdeck_build"] = {"source": str(path), "slides": slide, "marker_mode": marker_mode}
    return nb


def slide_count(nb: nbformat.NotebookNode) -> int:
    """Number of reveal.js slides (horizontal and vertical) the deck shows."""
    return sum(1 for c in nb.cells if c.metadata.get("jaxdeck", {}).get("slide_type") in (SLIDE, SUBSLIDE))


def notes_by_slide(nb: nbformat.NotebookNode) -> dict[int, list[str]]:
    """Speaker notes of each slide, in order, with the 'Note:' prefix removed."""
    notes: dict[int, list[str]] = {}
    for cell in nb.cells:
        info = cell.metadata.get("jaxdeck", {})
        if info.get("slide_type") == NOTES:
            text = cell.source
            if text.startswith(NOTE_PREFIX):
                text = text[len(NOTE_PREFIX):].lstrip()
            notes.setdefault(info["slide"], []).append(text)
    return notes
