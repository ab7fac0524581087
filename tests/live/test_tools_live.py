"""The presenting tools on the live slideshow: RISE's chalkboard (the server turns it on) and
reveal.js's search and zoom and the slide menu (the extension registers them), in a real Jupyter
server with jupyterlab-rise and a real Chromium."""

from __future__ import annotations

import shutil

import pytest

from support import ROOT, evaluate_live, presenting

pytestmark = pytest.mark.alone

REGISTERED = """() => Object.fromEntries(['search', 'zoom', 'menu', 'RevealChalkboard']
  .map(id => [id, window.jaxdeckLive.reveal.hasPlugin(id)]))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("tools")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    shutil.copytree(ROOT / "slides" / "images", root / "slides" / "images")
    shutil.copy(ROOT / "slides" / "example.md", root / "slides" / "example.md")
    (root / "slides" / "plain.md").write_text("---\njupyter:\n  jaxdeck:\n    tools: false\n---\n\n# Plain\n\n---\n\n## Two\n")
    with presenting(root, "slides/example.md") as started:
        yield started


def test_the_live_slideshow_has_every_tool(browser, server):
    assert evaluate_live(browser, server, "example.md", REGISTERED) == {
        "search": True, "zoom": True, "menu": True, "RevealChalkboard": False}


def test_the_live_menu_lists_the_slides(browser, server):
    script = """async () => {
      const reveal = window.jaxdeckLive.reveal;
      for (let i = 0; i < 50 && !document.querySelector('.slide-menu-items li'); i++) await new Promise(r => setTimeout(r, 100));
      reveal.getPlugin('menu').toggle();
      return [...document.querySelectorAll('.slide-menu-items li')].length === reveal.getTotalSlides()
        && document.querySelector('.slide-menu').classList.contains('active');
    }"""
    assert evaluate_live(browser, server, "example.md", script) is True


def test_tools_false_leaves_out_the_chalkboard_live(browser, server):
    assert evaluate_live(browser, server, "plain.md", REGISTERED)["RevealChalkboard"] is False
