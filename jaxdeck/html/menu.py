"""The slide menu's titles, made at build time so that a deck's text stays text in the menu.

reveal.js-menu puts a slide's title into the page as HTML: the ``data-menu-title`` of its
``<section>`` as written, else the text of its first ``h1``-``h3``. A heading that shows markup
as text (`` ## `<img src=x onerror=...>` ``) would become that markup in the menu and run. So
:class:`MenuTitles` gives every slide a title from the deck's own Markdown, as plain text: its
first ``#``-``###`` heading, else its first words, else "Slide N"; the template writes it into
``data-menu-title`` escaped for HTML (the menu's reading) and again for the attribute, and the
menu shows the literal text. Outputs never become titles.
"""

from __future__ import annotations

import re

from nbconvert.preprocessors import Preprocessor

from jaxdeck.html.layout import SHOWN, VERTICAL
from jaxdeck.html.markdown import PARSER
from jaxdeck.tokens import parsed

#: the headings reveal.js-menu took titles from (its ``titleSelector``)
LEVELS = ("h1", "h2", "h3")
#: a slide without a heading is listed by its first words: this many characters, then to the end of the word
FIRST_WORDS = 16


def _text(tokens) -> str:
    """The text markdown-it's inline ``tokens`` show: code and math as written, raw HTML tags left out."""
    parts = []
    for token in tokens:
        if token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.children:
            parts.append(_text(token.children))
        elif token.type != "html_inline":
            parts.append(token.content)
    return "".join(parts)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def heading_text(markdown: str) -> str | None:
    """The plain text of the first ``#``, ``##`` or ``###`` heading of ``markdown``; None without one."""
    tokens = parsed(PARSER, markdown)
    for token, inline in zip(tokens, tokens[1:]):
        if token.type == "heading_open" and token.tag in LEVELS and inline.type == "inline":
            return _squeeze(_text(inline.children or [])) or None
    return None


def first_words(markdown: str) -> str | None:
    """The start of ``markdown``'s text, as the menu lists a slide without a heading; None without text."""
    text = _squeeze(" ".join(_text(t.children or []) for t in parsed(PARSER, markdown) if t.type == "inline"))
    if not text:
        return None
    short = re.match(rf"^(.{{{FIRST_WORDS}}}\S*)", text)
    return f"{short.group(1)}…" if short and short.group(1) != text else text


class MenuTitles(Preprocessor):
    """``jd.menu_title`` on the cell that opens each slide (after :class:`jaxdeck.html.layout.SlideNesting`)."""

    def preprocess(self, nb, resources):
        slides: list[tuple[dict, list[str]]] = []  # each slide's opener and its shown Markdown, in order
        for cell in nb.cells:
            jd = cell.metadata.get("jd") or {}
            if VERTICAL in jd.get("opens", []):
                slides.append((jd, []))
            if slides and cell.cell_type == "markdown" and jd.get("role") == SHOWN:
                slides[-1][1].append(cell.source)
        for number, (opener, texts) in enumerate(slides, start=1):
            found = next((t for t in map(heading_text, texts) if t), None)
            found = found or next((t for t in map(first_words, texts) if t), None)
            opener["menu_title"] = found or f"Slide {number}"
        return nb, resources
