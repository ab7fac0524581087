"""The deck's theme reaches the live slideshow: projector-dark and a theme file beside the deck,
in RISE's page served by a real Jupyter server (`jaxdeck present`), read from computed styles."""

from __future__ import annotations

import shutil

import pytest

from support import ROOT, contrast, luminance, presenting, with_theme

#: a live server with a kernel and Chromium
pytestmark = pytest.mark.heavy

EXAMPLE = ROOT / "slides" / "example.md"

#: the current slide's colours: page, heading, code text and each highlighted token over the code's background
LIVE_COLOURS = """() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number).slice(0, 3);
  const slide = document.querySelector('.reveal .slides section.present');
  const heading = slide.querySelector('h1, h2');
  const editor = slide.querySelector('.jp-InputArea-editor');
  const tokens = editor ? [...editor.querySelectorAll('.cm-line, .cm-line span')].filter(s => s.textContent.trim())
    .map(s => rgb(getComputedStyle(s).color)) : [];
  const output = slide.querySelector('.jp-OutputArea-output pre');
  return {page: rgb(getComputedStyle(document.querySelector('.reveal-viewport, body')).backgroundColor),
          heading: heading && rgb(getComputedStyle(heading).color),
          strong: slide.querySelector('strong') && rgb(getComputedStyle(slide.querySelector('strong')).color),
          code: editor && rgb(getComputedStyle(editor).backgroundColor), tokens,
          output: output && rgb(getComputedStyle(output).color)};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory, built):
    """A repository with example.md on projector-dark and on a theme file, with the example's build."""
    root = tmp_path_factory.mktemp("live-theme")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    shutil.copytree(ROOT / "slides" / "images", root / "slides" / "images")
    text = EXAMPLE.read_text(encoding="utf-8")
    (root / "slides" / "dark.md").write_text(with_theme(text, "projector-dark"), encoding="utf-8")
    (root / "slides" / "own.md").write_text(with_theme(text, "own.css"), encoding="utf-8")
    (root / "slides" / "own.css").write_text(":root { --jd-accent: #00695c; }\n", encoding="utf-8")
    outputs, _ = built(EXAMPLE)
    (root / "build" / "notebooks").mkdir(parents=True)
    for name in ("dark", "own"):
        shutil.copy(outputs.notebook, root / "build" / "notebooks" / f"{name}.ipynb")
    with presenting(root, "slides/dark.md") as started:
        yield started


def colours(browser, server, deck: str, h: int, v: int) -> dict:
    from jaxdeck.browser import fonts_ready

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{server['base']}/rise/slides/{deck}?token={server['token']}")
        page.wait_for_selector("body.jd-live-ready", timeout=90000)
        fonts_ready(page)
        page.evaluate(f"window.jaxdeckLive.reveal.slide({h}, {v})")
        page.wait_for_timeout(300)
        return page.evaluate(LIVE_COLOURS)
    finally:
        page.close()


def test_projector_dark_reaches_the_live_slideshow(browser, server):
    seen = colours(browser, server, "dark.md", 2, 0)  # "A demo cell": code and its output
    assert luminance(seen["page"]) < 0.02, seen
    assert contrast(seen["heading"], seen["page"]) >= 7, seen
    assert luminance(seen["code"]) < 0.05 and seen["tokens"], seen
    assert all(contrast(token, seen["code"]) >= 4.5 for token in seen["tokens"]), seen
    assert contrast(seen["output"], seen["page"]) >= 4.5, seen


def test_a_theme_file_reaches_the_live_slideshow(browser, server):
    seen = colours(browser, server, "own.md", 4, 0)  # "Two columns": bold words in the accent
    assert seen["strong"] == [0, 105, 92], seen
    assert luminance(seen["page"]) > 0.9, seen
