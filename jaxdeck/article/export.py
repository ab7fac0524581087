"""An executed deck notebook -> ``build/article/NAME.html``, the talk as a page to read.

The same nbconvert machinery as the deck (:mod:`jaxdeck.html.export`): the HTML stage's
preprocessors work out slides, notes, hidden cells, tags and outputs, then
:class:`jaxdeck.article.sections.ArticleSections` makes one section per slide with its notes
beneath; ``themes/jaxdeck/article.html.j2`` (which extends the deck's template, so cells,
outputs and errors look as they do on the slides) writes the page. KaTeX, the article's
stylesheet and script, and the deck's pictures (into ``NAME_files/``, as the deck's page has them)
are copied beside it: it reads offline.
The notebook is taken as executed, never fitted: the page has room for every output.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from jaxdeck.article.sections import ArticleSections
from jaxdeck.atomic import write_text
from jaxdeck.decks import Outputs
from jaxdeck.html import markdown
from jaxdeck.html.assets import THEMES, install_article_assets
from jaxdeck.html.export import copy_images, remote_images
from jaxdeck.html.layout import PREPROCESSORS
from jaxdeck.html.shown import ShownFiles
from jaxdeck.options import DeckOptions
from jaxdeck.records import BuildRecord

#: the article's template, beside the deck's in themes/jaxdeck/
TEMPLATE = "article.html.j2"

_lock = threading.Lock()  # an exporter renders one notebook at a time; decks build on several threads


@functools.lru_cache(maxsize=1)
def exporter() -> HTMLExporter:
    """One nbconvert exporter for articles per process: its templates are compiled once."""
    made = HTMLExporter(template_name="jaxdeck", template_file=TEMPLATE, extra_template_basedirs=[str(THEMES)])
    made.register_filter("markdown2html", markdown.render)
    made.register_filter("remote_images", remote_images)
    for preprocessor in (*PREPROCESSORS, ArticleSections):
        made.register_preprocessor(preprocessor, enabled=True)
    return made


def to_article(nb: nbformat.NotebookNode, title: str, files: str | None = None) -> str:
    """The article as one HTML page that expects ./assets beside it, and the deck's files in ./``files``."""
    options = DeckOptions.of(nb)
    resources = {"jaxdeck": {"title": title, "assets": "assets", "files": files, "byline": options.byline(),
                             "provenance": BuildRecord.of(nb).provenance or {}}}
    with _lock:
        body, _ = exporter().from_notebook_node(nb, resources=resources)
    return body


def export_article(nb: nbformat.NotebookNode, deck: str | Path, out: str | Path,
                   shown: ShownFiles | None = None) -> Path:
    """Write the article of the executed notebook ``nb`` (of ``deck``) to ``out`` atomically,
    with its assets and the deck's pictures beside it (``shown``: the files ``nb`` shows, when
    the build has worked them out already)."""
    deck, out = Path(deck), Path(out)
    install_article_assets(out.parent)
    copy_images(shown or ShownFiles.of(nb, deck), deck, out.parent)
    return write_text(out, to_article(nb, DeckOptions.of(nb).title_for(deck), Outputs(deck).files))
