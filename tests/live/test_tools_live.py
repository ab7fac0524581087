"""The presenting tools on the live slideshow: reveal.js's search and zoom, the slide menu and the
static deck's chalkboard (the extension registers them; the server serves the chalkboard's files),
in a real Jupyter server with jupyterlab-rise and a real Chromium."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from support import ROOT, evaluate_live, live_page, presenting

#: a live server with a kernel and Chromium
pytestmark = pytest.mark.heavy

#: which tools reveal.js has, once all have registered or 15 s have passed (the chalkboard's scripts load after
#: the slideshow starts, later on a busy machine)
REGISTERED = """async () => {
  const registered = () => Object.fromEntries(['search', 'zoom', 'menu', 'RevealChalkboard']
    .map(id => [id, window.jaxdeckLive.reveal.hasPlugin(id)]));
  for (let i = 0; i < 150 && !Object.values(registered()).every(Boolean); i++) await new Promise(r => setTimeout(r, 100));
  return registered();
}"""


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
        "search": True, "zoom": True, "menu": True, "RevealChalkboard": True}


def test_the_live_menu_lists_the_slides(browser, server):
    script = """async () => {
      const reveal = window.jaxdeckLive.reveal;
      for (let i = 0; i < 50 && !document.querySelector('.slide-menu-items li'); i++) await new Promise(r => setTimeout(r, 100));
      reveal.getPlugin('menu').toggle();
      return [...document.querySelectorAll('.slide-menu-items li')].length === reveal.getTotalSlides()
        && document.querySelector('.slide-menu').classList.contains('active');
    }"""
    assert evaluate_live(browser, server, "example.md", script) is True


def test_tools_false_leaves_out_every_tool_live(browser, server):
    assert evaluate_live(browser, server, "plain.md", REGISTERED) == {
        "search": False, "zoom": False, "menu": False, "RevealChalkboard": False}


#: the chalkboard's key, and what says its part is open: the board shown, the canvas over the slide taking the pointer
OPEN = {"b": "document.getElementById('chalkboard').style.visibility === 'visible'",
        "c": "document.getElementById('notescanvas').style.pointerEvents === 'auto'"}
#: what the page loaded of the chalkboard's files (from the server's static files), and how each came back
LOADED = """() => performance.getEntriesByType('resource').filter(e => e.name.includes('/static/chalkboard/'))
  .map(e => [e.name.split('/static/chalkboard/')[1], e.responseStatus])"""


def test_the_chalkboard_opens_on_its_keys_live_with_its_pictures(browser, server):
    """B opens the board and C the canvas over the slide, as in the static deck, and the notebook keeps
    its cells (JupyterLab binds B and C to insert-cell-below and copy-cell on this page)."""
    with live_page(browser, server, "example.md") as page:
        page.wait_for_function("() => window.jaxdeckLive.reveal.hasPlugin('RevealChalkboard')", timeout=10000)
        cells = page.evaluate("window.jaxdeckLive.panel.content.widgets.length")
        for key, on in OPEN.items():
            assert page.evaluate(f"() => {on}") is False, key
            page.evaluate("window.jaxdeckLive.panel.content.node.focus()")
            page.keyboard.press(key)
            page.wait_for_function(f"() => {on}", timeout=5000)
            page.keyboard.press(key)
            page.wait_for_function(f"() => !({on})", timeout=5000)
        assert page.evaluate("window.jaxdeckLive.panel.content.widgets.length") == cells
        try:  # the board's picture is listed once it has come: on a busy machine, after the board is open
            page.wait_for_function(f"() => ({LOADED})().some(([name]) => name === 'img/blackboard.png')", timeout=15000)
        except PlaywrightTimeout:
            pass  # the assertion below says what did come
        files = dict(page.evaluate(LOADED))
        assert {"plugin.js", "style.css", "img/blackboard.png"} <= set(files), files
        assert set(files.values()) == {200}, files


def test_the_chalkboards_keys_are_on_the_live_help_overlay(browser, server):
    with live_page(browser, server, "example.md") as page:
        page.wait_for_function("() => window.jaxdeckLive.reveal.hasPlugin('RevealChalkboard')", timeout=10000)
        page.evaluate("window.jaxdeckLive.panel.content.node.focus()")
        page.keyboard.press("Shift+Slash")
        page.wait_for_selector(".reveal .overlay-help", timeout=10000)
        rows = page.eval_on_selector_all(".reveal .overlay-help tr", "rows => rows.map(r => r.innerText.replace(/\\s+/g, ' ').trim())")
    assert "B Toggle chalkboard" in rows and "C Toggle notes canvas" in rows, rows
    assert "M Toggle menu" in rows and "Click the slide number Open the menu" in rows, rows  # no menu button
    assert [row for row in rows if "Pause" in row] == ["B , . Pause (.; B is the chalkboard)"], rows
    assert not any(row.startswith(("X ", "Y ", "D ")) for row in rows), rows  # JupyterLab's cell keys here


#: where the slide number is on every slide: the script the static deck's test runs (tests/html/test_slide_number.py)
SLIDE_NUMBER = (ROOT / "tests" / "slide_number.js").read_text(encoding="utf-8")


def test_the_live_slide_number_is_clear_of_the_arrows_footer_and_logo_and_opens_the_menu(browser, server):
    """example.md has a vertical stack (the down arrow), a footer and a logo; RISE's own rule put the
    number over its arrows, and its "?" sat where the number is now."""
    with live_page(browser, server, "example.md") as page:
        page.wait_for_selector(".slide-menu-items li", state="attached", timeout=10000)
        records = page.evaluate(SLIDE_NUMBER, True)
        total = page.evaluate("window.jaxdeckLive.reveal.getTotalSlides()")
        page.click(".reveal .slide-number")
        page.wait_for_selector(".slide-menu.active", timeout=5000)
    assert len(records) == total and any(r["downArrow"] for r in records), records
    assert {f"{r['h']}/{r['v']}": r["problems"] for r in records if r["problems"]} == {}
