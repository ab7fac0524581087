"""The slide markers of the deck format, in one place: which lines they are, and how each stage
takes them off a cell and puts them back.

A marker is a line of its own: ``---`` a new slide, ``--`` a sub-slide, ``. . .`` a pause,
``|||`` the second column; ``Note:`` starts the speaker notes. The read stage splits cells at
them and records each cell's marker in its cell record (``marker``); the marker line stays in
the cell's source, so the deck is written back unchanged. The HTML stage strips it
(:func:`strip`), the live slideshow hides it and puts it back on save (:func:`hide`,
:func:`restore`), auto-fit and the benchmarks ask :func:`is_marker`.

The cell tags (:data:`TAGS`) and the classes in attribute braces (:data:`CLASSES`) the format
understands are listed here too: the reader warns of any other, with a did-you-mean.
"""

from __future__ import annotations

from jaxdeck.records import cell_info, take_cell_info, update_cell_info

#: the slide types (RISE's and nbconvert's) a cell can have
SLIDE, SUBSLIDE, FRAGMENT, NOTES, CONTINUE, SKIP = "slide", "subslide", "fragment", "notes", "-", "skip"

#: marker line -> slide type of the cell it starts
MARKERS = {"---": SLIDE, "--": SUBSLIDE, ". . .": FRAGMENT, "|||": CONTINUE}
#: the markers that start a slide: a deck with one of them has its layout set by hand
BREAKING = ("---", "--")
NOTE_PREFIX = "Note:"
#: what follows a marker and goes with it: the line break(s) after a marker line; the spaces
#: and line breaks after ``Note:``
_AFTER = {"marker": "\n", "note": " \t\n"}
#: where :func:`hide` keeps the exact text it took out (in the cell record)
HIDDEN_KEY = "marker_prefix"


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
    "fragment", *FRAGMENT_EFFECTS,
    "r-fit-text", "r-stretch", "r-stack", "r-hstack", "r-vstack", "r-frame",  # reveal.js's layout helpers
})
