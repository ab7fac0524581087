"""Whether a comparison reproduces its reference figures, computed from ratios to a baseline.

Absolute times never enter a verdict: the machines differ, the ratios should not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .._display import GOOD, MUTED, ONE_LINE, WARN, Displayable, esc, fmt_ratio, fmt_speed

DEFAULT_TOLERANCE = 2.0  # a ratio "agrees" with the reference's when within this factor of it


@dataclass(frozen=True)
class RowVerdict:
    """One entry of a comparison set against the reference: both ratios to the baseline."""

    name: str
    ours: float  # our time / our baseline's time
    theirs: float  # reference time / reference baseline's time
    tolerance: float

    @property
    def apart(self) -> float:
        """How many times apart the two ratios are (>= 1)."""
        r = self.ours / self.theirs
        return r if r >= 1 else 1 / r

    @property
    def agrees(self) -> bool:
        """Same direction as the reference, and the ratios within the tolerance of each other."""
        return self.same_direction and self.apart <= self.tolerance * (1 + 1e-9)

    @property
    def same_direction(self) -> bool:
        """A speed-up in the reference is a speed-up here, a slow-down a slow-down; a reference
        that is level with the baseline (within 5 %) leaves the direction to the tolerance."""
        def side(r):
            return 0 if 0.95 <= r <= 1.05 else (1 if r > 1 else -1)
        a, b = side(self.ours), side(self.theirs)
        return b == 0 or a == b

    def describe(self, baseline: str, reference_label: str) -> str:
        here = fmt_speed(self.ours) or fmt_ratio(self.ours)
        there = fmt_speed(self.theirs) or fmt_ratio(self.theirs)
        if not self.same_direction:
            if 0.95 <= self.ours <= 1.05:
                return (f"{self.name} is level with {baseline} here ({fmt_ratio(self.ours)} its time) "
                        f"but {there} in {reference_label}")
            return f"{self.name} is {here} than {baseline} here but {there} in {reference_label}"
        return (f"{self.name} takes {fmt_ratio(self.ours)} {baseline}'s time here, {fmt_ratio(self.theirs)} in "
                f"{reference_label} ({fmt_ratio(self.apart)} apart)")


@dataclass(frozen=True, repr=False)
class Verdict(Displayable):
    """Whether a comparison reproduces its reference figures, computed from the ratios.

    Reproduced: every entry that has both our time and a reference time is, relative to the
    baseline, on the same side as the reference's (a speed-up stays a speed-up) and within
    ``tolerance`` times the reference's ratio. That is agreement within a factor, never a
    match, and the text says so. Otherwise the reason names each entry outside it. Absolute
    times never enter: the machines differ.
    """

    rows: tuple  # RowVerdict for each non-baseline entry with a reference figure
    baseline: str
    reference_label: str
    tolerance: float
    noisy: tuple = ()  # entries still noisy (Timing.noisy) after re-measuring

    @property
    def reproduced(self) -> bool | None:
        """True / False; None when there is nothing to compare (no reference ratios)."""
        if not self.rows:
            return None
        return all(r.agrees for r in self.rows)

    @property
    def reason(self) -> str:
        if self.reproduced is None:
            return f"no reference ratios to compare (a reference figure for {self.baseline} and one more entry)"
        bad = [r for r in self.rows if not r.agrees]
        return "; ".join(r.describe(self.baseline, self.reference_label) for r in bad)

    def __str__(self) -> str:
        tol = f"tolerance {self.tolerance:g}×"
        noisy = (f"; still noisy after re-measuring: {', '.join(self.noisy)}" if self.noisy else "")
        if self.reproduced is None:
            return f"no verdict: {self.reason}"
        if self.reproduced:
            worst = max(self.rows, key=lambda r: r.apart)
            return (f"reproduced within {self.tolerance:g}×: every ratio to {self.baseline} points the way "
                    f"{self.reference_label}'s does, at most {fmt_ratio(worst.apart)} from it{noisy}")
        return f"not reproduced: {self.reason} ({tol}{noisy})"

    def _text(self) -> str:
        return str(self)

    def _html(self) -> str:
        return self.html()

    def html(self, one_line: bool = False) -> str:
        """The verdict, its head coloured; ``one_line``: cut to one line (the whole text on hover)."""
        colour = GOOD if self.reproduced else (MUTED if self.reproduced is None else WARN)
        text = str(self)
        head, _, rest = text.partition(":")
        hover, style = "", "font-size:17px"
        if one_line:
            hover, style = f' title="{esc(text)}"', f"{style};{ONE_LINE}"
        return (f'<div class="verdict"{hover} style="{style}"><b style="color:{colour}">{esc(head)}</b>:'
                f"{esc(rest)}</div>")

    def to_dict(self) -> dict:
        return {"reproduced": self.reproduced, "text": str(self), "tolerance": self.tolerance,
                "rows": [{"name": r.name, "ours": r.ours, "theirs": r.theirs, "apart": r.apart,
                          "agrees": r.agrees} for r in self.rows]}


def verdict_from_ratios(ours: Mapping[str, float], theirs: Mapping[str, float | None], baseline: str,
                        reference_label: str = "the reference", tolerance: float = DEFAULT_TOLERANCE,
                        noisy: tuple = ()) -> Verdict:
    """The verdict for ratios already taken to ``baseline`` (``ours[name]``, ``theirs[name]``)."""
    if tolerance < 1:
        raise ValueError(f"tolerance is a factor >= 1, got {tolerance!r}")
    rows = tuple(RowVerdict(k, ours[k], theirs[k], tolerance) for k in ours
                 if k != baseline and theirs.get(k) is not None and ours[k] and theirs[k])
    return Verdict(rows=rows, baseline=baseline, reference_label=reference_label, tolerance=tolerance,
                   noisy=tuple(noisy))
