"""reveal.js's slide number on the static deck and its printed pages, in a real Chromium: on every
slide clear of the arrows (a stack's down arrow too), the header's footer and logo, in the window,
not underlined and under nothing a click would reach first; in whichever theme, on any projector."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxdeck.pages import open_deck
from jaxdeck.html.export import export_html
from jaxdeck.pdf.export import print_view
from jaxdeck.read import deck_to_notebook
from support import ROOT

#: starts a browser
pytestmark = pytest.mark.heavy

#: where it is on every slide (records per slide), the one script for the static deck and the live slideshow
WHERE = (ROOT / "tests" / "slide_number.js").read_text(encoding="utf-8")
#: on every printed page: its number's box, the page's and its copies of the footer and logo
PRINTED = """() => [...document.querySelectorAll('.reveal .slides .pdf-page')].map(page => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const number = page.querySelector('.slide-number-pdf');
  return {page: box(page), number: number && box(number),
          marks: [...page.querySelectorAll('.jd-footer, .jd-logo')].map(box)};
})"""
DECK = """---
jupyter:
  jaxdeck:
    theme: {theme}
    footer: A footer as long as a venue and its date, at the foot of every slide
    logo: images/logo.svg
---

# Title

intro

---

## A stack

its first slide, with the down arrow

--

## Below

--

## Further below

---

## After the stack

the end
"""
LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40"><rect width="100" height="40" fill="#1f3a5f"/></svg>'


def deck(write_deck, tmp_path: Path, theme: str) -> Path:
    """A deck with a vertical stack, a footer and a logo, in ``theme``, exported (nothing to run)."""
    path = write_deck(DECK.format(theme=theme))
    (path.parent / "images").mkdir()
    (path.parent / "images" / "logo.svg").write_text(LOGO, encoding="utf-8")
    return export_html(deck_to_notebook(path), path, tmp_path / "html" / "talk.html", fit=False)


def meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("theme,size", [
    ("projector", (1280, 720)), ("projector", (1920, 1080)), ("projector", (1024, 768)),
    ("projector-dark", (1280, 720)), ("white", (1280, 720)),
], ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_the_slide_number_is_clear_of_the_arrows_footer_and_logo_on_every_slide(browser, write_deck, tmp_path, theme, size):
    html = deck(write_deck, tmp_path, theme)
    with open_deck(browser, html, width=size[0], height=size[1]) as (page, _):
        page.wait_for_selector(".slide-menu", state="attached", timeout=10000)
        records = page.evaluate(WHERE, False)
    assert len(records) == 5, records
    assert any(r["downArrow"] for r in records), "no slide showed the down arrow"
    assert {f"{r['h']}/{r['v']}": r["problems"] for r in records if r["problems"]} == {}


def test_each_printed_page_has_its_number_clear_of_the_footer_and_logo(browser, write_deck, tmp_path):
    """reveal.js's print view (the PDFs) numbers each page, where the screen has it; no arrows on paper."""
    with print_view(browser, deck(write_deck, tmp_path, "projector")) as page:
        pages = page.evaluate(PRINTED)
    assert len(pages) == 5
    for n, found in enumerate(pages, 1):
        number, box = found["number"], found["page"]
        assert number, f"page {n} has no slide number"
        assert box[0] <= number[0] and number[2] <= box[0] + (box[2] - box[0]) / 4, f"page {n}: not on the left"
        assert box[1] <= number[1] and number[3] <= box[3], f"page {n}: the number runs off its page"
        assert not any(meets(number, mark) for mark in found["marks"]), f"page {n}: the number is under the footer or logo"


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=lambda v: "x".join(map(str, v)))
def test_the_static_deck_fills_its_window_so_nothing_of_its_frame_is_off_screen(browser, write_deck, tmp_path, size):
    with open_deck(browser, deck(write_deck, tmp_path, "projector"), width=size[0], height=size[1]) as (page, _):
        found = page.evaluate("""() => {
          const box = s => { const r = document.querySelector(s).getBoundingClientRect();
                             return [r.left, r.top, r.right, r.bottom]; };
          return {reveal: box('.reveal'), controls: box('.reveal .controls'), progress: box('.reveal .progress'),
                  scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight]};
        }""")
    width, height = size
    assert found["reveal"] == [0, 0, width, height], found
    assert found["scroll"] == [width, height], found
    for part in ("controls", "progress"):
        left, top, right, bottom = found[part]
        assert 0 <= left and 0 <= top and right <= width and bottom <= height, (part, found)
