"""Stage 3: an executed deck notebook -> a reveal.js HTML deck that presents offline.

nbconvert renders the cells with our template (themes/jaxdeck); reveal.js, KaTeX
and the theme load from ./assets beside the HTML. Text that came from cell
outputs is escaped by nbconvert; only markup the deck or a rich repr produced is HTML.
"""

from __future__ import annotations

import functools
import shutil
import threading
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from nbconvert import HTMLExporter

from jaxdeck.html.assets import THEMES, install_assets, theme_sheets
from jaxdeck.atomic import write_text
from jaxdeck.html.layout import layout

_markdown = MarkdownIt("commonmark")


def reveal_config(options: dict) -> dict:
    """Reveal.initialize options from the deck header (16:9, slide numbers, no history noise)."""
    return {
        "width": int(options.get("width", 1280)),
        "height": int(options.get("height", 720)),
        "margin": 0.04,
        "hash": True,
        "controls": True,
        "progress": True,
        "center": False,
        "transition": options.get("transition", "none"),
        "slideNumber": options.get("slide_number", "c/t"),
        "pdfSeparateFragments": False,
        "plugins": [],
    }


_exporter_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def exporter() -> HTMLExporter:
    """One nbconvert exporter per process: its templates are compiled once."""
    made = HTMLExporter(template_name="jaxdeck", extra_template_basedirs=[str(THEMES)])
    made.exclude_anchor_links = True
    return made


def warm_up_exporter() -> threading.Thread:
    """Compile the templates in the background (a build does this while the first kernel runs)."""
    def run():
        with _exporter_lock:
            exporter().from_notebook_node(nbformat.v4.new_notebook(), resources={"jaxdeck": {
                "title": "", "assets": "assets", "theme_css": [], "config": {}}})

    thread = threading.Thread(target=run, name="jaxdeck-exporter", daemon=True)
    thread.start()
    return thread


def to_html(nb: nbformat.NotebookNode, title: str | None = None) -> str:
    """The deck as one HTML page that expects ./assets beside it."""
    options = nb.metadata.get("jaxdeck", {}) or {}
    prepared = layout(nb)
    resources = {
        "jaxdeck": {
            "title": title or options.get("title") or "Slides",
            "assets": "assets",
            "theme_css": theme_sheets(options.get("theme")),
            "config": reveal_config(options),
        }
    }
    with _exporter_lock:
        body, _ = exporter().from_notebook_node(prepared, resources=resources)
    # plugins are JavaScript objects, not JSON: name them after serialisation
    return body.replace('"plugins": []', '"plugins": [RevealNotes, RevealHighlight]')


def local_images(nb: nbformat.NotebookNode) -> list[str]:
    """Relative image paths the deck's markdown shows (they are copied beside the HTML)."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for token in _markdown.parse(cell.source):
            for child in token.children or []:
                src = str(child.attrs.get("src", "")) if child.type == "image" else ""
                if src and "://" not in src and not src.startswith(("data:", "/")):
                    found.append(src.split("#")[0].split("?")[0])
    return found


def export_html(nb: nbformat.NotebookNode, deck: str | Path, out: str | Path) -> Path:
    """Write the HTML deck to ``out`` atomically, with its assets and images beside it."""
    deck, out = Path(deck), Path(out)
    html = to_html(nb, title=nb.metadata.get("jaxdeck", {}).get("title") or deck.stem)
    install_assets(out.parent)
    for image in local_images(nb):
        source = (deck.parent / image).resolve()
        target = (out.parent / image).resolve()
        if source.is_file() and out.parent.resolve() in target.parents:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return write_text(out, html)
