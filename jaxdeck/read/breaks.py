"""Where a markdown cell breaks into slide pieces: the marker lines found in it (``---``, ``--``,
``. . .``, ``|||``, ``Note:``) or its headings, each near miss of a marker said at its line, and
the markers Markdown would read as part of the block above or around them (so they break nothing).
:mod:`jaxdeck.read.structure` cuts the cells where these say."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from jaxdeck.errors import DeckError
from jaxdeck.markers import (BREAK_HINT, BREAKING, MARKER_ROLE, MARKERS, NOTE_PREFIX, NOTES, SLIDE, SLIDE_MARKER,
                             SUBSLIDE, near_miss)
from jaxdeck.tokens import parsed

_markdown = MarkdownIt("commonmark")
#: MyST's block syntax: colon fences, $$ math and +++ breaks are blocks of their own (never split inside)
_myst_markdown = (MarkdownIt("commonmark").use(colon_fence_plugin).use(dollarmath_plugin)
                  .use(myst_block_plugin))
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
    hand_over(found, warned, problems, warnings)
    return pieces


def hand_over(found: list[DeckError], warned: list[DeckError], problems: list[DeckError] | None,
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
