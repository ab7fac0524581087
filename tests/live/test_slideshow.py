"""The live slideshow end to end: `jaxdeck present`'s real server (RISE + our extension), a real
kernel and a real headless Chromium, compared with the static HTML deck built from the same source.

One server for the module serves a small repository: the real `slides/example.md` (with the outputs
of a real build) and `live_talk.md`, a fixture with a setup cell, a cell that depends on it, a long
cell and a widget. Every page records the URLs it asks for: none may leave the loopback address.
What the presenter's keys do to the kernel is test_live_kernel.py's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from live_pages import open_live, watch_requests
from support import presenting

#: its keys race RISE's own delays on a busy machine: `make test` runs it after the parallel part
pytestmark = pytest.mark.alone

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EXAMPLE = ROOT / "slides" / "example.md"

#: (slide index h, v) in example.md: the title, a demo cell with output, pauses before code, two columns
TITLE, DEMO, PAUSES, COLUMNS, STEPS = (0, 0), (2, 0), (3, 0), (4, 0), (5, 0)

SCALED_FONT = """([sel, live]) => {
  const reveal = live ? window.jaxdeckLive.reveal : window.Reveal;
  const slide = reveal.getCurrentSlide();
  const el = [...slide.querySelectorAll(sel)].find(e => e.offsetParent !== null && e.textContent.trim());
  if (!el) return null;
  return parseFloat(getComputedStyle(el).fontSize) * reveal.getScale();
}"""

#: the same element in both decks: (static selector, live selector)
ELEMENTS = {
    "heading": ("h2", ".jp-RenderedMarkdown h2"),
    "body": ("p:not(.jd-byline):not(.jd-provenance)", ".jp-RenderedMarkdown p"),
    "code": (".jp-InputArea-editor pre", ".jp-InputArea-editor .cm-line"),
    "output": (".jp-OutputArea-output pre", ".jp-OutputArea-output pre"),
}
WHERE = {"heading": DEMO, "body": TITLE, "code": DEMO, "output": DEMO}


@pytest.fixture(scope="module")
def repo(tmp_path_factory, built):
    """A small repository: jupytext.toml, the example deck with its images and build, the live fixture."""
    root = tmp_path_factory.mktemp("live")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    shutil.copytree(ROOT / "slides" / "images", root / "slides" / "images")
    shutil.copy(EXAMPLE, root / "slides" / "example.md")
    shutil.copy(FIXTURES / "live_talk.md", root / "slides" / "live_talk.md")
    outputs, _ = built(EXAMPLE)
    (root / "build" / "notebooks").mkdir(parents=True)
    shutil.copy(outputs.notebook, root / "build" / "notebooks" / "example.ipynb")
    return root


@pytest.fixture(scope="module")
def server(repo):
    """`python -m jaxdeck present --port 0 --no-browser`; yields its process and base URL with token."""
    with presenting(repo, "slides/example.md") as started:
        yield started


@pytest.fixture
def live(browser, server, remote):
    """Opens live pages, `live(deck, width, height)`; they are closed after the test."""
    pages = []

    def open_page(deck: str, width: int = 1280, height: int = 720):
        pages.append(open_live(browser, server, remote, deck, width, height))
        return pages[-1]

    yield open_page
    for page in pages:
        page.close()


#: true once the slide ``[h, v]`` is current. Not async: wait_for_function takes the promise an async
#: function returns for a true value at once. (RISE does not move the selection onto every slide: on the
#: pauses slide the setup cell stays selected, so the selection is no sign of a settled slide.)
SETTLED = """([reveal, h, v]) => { const at = eval(reveal).getIndices(); return at.h === h && (at.v || 0) === v; }"""
#: two frames drawn: what a layout observer or a frame callback does after a change has run
TWO_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def go(page, where, live=True):
    reveal = "window.jaxdeckLive.reveal" if live else "window.Reveal"
    page.evaluate(f"([h, v]) => {reveal}.slide(h, v)", list(where))
    # on that slide, and laid out (two frames drawn)
    page.wait_for_function(SETTLED, arg=[reveal, *where], timeout=30000)
    page.evaluate(TWO_FRAMES)


def static_sizes(browser, html, width, height):
    from jaxdeck.pages import open_deck

    sizes = {}
    with open_deck(browser, html, width=width, height=height) as (page, _):
        for name, (selector, _) in ELEMENTS.items():
            go(page, WHERE[name], live=False)
            sizes[name] = page.evaluate(SCALED_FONT, [selector, False])
    return sizes


def live_sizes(page):
    sizes = {}
    for name, (_, selector) in ELEMENTS.items():
        go(page, WHERE[name])
        sizes[name] = page.evaluate(SCALED_FONT, [selector, True])
    return sizes


def test_live_type_matches_the_static_deck_and_grows_with_the_window(live, browser, built, tmp_path):
    outputs, _ = built(EXAMPLE)
    static = static_sizes(browser, outputs.html, 1280, 720)
    measured, drawn = {}, {}
    for width, height in ((1280, 720), (1920, 1080)):
        page = live("example.md", width, height)
        measured[width] = live_sizes(page)
        go(page, DEMO)
        drawn[width] = page.evaluate(DRAWN)
        page.screenshot(path=str(tmp_path / f"live-{width}.png"))
    for width, where in drawn.items():  # the slide laid out at its own width, drawn inside the window
        assert where["laid_out"] == 1280 and where["left"] >= 0 and where["right"] <= width, drawn
        assert where["tall"] == 720 and where["top"] >= 0 and where["bottom"] <= width * 9 // 16, drawn
    for name, size in static.items():
        assert size and measured[1280][name], (name, static, measured)
        assert abs(measured[1280][name] - size) <= 0.10 * size, (name, size, measured[1280][name])
        assert measured[1920][name] >= 1.3 * measured[1280][name], (name, measured)


#: the slides' layout width, and where they are drawn in the window
DRAWN = """() => { const s = window.jaxdeckLive.reveal.getSlidesElement(), r = s.getBoundingClientRect();
  return {laid_out: s.offsetWidth, tall: s.offsetHeight, left: Math.round(r.left), right: Math.round(r.right),
          top: Math.round(r.top), bottom: Math.round(r.bottom)}; }"""


#: the size of the slides' box (`.reveal`), which JupyterLab sizes after the window
BOX = "() => { const r = document.querySelector('.reveal').getBoundingClientRect(); return [r.width, r.height]; }"
#: the slides' box has grown past ``[width, height]`` and JupyterLab's panels are done growing (a transition)
GROWN = """([w, h]) => { const r = document.querySelector('.reveal').getBoundingClientRect();
  return r.width > w && r.height > h
         && [...document.querySelectorAll('.jp-MainAreaWidget')].every(panel => panel.getAnimations().length === 0); }"""


def test_a_window_grown_to_the_projector_draws_the_slide_larger(browser, server, remote):
    """A real window resize (the page follows its window, as a browser's does), not an emulated viewport."""
    context = browser.new_context(no_viewport=True)
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        window = cdp.send("Browser.getWindowForTarget")["windowId"]

        def window_size(width: int, height: int) -> None:
            """The window made as large as a page of ``width`` x ``height`` needs (its own bars included)."""
            bars = page.evaluate("[outerWidth - innerWidth, outerHeight - innerHeight]")
            bounds = {"width": width + bars[0], "height": height + bars[1]}
            cdp.send("Browser.setWindowBounds", {"windowId": window, "bounds": bounds})
            page.wait_for_function("([w, h]) => window.innerWidth === w && window.innerHeight === h",
                                   arg=[width, height], timeout=10000)

        window_size(1280, 720)
        page.goto(f"{server['base']}/rise/slides/example.md?token={server['token']}")
        page.wait_for_selector("body.jd-live-ready", timeout=90000)
        go(page, WHERE["code"])
        code = ELEMENTS["code"][1]
        before = page.evaluate(SCALED_FONT, [code, True])
        box = page.evaluate(BOX)
        window_size(1920, 1080)  # dragged to the projector and made full screen, on the same slide
        page.wait_for_function(GROWN, arg=box, timeout=30000)
        page.evaluate(TWO_FRAMES)  # the box's resize observer has laid the slides out again
        after = page.evaluate(SCALED_FONT, [code, True])
        drawn = page.evaluate(DRAWN)
    finally:
        context.close()
    assert 1.4 * before <= after <= 1.6 * before, (before, after)
    # laid out at the deck's width and drawn inside the window, not stretched to the window and cut off
    assert drawn["laid_out"] == 1280 and drawn["left"] >= 0 and drawn["right"] <= 1920, drawn
    assert drawn["tall"] == 720 and drawn["top"] >= 0 and drawn["bottom"] <= 1080, drawn


def test_slides_show_no_notebook_chrome_and_the_title_byline(live):
    page = live("example.md")
    go(page, TITLE)
    title = page.inner_text(".reveal .slides section.present")
    assert "Every feature of the deck format on a few slides" in title and "The jaxdeck authors" in title
    assert "Outputs measured on" in title
    for where in (TITLE, DEMO, PAUSES, COLUMNS):
        go(page, where)
        prompts = page.eval_on_selector_all(
            ".reveal .slides section.present .jp-InputPrompt, .reveal .slides section.present .jp-OutputPrompt",
            "els => els.filter(e => e.offsetParent !== null && e.getBoundingClientRect().width > 0).length")
        assert prompts == 0, where
        empty = page.eval_on_selector_all(".reveal .slides section.present .jp-Cell",
                                          "els => els.filter(e => e.offsetParent !== null && !e.textContent.trim()).length")
        assert empty == 0, where


def test_columns_sit_side_by_side(live):
    page = live("example.md")
    go(page, COLUMNS)
    boxes = page.eval_on_selector_all(".reveal .slides section.present .jd-column",
                                      "els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert len(boxes) == 2
    left, right = boxes
    assert left["right"] <= right["left"] + 1 and abs(left["top"] - right["top"]) < 5
    assert left["width"] > 100 and right["width"] > 100


#: ``n`` step fragments of the slide's listing shown by reveal.js, and no fade of its lines still running
STEPPED = """n => { const slide = document.querySelector('.reveal .slides section.present');
  return slide.querySelectorAll('.jd-step.fragment.visible').length === n
         && slide.querySelector('.jd-listing').getAnimations({subtree: true}).length === 0; }"""


def test_highlight_steps_move_through_their_lines(live):
    page = live("example.md")
    go(page, STEPS)
    listing = ".reveal .slides section.present .jd-listing"
    opacity = ("n => [...document.querySelectorAll('.reveal .slides section.present .jd-listing .cm-line')]"
               ".map(e => getComputedStyle(e).opacity === '1')")
    seen = []
    for step in range(3):  # highlight="1|2-3|4": each step shows its own lines
        if step:
            page.keyboard.press("ArrowRight")
        # reveal.js has shown as many of the listing's step fragments, and the lines' fades are over
        page.wait_for_function(STEPPED, arg=step, timeout=30000)
        seen.append((page.get_attribute(listing, "data-jd-step"), page.evaluate(opacity, None)))
    assert seen == [("0", [True, False, False, False]), ("1", [False, True, True, False]),
                    ("2", [False, False, False, True])]


def test_speaker_notes_are_rendered_once_without_the_marker(live):
    page = live("live_talk.md")
    notes = page.eval_on_selector_all(".reveal aside.notes", "els => els.map(e => e.innerHTML)")
    assert len(notes) == 5
    assert all("Note:" not in n and "`" not in n for n in notes), notes
    assert "<code>code</code>" in notes[0] and notes[0].count("The title slide") == 1


def test_speaker_view_shows_this_slides_notes_and_leaves_the_main_view_where_it_is(live):
    page = live("live_talk.md")
    go(page, (2, 0))
    with page.context.expect_page(timeout=30000) as opened:
        page.keyboard.press("s")
    speaker = opened.value
    speaker.wait_for_function("() => document.querySelector('.speaker-controls-notes') &&"
                              " document.querySelector('.speaker-controls-notes').innerText.includes('answer')",
                              timeout=30000)
    page.wait_for_timeout(3000)  # the previews load whole slideshows: give them time to report
    assert page.evaluate("window.jaxdeckLive.reveal.getIndices().h") == 2
    notes = speaker.inner_text(".speaker-controls-notes")
    assert notes.count("The answer comes from the setup slide.") == 1
    assert "Note:" not in notes and "`" not in notes
    speaker.close()


def test_a_slideshow_loads_with_no_error_in_the_console(browser, server, remote):
    """Both decks load, their kernels connect and the widget manager starts with nothing logged as an error;
    so does JupyterLab's page.

    Before, every load logged 7 to 39 "RangeError: Maximum call stack size exceeded", all from RISE's
    own bundle (static/rise/4437.bundle.js): RISE hides the notebook's toolbar but leaves it in the
    page, and attaching its <jp-toolbar> (@jupyter/web-components' Toolbar.connectedCallback, which
    derives the toolbar's fill colour design token from its parent's) sends @microsoft/fast-foundation
    2.50.0's design tokens into endless re-entry (microsoft/fast#7057); its
    DesignTokenBindingObserver.handleChange catches each RangeError and logs it. The extension now
    takes that hidden toolbar out of the panel before RISE attaches it (keepToolbarOut in
    jaxdeck/live/extension/src/layout.ts), so none is logged. The widget manager's "Shared module
    @jupyterlab/console doesn't exist in shared scope" is what the extension's bundled
    @jupyterlab/console prevents (src/console.ts).
    """
    for deck in ("example.md", "live_talk.md"):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(f"{m.text} ({m.location.get('url')})") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught {e}"))
        watch_requests(page, remote)
        try:
            page.goto(f"{server['base']}/rise/slides/{deck}?token={server['token']}")
            page.wait_for_selector("body.jd-live-ready", timeout=90000)
            page.wait_for_function("() => window.jaxdeckLive.panel.sessionContext.session?.kernel?.status === 'idle'",
                                   timeout=60000)
            page.wait_for_timeout(1000)  # anything a late plugin or the kernel's first messages would log
        finally:
            page.close()
        assert errors == [], (deck, errors)
    # JupyterLab's own page loads the extension too (the same server), where it does nothing: it must
    # not ask for reveal.js there, which only RISE's page shares
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors = []
    page.on("console", lambda m: errors.append(f"{m.text} ({m.location.get('url')})") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught {e}"))
    try:
        with page.expect_request(lambda r: "/lab/extensions/jaxdeck-live/static/" in r.url, timeout=90000):
            page.goto(f"{server['base']}/lab?token={server['token']}")
        page.wait_for_selector("#jp-main-dock-panel", timeout=90000)
        page.wait_for_timeout(2000)  # its plugins activated
    finally:
        page.close()
    assert errors == [], ("JupyterLab", errors)


#: the registry's execute, recording what it is asked to run, and running none of ours (no kernel is touched)
RECORD_COMMANDS = """() => {
  const commands = window.jaxdeckLive.commands, run = commands.execute.bind(commands);
  window.ranCommands = [];
  commands.execute = (id, args) => {
    window.ranCommands.push(id);
    return id.startsWith('jaxdeck-live:') ? Promise.resolve() : run(id, args);
  };
}"""
#: where the focus can be while presenting: on the deck (where the extension keeps it), on a cell, nowhere
FOCUS = {
    "deck": "() => window.jaxdeckLive.panel.content.node.focus()",
    "cell": "() => document.querySelector('.reveal .slides section.present .jp-CodeCell').focus()",
    "nothing": "() => document.activeElement.blur()",
}
PRESENTER_KEYS = ((("Shift+Enter",), "jaxdeck-live:run"), (("i", "i"), "jaxdeck-live:interrupt"),
                  (("0", "0"), "jaxdeck-live:restart"), (("r",), "jaxdeck-live:recover"),
                  (("s",), "jaxdeck-live:speaker-view"), (("b",), "jaxdeck-live:chalkboard"),
                  (("c",), "jaxdeck-live:draw-on-slide"))


def test_the_presenter_keys_run_the_extensions_commands_wherever_the_focus_is(live):
    """RISE and JupyterLab bind the same keys on this page (RISE:smart-exec, notebook:interrupt-kernel,
    notebook:restart-kernel, notebook:change-cell-to-raw, a chalkboard colour, notebook:insert-cell-below,
    notebook:copy-cell): the registry runs ours."""
    page = live("live_talk.md")
    go(page, (2, 0))
    page.wait_for_timeout(600)  # past RISE's selection of the slide's first cell
    page.evaluate(RECORD_COMMANDS)
    for where, focus in FOCUS.items():
        for keys, command in PRESENTER_KEYS:
            page.evaluate("() => { window.ranCommands = []; }")
            page.evaluate(focus)
            for key in keys:
                page.keyboard.press(key)
            page.wait_for_function("() => window.ranCommands.length > 0", timeout=5000)
            page.wait_for_timeout(50)
            assert page.evaluate("window.ranCommands") == [command], (where, keys)
    # typing in a cell's editor: these are characters, and Shift+Enter still runs the slide's code
    page.evaluate("() => { window.ranCommands = []; }")
    editor = ".reveal .slides section.present .jp-CodeCell .cm-content"
    page.click(editor)
    page.keyboard.press("End")
    page.keyboard.type(" # ii00rsbc")
    page.keyboard.press("Shift+Enter")
    page.wait_for_function("() => window.ranCommands.length > 0", timeout=5000)
    assert page.evaluate("window.ranCommands") == ["jaxdeck-live:run"]
    assert page.inner_text(editor).endswith("# ii00rsbc")


def test_help_overlay_lists_the_presenter_keys(live):
    page = live("live_talk.md")
    page.keyboard.press("Shift+Slash")
    page.wait_for_selector(".reveal .overlay-help", timeout=10000)
    text = page.inner_text(".reveal .overlay-help")
    for description in ("Interrupt the kernel", "Restart the kernel", "re-run the code cells before this slide"):
        assert description in text
