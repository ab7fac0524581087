"""Drive the live slideshow through a talk, as a presenter would, and measure what shows.

One page, at the deck's size: every slide and fragment in order with PageDown (what a
presenter's clicker sends), each code cell run with Shift+Enter once it is on show, each slide
measured once its last fragment is in. Then the same page at the projector's size, every slide
measured again. The page's own scripts are the theme's ``scripts/rehearse-*.js``; a slide is
measured by ``scripts/slide-overflow.js``, as ``jaxdeck check`` measures the static deck.
"""

from __future__ import annotations

import base64
import time
from typing import Callable

from jaxdeck.browser import script
from jaxdeck.check.measure import measure_slide
from jaxdeck.rehearse.clock import words
from jaxdeck.rehearse.record import Fit, SlideRun
from jaxdeck.rehearse.runs import Ran, seconds_between

#: RISE moves the selection onto a slide's first code cell 450 ms after the slide changes
SELECTION_S = 0.6
#: the statuses the live slideshow says after a kernel dies, and after R
RESTARTED = "kernel restarted"
RECOVERED = "Recovered|Recovery stopped"
FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
IMAGES = """() => [...window.jaxdeckLive.reveal.getCurrentSlide().querySelectorAll('img')].every(i => i.complete)"""
KILL = """() => window.jaxdeckLive.panel.sessionContext.session.kernel.requestExecute(
  {code: 'import os, signal\\nos.kill(os.getpid(), signal.SIGKILL)', silent: true, store_history: false})"""
#: true once reveal.js draws the slides at the scale a [width, height] window gives them
SCALED = """([w, h]) => { const r = window.jaxdeckLive.reveal, c = r.getConfig();
  const fit = Math.min(w / (Number(c.width) * (1 + c.margin)), h / (Number(c.height) * (1 + c.margin)));
  return Math.abs(r.getScale() - Math.min(Math.max(fit, c.minScale), c.maxScale)) < 0.01; }"""
#: the slide on show scrolled back to its top-left corner, and whatever inside it scrolled
TO_TOP = """() => { const s = window.jaxdeckLive.reveal.getCurrentSlide(), boxes = [...s.querySelectorAll('*')];
  for (let n = s; n && n !== document.documentElement; n = n.parentElement) boxes.push(n);
  for (const n of boxes) if (n.scrollTop || n.scrollLeft) { n.scrollTop = 0; n.scrollLeft = 0; } }"""
STATUS = "() => (document.querySelector('.jd-live-status') || {}).textContent || ''"


def selected(page) -> None:
    """Wait until RISE has moved the selection onto the slide on show (it does so a moment after
    the slide changes: a Shift+Enter before that would run the cell it then selects twice)."""
    started = time.monotonic()
    try:
        page.wait_for_function(f"() => ({script('rehearse-slide.js')})().activeOnSlide", timeout=5000, polling=50)
    except Exception as err:
        if "Timeout" not in type(err).__name__:
            raise
    time.sleep(max(0.0, SELECTION_S - (time.monotonic() - started)))


def open_slideshow(page, url: str, timeout_s: float = 120) -> None:
    page.goto(url)
    page.wait_for_selector("body.jd-live-ready", timeout=timeout_s * 1000)
    page.evaluate(script("rehearse-hook.js"))
    page.evaluate("() => window.jaxdeckLive.reveal.slide(0, 0)")
    settle(page)


def settle(page) -> None:
    """Laid out, images in, two frames drawn."""
    page.wait_for_function(IMAGES, timeout=15000)
    page.evaluate(FRAMES)


def on_show(page) -> dict:
    return page.evaluate(script("rehearse-slide.js"))


def press_run(page, cell: dict, timeout_s: float) -> Ran:
    """Shift+Enter, and wait until the cell and the claim checks after it are done (I I past ``timeout_s``)."""
    seen = page.evaluate("() => window.jaxdeckRehearsal.runs.length")
    page.keyboard.press("Shift+Enter")
    wait = [seen, cell["index"], cell["checks"]]
    status = None
    try:
        done = page.wait_for_function(script("rehearse-ran.js"), arg=wait, timeout=timeout_s * 1000,
                                      polling=100).json_value()
    except Exception as err:  # Playwright's TimeoutError: interrupt as the presenter would, and go on
        if "Timeout" not in type(err).__name__:
            raise
        page.keyboard.press("i")
        page.keyboard.press("i")
        done = page.wait_for_function(script("rehearse-ran.js"), arg=wait, timeout=60000, polling=100).json_value()
        status = "timeout"
    run = done["run"]
    if run["code"].strip() != cell["source"].strip():
        raise RuntimeError(f"Shift+Enter for the cell on line {cell['line']} ran another cell: {run['code'][:60]!r}")
    error = f"{run['ename']}: {(run['evalue'] or '').splitlines()[0] if run['evalue'] else ''}".rstrip(": ") \
        if run["status"] == "error" else None
    seconds = seconds_between(run["start"], run["end"])
    if status == "timeout":
        seconds = timeout_s
    checks = [{"ok": c["status"] == "ok",
               "message": None if c["status"] == "ok" else (c["evalue"] or c["ename"] or "an assertion failed")}
              for c in done["checks"]]
    return Ran(cell, status or ("ok" if run["status"] == "ok" else "error"), seconds, done["outputs"], error, checks)


def measure(page) -> Fit:
    settle(page)
    found = measure_slide(page)
    return Fit(down=found.down, right=found.right, wide=found.wide, below=found.below, beyond=found.beyond,
               scrollable=found.scrollable)


def next_step(page, before: dict) -> None:
    """PageDown, and wait until reveal.js has moved (to the next fragment or slide)."""
    page.keyboard.press("PageDown")
    page.wait_for_function("""([h, v, f]) => { const at = window.jaxdeckLive.reveal.getIndices();
      return at.h !== h || (at.v || 0) !== v || (at.f ?? -1) !== f; }""",
                           arg=[before["h"], before["v"], before.get("f", -1)], timeout=10000)


def indices(page) -> dict:
    at = page.evaluate("() => window.jaxdeckLive.reveal.getIndices()")
    return {"h": at["h"], "v": at.get("v") or 0, "f": -1 if at.get("f") is None else at["f"]}


def fault(page, timeout_s: float) -> dict:
    """Kill the kernel (SIGKILL, from inside), wait for the slideshow to say so, press R, wait for it."""
    started = time.monotonic()
    page.evaluate(KILL)
    try:
        wait_status(page, RESTARTED, 90)
        page.keyboard.press("r")
        wait_status(page, RECOVERED, timeout_s)
    except Exception as err:
        if "Timeout" not in type(err).__name__:
            raise
    said = page.evaluate(STATUS)
    return {"recovered": said.startswith("Recovered"), "seconds": round(time.monotonic() - started, 2),
            "message": said}


def wait_status(page, pattern: str, timeout_s: float) -> None:
    page.wait_for_function("p => new RegExp(p, 'i').test((document.querySelector('.jd-live-status') || {}).textContent || '')",
                           arg=pattern, timeout=timeout_s * 1000)


def walk(page, size: str, timeout_s: float, slides: list[SlideRun], fault_at: Callable[[dict], bool] | None = None,
         ran: Callable[[SlideRun, Ran], None] | None = None) -> dict | None:
    """Every slide and fragment in order, each slide's record added to ``slides``, measured at ``size``.
    ``fault_at(slide)`` picks the slide (before its cells run) where the kernel is killed and R
    pressed, which is then said in the result; ``ran`` hears each run."""
    faulted = None
    while True:
        show = on_show(page)
        if not slides or slides[-1].number != show["number"]:
            slides.append(SlideRun(number=show["number"], h=show["h"], v=show["v"], title=show["title"],
                                   text_words=words([show["text"]])))
            done: set[int] = set()
            if show["cells"]:
                selected(page)
            if fault_at is not None and faulted is None and fault_at(show):
                faulted = {"slide": show["number"], **fault(page, timeout_s * 4 + 60)}
        slide = slides[-1]
        for cell in show["cells"]:
            if cell["visible"] and cell["index"] not in done:
                done.add(cell["index"])
                result = press_run(page, cell, timeout_s)
                if ran is not None:
                    ran(slide, result)
        if show["fragmentsLeft"]:
            next_step(page, indices(page))
            continue
        slide.fits[size] = measure(page)
        if show["last"]:
            return faulted
        next_step(page, indices(page))


def window(page, width: int, height: int) -> None:
    """The window at ``width`` x ``height``, and the slides laid out and scaled for it."""
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => window.jaxdeckLive.reveal.layout()")
    page.wait_for_function(SCALED, arg=[width, height], timeout=10000)
    page.evaluate(FRAMES)


def remeasure(page, slides: list[SlideRun], size: str, width: int, height: int) -> None:
    """Every slide measured again with the window at ``width`` x ``height`` (all fragments shown)."""
    window(page, width, height)
    for slide in slides:
        go_to_end(page, slide)
        slide.fits[size] = measure(page)


def go_to_end(page, slide: SlideRun) -> None:
    """Slide ``slide`` with every fragment shown, scrolled to its top."""
    page.evaluate("([h, v]) => { const r = window.jaxdeckLive.reveal; r.slide(h, v); "
                  "while (r.availableFragments().next) r.nextFragment(); }", [slide.h, slide.v])
    page.evaluate(TO_TOP)


def picture(page, slide: SlideRun, width: int, height: int) -> str:
    """A PNG of ``slide`` at ``width`` x ``height``, base64."""
    window(page, width, height)
    go_to_end(page, slide)
    settle(page)
    page.evaluate(TO_TOP)  # again: JupyterLab may scroll the active cell back into view after a resize
    page.evaluate(FRAMES)
    return base64.b64encode(page.screenshot()).decode("ascii")
