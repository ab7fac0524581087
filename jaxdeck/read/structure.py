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

Where a cell breaks is :mod:`jaxdeck.read.breaks`' to find; here the cells are cut there.

A MyST notebook's markdown cells are never split: jupytext writes ``+++`` between any two
consecutive markdown cells, so a split could not be written back as it was. Each MyST
cell stays whole and the slide breaks inside it are recorded in ``metadata.jaxdeck.breaks``
(each with its ``offset``, the index of its first line in the cell's source, and the
same keys a cell's ``jaxdeck`` info has), for the layout to cut the cell there.
:func:`slide_pieces` gives a cell's slide pieces either way.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs.parse import ParseError
from mdit_py_plugins.attrs.parse import parse as parse_attributes

from jaxdeck.errors import DeckError
from jaxdeck.markers import (COLUMN_MARKER, CONTINUE, FRAGMENT, NOTE_PREFIX, NOTES, SKIP, SLIDE,  # noqa: F401
                             SUBSLIDE)
from jaxdeck.read.breaks import Piece, hand_over, is_breaking, split_points
from jaxdeck.read.formats import JUPYTEXT_CELL_KEYS
from jaxdeck.records import ReadFacts, cell_info, set_cell_info, update_cell_info
from jaxdeck.tokens import parsed

_markdown = MarkdownIt("commonmark")
#: Jupyter Book's tag for a cell that shows nowhere
REMOVE_CELL = "remove-cell"


def trailing_attributes(text: str) -> tuple[str, dict] | None:
    """A heading's slide attributes, Quarto's spelling: ``"Title {.smaller}"`` as
    ``("Title", {"class": "smaller"})`` (read by mdit-py-plugins' attribute parser); None when the
    text does not end with a whole attribute block after a space (``{.smaller`` stays text)."""
    stripped = text.rstrip()
    if not stripped.endswith("}"):
        return None
    at = stripped.rfind("{")
    while at > 0:
        if stripped[at - 1] in " \t":
            try:
                end, attrs = parse_attributes(stripped[at:])
            except ParseError:
                end, attrs = -1, {}
            if at + end == len(stripped) - 1:
                return stripped[:at].rstrip(), attrs
        at = stripped.rfind("{", 0, at)
    return None


def explicit_metadata(cell) -> dict:
    """The cell metadata the deck wrote itself (jupytext's own bookkeeping keys excluded)."""
    return {k: v for k, v in cell.metadata.items() if k not in JUPYTEXT_CELL_KEYS}


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


def is_myst(nb: nbformat.NotebookNode) -> bool:
    """True for a notebook read from a MyST Markdown file."""
    representation = (nb.metadata.get("jupytext") or {}).get("text_representation") or {}
    return representation.get("format_name") == "myst"


def derive(nb: nbformat.NotebookNode, lines: list[int], path: str | Path,
           problems: list[DeckError] | None = None,
           warnings: list[DeckError] | None = None, images: dict | None = None,
           ) -> tuple[nbformat.NotebookNode, ReadFacts]:
    """Split markdown cells at markers and record each cell's slide type, line and slide number (and the
    remote ``images`` it shows); the notebook, and its source, slide count and marker mode for the build record.

    MyST cells stay whole, their inner breaks recorded in ``metadata.jaxdeck.breaks``. A wrong marker
    is a DeckError at its line: every one is kept in ``problems`` when given, else the first is raised
    once all are found. A spelling only possibly meant as a marker goes to ``warnings`` when given.
    """
    path = Path(path)
    myst = is_myst(nb)
    explicit_slideshow = any("slideshow" in explicit_metadata(c) for c in nb.cells)
    # a MyST cell is never cut, so a cell with metadata of its own has its breaks found too
    splittable = [c.cell_type == "markdown" and (myst or not explicit_metadata(c)) for c in nb.cells]
    # slide markers first: without them the file is a document, and 'Note:' is its prose
    said: list[DeckError] = []  # each pass finds the same wrong markers: those of the last pass are said
    warned: list[DeckError] = []
    found = [split_points(c.source, path, line, False, myst, notes=False, problems=said) if ok else []
             for c, line, ok in zip(nb.cells, lines, splittable)]
    marker_mode = any(is_breaking(pieces) for pieces in found)
    if marker_mode:
        said = []
        found = [split_points(c.source, path, line, False, myst, problems=said, warnings=warned) if ok else []
                 for c, line, ok in zip(nb.cells, lines, splittable)]
    else:
        said = []
    cells = []
    for cell, line, ok, pieces in zip(nb.cells, lines, splittable, found):
        if not ok:
            cells.append((cell, Piece(0, CONTINUE, None), line, []))
            continue
        if not marker_mode:
            pieces = split_points(cell.source, path, line, True, myst, notes=False, problems=said)
        split = _split_cell(cell, pieces) if pieces and not myst else None
        if not split:
            first = pieces[0] if pieces and pieces[0].start == 0 else None
            kind = first.kind if first else CONTINUE
            marker = first.marker if first else None
            inner = [p for p in pieces if p.start > 0] if myst else []
            cells.append((cell, Piece(0, kind, marker), line, inner))
            continue
        for new, piece in split:
            cells.append((new, piece, line + piece.start, []))

    hand_over(said, warned, problems, warnings)
    slide = 0
    column = False
    result = []

    def info_of(piece: Piece, kind: str, line: int) -> dict:
        nonlocal slide, column
        if kind in (SLIDE, SUBSLIDE):
            slide += 1
            column = False
        info = {"line": line, "slide": max(slide, 1), "slide_type": kind}
        if piece.marker and piece.marker != NOTE_PREFIX:
            info["marker"] = piece.marker
        if piece.marker == COLUMN_MARKER:
            info["column_start"] = True
            column = True
        if column:
            info["in_columns"] = True
        return info

    started = False  # a cell that shows has been met
    for index, (cell, piece, line, inner) in enumerate(cells):
        explicit = cell.metadata.get("slideshow", {}).get("slide_type") if "slideshow" in explicit_metadata(cell) else None
        kind = explicit or piece.kind
        if not started and kind in (CONTINUE, FRAGMENT):
            # a removed cell before anything is shown (a tutorial's `%xmode minimal`) starts no slide of its own
            kind = SKIP if REMOVE_CELL in cell.metadata.get("tags", []) else SLIDE
        started = started or kind != SKIP
        info = info_of(piece, kind, line)
        if inner:
            info["breaks"] = [{"offset": p.start, **info_of(p, p.kind, line + p.start)} for p in inner]
        set_cell_info(cell, info)
        cell["id"] = f"cell-{index:03d}"  # stable ids: the same deck gives the same notebook
        if not explicit_slideshow:
            cell.metadata["slideshow"] = {"slide_type": kind}
        result.append(cell)
    nb.cells = result
    for cell in result:
        shown = {url: local for url, local in (images or {}).items()
                 if cell.cell_type == "markdown" and url in cell.source}
        if shown:
            update_cell_info(cell, images=shown)
    return nb, ReadFacts(source=str(path), slides=slide, marker_mode=marker_mode)


def slide_pieces(cell) -> list[tuple[dict, str]]:
    """A cell's slide pieces, each as (its ``jaxdeck`` info, its text).

    One piece for a cell jaxdeck split; for a cell kept whole (MyST) one more per recorded break.
    """
    info = cell_info(cell)
    breaks = info.get("breaks") or []
    if not breaks:
        return [(info, cell.source)]
    lines = cell.source.split("\n")
    starts = [0] + [b["offset"] for b in breaks]
    ends = starts[1:] + [len(lines)]
    return [(piece, "\n".join(lines[start:end]).strip("\n"))
            for piece, start, end in zip([info] + breaks, starts, ends)]


def slide_count(nb: nbformat.NotebookNode) -> int:
    """Number of reveal.js slides (horizontal and vertical) the deck shows."""
    return sum(1 for c in nb.cells for info, _ in slide_pieces(c) if info.get("slide_type") in (SLIDE, SUBSLIDE))


def notes_by_slide(nb: nbformat.NotebookNode) -> dict[int, list[str]]:
    """Speaker notes of each slide, in order, with the 'Note:' prefix removed."""
    notes: dict[int, list[str]] = {}
    for cell in nb.cells:
        for info, text in slide_pieces(cell):
            if info.get("slide_type") == NOTES:
                if text.startswith(NOTE_PREFIX):
                    text = text[len(NOTE_PREFIX):].lstrip()
                notes.setdefault(info["slide"], []).append(text)
    return notes


def slides_with_class(nb: nbformat.NotebookNode, name: str) -> set[int]:
    """The slides one of whose headings has the class ``name`` (``## Questions? {.no-notes}``)."""
    found: set[int] = set()
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for info, text in slide_pieces(cell):
            tokens = parsed(_markdown, text)
            for token, inline in zip(tokens, tokens[1:]):
                attributes = trailing_attributes(inline.content) if token.type == "heading_open" else None
                if attributes and name in str(attributes[1].get("class", "")).split() and "slide" in info:
                    found.add(info["slide"])
    return found
