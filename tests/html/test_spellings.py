"""Quarto's deck spellings in the built deck, in a real Chromium and in the printed PDF: incremental
lists, fragment effects, `.smaller`, `.scrollable`, slide backgrounds, the header's footer and logo."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest

from jaxdeck.html.markdown import render
from support import ROOT, run_cli

DECK = ROOT / "tests" / "fixtures" / "spellings" / "spellings.md"

GO = """n => { const s = document.querySelector(`section[data-jd-slide="${n}"]`);
  const i = Reveal.getIndices(s); Reveal.slide(i.h, i.v, -1); return s; }"""


def build(tmp_path_factory, deck: Path, *flags: str) -> Path:
    out = tmp_path_factory.mktemp(deck.stem)
    result = run_cli("build", str(deck), *flags, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


@contextlib.contextmanager
def opened(browser, html: Path):
    """The built deck at 1280x720, once reveal.js is ready."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(html.as_uri())
    page.wait_for_function("document.body.classList.contains('jd-ready')")
    yield page
    page.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory, DECK, "--pdf")


@pytest.fixture(scope="module")
def page(built, browser):
    with opened(browser, built / "html" / "spellings.html") as page:
        yield page


@pytest.mark.heavy
def test_an_incremental_list_steps_item_by_item(page):
    page.evaluate(GO, 2)
    shown = []
    for _ in range(3):
        page.evaluate("Reveal.next()")
        shown.append(page.evaluate("""() => [...Reveal.getCurrentSlide().querySelectorAll('ul.incremental > li')]
                                         .map(li => li.classList.contains('fragment') && li.classList.contains('visible'))"""))
    assert shown == [[True, False, False], [True, True, False], [True, True, True]]


@pytest.mark.heavy
def test_fragment_effects_reach_their_elements(page):
    page.evaluate(GO, 2)
    classes = page.evaluate("""() => [...Reveal.getCurrentSlide().querySelectorAll('.fragment:not(li)')]
                                 .map(e => e.tagName + ' ' + e.className)""")
    assert "P fragment fade-up" in classes and "SPAN fragment highlight-red" in classes
    page.evaluate("() => { for (let k = 0; k < 5; k++) Reveal.next(); }")
    # reveal.js's colour transition over (it starts as the class changes)
    page.wait_for_function("Reveal.getCurrentSlide().querySelector('span.highlight-red').getAnimations().length === 0",
                           timeout=30000)
    color = page.evaluate("getComputedStyle(Reveal.getCurrentSlide().querySelector('span.highlight-red')).color")
    assert color == "rgb(255, 44, 45)"


def test_smaller_slides_set_smaller_text(page):
    size = "n => parseFloat(getComputedStyle(document.querySelector(`section[data-jd-slide=\"${n}\"] p`)).fontSize)"
    assert page.evaluate(size, 3) < 0.8 * page.evaluate(size, 5)
    assert page.evaluate("document.querySelector('section[data-jd-slide=\"3\"] h2').textContent") == "Small"


def test_a_scrollable_slide_scrolls(page):
    page.evaluate(GO, 4)
    box = page.evaluate("""() => { const s = Reveal.getCurrentSlide(); s.scrollTop = 1e6;
        return [getComputedStyle(s).overflowY, s.scrollHeight, s.clientHeight, s.scrollTop]; }""")
    assert box[0] == "auto" and box[1] > box[2] and box[3] > 0


def test_backgrounds_reach_reveal(page, built):
    colour = page.evaluate("""() => { const s = document.querySelector('section[data-jd-slide="5"]');
        const i = Reveal.getIndices(s); return getComputedStyle(Reveal.getSlideBackground(i.h, i.v)).backgroundColor; }""")
    assert colour == "rgb(18, 52, 86)"
    page.evaluate(GO, 6)
    # reveal.js loads a slide's background (its picture set) once the slide is near, and marks it loaded
    page.wait_for_function("() => { const i = Reveal.getIndices(); return Reveal.getSlideBackground(i.h, i.v)"
                           ".hasAttribute('data-loaded'); }", timeout=30000)
    image = page.evaluate("""() => { const i = Reveal.getIndices();
        const b = Reveal.getSlideBackground(i.h, i.v).querySelector('.slide-background-content');
        return getComputedStyle(b).backgroundImage; }""")
    assert "images/back.svg" in image
    assert (built / "html" / "spellings_files" / "images" / "back.svg").is_file()


def test_footer_and_logo_on_a_content_slide(page, built):
    page.evaluate(GO, 2)
    seen = page.evaluate("""() => ['.jd-footer', '.jd-logo'].map(sel => { const e = document.querySelector(sel);
        const r = e.getBoundingClientRect(); return [e.textContent, r.width > 0 && r.height > 0 && r.bottom <= innerHeight,
        e.complete === undefined || e.naturalWidth > 0]; })""")
    assert seen == [["Footer of the spellings deck", True, True], ["", True, True]]
    assert (built / "html" / "spellings_files" / "images" / "logo.svg").is_file()


def test_the_slides_pdf_shows_every_fragment_the_footer_and_the_handout_all_of_a_scrollable_slide(built):
    def pages(name):
        return subprocess.run(["pdftotext", "-layout", str(built / "pdf" / name), "-"],
                              capture_output=True, text=True, check=True).stdout.split("\f")

    slides = pages("spellings.pdf")
    assert all(word in slides[1] for word in ("first item", "third item", "rising paragraph", "a red phrase"))
    # the scrolling slide as the talk first shows it, and where the rest is
    assert "the last line of the long slide" not in slides[3] and "continued in the handout" in slides[3]
    assert sum("Footer of the spellings deck" in p for p in slides) == 6
    assert any("the last line of the long slide" in page for page in pages("spellings-handout.pdf"))


@pytest.fixture(scope="module")
def stepwise(tmp_path_factory, browser):
    with opened(browser, build(tmp_path_factory, DECK.with_name("stepwise.md")) / "html" / "stepwise.html") as page:
        yield page


@pytest.mark.heavy
def test_incremental_true_steps_every_list_of_the_slides_in(stepwise):
    """The header's `incremental: true`, as Quarto's: each list of the slides steps in item by item,
    `{.nonincremental}` keeps one whole, and the notes' lists are never steps."""
    stepwise.evaluate(GO, 2)
    visible = """() => [...Reveal.getCurrentSlide().querySelectorAll('li')].filter(li => !li.closest('aside'))
                   .map(li => li.classList.contains('fragment') ? li.classList.contains('visible') : 'whole')"""
    shown = [stepwise.evaluate(visible)]
    for _ in range(4):
        stepwise.evaluate("Reveal.next()")
        shown.append(stepwise.evaluate(visible))
    assert shown == [[False, False, False, False], [True, False, False, False], [True, True, False, False],
                     [True, True, True, False], [True, True, True, True]]
    assert stepwise.evaluate("document.querySelectorAll('aside.notes .fragment').length") == 0
    stepwise.evaluate(GO, 3)
    assert stepwise.evaluate(visible) == ["whole", "whole"]


def test_incremental_lists_render_as_quartos():
    assert render("- a\n- b\n", incremental=True) == '<ul class="incremental">\n<li class="fragment">a</li>\n<li class="fragment">b</li>\n</ul>\n'
    kept = render("{.nonincremental}\n- a\n  - inner\n\n1. c\n", incremental=True)
    assert kept.count('class="fragment"') == 1 and '<ol class="incremental">' in kept  # the nested list is whole too
    assert "fragment" not in render("- a\n")


def test_malformed_attributes_stay_text():
    assert render("## Title {.smaller\n\n{.incremental\n- a\n\n[x]{.fragment") == (
        "<h2>Title {.smaller</h2>\n<p>{.incremental</p>\n<ul>\n<li>a</li>\n</ul>\n<p>[x]{.fragment</p>\n")
