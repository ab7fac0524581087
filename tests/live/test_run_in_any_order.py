"""Live cells never depend on the presenter's memory: on a fresh `jaxdeck present` (a real Jupyter
server with RISE and our extension, a real kernel, a real headless Chromium), the deck's setup cell
runs by itself when the kernel starts and again when it restarts, and the first Shift+Enter on any
slide runs the earlier cells that kernel lacks first, quietly, so the slide prints its real output.

The fixture, tests/fixtures/live_in_any_order.md: a setup cell (tagged `setup`), five demos each
using the ones before it, a claim check after the second (it sets a name the fifth prints), a
listing that would fail if it ran, and a last slide whose first cell is a second setup cell. The same
page's console must stay clean of warnings and errors.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from live_pages import presented_copy

#: keys against RISE's own delays, as in test_slideshow.py: `make test` runs it with the machine to itself
pytestmark = pytest.mark.alone

ROOT = Path(__file__).resolve().parents[2]
DECK = ROOT / "tests" / "fixtures" / "live_in_any_order.md"
KERNEL_VALUE = (Path(__file__).parent / "kernel_value.js").read_text(encoding="utf-8")
#: (h, v) of the fixture's slides
TITLE, ONE, TWO, FOUR, FIVE, SIX = (0, 0), (2, 0), (3, 0), (6, 0), (7, 0), (8, 0)

#: Console messages on the live page that come from code this project neither builds nor configures,
#: each named by the script that logs it and its whole text:
#: - RISE's own application (jupyterlab_rise's static/rise/bundle.js) carries JupyterLab 4.3's
#:   @jupyter/web-components, @jupyter/react-components 0.16.7 and @jupyter/ydoc 3.0.2, and also modules
#:   of its own build that ask for 0.13 and 1.1 of them: it warns about itself as it starts.
#: - jupyterlab-rise's settings schema (schemas/jupyterlab-rise/plugin.json) binds its keys with
#:   `.jp-Notebook:focus` selectors, deprecated since JupyterLab 4.1: the page's settings registry
#:   (static/rise/2951.bundle.js) says so once.
#: - the ipywidgets manager (@jupyter-widgets/jupyterlab-manager, from the locked jupyterlab_widgets)
#:   was built against JupyterLab 4.6 and asks for ^4.6.2 (services ^7.6.2) of the page's shared
#:   modules, which RISE's JupyterLab 4.3 page has at 4.3.4 (7.3.4); it is needed for live widgets,
#:   and works with them (test_live_kernel.py drags a slider).
NOT_OURS = (
    ("/static/rise/bundle.js", "Unsatisfied version 0.16.7 from _JUPYTERLAB.CORE_OUTPUT of shared singleton module "
                               "@jupyter/web-components (required ~0.13.3)"),
    ("/static/rise/bundle.js", "Unsatisfied version 0.16.7 from _JUPYTERLAB.CORE_OUTPUT of shared singleton module "
                               "@jupyter/react-components (required ~0.13.3)"),
    ("/static/rise/bundle.js", "Unsatisfied version 3.0.2 from _JUPYTERLAB.CORE_OUTPUT of shared singleton module "
                               "@jupyter/ydoc (required ~1.1.1)"),
    ("/static/rise/2951.bundle.js", 'Deprecated shortcut selectors: ".jp-Notebook:focus" was replaced with '
                                    '".jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus" in JupyterLab 4.1 '
                                    '(present in ".lm-Widget.reveal .jp-Notebook:focus")'),
    *(("/lab/extensions/@jupyter-widgets/jupyterlab-manager/static/remoteEntry.",
       f"Unsatisfied version {have} from _JUPYTERLAB.CORE_OUTPUT of shared singleton module {module} (required {need})")
      for module, have, need in (("@jupyterlab/logconsole", "4.3.4", "^4.6.2"), ("@jupyterlab/mainmenu", "4.3.4", "^4.6.2"),
                                 ("@jupyterlab/notebook", "4.3.4", "^4.6.2"), ("@jupyterlab/rendermime", "4.3.4", "^4.6.2"),
                                 ("@jupyterlab/services", "7.3.4", "^7.6.2"), ("@jupyterlab/settingregistry", "4.3.4", "^4.6.2"),
                                 ("@jupyterlab/translation", "4.3.4", "^4.6.2"))),
    ("/lab/extensions/@jupyter-widgets/jupyterlab-manager/static/remoteEntry.",
     "No satisfying version (^4.6.2) of shared module @jupyterlab/outputarea found in shared scope default.\n"
     "Available versions: 4.3.4 from _JUPYTERLAB.CORE_OUTPUT"),
)


def not_ours(text: str, url: str) -> bool:
    return any(where in url and (text == said or text.startswith(said + "\n")) for where, said in NOT_OURS)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A fresh `jaxdeck present` of the fixture (no build: its slides have no outputs yet)."""
    with presented_copy(tmp_path_factory, "any-order", DECK) as started:
        yield started


@pytest.fixture
def console():
    """What the page logged as a warning or an error, or threw."""
    return []


def end_sessions(server) -> None:
    """End every session of the server, and its kernel: the next page starts a kernel of its own."""
    def call(method: str, path: str):
        request = urllib.request.Request(f"{server['base']}/api/{path}", method=method,
                                         headers={"Authorization": f"token {server['token']}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read() or b"null")

    for session in call("GET", "sessions"):
        call("DELETE", f"sessions/{session['id']}")


@pytest.fixture
def page(browser, server, console):
    """The live slideshow on a kernel of its own, watched from before it loads: each test starts where a
    presenter does, whatever ran before it."""
    end_sessions(server)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.on("console", lambda m: console.append((m.type, m.text, m.location.get("url", "")))
            if m.type in ("warning", "error") else None)
    page.on("pageerror", lambda e: console.append(("uncaught", str(e), "")))
    page.goto(f"{server['base']}/rise/slides/{DECK.name}?token={server['token']}")
    page.wait_for_selector("body.jd-live-ready", timeout=90000)
    yield page
    page.close()


#: on the slide ``[h, v]``, and RISE's selection (moved a moment after the slide changes) on it, when it has cells
ON_SLIDE = """([h, v]) => { const at = window.jaxdeckLive.reveal.getIndices();
  if (at.h !== h || (at.v || 0) !== v) return false;
  const slide = document.querySelector('.reveal .slides section.present');
  return !slide.querySelector('.jp-Cell') || !!slide.querySelector('.jp-Cell.jp-mod-active'); }"""


def go(page, where) -> None:
    page.evaluate("([h, v]) => window.jaxdeckLive.reveal.slide(h, v)", list(where))
    page.wait_for_function(ON_SLIDE, arg=list(where), timeout=30000)


def status(page) -> str:
    return page.evaluate("document.querySelector('.jd-live-status').textContent")


def wait_status(page, pattern: str, timeout: float = 60) -> None:
    try:
        page.wait_for_function("p => new RegExp(p).test(document.querySelector('.jd-live-status').textContent)",
                               arg=pattern, timeout=timeout * 1000)
    except Exception:
        raise AssertionError(f"the status line never matched {pattern!r}: it says {status(page)!r}") from None


def outputs(page, where) -> str:
    return page.evaluate("([h, v]) => [...document.querySelectorAll('.reveal .slides > section')[h]"
                         ".querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText.trim()).join('\\n')", list(where))


def wait_output(page, text: str, timeout: float = 60) -> None:
    page.wait_for_function(
        "t => [...document.querySelectorAll('.reveal .slides section.present .jp-OutputArea-output')]"
        ".some(e => e.innerText.includes(t))", arg=text, timeout=timeout * 1000)


def kernel_value(page, expression: str) -> str:
    return page.evaluate(KERNEL_VALUE, expression)


def test_the_setup_runs_when_the_kernel_starts_and_the_first_shift_enter_on_the_fifth_demo_prints_its_output(page, tmp_path):
    wait_status(page, r"^Ran the 2 setup cells \(\d+\.\d s\): the kernel is ready\.$")
    assert kernel_value(page, "setups") == "1"  # ran once, by itself: nothing was pressed
    assert kernel_value(page, "'xs' in globals()") == "False"  # and nothing else ran
    go(page, FIVE)
    page.keyboard.press("Shift+Enter")
    wait_output(page, "five")
    page.screenshot(path=str(tmp_path / "first-shift-enter.png"))
    said = status(page)
    shown = outputs(page, FIVE)
    assert shown == "five 132 setups 1 checked True", shown  # every demo before it, the check too
    assert "NameError" not in shown
    # one, two, two's check, three, four: not the setup (it ran), not the listing (never run)
    assert said.startswith("Ran 5 earlier cells first ("), said
    assert outputs(page, ONE) == ""  # quietly: the earlier slides show what they showed
    check = DECK.read_text(encoding="utf-8").splitlines().index('```python tags=["check"]') + 1
    assert page.evaluate("window.jaxdeckLive.checks") == [{"line": check, "ok": True, "message": ""}]
    assert page.evaluate("window.jaxdeckLive.reveal.getIndices().h") == FIVE[0]
    # the title's math, typeset by RISE's own MathJax (the page loads no MathJax 3 extension: home.NOT_ON_SLIDES)
    assert page.evaluate("document.querySelectorAll('.reveal .slides > section')[0].querySelectorAll('mjx-container').length") == 1


def test_the_first_shift_enter_on_a_slide_that_opens_with_a_setup_cell_runs_the_demo_after_it(page):
    """RISE selects the slide's first cell, here a setup cell the kernel ran at its start: running it again
    would show nothing new, so the press runs the demo after it (an editor clicked into still runs its own)."""
    wait_status(page, r"^Ran the 2 setup cells")
    go(page, SIX)
    page.keyboard.press("Shift+Enter")
    wait_output(page, "six")
    assert outputs(page, SIX) == "six its setup ran 1 time"
    assert kernel_value(page, "six_setups") == "1" and kernel_value(page, "setups") == "1"


def test_the_live_page_logs_no_warning_or_error_of_ours(page, console):
    """Everything the page logged while it loaded, ran the setup and ran a slide with the cells before
    it: warnings and errors alike, less the messages of RISE's own page and of the ipywidgets manager
    named in NOT_OURS, each of which must still be there."""
    wait_status(page, r"^Ran the 2 setup cells")
    go(page, FIVE)
    page.keyboard.press("Shift+Enter")
    wait_output(page, "five")
    wait_status(page, r"^Ran 5 earlier cells first")
    page.wait_for_function("() => window.jaxdeckLive.panel.sessionContext.session.kernel.status === 'idle'", timeout=30000)
    ours = [message for message in console if not not_ours(message[1], message[2])]
    assert ours == [], ours
    seen = {(where, said) for where, said in NOT_OURS for _, text, url in console
            if where in url and (text == said or text.startswith(said + "\n"))}
    assert seen == set(NOT_OURS), set(NOT_OURS) - seen  # each named message is still what the page logs


#: the execution count of the code cell on the slide on show (it grows each time that cell runs)
EXECUTION_COUNT = """(() => window.jaxdeckLive.panel.content.widgets
  .find(c => c.model.type === 'code' && c.node.closest('section.present')).model.executionCount ?? 0)"""


def test_a_restart_runs_the_setup_again_and_forgets_what_ran(page, console):
    wait_status(page, r"^Ran the 2 setup cells")
    go(page, FOUR)
    before = len(console)
    page.keyboard.press("Escape")
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("0")
    page.keyboard.press("0")
    wait_status(page, r"^The kernel restarted and ran the 2 setup cells again \(\d+\.\d s\)")
    assert kernel_value(page, "setups") == "1"  # a new kernel, its setup run once
    assert kernel_value(page, "xs") == "NameError: name 'xs' is not defined"  # the earlier results are gone
    assert page.evaluate("window.jaxdeckLive.setups") == 2
    page.keyboard.press("Shift+Enter")
    wait_output(page, "four")
    assert outputs(page, FOUR) == "four 2.0"
    assert status(page).startswith("Ran 4 earlier cells first ("), status(page)  # one, two, its check, three
    assert kernel_value(page, "runs_of_one") == "1"
    count = page.evaluate(EXECUTION_COUNT)
    page.keyboard.press("Shift+Enter")  # the slide again: everything before it ran in this kernel already
    page.wait_for_function(f"() => {EXECUTION_COUNT}() > {count}", timeout=30000)  # the slide's own cell ran again
    assert kernel_value(page, "runs_of_one") == "1"  # and nothing before it
    # the one message a restart logs: @jupyterlab/services' kernel connection reconnects its websocket
    # to the restarted kernel by the path it takes for a lost link, and says so, 0 s being its first delay
    logged = console[before:]
    assert logged and all(kind == "warning" and text == "Connection lost, reconnecting in 0 seconds."
                          and "/static/rise/" in url for kind, text, url in logged), logged


def test_an_earlier_cell_that_fails_shows_its_error_and_the_slide_waits(page):
    wait_status(page, r"^Ran the 2 setup cells")
    go(page, TWO)
    page.keyboard.press("Escape")
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("0")
    page.keyboard.press("0")
    wait_status(page, r"^The kernel restarted and ran the 2 setup cells again")
    # the machine lost what the setup gave (as a cell run by hand out of order might have)
    page.evaluate("async () => { await window.jaxdeckLive.panel.sessionContext.session.kernel"
                  ".requestExecute({code: 'del np', silent: true}).done; }")
    page.keyboard.press("Shift+Enter")
    line = DECK.read_text(encoding="utf-8").splitlines().index("xs = np.arange(4)")  # its fence's line
    wait_status(page, rf"^An earlier cell, run first, on line {line} failed: NameError: name 'np' is not defined$")
    assert "NameError" in outputs(page, ONE)  # its error under it, where it would have shown
    assert outputs(page, TWO) == ""  # the slide's own cell waits: it would only fail too
    assert kernel_value(page, "'ys' in globals()") == "False"


def test_shift_enter_on_a_slide_without_code_says_there_is_none(page):
    wait_status(page, r"^Ran the 2 setup cells")
    go(page, TITLE)
    page.keyboard.press("Shift+Enter")
    wait_status(page, r"^No code to run on this slide\.$", timeout=10)
    assert page.evaluate("window.jaxdeckLive.reveal.getIndices().h") == TITLE[0]  # and the slide stays
