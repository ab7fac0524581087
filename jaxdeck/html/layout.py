"""Turn a deck notebook's slide types into reveal.js markup around each cell.

Works on a copy made for export: marker lines (``---``, ``--``, ``. . .``,
``|||``) and the ``Note:`` prefix are removed from the sources, notes of a slide
are gathered into one ``<aside class="notes">`` (reveal.js reads only the first),
and each cell gets ``jd_open``/``jd_close`` HTML for sections, fragments and columns.
"""

from __future__ import annotations

import copy
import html

import nbformat

from jaxdeck.read.structure import CONTINUE, FRAGMENT, NOTE_PREFIX, NOTES, SKIP, SLIDE, SUBSLIDE

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def strip_marker(cell) -> None:
    info = cell.metadata.get("jaxdeck", {})
    marker = info.get("marker")
    if cell.cell_type != "markdown":
        return
    if marker and cell.source.startswith(marker):
        cell.source = cell.source[len(marker):].lstrip("\n")
    if info.get("slide_type") == NOTES and cell.source.startswith(NOTE_PREFIX):
        cell.source = cell.source[len(NOTE_PREFIX):].lstrip()
    if not cell.source.strip():
        cell.metadata["jd_empty"] = True


def static_outputs(cell) -> None:
    """Widgets have no JavaScript in an offline deck: keep their static fallback only."""
    for output in cell.get("outputs", []):
        data = output.get("data")
        if data and WIDGET_VIEW in data and len(data) > 1:
            del data[WIDGET_VIEW]


def gather_notes(cells) -> None:
    """One notes cell per slide, holding all of that slide's notes in order."""
    first = {}
    for cell in cells:
        info = cell.metadata.get("jaxdeck", {})
        if info.get("slide_type") != NOTES:
            continue
        slide = info.get("slide")
        if slide in first:
            first[slide].source += "\n\n" + cell.source
            cell.metadata["jd_empty"] = True
            cell.metadata["jaxdeck"] = dict(info, slide_type=SKIP)
        else:
            first[slide] = cell


def layout(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` ready for the reveal.js template."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        strip_marker(cell)
        static_outputs(cell)
    gather_notes(nb.cells)

    open_tags: list[str] = []  # stack of "h", "v", "columns", "column", "fragment"

    def close(until: set[str]) -> str:
        out = []
        while open_tags and open_tags[-1] not in until:
            tag = open_tags.pop()
            out.append("</section>" if tag in ("h", "v") else "</div>")
        return "".join(out)

    def close_through(kind: str) -> str:
        if kind not in open_tags:
            return ""
        out = close({kind})
        open_tags.pop()
        return out + ("</section>" if kind in ("h", "v") else "</div>")

    cells = nb.cells
    previous = None
    for index, cell in enumerate(cells):
        info = cell.metadata.get("jaxdeck", {})
        kind = info.get("slide_type", CONTINUE)
        before = ""
        if kind == SLIDE or index == 0:
            before += close(set()) if open_tags else ""
            open_tags.clear()
            before += '<section>'
            open_tags.append("h")
            before += f'<section data-jd-slide="{info.get("slide", 1)}">'
            open_tags.append("v")
        elif kind == SUBSLIDE:
            before += close_through("v")
            before += f'<section data-jd-slide="{info.get("slide", 1)}">'
            open_tags.append("v")
        if info.get("column_start"):
            before += close_through("fragment") + close_through("column")
            if "columns" not in open_tags:
                before += '<div class="jd-columns">'
                open_tags.append("columns")
            before += '<div class="jd-column">'
            open_tags.append("column")
        if kind == FRAGMENT:
            before += close_through("fragment")
            before += '<div class="fragment">'
            open_tags.append("fragment")
        cell.metadata["jd_open"] = before
        cell.metadata["jd_close"] = ""
        previous = cell
    if previous is not None:
        previous.metadata["jd_close"] = close(set())
    if cells:
        cells[0].metadata["jd_byline"] = byline(nb.metadata.get("jaxdeck") or {}) + provenance_line(
            (nb.metadata.get("jaxdeck_build") or {}).get("provenance") or {})
    return nb


def byline(options: dict) -> str:
    """Author, venue and date under the title slide's heading."""
    parts = [options.get(k) for k in ("subtitle", "author", "venue", "date") if options.get(k)]
    if not parts:
        return ""
    return '<p class="jd-byline">' + " · ".join(html.escape(str(p)) for p in parts) + "</p>"


def provenance_line(provenance: dict) -> str:
    """Where the outputs in this deck were measured: shown small on the title slide."""
    if not provenance:
        return ""
    device = provenance.get("device_kind") or provenance.get("backend") or "?"
    count = provenance.get("device_count")
    parts = [f"{device}{f' × {count}' if count and count > 1 else ''} ({provenance.get('backend', '?')})"]
    for key in ("jax", "jaxlib", "python"):
        if provenance.get(key):
            parts.append(f"{key} {provenance[key]}")
    if provenance.get("executed_at"):
        parts.append(str(provenance["executed_at"])[:10])
    text = "Outputs measured on " + " · ".join(parts)
    return f'<p class="jd-provenance">{html.escape(text)}</p>'
