"""Whether a picture's ink stands out from the slide it is drawn on.

A plot saved with a transparent ground (matplotlib's ``transparent=True``) or a line drawing in
SVG draws its lines and labels in black and leaves the rest to the page: on the light theme they
read, on ``projector-dark`` they all but vanish. So the picture is measured as the audience sees
it: a screenshot of it on the slide shown (``scripts/check-pictures.js`` finds the pictures and the
colour each is drawn on: its own backing, or what is behind it), and one over a probe colour painted
behind it, whose pixels that hide the probe are its own (``scripts/check-ink.js``). Its ink is what of
them borders what shows through: the edges of the lines, labels and shapes the room sees against the
slide; what lies inside its own opaque parts (a label in a filled box) is seen against those, and an
opaque picture (a photo, a plot with its white ground) has no ink on the slide at all. When most of
the ink is under WCAG's 3:1 for graphics against the slide, it is reported with the ways to give it a
light backing (projector.css, ``on-light``). The header's logo, drawn over every slide, is measured
the same way against the slides behind it, but a logo that is a badge (white letters on a dark box of its own) reads by
its own contrast; the remedy of a faint one is a light version of it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

#: WCAG 2's contrast ratio for graphics and large text
RATIO = 3.0
#: a picture is faint when more than this share of its ink is under :data:`RATIO`
FAINT_SHARE = 0.5
#: a pixel is ink when it is at least this opaque: the half-transparent fringe anti-aliasing draws
#: around a thin line or a letter (a blend of ink and ground) is left out
OPAQUE = 0.5
#: the logo is drawn small (at most 40 px high), so its lines are mostly that fringe: every pixel it
#: covers this much is judged, in the colour the room sees there (its blend with the slide)
LOGO_OPAQUE = 0.1
#: a picture's own pixels this near (in pixels) what shows through it are its ink: the edge of each line,
#: letter and shape, where the room sees it against the slide; deeper inside its opaque parts (a filled
#: box's inside, a label in it) it is seen against those parts (a 2 px stroke around a light box is ink,
#: the box's fill beside it is not)
REACH = 1
#: painted behind a picture to tell its own pixels from what shows through it (a colour no slide uses)
PROBE = (255, 0, 254)
#: a picture with less ink than this share of its pixels draws (next to) nothing: not judged
LEAST_INK = 0.002


@dataclass(frozen=True)
class Faint:
    """A picture whose ink is mostly under :data:`RATIO` against what it is drawn on."""

    name: str
    cell: int | None            # the notebook index of the code cell that drew it (an output), or None
    share: float                # of its ink under the ratio
    median: float               # the ink's median contrast ratio
    background: tuple[int, int, int]
    logo: bool = False          # the header's logo, over every slide

    def said(self) -> str:
        colour = "#{:02x}{:02x}{:02x}".format(*self.background)
        measured = (f"{self.share:.0%} of its ink is under {RATIO:g}:1 against the slide's {colour} "
                    f"(median {self.median:.1f}:1), so the room barely sees it")
        if self.logo:
            return (f"logo '{self.name}': {measured}; name in the header's logo: a version of it in light, bold "
                    "colours (it is drawn at most 40 px high), or one with a light ground of its own (not "
                    "transparent); the on-light backing is for the slides' pictures, not the logo")
        how = ("tag the code cell 'on-light', or draw it in light colours (savefig without transparent=True keeps "
               "its white ground)") if self.cell is not None else (
            "write {.on-light} alone on the line before it, or draw it in light colours")
        return f"picture '{self.name}': {measured}; give it a light backing: {how}"


def _faint(page, picture: dict, opaque: float = OPAQUE, badge: bool = False) -> tuple[float, float] | None:
    """The share of ``picture``'s ink under the ratio and the ink's median ratio, when it is faint
    (None: it stands out, draws next to nothing, or lies over a picture behind the slide). With
    ``badge``, a picture whose own light and dark parts contrast (white letters on a dark box of its
    own) reads whatever its edge does, so it is not faint."""
    from jaxdeck.browser import run_script  # here: the records above are read where there is no browser

    if picture["background"] is None:
        return None  # drawn over a picture behind the slide: nothing single to measure against
    x, y, width, height = picture["box"]
    clip = {"x": x, "y": y, "width": width, "height": height}
    shown = page.screenshot(clip=clip, animations="disabled")
    marked = f'[data-jd-picture="{picture["index"]}"]'
    page.eval_on_selector(marked, "(p, c) => p.style.setProperty('background', c, 'important')",
                          "rgb({}, {}, {})".format(*PROBE))
    probed = page.screenshot(clip=clip, animations="disabled")
    page.eval_on_selector(marked, "p => p.style.removeProperty('background')")
    ink = run_script(page, "check-ink.js", {"png": base64.b64encode(shown).decode(), "opaque": opaque, "reach": REACH,
                                            "probed": base64.b64encode(probed).decode(), "probe": list(PROBE),
                                            "background": picture["background"], "ratio": RATIO})
    if ink["ink"] < max(20, LEAST_INK * ink["pixels"]) or ink["weak"] <= FAINT_SHARE * ink["ink"]:
        return None
    if badge and ink["spread"] >= RATIO:
        return None
    return ink["weak"] / ink["ink"], ink["median"]


def faint_pictures(page, files: str = "") -> list[Faint]:
    """The faint pictures on the slide on show (the static deck's, shown with every fragment), each named
    as the deck writes it (less ``files``, the prefix of the page's folder of files)."""
    from jaxdeck.browser import run_script

    found = []
    for picture in run_script(page, "check-pictures.js", False):
        measured = _faint(page, picture)
        if measured is not None:
            name = picture["name"].removeprefix(files) if files else picture["name"]
            found.append(Faint(name, picture["cell"], *measured, tuple(int(c) for c in picture["background"])))
    return found


def faint_logo(page, name: str) -> Faint | None:
    """The deck's logo (``name``, as its header writes it) when it is faint on the slide on show."""
    from jaxdeck.browser import run_script

    for picture in run_script(page, "check-pictures.js", True):
        measured = _faint(page, picture, LOGO_OPAQUE, badge=True)
        if measured is not None:
            return Faint(name, None, *measured, tuple(int(c) for c in picture["background"]), logo=True)
    return None
