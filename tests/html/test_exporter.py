"""DeckExporter: nbconvert's HTMLExporter, less the BeautifulSoup pass that adds a tab stop to every
cell and a stock alt text to bare images (and costs half of a deck's export)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from nbconvert import HTMLExporter

from jaxdeck.html import export
from jaxdeck.html.exporter import DeckExporter
from jaxdeck.html.layout import PREPROCESSORS
from jaxdeck.options import DeckOptions
from support import ROOT

EXAMPLE = ROOT / "slides" / "example.md"
STOCK_ALT = "No description has been provided for this image"


def configured(cls):
    made = cls(template_name="jaxdeck", extra_template_basedirs=[str(export.THEMES)])
    made.register_filter("markdown2html", export.markdown.render)
    made.register_filter("remote_images", export.remote_images)
    for preprocessor in PREPROCESSORS:
        made.register_preprocessor(preprocessor, enabled=True)
    return made


def page(cls, nb) -> BeautifulSoup:
    body, _ = configured(cls).from_notebook_node(nb, resources=export.deck_resources(DeckOptions.of(nb), "Example"))
    return BeautifulSoup(body, features="html.parser")


@pytest.mark.heavy
def test_the_deck_is_nbconverts_page_without_its_tab_stops_and_stock_alt_texts(built):
    _, nb = built(EXAMPLE)
    ours, stock = page(DeckExporter, nb), page(HTMLExporter, nb)
    assert stock.select("[tabindex='0']") and not ours.select("[tabindex]")
    for element in stock.select("[tabindex='0']"):
        del element["tabindex"]
    for image in stock.select(f"img[alt='{STOCK_ALT}']"):
        del image["alt"]
    assert str(ours) == str(stock)
    assert ours.select(".highlight span.k")  # the code is highlighted, as HTMLExporter's filters do it


def test_the_build_uses_it():
    assert isinstance(export.exporter(), DeckExporter)
