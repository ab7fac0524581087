"""The deck spellings (Quarto's attributes: ``{.incremental}``, ``{.fragment .fade-up}``,
``[words]{.fragment .highlight-red}``, ``## Title {.smaller background-color="#123"}``) in the
live talk.

JupyterLab's Markdown renderer knows no attributes: a cell that uses them is served as the HTML
the static deck shows for it (:func:`jaxdeck.html.markdown.render`: an incremental list's items
and the fragments keep their reveal.js classes, which JupyterLab's sanitiser keeps), its heading's
slide attributes go into its ``metadata.jaxdeck`` (``section``: classes and reveal.js ``data-*``
attributes, a background image as a URL from RISE's page), which the live extension puts on the
slide's ``<section>``. The cell's own text is stashed and written back on save; an edit the
presenter made to the served HTML is merged into it line by line, as a MyST cell's is.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import nbformat

from jaxdeck.html.layout import section_of
from jaxdeck.html.markdown import has_list, heading_attributes, render, uses_attributes
from jaxdeck.live import stash
from jaxdeck.live.myst_view import put_back
from jaxdeck.options import DeckOptions
from jaxdeck.markers import NOTES
from jaxdeck.records import update_cell_info

#: where :func:`show_spellings` keeps a cell's own text (in ``metadata.jaxdeck``)
SPELLINGS_KEY = "spellings_source"
#: the slide attributes of a cell's heading, for the live extension
SECTION_KEY = "section"
#: set on a cell served with its lists stepping in (the deck's ``incremental: true``)
INCREMENTAL_KEY = "spellings_incremental"


def server_url(deck: str, path: str) -> str:
    """The server's ``BASE/path`` as a URL relative to RISE's page for a deck (``BASE/rise/DECKS/NAME.md``)."""
    return "../" * len(PurePosixPath(deck.strip("/")).parts) + path


def page_url(deck: str, src: str) -> str:
    """``src`` (relative to the deck ``DECKS/NAME.md``) as a URL relative to RISE's page:
    Jupyter serves the file at ``BASE/files/DECKS/src``."""
    return server_url(deck, "files/" + str(PurePosixPath(deck.strip("/")).parent / src))


def show_spellings(nb: nbformat.NotebookNode, deck: str) -> None:
    """Serve cells that use attributes as their HTML, and their headings' slide attributes as data;
    with the deck's ``incremental: true``, the slides' cells that hold a list too."""
    every = DeckOptions.of(nb).incremental
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        steps = every and (cell.metadata.get("slideshow") or {}).get("slide_type") != NOTES and has_list(cell.source)
        if not (steps or uses_attributes(cell.source)):
            continue
        section = section_of(heading_attributes(cell.source))
        if section:
            image = section["data"].get("background-image")
            if image and "://" not in image:
                section["data"]["background-image"] = page_url(deck, image)
            update_cell_info(cell, **{SECTION_KEY: section})
        update_cell_info(cell, **{SPELLINGS_KEY: cell.source}, **({INCREMENTAL_KEY: True} if steps else {}))
        cell.source = render(cell.source, incremental=steps).rstrip("\n")


def restore_spellings(nb: dict) -> None:
    """Put back the text :func:`show_spellings` replaced (on the JSON model a save receives)."""
    for cell in nb.get("cells", []):
        stash.take(cell, SECTION_KEY)
        steps = bool(stash.take(cell, INCREMENTAL_KEY))
        original = stash.take(cell, SPELLINGS_KEY)
        if original is None:
            continue
        put_back(cell, original, render(original, incremental=steps).rstrip("\n"))
