"""`jaxdeck preview` end to end: a real process, real file edits, a real headless Chromium."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from jaxdeck.browser import script
from support import ROOT, SIGNAL_IN_A_THREAD, kernels_under, previewing, still_running, wait_for

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

DECK = ("# Talk\n\nHello.\n\n```python\nx = 6\n```\n\n---\n\n## Two\n\nFirst point.\n\n. . .\n\nSecond point.\n\n"
        "```python\nprint('x is', x)\n```\n\nNote: the demo\n\n---\n\n## Three\n\nThe end.\n")


def shows(page, text: str, seconds: float = 30) -> None:
    """Wait until the slide on show contains ``text`` (a hang guard, not a latency budget)."""
    page.wait_for_function(script("slide-shows.js"), arg=[text, True], timeout=seconds * 1000, polling="raf")


def once_a_kernel_runs(process) -> list[int]:
    """Wait until the preview ``process`` has started its kernel (a hang guard); the pids of its children then."""
    deadline = time.monotonic() + 60
    while not kernels_under(process.pid):
        assert time.monotonic() < deadline and process.poll() is None, "no kernel started"
        time.sleep(0.1)
    return [p.pid for p in psutil.Process(process.pid).children(recursive=True)]


@pytest.fixture
def preview(tmp_path):
    """`python -m jaxdeck preview` on a deck of its own; yields (process, url with the token, deck)."""
    (tmp_path / "slides").mkdir()
    deck = tmp_path / "slides" / "talk.md"
    deck.write_text(DECK)
    with previewing(tmp_path, "--no-browser") as (process, found):
        assert found.group(3), found.group(0)  # the URL carries its token
        yield process, found.group(1), deck


@pytest.mark.browser
def test_a_save_reloads_the_open_page_at_the_same_slide(browser, preview):
    process, url, deck = preview
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function(script("reveal-ready.js"), timeout=60000)  # after the first build
        shows(page, "Hello.")
        page.evaluate("Reveal.slide(1, 0, 0)")  # slide 2 with its fragment shown
        assert page.evaluate("Reveal.getIndices()") == {"h": 1, "v": 0, "f": 0}
        page.evaluate("window.beforeTheSave = true")

        deck.write_text(DECK.replace("First point.", "First point, edited."))  # prose on the slide on show
        shows(page, "First point, edited.")
        assert page.evaluate("window.beforeTheSave") is None  # a real reload
        assert page.evaluate("Reveal.getIndices()") == {"h": 1, "v": 0, "f": 0}

        deck.write_text(deck.read_text().replace("print('x is', x)", "print('x is now', x * 2)"))  # one code cell
        shows(page, "x is now 12")
        assert page.evaluate("Reveal.getIndices()")["h"] == 1
        page.wait_for_selector("#jaxdeck-preview-warm", state="visible", timeout=30000)  # the reloaded page's first event

        deck.write_text(deck.read_text().replace("x * 2", "x * undefined_name"))
        page.wait_for_selector("#jaxdeck-preview-error", timeout=30000)
        error = page.inner_text("#jaxdeck-preview-error")
        assert error.startswith("error: slides/talk.md:20 (slide 2): NameError: name 'undefined_name'"), error
        assert "\n" not in error
        shows(page, "x is now 12")  # over the last good deck

        deck.write_text(deck.read_text().replace("x * undefined_name", "x * 3"))
        shows(page, "x is now 18")
        assert not page.is_visible("#jaxdeck-preview-error")
        assert page.evaluate("Reveal.getIndices()")["h"] == 1
    finally:
        page.close()
    assert requests and all(r.startswith(url.rsplit("/", 1)[0] + "/") for r in requests), requests  # no network
    assert process.poll() is None  # errors never stop the preview


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_stop_signal_ends_the_preview_and_its_kernel(preview, signum):
    process, url, deck = preview
    children = once_a_kernel_runs(process)
    process.send_signal(signum)
    process.wait(timeout=90)  # a hang guard: shutting down joins the priming and rebuild threads (10 s each), slower on a loaded machine
    process.drain.join(30)  # what it printed last, read
    assert process.returncode == (0 if signum == signal.SIGINT else 128 + signum), "".join(process.printed)
    wait_for(lambda: not still_running(children), 30, "the preview's kernel and other children to end")
    assert deck.read_text() == DECK


def test_a_preview_whose_shutdown_hangs_is_ended_by_its_deadline_with_its_kernel(tmp_path):
    """The orderly shutdown joins the preview's threads; a thread the interpreter's exit would wait on for
    ever (here one that sleeps) must not keep the process, nor its kernel, past the deadline
    (``cli.ORDERLY_S``, set short here so the test waits seconds, not half a minute)."""
    (tmp_path / "slides").mkdir()
    deck = tmp_path / "slides" / "talk.md"
    deck.write_text(DECK)
    stuck = ("import sys, threading, time, jaxdeck.cli as cli; cli.ORDERLY_S = 3.0; "
             "threading.Thread(target=time.sleep, args=(600,)).start(); sys.exit(cli.main(sys.argv[1:]))")
    process = subprocess.Popen([sys.executable, "-c", stuck, "preview", "slides/talk.md", "--port", "0", "--out",
                                "build", "--no-browser"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        children = once_a_kernel_runs(process)
        began = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        took = time.monotonic() - began
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signal.SIGTERM
    assert took < 30, took  # the thread sleeps for 600 s: only the deadline ended the process
    said = process.stderr.read()
    assert "stopped by SIGTERM" in said
    assert "error: still stopping 3 s after the signal" in said and "Thread 0x" in said, said  # where it hung, to report
    wait_for(lambda: not still_running(children), 30, "the preview's kernel and other children to end")


def test_a_stop_signal_taken_by_another_thread_still_ends_the_preview(tmp_path):
    """Python runs a signal's handler in the main thread, when that thread next runs: the preview's main
    thread, which only waits, must wake to take it (it once slept an hour at a time, and a stop that the
    kernel handed to another thread waited for it)."""
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "talk.md").write_text(DECK)
    go = tmp_path / "go"
    process = subprocess.Popen([sys.executable, "-c", SIGNAL_IN_A_THREAD, "preview", "slides/talk.md", "--port", "0",
                                "--out", "build", "--no-browser"], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(ROOT), "JAXDECK_TEST_GO": str(go)},
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        children = once_a_kernel_runs(process)
        go.touch()
        process.wait(timeout=60)  # a hang guard: it used to wait for the main thread's hour-long sleep
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    said = process.stdout.read()
    assert process.returncode == 128 + signal.SIGTERM, said
    assert "SIGTERM: stopping the preview" in said, said
    wait_for(lambda: not still_running(children), 30, "the preview's kernel and other children to end")


@pytest.mark.browser
def test_r_in_the_deck_runs_it_afresh_and_another_pages_post_is_refused(browser, preview, tmp_path):
    """The deck's own R is obeyed; the same POST from a page of another origin (here a local file)
    is refused, so no page the presenter has open can make the preview re-run the deck's code."""
    process, url, deck = preview
    fresh = url.rsplit("/", 1)[0] + "/_preview/fresh"
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function(script("reveal-ready.js"), timeout=60000)
        answers: list[int] = []
        page.on("response", lambda r: answers.append(r.status) if r.url == fresh else None)
        # a press made while the page reloads for a newer build is lost with it: pressed again until heard
        deadline = time.monotonic() + 60
        while not answers and time.monotonic() < deadline:
            page.wait_for_function(script("reveal-ready.js"), timeout=60000)
            page.keyboard.press("r")
            page.wait_for_timeout(2000)
        assert answers and answers[0] == 202
        other = tmp_path / "elsewhere.html"
        other.write_text(f"<script>fetch('{fresh}', {{method: 'POST', mode: 'no-cors'}})</script>")
        with page.expect_response(fresh, timeout=10000) as theirs:
            page.goto(other.as_uri())
        assert theirs.value.status == 403
    finally:
        page.close()


#: the warm-kernel badge's box, reveal.js's slide number's and its arrows', and the window's size
BADGE_AND_NUMBER = """() => {
  const box = (s) => { const e = document.querySelector(s); if (!e || getComputedStyle(e).display === 'none') return null;
                       const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const arrows = [...document.querySelectorAll('.reveal .controls button')].filter(b => getComputedStyle(b).display !== 'none')
    .map(b => b.getBoundingClientRect());
  const controls = [Math.min(...arrows.map(r => r.left)), Math.min(...arrows.map(r => r.top)),
                    Math.max(...arrows.map(r => r.right)), Math.max(...arrows.map(r => r.bottom))];
  return {badge: box('#jaxdeck-preview-warm'), number: box('.reveal .slide-number'), controls,
          error: box('#jaxdeck-preview-error'), window: [innerWidth, innerHeight]};
}"""


def meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.browser
def test_the_warm_kernel_badge_leaves_the_slide_number_and_arrows_clear(browser, preview):
    process, url, deck = preview
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function(script("reveal-ready.js"), timeout=60000)
        page.evaluate("Reveal.slide(1, 0, 0)")
        deck.write_text(DECK.replace("print('x is', x)", "print('x is now', x * 2)"))  # run in the warm kernel
        shows(page, "x is now 12")
        page.wait_for_selector("#jaxdeck-preview-warm", state="visible", timeout=30000)
        seen = {}
        for size in ((1280, 720), (1920, 1080)):
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=list(size))
            seen[size] = page.evaluate(BADGE_AND_NUMBER)
        deck.write_text(DECK.replace("print('x is', x)", "print('x is now', x * undefined_name)"))
        page.wait_for_selector("#jaxdeck-preview-error", timeout=30000)
        page.wait_for_selector("#jaxdeck-preview-warm", state="visible", timeout=30000)
        seen["error"] = page.evaluate(BADGE_AND_NUMBER)
    finally:
        page.close()
    for size, found in seen.items():
        badge, (width, height) = found["badge"], found["window"]
        assert badge and found["number"], (size, found)
        assert not meets(badge, found["number"]), (size, found)
        assert found["controls"][2] > found["controls"][0] and not meets(badge, found["controls"]), (size, found)
        assert 0 <= badge[0] and 0 <= badge[1] and badge[2] <= width and badge[3] <= height, (size, found)
    assert not meets(seen["error"]["badge"], seen["error"]["error"]), seen["error"]  # both shown, neither over the other
