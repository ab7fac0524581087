"""Stage 3: an executed deck notebook -> a reveal.js HTML deck that presents offline.

nbconvert renders the cells with our template (themes/jaxdeck), after the preprocessors of
:mod:`jaxdeck.html.layout` have worked out the slide structure; reveal.js, KaTeX
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
from jaxdeck.html.layout import PREPROCESSORS
from jaxdeck.options import DeckOptions

_markdown = MarkdownIt("commonmark")


def reveal_config(options: dict) -> dict:
    """``Reveal.initialize`` options from a deck header's options (``DeckOptions.reveal_config``)."""
    return DeckOptions.of(options).reveal_config()


_exporter_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def exporter() -> HTMLExporter:
    """One nbconvert exporter per process: its templates are compiled once."""
    made = HTMLExporter(template_name="jaxdeck", extra_template_basedirs=[str(THEMES)])
    made.exclude_anchor_links = True
    for preprocessor in PREPROCESSORS:
        made.register_preprocessor(preprocessor, enabled=True)
    return made


def deck_resources(options: DeckOptions, title: str, provenance: dict | None = None) -> dict:
    """What the template reads besides the notebook: title, asset folder, theme, reveal.js options, title slide."""
    return {"jaxdeck": {"title": title, "assets": "assets", "theme_css": theme_sheets(options.theme),
                        "config": options.reveal_config(), "byline": options.byline(),
                        "provenance": provenance or {}}}


def warm_up_exporter() -> threading.Thread:
    """Compile the templates in the background (a build does this while the first kernel runs)."""
    def run():
        with _exporter_lock:
            exporter().from_notebook_node(nbformat.v4.new_notebook(), resources=deck_resources(DeckOptions(), ""))

    thread = threading.Thread(target=run, name="jaxdeck-exporter", daemon=True)
    thread.start()
    return thread


def to_html(nb: nbformat.NotebookNode, title: str | None = None) -> str:
    """The deck as one HTML page that expects ./assets beside it (titled ``title``, else the header's, else "Slides")."""
    options = DeckOptions.of(nb)
    provenance = (nb.metadata.get("jaxdeck_build") or {}).get("provenance")
    resources = deck_resources(options, title or options.title_for(None), provenance)
    with _exporter_lock:
        body, _ = exporter().from_notebook_node(nb, resources=resources)
    return body


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
    html = to_html(nb, title=DeckOptions.of(nb).title_for(deck))
    install_assets(out.parent)
    for image in local_images(nb):
        source = (deck.parent / image).resolve()
        target = (out.parent / image).resolve()
        if source.is_file() and out.parent.resolve() in target.parents:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return write_text(out, html)
