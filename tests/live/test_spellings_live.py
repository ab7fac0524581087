"""Quarto's deck spellings in the live slideshow (`jaxdeck present`'s real server, RISE, our
extension, a real Chromium): footer and logo on the slides, an incremental list and a fragment
effect stepping as in the static deck, a heading's `.smaller` and background on its slide; a
save writes the deck back as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import evaluate_live, presenting

#: a live server with a kernel and Chromium
pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "spellings"

LOOK = """async () => {
  const reveal = window.jaxdeckLive.reveal;
  const mark = sel => { const e = document.querySelector(sel); if (!e) return null;
    const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && (e.naturalWidth === undefined || e.naturalWidth > 0); };
  const slideOf = text => [...document.querySelectorAll('.reveal .slides section')].filter(s =>
    [...s.querySelectorAll(':scope > .jp-Cell h2, :scope h2')].some(h => h.textContent.replace('¶', '').trim() === text)).pop();
  const wait = ms => new Promise(done => setTimeout(done, ms));
  const steps = slideOf('Steps');
  const at = reveal.getIndices(steps);
  reveal.slide(at.h, at.v, -1);
  await wait(300);
  const items = () => [...steps.querySelectorAll('ul.incremental > li')].map(li => li.classList.contains('visible'));
  const seen = [items()];
  for (let k = 0; k < 3; k++) { reveal.next(); await wait(200); seen.push(items()); }
  const fade = steps.querySelector('p.fragment.fade-up');
  const before = fade && fade.classList.contains('visible');
  reveal.next(); await wait(200);
  const small = slideOf('Small'), painted = slideOf('Painted'), pictured = slideOf('Pictured');
  const bg = s => { const i = reveal.getIndices(s); return reveal.getSlideBackground(i.h, i.v); };
  await wait(300);
  return {
    footer: mark('#rise-footer .jd-footer'), logo: mark('#rise-footer .jd-logo'),
    footerText: document.querySelector('#rise-footer .jd-footer')?.textContent,
    steps: seen, fadeBefore: before, fadeAfter: fade && fade.classList.contains('visible'),
    red: !!steps.querySelector('span.fragment.highlight-red'),
    smaller: small.classList.contains('smaller'), scrollable: slideOf('Long').classList.contains('scrollable'),
    colour: getComputedStyle(bg(painted)).backgroundColor,
    image: pictured.getAttribute('data-background-image'),
    heading: small.querySelector('h2').textContent.replace('¶', '').trim(),
  };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("spellings-live")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    shutil.copytree(FIXTURE, root / "slides")
    with presenting(root, "slides/spellings.md") as started:
        started["root"] = root
        yield started


def test_spellings_live(server, browser):
    seen = evaluate_live(browser, server, "spellings.md", LOOK)
    assert seen["footer"] and seen["logo"], seen
    assert seen["footerText"] == "Footer of the spellings deck"
    assert seen["steps"] == [[False, False, False], [True, False, False], [True, True, False], [True, True, True]]
    assert seen["fadeBefore"] is False and seen["fadeAfter"] is True and seen["red"]
    assert seen["smaller"] and seen["scrollable"] and seen["heading"] == "Small"
    assert seen["colour"] == "rgb(18, 52, 86)"
    assert seen["image"].endswith("files/slides/images/back.svg")


#: on the deck with `incremental: true`: the slide's list items, visible or not, step by step
STEPWISE = """async () => {
  const reveal = window.jaxdeckLive.reveal;
  const wait = ms => new Promise(done => setTimeout(done, ms));
  const slide = [...document.querySelectorAll('.reveal .slides section')].filter(s =>
    [...s.querySelectorAll('h2')].some(h => h.textContent.replace('¶', '').trim() === 'Every list')).pop();
  const at = reveal.getIndices(slide);
  reveal.slide(at.h, at.v, -1);
  await wait(300);
  const items = () => [...slide.querySelectorAll('li.fragment')].filter(li => !li.closest('aside'))
    .map(li => li.classList.contains('visible'));
  const seen = [items()];
  for (let k = 0; k < 4; k++) { reveal.next(); await wait(200); seen.push(items()); }
  return seen;
}"""


def test_incremental_true_steps_the_lists_live(server, browser):
    assert evaluate_live(browser, server, "stepwise.md", STEPWISE) == [
        [False] * 4, [True, False, False, False], [True, True, False, False], [True, True, True, False], [True] * 4]
