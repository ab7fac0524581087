"""The slide markers of the deck format, in one place: which lines they are, and how each stage
takes them off a cell and puts them back.

A marker is a line of its own: ``---`` a new slide, ``--`` a sub-slide, ``. . .`` a pause,
``|||`` the second column; ``Note:`` starts the speaker notes. The read stage splits cells at
them and records each cell's marker in its cell record (``marker``); the marker line stays in
the cell's source, so the deck is written back unchanged. The HTML stage strips it
(:func:`strip`), the live slideshow hides it and puts it back on save (:func:`hide`,
:func:`restore`), auto-fit and the benchmarks ask :func:`is_marker`.

The lines that look like a marker but are none (``***``, ``----``, ``..``, ``Notes:``) are
listed here too (:data:`NEAR_MISSES`), each with the spelling to write instead: the reader
rejects them, as they would silently be text. So are the cell tags (:data:`TAGS`) and the classes
in attribute braces (:data:`CLASSES`) the format understands: the reader warns of any other, with
a did-you-mean. No other module spells a marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jaxdeck.records import cell_info, take_cell_info, update_cell_info

#: the slide types (RISE's and nbconvert's) a cell can have
SLIDE, SUBSLIDE, FRAGMENT, NOTES, CONTINUE, SKIP = "slide", "subslide", "fragment", "notes", "-", "skip"

#: the marker lines: a new slide, a sub-slide, a pause, the second column
SLIDE_MARKER, SUBSLIDE_MARKER, PAUSE_MARKER, COLUMN_MARKER = "---", "--", ". . .", "|||"
#: marker line -> slide type of the cell it starts
MARKERS = {SLIDE_MARKER: SLIDE, SUBSLIDE_MARKER: SUBSLIDE, PAUSE_MARKER: FRAGMENT, COLUMN_MARKER: CONTINUE}
#: the markers that start a slide: a deck with one of them has its layout set by hand
BREAKING = (SLIDE_MARKER, SUBSLIDE_MARKER)
#: what a paragraph of speaker notes starts with
NOTE_PREFIX = "Note:"
#: what follows a marker and goes with it: the line break(s) after a marker line; the spaces
#: and line breaks after ``Note:``
_AFTER = {"marker": "\n", "note": " \t\n"}
#: where :func:`hide` keeps the exact text it took out (in the cell record)
HIDDEN_KEY = "marker_prefix"


@dataclass(frozen=True)
class NearMiss:
    """A spelling that looks like a marker but is none, and the hint that names the right one."""

    pattern: re.Pattern
    hint: str
    #: a near miss of ``Note:``: matched on a paragraph's first line, and only in a deck with slide
    #: markers (in a document, ``Notes:`` is prose); the others match a whole paragraph
    notes: bool = False
    #: only possibly meant as a marker (``Speaker notes:`` may be the slide's text): a warning, not an error
    warning: bool = False


#: the hint for a rule (``***``, ``----``) where a slide break was meant
BREAK_HINT = f"use '{SLIDE_MARKER}' for a new slide or '{SUBSLIDE_MARKER}' for a sub-slide"
#: the near misses the reader rejects, in the order it tries them
NEAR_MISSES = (
    NearMiss(re.compile(r"^(\*{3,}|_{3,}|-{4,}|(- ){2,}-)$"), BREAK_HINT),
    NearMiss(re.compile(r"^[\u2013\u2014]$"), f"{BREAK_HINT} (this is a typographic dash)"),
    NearMiss(re.compile(r"^(\.{2,}|(\. ?){2}|(\. ){3,}\.|\u2026)$"),
             f"use '{PAUSE_MARKER}' (three dots with spaces) for a pause"),
    NearMiss(re.compile(r"^\|{2}$|^\|{4,}$"), f"use '{COLUMN_MARKER}' to start a column"),
    NearMiss(re.compile(r"^(Notes|notes|note|NOTE|NOTES|Note)\s*:|^Notes?\s+:"),
             f"speaker notes start with '{NOTE_PREFIX}'", notes=True),
    NearMiss(re.compile(r"^((speaker|presenter)\s+notes?\s*:|(\*\*|__|\*|_)\s*notes?\s*(\*\*|__|\*|_)?\s*:)", re.IGNORECASE),
             f"did you mean '{NOTE_PREFIX}' (plain, at the start of a line)? speaker notes start with it",
             notes=True, warning=True),
)
#: what a pause or a column marker does, for the error when text beside it makes it part of that text
MARKER_ROLE = {PAUSE_MARKER: "makes no pause", COLUMN_MARKER: "starts no column"}


def near_miss(text: str, first_line: str, notes: bool) -> NearMiss | None:
    """The near miss a paragraph (``text``, its ``first_line``) spells, None when none.

    ``notes``: the deck has slide markers, so a near miss of ``Note:`` counts too.
    """
    for miss in NEAR_MISSES:
        if miss.notes and not notes:
            continue
        if miss.pattern.match(first_line if miss.notes else text):
            return miss
    return None


def is_marker(line: str) -> bool:
    """``line`` (stripped of surrounding space) is a slide marker."""
    return line.strip() in MARKERS


def prefix(cell, notes: bool) -> str:
    """The marker text a markdown cell starts with, the blank space after it included ('' when none).

    ``notes``: the cell holds speaker notes, whose ``Note:`` prefix counts as their marker.
    """
    source = cell.source if hasattr(cell, "source") else "".join(cell.get("source", ""))
    if notes and source.startswith(NOTE_PREFIX):
        marker, after = NOTE_PREFIX, _AFTER["note"]
    else:
        marker, after = cell_info(cell).get("marker"), _AFTER["marker"]
        if not marker or not source.startswith(marker):
            return ""
    rest = source[len(marker):]
    return marker + rest[: len(rest) - len(rest.lstrip(after))]


def strip(cell, notes: bool) -> str:
    """``cell``'s source without its marker (for the HTML, where markers are never shown)."""
    return cell.source[len(prefix(cell, notes)):]


def hide(cell, notes: bool) -> None:
    """Take the marker off ``cell`` and keep it in the cell record, for :func:`restore`."""
    taken = prefix(cell, notes)
    if taken:
        update_cell_info(cell, **{HIDDEN_KEY: taken})
        cell.source = cell.source[len(taken):]


def restore(cell: dict) -> None:
    """Put back what :func:`hide` took out (on the JSON model a save receives)."""
    taken = take_cell_info(cell, HIDDEN_KEY)
    if taken is not None:
        source = cell.get("source")
        cell["source"] = taken + ("".join(source) if isinstance(source, list) else (source or ""))


#: a slide whose heading has this class (``## Questions? {.no-notes}``) needs no speaker notes
NO_NOTES = "no-notes"

#: the cell tags a deck may use: jaxdeck's own, nbclient's and Jupyter Book's (in both its spellings)
TAGS = frozenset({
    "check",                # a claim check: runs after the cell before it, shown nowhere (jaxdeck.claims)
    "slow", "setup",        # exempt from the per-cell budget (jaxdeck.check.deck)
    "raises-exception",     # the cell may raise; its error is shown (nbclient)
    "skip-execution",       # the cell is not run (nbclient)
    "on-light",             # its pictures on a light backing (projector.css)
    # where a cell shows (Jupyter Book's, jaxdeck.html.myst.tags)
    *(f"{verb}{dash}{part}" for verb in ("remove", "hide") for dash in "-_" for part in ("cell", "input", "output")),
})

#: reveal.js's fragment effects (its dist/reveal.css), written beside ``fragment``
FRAGMENT_EFFECTS = frozenset({
    "fade-in", "fade-out", "fade-up", "fade-down", "fade-left", "fade-right", "fade-in-then-out",
    "fade-in-then-semi-out", "semi-fade-out", "current-visible", "grow", "shrink", "strike", "zoom-in",
    "highlight-red", "highlight-green", "highlight-blue",
    "highlight-current-red", "highlight-current-green", "highlight-current-blue",
})

#: the classes a deck may write in attribute braces: on a slide's heading (``## Title {.smaller}``),
#: alone on the line before a block (``{.incremental}``) or on a span (``[words]{.fragment}``)
CLASSES = frozenset({
    "incremental", "nonincremental",  # a list steps in item by item, or shows whole (Quarto's)
    "smaller", "scrollable",          # the slide's type at about 70 %; a slide that scrolls
    NO_NOTES,                         # the slide needs no speaker notes (make check)
    "on-light",                       # the pictures in the block (or on the slide) on a light backing
    "fragment", *FRAGMENT_EFFECTS,
    "r-fit-text", "r-stretch", "r-stack", "r-hstack", "r-vstack", "r-frame",  # reveal.js's layout helpers
})
