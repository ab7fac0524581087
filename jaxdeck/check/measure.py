"""How far a slide overflows, and what runs over: one measure for ``check`` and ``rehearse``.

Both open a slide in Chromium (``check`` the static deck, ``rehearse`` the live slideshow) and
run the theme's ``scripts/slide-overflow.js`` on it, so the same slide at the same size gives the
same pixels; both say it in the words of :func:`overflow_said` and :func:`wide_said`, which name
what runs over (the code, the output or the text) with the advice that suits it. A ``{.scrollable}``
slide is meant to run below its frame (it scrolls): that is never overflow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: overflow smaller than this (sub-pixel rounding, borders) is not worth a report
TOLERANCE_PX = 2

WHAT = {"code": "the code", "output": "the output", "text": "the text"}
#: what to do when each kind runs past the bottom of the slide
BELOW = {"code": "split the cell (each piece on a slide of its own), or shorten the code",
         "output": "print less (a slice, a summary, fewer rows), or split the slide",
         "text": "split the slide or shorten it"}
#: what to do when each kind runs past its right edge
BEYOND = {"code": "shorten it",
          "output": "make it narrower (fewer columns, a smaller figure)",
          "text": "shorten it or make it narrower"}
#: what to do with a line wider than its box (a code cell's line wraps instead: this is a listing's,
#: an output's that cannot wrap, or a preformatted block's in the prose)
WIDE = {"code": "break the line or shorten it",
        "output": "print shorter lines",
        "text": "break the line or shorten it"}


@dataclass(frozen=True)
class Overflow:
    """What ``slide-overflow.js`` found on one slide, in slide pixels (``down``/``right`` <= 0: it fits)."""

    down: int
    right: int
    below: str | None = None        # what first runs past the bottom: code, output or text
    beyond: str | None = None       # what reaches furthest past the right edge
    scrollable: bool = False        # a {.scrollable} slide: what runs below is scrolled to
    wide: list = field(default_factory=list)  # [px, lines, text, kind] of each box with lines too wide
    width: int = 0
    height: int = 0
    below_cell: int | None = None   # the notebook index of the cell of what runs past the bottom (None: not known)
    beyond_cell: int | None = None  # and of what reaches furthest right

    @property
    def cell(self) -> int | None:
        """The notebook index of the cell whose content overflows (the bottom's first), None: not known."""
        return self.below_cell if self.over_bottom else self.beyond_cell if self.over_right else None

    @property
    def over_bottom(self) -> bool:
        return self.down > TOLERANCE_PX and not self.scrollable

    @property
    def over_right(self) -> bool:
        return self.right > TOLERANCE_PX


def measure_slide(page, slide: tuple[int, int] | None = None) -> Overflow:
    """The slide ``slide`` ([h, v], shown first) of a static deck, or the live slideshow's slide on show."""
    from jaxdeck.browser import run_script  # here: the records and words above are read where there is no browser

    found = run_script(page, "slide-overflow.js",
                       {"slide": list(slide) if slide is not None else None, "tolerance": TOLERANCE_PX})
    return Overflow(down=int(found["bottom"]), right=int(found["right"]), below=found["below"], beyond=found["beyond"],
                    scrollable=found["scrollable"], wide=found["wide"], width=found["width"], height=found["height"],
                    below_cell=found.get("belowCell"), beyond_cell=found.get("beyondCell"))


def overflow_said(found: Overflow) -> str | None:
    """What runs over the slide frame, by how much, and what to do (None: nothing does)."""
    down, right = found.over_bottom, found.over_right
    if not (down or right):
        return None
    spill = [f"{px} px {side}" for px, side, over in ((found.down, "below", down), (found.right, "to the right of", right))
             if over]
    culprit = (found.below if down else found.beyond) or "text"
    advice = BELOW[culprit] if down else BEYOND[culprit]
    said = f"{WHAT[culprit]} overflows the {found.width}x{found.height} slide frame by {' and '.join(spill)} it; {advice}"
    if down and right and (found.beyond or "text") != culprit:
        said += f"; {WHAT[found.beyond or 'text']} runs past its right edge: {BEYOND[found.beyond or 'text']}"
    return said


#: what a box of each kind holds, as a wide line of it is named
LINES = {"code": "code line(s)", "output": "output line(s)", "text": "preformatted line(s) of the text"}


def wide_said(px: int, lines: int, text: str, kind: str) -> str:
    """One box whose lines are wider than it is."""
    return (f"{lines} {LINES.get(kind, LINES['text'])} wider than the frame by {px} px (e.g. '{text}'); "
            f"{WIDE.get(kind, WIDE['text'])}")
