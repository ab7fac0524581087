"""The records a rehearsal keeps: per cell, per slide, per size, and the problems found.

Plain dataclasses, written to ``build/rehearsal/NAME.json`` by :func:`Rehearsal.to_json`; the
JSON carries a ``schema`` number so a reader can tell a later layout from this one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from jaxdeck.check.measure import TOLERANCE_PX

#: 2: the kinds of each cell's outputs (kernel walk), ``laid_out``, the slower and output problems
SCHEMA = 2

#: every kind of problem, with what it means; any one of them fails the rehearsal
KINDS = {
    "error": "a cell raised an error live that it did not raise in the build",
    "warning": "a cell wrote a warning live (stderr) that the build did not have",
    "output": "a cell's live output differs in kind from the build's (a picture or a table there, only text or nothing live)",
    "budget": "a cell took longer than the deck's budget live",
    "slower": "a cell took more than twice its build's time live, and over 2 s",
    "timeout": "a cell was still running after the deck's time limit and was interrupted",
    "check": "a claim check after a cell failed live",
    "overflow": "the slide, with its live outputs in, runs past the frame",
    "code-width": "a line that cannot wrap (an output's, a listing's) is wider than its box live",
    "fault": "after the kernel was killed, R did not bring the talk back",
    "clock": "the estimated talk runs over the deck's duration",
}


@dataclass(frozen=True)
class Problem:
    """One thing that would embarrass the presenter, on one slide (None: the talk as a whole)."""

    slide: int | None
    kind: str
    message: str
    line: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.kind!r} is not a rehearsal problem (jaxdeck.rehearse.record.KINDS)")

    def __str__(self) -> str:
        where = f"slide {self.slide}" if self.slide else "talk"
        if self.line:
            where += f" (line {self.line})"
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class CellRun:
    """One code cell run live (Shift+Enter in the slideshow, or sent on the kernel's channel)."""

    line: int | None
    status: str                        # ok, error, timeout; with no browser, also stuck or died (the walk ended)
    live_s: float | None
    build_s: float | None = None       # the build's time for the same source, when it has one
    budget_s: float | None = None      # None: tagged slow, no budget
    error: str | None = None           # "Name: value" of an error raised live
    new_errors: list[str] = field(default_factory=list)
    new_warnings: list[str] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)  # {ok, message} of each claim check after it
    kinds: list[str] | None = None     # what its live outputs showed, by kind (None: not compared)
    build_kinds: list[str] | None = None  # what the build's showed, when compared


@dataclass
class Fit:
    """How far a slide reaches past its frame at one window size (px in slide units; <= 0 fits), as
    ``jaxdeck check`` measures the static slide (:mod:`jaxdeck.check.measure`)."""

    down: int
    right: int
    wide: list = field(default_factory=list)  # [px, lines, text, kind] of boxes with lines wider than them
    below: str | None = None      # what first runs past the bottom: code, output or text
    beyond: str | None = None     # what reaches furthest past the right edge
    scrollable: bool = False      # a {.scrollable} slide: what runs below it is scrolled to, not overflow

    @property
    def fits(self) -> bool:
        return (self.scrollable or self.down <= TOLERANCE_PX) and self.right <= TOLERANCE_PX and not self.wide


@dataclass
class SlideRun:
    """One slide as the rehearsal saw it."""

    number: int
    h: int
    v: int
    title: str
    cells: list[CellRun] = field(default_factory=list)
    fits: dict[str, Fit] = field(default_factory=dict)   # "WxH" -> Fit
    notes_words: int = 0
    text_words: int = 0                # the words on the slide, said where it has no notes
    estimate_s: float = 0.0
    pictures: dict[str, str] = field(default_factory=dict)  # "WxH" -> PNG as base64, where a problem is

    @property
    def live_s(self) -> float:
        return sum(c.live_s or 0.0 for c in self.cells)


@dataclass
class Rehearsal:
    """A whole rehearsal of one deck."""

    deck: str
    sizes: list[str]
    slides: list[SlideRun] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    faults: dict | None = None          # {slide, recovered, seconds, message} with --faults
    duration_min: float | None = None   # the deck's `duration:` option
    words_per_minute: int = 130
    started_at: str | None = None
    seconds: float | None = None        # the rehearsal's own wall time
    build: dict | None = None           # the build it is compared with: its time and provenance
    host: str | None = None
    laid_out: bool = True               # False: run on the kernel alone (--no-browser), no slide laid out or measured

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def estimate_s(self) -> float:
        return sum(s.estimate_s for s in self.slides)

    @property
    def cells(self) -> int:
        return sum(len(s.cells) for s in self.slides)

    @property
    def live_s(self) -> float:
        return sum(s.live_s for s in self.slides)

    def problems_on(self, number: int) -> list[Problem]:
        return [p for p in self.problems if p.slide == number]

    def to_json(self) -> dict:
        out = {"schema": SCHEMA, **dataclasses.asdict(self)}
        for slide in out["slides"]:
            slide["pictures"] = sorted(slide["pictures"])  # the pictures go into the HTML, not the JSON
        out.update(ok=self.ok, cells=self.cells, live_s=round(self.live_s, 3),
                   estimate_s=round(self.estimate_s, 1))
        if self.duration_min:
            out["over_s"] = round(self.estimate_s - 60 * self.duration_min, 1)
        return out
