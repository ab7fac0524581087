"""The presenter's keys on a real kernel through the live slideshow: `jaxdeck present`'s real server (RISE +
our extension), a real kernel and a real headless Chromium. Shift+Enter runs a slide's code (the earlier
cells it needs first), a claim check runs quietly after its cell, I I interrupts, R recovers a killed
kernel, 0 0 restarts it, a widget answers a drag, a cell is still an editor, and a dropped link to the
server comes back with the kernel's state.

One server for the module serves `live_talk.md`, a fixture with a setup cell, a cell that depends on it
and a claim check, a long cell and a widget; one page on it is shared by the tests, each of which puts
what it needs in place itself (outputs cleared, `base` as the setup gives it), so they pass in any order.
Every page records the URLs it asks for: none may leave the loopback address.
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import psutil
import pytest

from live_pages import open_live, presented_copy
from support import kernels_under, wait_for

#: its keys race RISE's own delays on a busy machine: `make test` runs it after the parallel part
pytestmark = pytest.mark.alone

ROOT = Path(__file__).resolve().parents[2]
DECK = ROOT / "tests" / "fixtures" / "live_talk.md"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`python -m jaxdeck present --port 0 --no-browser` on a small repository: jupytext.toml and the fixture."""
    with presented_copy(tmp_path_factory, "live-kernel", DECK) as started:
        yield started


def go(page, where) -> None:
    """To the slide ``(h, v)``, once it is current and laid out (two frames drawn)."""
    page.evaluate("([h, v]) => window.jaxdeckLive.reveal.slide(h, v)", list(where))
    page.wait_for_function("([h, v]) => { const at = window.jaxdeckLive.reveal.getIndices();"
                           " return at.h === h && (at.v || 0) === v; }", arg=list(where), timeout=30000)
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


@pytest.fixture(scope="module")
def talk(browser, server, remote):
    """One page on live_talk.md, shared by the tests that drive its kernel."""
    page = open_live(browser, server, remote, DECK.name)
    yield page
    page.close()


def outputs_on_slide(page) -> str:
    return page.eval_on_selector_all(".reveal .slides section.present .jp-OutputArea-output",
                                     "els => els.map(e => e.innerText).join('\\n')")


def wait_output(page, text: str, timeout: float = 30):
    page.wait_for_function(
        "t => [...document.querySelectorAll('.reveal .slides section.present .jp-OutputArea-output')]"
        ".some(e => e.innerText.includes(t))", arg=text, timeout=timeout * 1000)


def test_the_first_shift_enter_runs_the_slides_code(talk):
    go(talk, (1, 0))
    talk.keyboard.press("Shift+Enter")  # no click first
    go(talk, (2, 0))
    clear_outputs(talk)
    talk.keyboard.press("Shift+Enter")
    wait_output(talk, "answer 42", 60)
    assert talk.evaluate("window.jaxdeckLive.reveal.getIndices().h") == 2  # still on the demo's slide


#: the slide's code cell has been sent to the kernel, after any earlier cells it needed, and the kernel is busy with it
SLEEPING = """() => { const live = window.jaxdeckLive;
  const cell = live.panel.content.widgets.find(c => c.model.type === 'code' && c.node.closest('section.present'));
  return live.ran.has(cell.model.id) && live.panel.sessionContext.session.kernel.status === 'busy'; }"""


def clear_outputs(page) -> None:
    """Clear the outputs of the code cells on the slide on show, so that what a test waits for is from its own run."""
    page.evaluate("() => window.jaxdeckLive.panel.content.widgets.filter(c => c.model.type === 'code'"
                  " && c.node.closest('section.present')).forEach(c => c.model.outputs.clear())")


def in_kernel(page, code: str) -> None:
    page.evaluate("async c => { await window.jaxdeckLive.panel.sessionContext.session.kernel"
                  ".requestExecute({code: c, silent: true}).done; }", code)


def test_a_claim_check_runs_quietly_after_its_cell_and_a_failure_is_one_status_line(talk):
    go(talk, (2, 0))
    clear_outputs(talk)
    checked = talk.evaluate("window.jaxdeckLive.checks.length")
    talk.keyboard.press("Shift+Enter")  # the setup first, quietly, when this kernel has not run it
    wait_output(talk, "answer 42", 60)
    talk.wait_for_function("n => window.jaxdeckLive.checks.length > n", arg=checked, timeout=30000)
    assert talk.evaluate("window.jaxdeckLive.checks.at(-1).ok") is True
    assert "no longer holds" not in talk.inner_text(".jd-live-status")  # a claim that holds says nothing
    # the check's source is on no slide
    shown = talk.eval_on_selector_all(".reveal .slides section .jp-Cell:not(.jp-mod-hidden)",
                                      "els => els.filter(e => e.offsetParent !== null).map(e => e.innerText).join('\\n')")
    assert "expected the answer 42" not in shown
    in_kernel(talk, "base = 99")  # the machine no longer gives what the slide claims
    try:
        clear_outputs(talk)
        talk.keyboard.press("Shift+Enter")
        wait_output(talk, "answer 100")
        wait_status(talk, "no longer holds here: expected the answer 42, got 100", 30)
        assert "AssertionError" not in outputs_on_slide(talk) and "Traceback" not in outputs_on_slide(talk)
    finally:
        in_kernel(talk, "base = 41")  # what the setup gives, for the tests that share this page


def test_interrupt_key_stops_a_long_cell_and_the_kernel_survives(talk):
    go(talk, (3, 0))
    clear_outputs(talk)
    talk.keyboard.press("Shift+Enter")
    talk.wait_for_function(SLEEPING, timeout=60000)  # the earlier cells it needs run first, quietly
    started = time.monotonic()
    talk.keyboard.press("i")
    talk.keyboard.press("i")
    wait_output(talk, "KeyboardInterrupt", 10)
    assert time.monotonic() - started < 2.0
    assert not re.search(r"^slept$", outputs_on_slide(talk), re.M)  # the print after the sleep never ran
    go(talk, (2, 0))
    clear_outputs(talk)
    talk.keyboard.press("Shift+Enter")
    wait_output(talk, "answer 42")  # same kernel: `base` is still defined


def kernel_processes(server) -> list[psutil.Process]:
    return kernels_under(server["process"].pid)


def wait_status(page, pattern: str, timeout: float):
    """Wait for the presenter's status line to match; on a timeout, say what the kernel went through."""
    try:
        page.wait_for_function("p => new RegExp(p, 'i').test(document.querySelector('.jd-live-status').textContent)",
                               arg=pattern, timeout=timeout * 1000)
    except Exception:
        seen = page.evaluate("() => [window.jaxdeckLive.states.join(','), document.querySelector('.jd-live-status').textContent]")
        raise AssertionError(f"status never matched {pattern!r}: kernel states, status line = {seen}") from None


def test_after_the_kernel_is_killed_the_recover_key_brings_the_demo_back(talk, server):
    go(talk, (2, 0))
    talk.evaluate("() => document.querySelectorAll('.jp-OutputArea-output').forEach(e => e.remove())")
    kernels = kernel_processes(server)
    assert kernels
    for kernel in kernels:
        kernel.send_signal(signal.SIGKILL)
    wait_status(talk, "kernel restarted", 60)
    assert talk.is_visible(".jd-live-status")
    assert not talk.is_visible(".jp-Dialog")  # no modal box in front of the audience
    talk.keyboard.press("r")
    wait_status(talk, "Recovered", 30)
    talk.keyboard.press("Shift+Enter")
    wait_output(talk, "answer 42")
    assert "NameError" not in outputs_on_slide(talk)


def test_a_widget_slider_moved_live_changes_its_output(talk):
    go(talk, (4, 0))
    talk.keyboard.press("Shift+Enter")
    handle = talk.locator(".reveal .slides section.present .widget-slider .noUi-handle, "
                          ".reveal .slides section.present .widget-slider input[type=range]").first
    handle.wait_for(state="visible", timeout=60000)
    label = talk.locator(".reveal .slides section.present .widget-vbox > .widget-label").first
    assert label.inner_text() == "square 4"
    box = handle.bounding_box()
    talk.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    talk.mouse.down()
    talk.mouse.move(box["x"] + 200, box["y"] + box["height"] / 2, steps=10)
    talk.mouse.up()
    # the kernel answers each value the drag sent: wait until the label has caught up with the last one
    settled = """() => {
      const slide = document.querySelector('.reveal .slides section.present');
      const value = parseInt(slide.querySelector('.widget-readout').innerText, 10);
      return slide.querySelector('.widget-vbox > .widget-label').innerText === `square ${value * value}` && value;
    }"""
    value = talk.wait_for_function(settled, timeout=15000).json_value()
    assert value > 2 and label.inner_text() == f"square {value * value}"


def test_a_code_cell_is_still_an_editor_when_clicked(talk):
    go(talk, (2, 0))
    talk.click(".reveal .slides section.present .jp-CodeCell .cm-content")
    talk.keyboard.press("End")
    talk.keyboard.press("ArrowLeft")  # inside print( ... )
    talk.keyboard.type(", 'edited live'")
    talk.keyboard.press("Shift+Enter")  # from inside the editor: runs that cell
    wait_output(talk, "answer 42 edited live")


def test_the_restart_key_starts_a_new_kernel_and_says_so(talk, server):
    go(talk, (2, 0))
    # the deck's kernel up and idle: one an earlier test killed comes back on its own
    talk.wait_for_function("() => window.jaxdeckLive.panel.sessionContext.session?.kernel?.status === 'idle'",
                           timeout=60000)
    wait_for(lambda: len(kernel_processes(server)) == 1, 60, "the deck's one kernel process")
    before = {p.pid for p in kernel_processes(server)}
    talk.keyboard.press("Escape")
    talk.evaluate("() => document.activeElement.blur()")
    talk.keyboard.press("0")
    talk.keyboard.press("0")
    wait_status(talk, "kernel restarted", 60)
    after = {p.pid for p in kernel_processes(server)}
    assert len(before - after) == 1 and len(after - before) == 1  # the deck's kernel replaced
    talk.keyboard.press("r")
    wait_status(talk, "Recovered", 30)


class Forward:
    """A TCP forward on 127.0.0.1 to ``port``, as an SSH port forward is; ``cut()`` drops it and every
    connection through it, ``restore()`` listens again on the same port."""

    def __init__(self, port: int):
        self.target = port
        self.port = None
        self.links: list = []
        self.listener = None
        self.restore()

    def restore(self) -> None:
        import socket
        import threading

        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port or 0))
        listener.listen(64)
        self.port, self.listener = listener.getsockname()[1], listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            self.links += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source, sink) -> None:
        import socket

        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        import socket

        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread, which lets the port go
        except OSError:
            pass
        self.listener.close()
        for link in self.links:
            try:
                link.shutdown(socket.SHUT_RDWR)
                link.close()
            except OSError:
                pass
        self.links = []


def test_a_dropped_link_is_said_and_the_talk_goes_on_with_the_kernels_state_when_it_comes_back(browser, server):
    port = int(server["base"].rsplit(":", 1)[1])
    forward = Forward(port)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"http://127.0.0.1:{forward.port}/rise/slides/live_talk.md?token={server['token']}")
        page.wait_for_selector("body.jd-live-ready", timeout=90000)
        page.wait_for_function("() => window.jaxdeckLive.panel.sessionContext.session?.kernel?.status === 'idle'",
                               timeout=60000)
        in_kernel(page, "base = 41")  # what the setup slide defines, in the kernel before the link drops
        forward.cut()  # the SSH session drops
        page.wait_for_function("() => document.querySelector('.jd-live-status').innerText.includes('link to the server is down')",
                               timeout=60000)
        forward.restore()  # logged in again, the port forwarded again
        page.wait_for_function("() => document.querySelector('.jd-live-status').innerText.includes('Reconnected')",
                               timeout=120000)
        go(page, (2, 0))
        page.keyboard.press("Shift+Enter")
        wait_output(page, "answer 42", 60)  # `base` is still defined: the same kernel, state intact
    finally:
        page.close()
        forward.cut()
