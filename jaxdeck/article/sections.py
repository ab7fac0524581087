"""The article's sections: one per slide, with the slide's title, its notes moved beneath it.

:class:`ArticleSections` runs after the HTML stage's preprocessors
(:data:`jaxdeck.html.layout.PREPROCESSORS`), on nbconvert's copy of the notebook. It leaves in
each cell's ``jd`` an ``article`` record for ``themes/jaxdeck/article.html.j2``: ``open`` (the
section's anchor, on a slide's first cell), ``notes`` (the slide's speaker notes, moved after its
content), ``close`` (on its last cell) and ``toc`` (on the section the table of contents comes
before). The :class:`Section` records go to the template as ``resources.jaxdeck.sections``.

A slide's title is the first heading of its first shown Markdown cell (markdown-it's tokens), as
the slide shows it; a slide without one continues the section before it in the contents.
Columns (``|||``) stay side by side; pauses show everything at once, as on paper.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from nbconvert.preprocessors import Preprocessor

from jaxdeck.html.layout import COLUMN, COLUMNS, HIDDEN, NOTES_ROLE, SHOWN
from jaxdeck.html.markdown import PARSER
from jaxdeck.markers import SUBSLIDE
from jaxdeck.records import cell_info

#: the structures of the deck's layout the article keeps (a row of columns and its columns)
KEPT = (COLUMNS, COLUMN)


@dataclass(frozen=True)
class Section:
    """One slide in the article: its number in the deck, the anchor its section has, its title
    (plain text and inline HTML; None for a slide without a heading), the heading's level and
    whether it is a sub-slide (indented in the contents)."""

    slide: int
    anchor: str
    title: str | None = None
    title_html: str | None = None
    level: int = 2
    vertical: bool = False


def heading(markdown: str) -> tuple[str, str, int] | None:
    """The first heading of ``markdown``: its plain text, its inline HTML and its level; None without one."""
    tokens = PARSER.parse(markdown)
    for token, inline in zip(tokens, tokens[1:]):
        if token.type == "heading_open" and inline.type == "inline":
            text = PARSER.renderer.renderInlineAsText(inline.children or [], PARSER.options, {})
            return text.strip(), PARSER.renderInline(inline.content).strip(), int(token.tag[1:])
    return None


def slide_title(cells: list) -> tuple[str, str, int] | None:
    """The title of a slide (its cells, in order): the first heading of its first shown Markdown cell."""
    for cell in cells:
        if cell.metadata.jd.get("role") != SHOWN:
            continue
        return heading(cell.source) if cell.cell_type == "markdown" else None
    return None


def _slides(cells: list) -> list[tuple[int, list]]:
    """The cells grouped by their slide number, in order."""
    groups: list[tuple[int, list]] = []
    for cell in cells:
        number = cell.metadata.jd.get("slide", 1)
        if not groups or groups[-1][0] != number:
            groups.append((number, []))
        groups[-1][1].append(cell)
    return groups


def _notes_last(cells: list) -> list:
    """A slide's cells with its notes after its content; the columns a notes cell closed now
    close after the content cell before it."""
    notes = [c for c in cells if c.metadata.jd.get("role") == NOTES_ROLE]
    content = [c for c in cells if c.metadata.jd.get("role") != NOTES_ROLE]
    for cell in cells:
        jd = cell.metadata.jd
        jd["opens"] = [kind for kind in jd.get("opens", []) if kind in KEPT]
        jd["closes"] = [kind for kind in jd.get("closes", []) if kind in KEPT]
    if notes and content:
        moved = [kind for cell in notes for kind in cell.metadata.jd["closes"]]
        for cell in notes:
            cell.metadata.jd["closes"] = []
        content[-1].metadata.jd["closes"] += moved
    return content + notes


class ArticleSections(Preprocessor):
    """Sections per slide (:class:`Section`), notes after content, into ``jd.article`` and ``resources``."""

    def preprocess(self, nb, resources):
        cells, sections = [], []
        for number, group in _slides(nb.cells):
            group = _notes_last(group)
            for cell in group:
                cell.metadata.jd["article"] = {}
            cells += group
            if all(cell.metadata.jd.get("role") == HIDDEN for cell in group):
                continue
            found = slide_title(group)
            vertical = any(cell_info(cell).get("slide_type") == SUBSLIDE for cell in group)
            section = Section(number, f"slide-{number}", *(found or (None, None, 2)), vertical=vertical)
            group[0].metadata.jd["article"]["open"] = asdict(section)
            group[-1].metadata.jd["article"]["close"] = True
            for cell in group:
                if cell.metadata.jd.get("role") == NOTES_ROLE:
                    cell.metadata.jd["article"]["notes"] = True
            if len(sections) == 1:
                group[0].metadata.jd["article"]["toc"] = True
            sections.append(section)
        nb.cells = cells
        resources.setdefault("jaxdeck", {})["sections"] = [asdict(s) for s in sections]
        return nb, resources
