"""Stepped code highlights (``highlight="1|2-3|4"``) in a real Chromium: each step is a copy of
the code block that reveal.js stacks over the first one, so a step must sit exactly where the
block it replaces sits, under the slide's heading, and be as tall."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from jaxdeck.pages import open_deck
from support import ROOT

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

EXAMPLE = ROOT / "slides" / "example.md"

#: the code blocks of the current slide: (top, height) of each step shown, and the heading's bottom
PLACES = """() => {
  const slide = Reveal.getCurrentSlide();
  const pre = slide.querySelector('pre.jd-steps');
  const shown = [...pre.querySelectorAll('code')].filter(c => getComputedStyle(c).visibility === 'visible'
                                                              && getComputedStyle(c).opacity === '1');
  const box = (e) => { const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.height)]; };
  return {pre: box(pre), shown: shown.map(box), heading: Math.round(slide.querySelector('h2').getBoundingClientRect().bottom)};
}"""

#: ``n`` steps of the current slide's code shown, and reveal.js's transitions to them over
STEPPED = """n => { const slide = Reveal.getCurrentSlide();
  return slide.querySelectorAll('pre.jd-steps code.fragment.visible').length === n
         && slide.getAnimations({subtree: true}).length === 0; }"""


def test_every_step_sits_where_the_code_block_is(browser, built):
    outputs, _ = built(EXAMPLE)
    with open_deck(browser, outputs.html) as (page, _):
        page.evaluate("() => { const i = Reveal.getIndices(Reveal.getSlides().find(s => s.querySelector('pre.jd-steps')));"
                      " Reveal.slide(i.h, i.v || 0); }")
        first = page.evaluate(PLACES)
        steps = page.evaluate("Reveal.getCurrentSlide().querySelectorAll('pre.jd-steps code.fragment').length")
        assert steps >= 2
        for step in range(steps):
            page.keyboard.press("ArrowRight")
            try:
                page.wait_for_function(STEPPED, arg=step + 1, timeout=30000)
            except PlaywrightTimeout:
                raise AssertionError(f"step {step + 1} of {steps} never shown and settled: {page.evaluate(PLACES)}") from None
            now = page.evaluate(PLACES)
            assert now["pre"] == first["pre"] and now["heading"] == first["heading"]
            assert now["pre"][0] >= now["heading"], now
            assert now["shown"][-1] == now["pre"], f"a step should cover its block exactly: {now}"
