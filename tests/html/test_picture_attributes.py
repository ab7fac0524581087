"""A picture's size is written into quoted, escaped attributes (themes/jaxdeck/index.html.j2, data_png and
data_jpg): nbconvert's lab template writes ``width=`` bare, and a width that is text would add attributes."""

from __future__ import annotations

import base64

import nbformat
import pytest
from bs4 import BeautifulSoup

from jaxdeck.html.export import to_html

PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0000003010100c9fe92ef0000000049454e44ae426082")).decode()
HOSTILE = '1 onerror=document.title=1 x="'


def rendered_pictures(mime: str, metadata: dict) -> list:
    output = nbformat.v4.new_output("display_data", data={mime: PNG, "text/plain": "<Figure>"}, metadata=metadata)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Pictures"),
                                         nbformat.v4.new_code_cell("show()", outputs=[output])])
    page = BeautifulSoup(to_html(nb, title="Pictures"), features="html.parser")
    return page.select(".jp-RenderedImage img")


@pytest.mark.parametrize("mime", ["image/png", "image/jpeg"])
@pytest.mark.parametrize("where", ["top", "mime"])
def test_a_width_and_height_that_are_text_stay_inside_their_attributes(mime, where):
    size = {"width": HOSTILE, "height": HOSTILE + "'>"}
    [img] = rendered_pictures(mime, size if where == "top" else {mime: size})
    assert set(img.attrs) == {"src", "width", "height", "class"}, img.attrs
    assert img["width"] == HOSTILE and img["height"] == HOSTILE + "'>"
    assert img["src"] == f"data:{mime};base64,{PNG}"


def test_a_picture_keeps_its_size_and_background():
    [img] = rendered_pictures("image/png", {"image/png": {"width": 320, "height": 200, "needs_background": "dark"},
                                            "unconfined": True})
    assert (img["width"], img["height"]) == ("320", "200")
    assert set(img["class"]) == {"unconfined", "jp-needs-dark-background"}
