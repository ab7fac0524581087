"""A deck's live slideshow run through its kernel, slide by slide, with no browser.

What the slideshow runs, in its order: the notebook the live server serves for the deck (its
contents manager's view: the deck cut into the static deck's slides, each cell with its
``metadata.jaxdeck``), the ``setup`` cells first (the slideshow runs them as its kernel starts),
then every slide's code cells in order, each followed by the claim checks after it (run quietly,
as the slideshow runs them, and only after a cell that succeeded; the first that fails stops the
rest), each within its time limit (a fence's ``timeout=N``, else the deck's) and interrupted past
it. Listings (code with stepped highlights) are shown, never run, as in a build
(:func:`jaxdeck.execute.is_listing`). Slides are numbered as reveal.js numbers them: each cell
whose ``slideshow`` type is ``slide`` or ``subslide`` starts the next one.

Nothing here lays a slide out: with no browser there is no fit to measure.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Callable

from jaxdeck.check.budget import SETUP_TAG
from jaxdeck.rehearse.clock import words
from jaxdeck.rehearse import compare
from jaxdeck.rehearse.kernel_channel import Executed, KernelChannel
from jaxdeck.rehearse.record import Problem, SlideRun
from jaxdeck.rehearse.runs import Ran, check_said, error_said

CHECK_TAG = "check"
STARTS = {"slide": (1, 0), "subslide": (0, 1)}
_MD_HEADING = re.compile(r"^\s{0,3}#{1,3}\s+(.+?)\s*$", re.M)
_HTML_HEADING = re.compile(r"<h[1-3][^>]*>(.*?)</h[1-3]>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")


@dataclass
class Step:
    """A code cell the talk runs, with the claim checks that follow it (a check with no cell before
    it is a step of its own, run quietly)."""

    line: int | None
    source: str
    tags: list[str]
    checks: list["Step"] = field(default_factory=list)
    timeout_s: float | None = None      # the fence's own ``timeout=N``; None: the deck's

    def limit(self, deck_s: float) -> float:
        return self.timeout_s or deck_s

    @property
    def is_check(self) -> bool:
        return CHECK_TAG in self.tags

    @property
    def cell(self) -> dict:
        return {"line": self.line, "source": self.source, "tags": self.tags}


@dataclass
class Shown:
    """One slide of the slideshow: its number and indices as reveal.js gives them, its title, the words
    on it (not its notes) and the code it runs."""

    number: int
    h: int
    v: int
    title: str = ""
    text: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    def record(self) -> SlideRun:
        return SlideRun(number=self.number, h=self.h, v=self.v, title=self.title, text_words=words(self.text))


def slides_of(nb) -> list[Shown]:
    """The served notebook's slides, each with the code it runs, in order."""
    from jaxdeck.execute import is_listing
    from jaxdeck.records import cell_info

    slides: list[Shown] = []
    h = v = 0
    last: Step | None = None
    for cell in nb.cells:
        kind = (cell.metadata.get("slideshow") or {}).get("slide_type", "-")
        if not slides or kind in STARTS:
            if slides:
                h, v = (h + 1, 0) if kind == "slide" else (h, v + 1)
            slides.append(Shown(number=len(slides) + 1, h=h, v=v))
        slide = slides[-1]
        if cell.cell_type == "markdown" and kind not in ("notes", "skip"):
            slide.title = slide.title or title_of(cell.source)
            slide.text.append(_TAG.sub(" ", cell.source))
        if cell.cell_type != "code":
            continue
        if is_listing(cell):
            last = None  # a check after a listing follows no cell that ran (as the slideshow sees it)
            continue
        step = Step(cell_info(cell).get("line"), cell.source, list(cell.metadata.get("tags") or []),
                    timeout_s=own_timeout(cell.metadata.get("timeout")))
        if step.is_check and last is not None:
            last.checks.append(step)
            continue
        slide.steps.append(step)
        last = None if step.is_check else step
    return slides


def own_timeout(value) -> float | None:
    """A fence's ``timeout=N`` in seconds (None when it has none, or none that reads as a number)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds > 0 else None


def title_of(source: str) -> str:
    """A cell's first heading (h1 to h3, Markdown or HTML) as text, as the slideshow's walk reads it."""
    found = [(m.start(), m.group(1)) for pattern in (_MD_HEADING, _HTML_HEADING) for m in [pattern.search(source)] if m]
    if not found:
        return ""
    text = min(found)[1]
    text = html.unescape(_TAG.sub("", _ATTRIBUTES.sub("", text)))
    return " ".join(text.replace("`", "").replace("**", "").split())


def walk(channel: KernelChannel, slides: list[Shown], timeout_s: float, records: list[SlideRun],
         ran: Callable[[SlideRun, Ran], None], say=print) -> list[Problem]:
    """Every slide's code run on ``channel``'s kernel, the setup first; each slide's record added to
    ``records`` (every slide, in order), each run told to ``ran``; the walk ends where the kernel died or
    would not stop. The problems that are not a cell's own: a check with no cell before it that failed,
    a kernel that died or would not stop under a claim check."""
    total = len(slides)
    runs = [shown.record() for shown in slides]
    records.extend(runs)
    problems: list[Problem] = []
    setup = [(shown, step) for shown in slides for step in shown.steps if SETUP_TAG in step.tags and not step.is_check]
    for shown, step in setup:
        say(f"slide {shown.number}/{total}: the setup cell on line {step.line or '?'}, first")
        if run_step(channel, shown, step, timeout_s, runs[shown.number - 1], ran, problems):
            return problems
    first = {id(step) for _, step in setup}
    for shown, slide in zip(slides, runs):
        say(f"slide {shown.number}/{total}: {shown.title or '(no title)'}")
        for step in shown.steps:
            if id(step) in first:
                continue
            if run_step(channel, shown, step, timeout_s, slide, ran, problems):
                return problems
    return problems


def run_step(channel: KernelChannel, shown: Shown, step: Step, timeout_s: float, slide: SlideRun,
             ran: Callable[[SlideRun, Ran], None], problems: list[Problem]) -> bool:
    """Run one step and the checks after it; True when the kernel is gone or stuck (the walk ends)."""
    if step.is_check:  # a check that follows no cell: run quietly, said only when it fails
        done = channel.execute(step.source, step.limit(timeout_s), silent=True)
        if halted(done, shown, step, step.limit(timeout_s), problems):
            return True
        if done.status != "ok":
            problems.append(Problem(shown.number, "check", f"the claim checked here no longer holds: "
                                    f"{check_said(done.ename, done.evalue)}", step.line))
        return False
    done = channel.execute(step.source, step.limit(timeout_s))
    stop = done.status in ("stuck", "died")  # said as the cell's own problem (compare.problems_of)
    checks = []
    if done.status == "ok":
        for check in step.checks:
            held = channel.execute(check.source, check.limit(timeout_s), silent=True)
            if halted(held, shown, check, check.limit(timeout_s), problems):
                stop = True
                break
            checks.append({"ok": held.status == "ok",
                           "message": None if held.status == "ok" else check_said(held.ename, held.evalue)})
            if held.status != "ok":
                break
    status = done.status  # ok, error, timeout; stuck and died end the walk
    seconds = step.limit(timeout_s) if status in ("timeout", "stuck") else done.seconds
    error = error_said(done.ename, done.evalue) if done.status in ("error", "timeout") and done.ename else None
    ran(slide, Ran(step.cell, status, seconds, done.outputs, error, checks))
    return stop


def halted(done: Executed, shown: Shown, check: Step, timeout_s: float, problems: list[Problem]) -> bool:
    """Whether the kernel died under a claim ``check`` or would not stop when interrupted: then said, and
    the walk ends (a cell's own run says so in its record)."""
    if done.status not in ("stuck", "died"):
        return False
    said = compare.cut_short(done.status, timeout_s)
    problems.append(Problem(shown.number, "error" if done.status == "died" else "timeout",
                            f"its claim check: {said}", check.line))
    return True
