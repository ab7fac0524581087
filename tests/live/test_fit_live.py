"""Blocks taller than a slide, live: the build's fit drawn in RISE by the extension (src/fit.ts).

The tall-block fixture is built (a kernel, the fit measured in Chromium) and presented with
`jaxdeck present`'s real server: the long code is served split at its statement and smaller,
the long output is cut at the build's line with a word saying how many more, the expected
error shows as %xmode minimal does, and no slide runs past its bottom.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jaxdeck.build import build
from support import ROOT, evaluate_live, presenting

#: builds with a kernel and Chromium (a live server too)
pytestmark = pytest.mark.heavy

FIXTURE = ROOT / "tests" / "fixtures" / "tall" / "tall_blocks.md"

#: per slide: its scroll height; the fitted cells, the "more" notes and the error outputs on the page
WALK = """async () => {
  const reveal = window.jaxdeckLive.reveal;
  const heights = [];
  for (const slide of reveal.getSlides()) {
    const at = reveal.getIndices(slide);
    reveal.slide(at.h, at.v);
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    heights.push(slide.scrollHeight);
  }
  const scales = [...document.querySelectorAll('.jp-Cell.jd-fit')]
    .map(c => parseFloat(c.style.getPropertyValue('--jd-fit-scale')));
  const more = [...document.querySelectorAll('.jd-more')].map(e => e.textContent);
  const errors = [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
    .map(e => e.textContent);
  return {room: Number(reveal.getConfig().height), heights, scales, more, errors,
          code: [...document.querySelectorAll('.jp-CodeCell')].length};
}"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("fit-live")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    (root / "slides").mkdir()
    deck = root / "slides" / FIXTURE.name
    shutil.copy(FIXTURE, deck)
    build([deck], root / "build", jobs=1)
    return root


def test_the_fit_is_drawn_live_and_no_slide_overflows(repo, browser):
    with presenting(repo, f"slides/{FIXTURE.name}") as server:
        found = evaluate_live(browser, server, FIXTURE.name, WALK)
    assert [h for h in found["heights"] if h > found["room"] + 2] == []
    assert found["scales"] and min(found["scales"]) >= 0.6
    assert found["code"] == 6  # the long cell served as two pieces, each runnable
    assert any(text.startswith("… ") and "more lines" in text for text in found["more"])
    assert any(text.startswith("ValueError: the innermost call refuses") for text in found["errors"])
    assert not any("Traceback" in text or "deeper(n - 1)" in text for text in found["errors"])
