"""The presenting tools on the static deck (reveal.js's search and zoom, the slide menu, the
chalkboard), in a real Chromium: registered, offline, on the `?` overlay, kept out of the PDFs."""

from __future__ import annotations

import pytest

from jaxdeck.pages import open_deck
from jaxdeck.html.export import export_html
from jaxdeck.pdf.export import print_view
from jaxdeck.read import deck_to_notebook
from support import ROOT

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

EXAMPLE = ROOT / "slides" / "example.md"
TOOLS = ("search", "zoom", "menu", "RevealChalkboard")
#: what each tool puts on the page
DRAWN = ("#chalkboard", "#notescanvas", ".slide-menu")
DECK = "# Title\n\nintro\n\n---\n\n## Two\n\ntext\n\n---\n\n## Three\n\nmore\n"


def plugins(page) -> dict[str, bool]:
    return {name: page.evaluate(f"Reveal.hasPlugin({name!r})") for name in TOOLS}


def drawn(page) -> list[str]:
    return [selector for selector in DRAWN if page.query_selector(selector)]


def header(**options) -> str:
    lines = "".join(f"    {key}: {str(value).lower()}\n" for key, value in options.items())
    return f"---\njupyter:\n  jaxdeck:\n{lines}---\n\n"


@pytest.fixture(scope="module")
def example(built):
    outputs, _ = built(EXAMPLE)
    return outputs.html


def test_every_tool_is_registered_and_asks_nothing_of_the_network(browser, example):
    with open_deck(browser, example) as (page, requests):
        page.wait_for_selector(".slide-menu", state="attached", timeout=10000)  # the menu starts once its sheets load
        page.evaluate("document.fonts.ready")
        assert plugins(page) == dict.fromkeys(TOOLS, True)
        assert page.query_selector("#chalkboard") and page.query_selector("#notescanvas")
        # the menu's icons are drawn in its own Font Awesome, loaded from beside the page
        family = page.eval_on_selector(".slide-menu-toolbar i", "i => getComputedStyle(i).fontFamily")
        assert "Font Awesome" in family
        assert page.evaluate("document.fonts.check('900 16px \"Font Awesome 5 Free\"')")
        assert requests == []


def test_the_tools_keys_are_on_the_help_overlay(browser, example):
    with open_deck(browser, example) as (page, _):
        page.wait_for_selector(".slide-menu", state="attached", timeout=10000)
        page.keyboard.press("Shift+Slash")
        page.wait_for_selector(".reveal .r-overlay-help", timeout=5000)
        rows = page.eval_on_selector_all(".r-overlay-help tr", "rows => rows.map(r => r.innerText.replace(/\\s+/g, ' ').trim())")
        for row in ("CTRL + Shift + F Search", "Alt + click Zoom in or out", "M Toggle menu",
                    "Click the slide number Open the menu", "B Toggle chalkboard", "C Toggle notes canvas"):
            assert row in rows, rows


def test_the_menu_opens_on_m_and_lists_every_slide(browser, example):
    with open_deck(browser, example) as (page, _):
        page.wait_for_selector(".slide-menu", state="attached", timeout=10000)
        page.keyboard.press("m")
        page.wait_for_selector(".slide-menu.active", timeout=5000)
        items = page.eval_on_selector_all(".slide-menu-items li.slide-menu-item, .slide-menu-items li.slide-menu-item-vertical",
                                          "items => items.map(i => i.innerText.replace(/\\s+/g, ' ').trim())")
        total = page.evaluate("Reveal.getTotalSlides()")
        assert len(items) == total
        assert items[0].endswith("An example deck") and items[0].startswith(f"1/{total}")
        page.click(".slide-menu-items li:has-text('A demo cell')")
        page.wait_for_function("() => Reveal.getIndices().h === 2")


def test_the_menu_has_no_button_over_the_slide_and_opens_from_the_slide_number(browser, example):
    """A corner button would cover a slide's last line of output; the slide number opens the menu."""
    with open_deck(browser, example) as (page, _):
        page.wait_for_selector(".slide-menu", state="attached", timeout=10000)
        assert page.query_selector(".slide-menu-button") is None
        page.click(".reveal .slide-number")
        page.wait_for_selector(".slide-menu.active", timeout=5000)


def test_the_chalkboard_opens_over_the_slide_on_b(browser, example):
    with open_deck(browser, example) as (page, _):
        page.wait_for_selector(".slide-menu", state="attached", timeout=10000)
        board = "() => getComputedStyle(document.querySelector('#chalkboard')).visibility"
        assert page.evaluate(board) == "hidden"
        page.keyboard.press("b")
        page.wait_for_function(f"() => ({board})() === 'visible'", timeout=5000)


def test_the_print_view_has_no_tools_and_no_chalkboard(browser, example):
    """The PDFs are printed from this very page (jaxdeck.pdf.export.print_view)."""
    with print_view(browser, example) as page:
        assert plugins(page) == dict.fromkeys(TOOLS, False)
        assert drawn(page) == []


def test_chalkboard_in_pdf_keeps_the_chalkboard_in_the_print_view(browser, write_deck, tmp_path):
    deck = write_deck(header(chalkboard_in_pdf=True) + DECK)
    html = export_html(deck_to_notebook(deck), deck, tmp_path / "html" / "talk.html", fit=False)
    with print_view(browser, html) as page:
        assert plugins(page) == {"search": False, "zoom": False, "menu": False, "RevealChalkboard": True}


def test_tools_false_leaves_them_all_out(browser, write_deck, tmp_path):
    deck = write_deck(header(tools=False) + DECK)
    html = export_html(deck_to_notebook(deck), deck, tmp_path / "html" / "talk.html", fit=False)
    text = html.read_text(encoding="utf-8")
    assert "reveal.js-menu" not in text and "chalkboard" not in text and "search.js" not in text
    with open_deck(browser, html) as (page, requests):
        assert plugins(page) == dict.fromkeys(TOOLS, False)
        assert drawn(page) == [] and requests == []
