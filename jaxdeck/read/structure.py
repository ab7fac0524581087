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

A MyST notebook's markdown cells are never split: jupytext writes ``+++`` between any two
consecutive markdown cells, so a split could not be written back as it was. Each MyST
cell stays whole and the slide breaks inside it are recorded in ``metadata.jaxdeck.breaks``
(each with its ``offset``, the index of its first line in the cell's source, and the
same keys a cell's ``jaxdeck`` info has), for the layout to cut the cell there.
:func:`slide_pieces` gives a cell's slide pieces either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.attrs.parse import ParseError
from mdit_py_plugins.attrs.parse import parse as parse_attributes
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from jaxdeck.errors import DeckError
from jaxdeck.markers import (BREAK_HINT, BREAKING, COLUMN_MARKER, CONTINUE, FRAGMENT, MARKER_ROLE,  # noqa: F401
                             MARKERS, NOTE_PREFIX, NOTES, SKIP, SLIDE, SLIDE_MARKER, SUBSLIDE, near_miss)
from jaxdeck.read.formats import JUPYTEXT_CELL_KEYS
from jaxdeck.records import BuildRecord, cell_info, set_cell_info, update_build, update_cell_info
from jaxdeck.tokens import parsed

_markdown = MarkdownIt("commonmark")
#: MyST's block syntax: colon fences, $$ math and +++ breaks are blocks of their own (never split inside)
_myst_markdown = (MarkdownIt("commonmark").use(colon_fence_plugin).use(dollarmath_plugin)
                  .use(myst_block_plugin))
#: Jupyter Book's tag for a cell that shows nowhere
REMOVE_CELL = "remove-cell"
#: an HTML block that ends at a closing mark of its own (a comment, ``<pre>``...), not at a blank line
#: (CommonMark's HTML blocks 1 to 5): its lines are its own, a ``---`` there too
_CLOSED_HTML = re.compile(r"^\s*<(!--|\?|!\[CDATA\[|![A-Za-z]|(script|pre|style|textarea)[\s>])", re.IGNORECASE)
#: a MyST target, ``(label)=``, names the heading right under it
_TARGET = re.compile(r"^\(\S[^()]*\)=\s*$")


@dataclass
class Piece:
    """A run of lines of one markdown cell that becomes its own notebook cell."""

    start: int  # first line index within the cell
    kind: str  # slide type this piece starts with
    marker: str | None  # the marker line that opened it (None for the cell's first piece)


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


def _marker_of(token_type: str, token, inline, source_lines: list[str]) -> str | None:
    if token_type == "hr":
        return source_lines[token.map[0]].strip()
    if token_type == "paragraph_open" and inline is not None:
        return inline.content.strip()
    return None


def split_points(cell_source: str, path: Path, line: int, headings: bool, myst: bool = False,
                 notes: bool = True, problems: list[DeckError] | None = None,
                 warnings: list[DeckError] | None = None) -> list[Piece]:
    """Where a markdown cell starts new pieces, with the kind each piece starts.

    A heading that starts a piece takes the MyST targets (``(label)=``) right above it along.
    Without ``notes`` (a file with no slide markers, written as a document) a paragraph that
    starts with ``Note:`` is the author's prose, like any other. A MyST notebook is a document
    as Jupyter Book reads it: ``---`` there is a transition (a rule), not a slide break, and
    no paragraph is a marker; its slides start at its headings.

    A wrong marker is a DeckError at its line: kept in ``problems`` when given (the cell is read
    on), else raised. A spelling only possibly meant as a marker (``Speaker notes:``) goes to
    ``warnings`` when given.
    """
    found: list[DeckError] = []
    warned: list[DeckError] = []
    pieces = _split_points(cell_source, path, line, headings, myst, notes, found, warned)
    _hand_over(found, warned, problems, warnings)
    return pieces


def _hand_over(found: list[DeckError], warned: list[DeckError], problems: list[DeckError] | None,
               warnings: list[DeckError] | None) -> None:
    """What a read found: errors into ``problems`` and warnings into ``warnings`` when the caller collects
    them (to say every problem of a deck at once), else the first error raised and the warnings dropped."""
    if warnings is not None:
        warnings.extend(warned)
    if problems is not None:
        problems.extend(found)
    elif found:
        raise found[0]


def _verbatim_lines(tokens) -> set[int]:
    """The lines of fences, indented code, math blocks and closed HTML blocks: their text is never a marker."""
    lines: set[int] = set()
    for token in tokens:
        if token.map is not None and (token.type in ("fence", "code_block", "math_block") or
                                      token.type == "html_block" and _CLOSED_HTML.match(token.content)):
            lines.update(range(*token.map))
    return lines


def _unbroken_breaks(tokens, source_lines: list[str], path: Path, line: int) -> list[DeckError]:
    """A ``---`` or ``--`` line outside a fence that starts no slide: right under a list item, a quote
    or any other block, CommonMark reads it as part of that block (a rule or a heading inside it, or
    a line of its text), and the next slide would end up in this one."""
    verbatim = _verbatim_lines(tokens)  # text, never markers
    breaks: set[int] = set()  # the lines that do start a slide: a rule of their own, a blank line above
    underlines: set[int] = set()  # a heading's underline right under its text: said by its own error
    for token in tokens:
        if token.map is None:
            continue
        first = token.map[0]
        if token.type in ("hr", "paragraph_open") and token.level == 0 \
                and (first == 0 or not source_lines[first - 1].strip()):
            breaks.add(first)  # a rule, or a paragraph '--', of its own
        if token.type == "heading_open" and token.level == 0 and token.markup == "-":
            underlines.add(token.map[1] - 1)
    found = []
    for index, text in enumerate(source_lines):
        marker = text.strip()
        if marker not in BREAKING or index in verbatim | breaks | underlines:
            continue
        found.append(DeckError(path, line + index, f"'{marker}' right under the block above it is read as part "
                               "of that block (a list, a quote...), so it starts no slide",
                               f"leave a blank line above '{marker}', at the start of its line, to start a new slide"))
    return found


def _glued_markers(tokens, source_lines: list[str], path: Path, line: int) -> list[DeckError]:
    """A pause or column marker line outside a fence that is not a paragraph of its own: with a line
    of text (or a code fence) right above or below it, CommonMark reads it as a line of that text,
    so it shows as it is written and the slide has no pause or column there."""
    verbatim = _verbatim_lines(tokens)
    alone: set[int] = set()  # the marker lines that are a paragraph of their own, as a marker must be
    for token in tokens:
        if token.map is None:
            continue
        if token.type == "paragraph_open" and token.level == 0 and token.map[1] - token.map[0] == 1:
            alone.add(token.map[0])
    found = []
    for index, text in enumerate(source_lines):
        marker = text.strip()
        if marker not in MARKER_ROLE or index in verbatim | alone:
            continue
        found.append(DeckError(path, line + index, f"'{marker}' with a line of text or a code fence right above "
                               f"or below it is read as part of that text, so it {MARKER_ROLE[marker]} and "
                               f"shows as '{marker}'",
                               f"leave a blank line above and below '{marker}', at the start of its line"))
    return found


def _split_points(cell_source: str, path: Path, line: int, headings: bool, myst: bool, notes: bool,
                  problems: list[DeckError], warnings: list[DeckError]) -> list[Piece]:
    tokens = parsed(_myst_markdown if myst else _markdown, cell_source)
    source_lines = cell_source.split("\n")
    pieces: list[Piece] = []
    if not myst:
        problems.extend(_unbroken_breaks(tokens, source_lines, path, line))
        problems.extend(_glued_markers(tokens, source_lines, path, line))
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start = token.map[0]
        where = line + start
        inline = tokens[index + 1] if index + 1 < len(tokens) and tokens[index + 1].type == "inline" else None
        if token.type == "heading_open" and token.markup in ("-",) and inline is not None:
            underline = cell_source.split("\n")[token.map[1] - 1].strip()
            if underline in BREAKING:
                problems.append(DeckError(path, line + token.map[1] - 1,
                                          f"'{underline}' right under a line of text makes that line a heading",
                                          f"leave a blank line above '{underline}' to start a new slide"))
        if myst:  # a document: its slides start at its headings only
            if headings and token.type == "heading_open":
                pieces.append(_heading_piece(token, start, source_lines, pieces))
            continue
        text = _marker_of(token.type, token, inline, source_lines)
        if text is not None and token.type == "hr" and text != SLIDE_MARKER:
            problems.append(DeckError(path, where, f"unknown slide break '{text}'", BREAK_HINT))
            continue
        if token.type == "paragraph_open" and inline is not None:
            content = inline.content.strip()
            first_line = content.split("\n")[0].strip()
            if content in MARKERS:
                pieces.append(Piece(start, MARKERS[content], content))
                continue
            if notes and first_line.startswith(NOTE_PREFIX):
                pieces.append(Piece(start, NOTES, NOTE_PREFIX))
                continue
            miss = near_miss(content, first_line, notes)
            if miss and miss.warning:
                warnings.append(DeckError(path, where, f"'{first_line}' shows on the slide as text", miss.hint))
            elif miss:
                problems.append(DeckError(path, where, f"unknown slide spelling '{first_line}'", miss.hint))
                continue
        if token.type == "hr":
            pieces.append(Piece(start, SLIDE, SLIDE_MARKER))
            continue
        if headings and token.type == "heading_open":
            pieces.append(_heading_piece(token, start, source_lines, pieces))
    return pieces


def _heading_piece(token, start: int, source_lines: list[str], pieces: list[Piece]) -> Piece:
    """The piece a heading starts: a slide (``#``, ``##``) or a sub-slide, with the MyST targets above it."""
    level = len(token.markup) if token.markup.startswith("#") else (1 if token.markup == "=" else 2)
    while start > 0 and _TARGET.match(source_lines[start - 1]) and not (pieces and pieces[-1].start >= start):
        start -= 1
    return Piece(start, SLIDE if level <= 2 else SUBSLIDE, None)


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


def is_myst(nb: nbformat.NotebookNode) -> bool:
    """True for a notebook read from a MyST Markdown file."""
    representation = (nb.metadata.get("jupytext") or {}).get("text_representation") or {}
    return representation.get("format_name") == "myst"


def derive(nb: nbformat.NotebookNode, lines: list[int], path: str | Path,
           problems: list[DeckError] | None = None,
           warnings: list[DeckError] | None = None) -> nbformat.NotebookNode:
    """Split markdown cells at markers and record each cell's slide type, line and slide number.

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

    _hand_over(said, warned, problems, warnings)
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
    images = BuildRecord.of(nb).images or {}
    for cell in result:
        shown = {url: local for url, local in images.items() if cell.cell_type == "markdown" and url in cell.source}
        if shown:
            update_cell_info(cell, images=shown)
    update_build(nb, source=str(path), slides=slide, marker_mode=marker_mode)
    return nb


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
