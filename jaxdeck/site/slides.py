"""A talk's slides: where each sits in its deck (reveal.js's ``#/h/v``), its title, and the words it holds.

Positions and titles come from the built deck itself: each slide is a ``<section data-jd-slide=N>`` inside its
column's ``<section>``, and carries the title the build gave its menu (:mod:`jaxdeck.html.menu`) in
``data-menu-title``; so a slide an auto-fit added is where the deck has it. The words come from the executed
notebook, cell by cell (the cell records' slide numbers): its Markdown as text through the decks' own Markdown
engine, its speaker notes, and the code it shows (never a claim check or a removed input).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from jaxdeck.markers import NOTE_PREFIX
from jaxdeck.records import cell_info


@dataclass(frozen=True)
class Place:
    """One slide of the deck: its reveal.js indices, its number in the deck's own count, its menu title."""

    h: int
    v: int
    slide: int
    title: str

    @property
    def hash(self) -> str:
        return f"#/{self.h}/{self.v}"


@dataclass
class Words:
    """What one slide (by the notebook's slide number) says: its text, its notes and its code."""

    text: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


class _Sections(HTMLParser):
    """The deck page's slides, in order, from its nested ``<section>`` elements."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.h = self.v = -1
        self.places: list[Place] = []

    def handle_starttag(self, tag, attrs):
        if tag != "section":
            return
        if self.depth == 0:
            self.h, self.v = self.h + 1, -1
        attributes = dict(attrs)
        if self.depth == 1 or "data-jd-slide" in attributes:
            self.v += 1
            number = attributes.get("data-jd-slide") or ""
            # written escaped for the menu's HTML and again for the attribute: the parser takes one off
            title = html.unescape(attributes.get("data-menu-title") or "")
            self.places.append(Place(self.h, max(self.v, 0), int(number) if number.isdigit() else 0,
                                     " ".join(title.split()) or f"Slide {len(self.places) + 1}"))
        self.depth += 1

    def handle_endtag(self, tag):
        if tag == "section" and self.depth:
            self.depth -= 1


def places(deck_html: Path) -> list[Place]:
    """The slides of the built deck ``deck_html`` in the order it shows them."""
    found = _Sections()
    found.feed(deck_html.read_text(encoding="utf-8", errors="replace"))
    found.close()
    return found.places


def plain_text(markdown: str) -> str:
    """The words ``markdown`` shows, as the decks' Markdown engine reads it: inline text, code and math as
    written, raw HTML tags left out."""
    from jaxdeck.html.markdown import PARSER
    from jaxdeck.tokens import parsed

    def inline(tokens) -> str:
        return "".join(" " if t.type in ("softbreak", "hardbreak") else inline(t.children) if t.children
                       else "" if t.type == "html_inline" else t.content for t in tokens)

    parts = []
    for token in parsed(PARSER, markdown):
        if token.type == "inline":
            parts.append(inline(token.children or []))
        elif token.type in ("fence", "code_block", "math_block", "math_block_label"):
            parts.append(token.content)
    return " ".join(" ".join(parts).split())


def words_of(nb) -> dict[int, Words]:
    """Each slide's words (by the notebook's slide number): text, notes and shown code, in order."""
    from jaxdeck.claims import is_check
    from jaxdeck.html.myst import cell_view
    from jaxdeck.markers import strip
    from jaxdeck.read.structure import NOTES, slide_pieces

    found: dict[int, Words] = {}
    for cell in nb.cells:
        view = cell_view(cell)
        if view.removed or is_check(cell):
            continue
        if cell.cell_type == "code":
            number = cell_info(cell).get("slide")
            if isinstance(number, int) and view.show_input and cell.source.strip():
                found.setdefault(number, Words()).code.append(cell.source.strip())
            continue
        if cell.cell_type != "markdown":
            continue
        pieces = slide_pieces(cell)
        for index, (info, text) in enumerate(pieces):
            number = info.get("slide")
            if not isinstance(number, int):
                continue
            notes = info.get("slide_type") == NOTES
            if index == 0 and len(pieces) == 1:
                text = strip(cell, notes=notes)  # no marker line or 'Note:' in the words
            elif notes and text.startswith(NOTE_PREFIX):
                text = text[len(NOTE_PREFIX):]
            said = plain_text(text)
            if said:
                (found.setdefault(number, Words()).notes if notes else found.setdefault(number, Words()).text).append(said)
    return found


def live_seconds(nb) -> dict[int, float]:
    """Each slide's recorded cell run time (the build's), by the notebook's slide number."""
    found: dict[int, float] = {}
    for cell in nb.cells:
        info = cell_info(cell)
        if cell.cell_type == "code" and isinstance(info.get("slide"), int):
            found[info["slide"]] = found.get(info["slide"], 0.0) + float(info.get("duration_s") or 0.0)
    return found
