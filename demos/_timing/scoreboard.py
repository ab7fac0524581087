"""Every headline figure measured so far (:func:`scoreboard`): ours beside the source's, with verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .._display import GOOD, MUTED, WARN, Displayable, box, esc, fmt_ratio, html_table, small, text_table
from .comparison import FIGURES, Comparison


def _ratio_list(ratios: Mapping[str, float | None], baseline: str) -> str:
    return ", ".join(f"{k} {fmt_ratio(v)}" for k, v in ratios.items() if k != baseline and v is not None)


@dataclass(repr=False)
class Scoreboard(Displayable):
    """Every headline figure measured so far: our ratios beside the source's, and each verdict."""

    comparisons: dict  # figure name -> Comparison

    def rows(self) -> list[list[str]]:
        out = []
        for name, c in self.comparisons.items():
            v = c.verdict()
            theirs = {k: r for k, r in c.reference_ratios.items() if r is not None}
            ours = {k: c.ratios[k] for k in theirs}
            word = {True: "reproduced", False: "not reproduced", None: "no verdict"}[v.reproduced]
            worst = max((r.apart for r in v.rows), default=None)
            out.append([name, f"vs {c.baseline}: " + _ratio_list(ours, c.baseline), _ratio_list(theirs, c.baseline),
                        word + (f" ({fmt_ratio(worst)} apart at most)" if worst else "")])
        return out

    def _text(self) -> str:
        headers = ["figure", "ours (ratio to baseline)", "source", "verdict"]
        lines = [text_table(headers, self.rows(), "llll")]
        lines += [f"{name}: {c.verdict()}" for name, c in self.comparisons.items()]
        return "\n".join(lines)

    def _html(self) -> str:
        if not self.comparisons:
            return box(f'<div style="color:{MUTED}">no headline figures measured yet</div>')
        rows = self.rows()
        styled = []
        for r in rows:
            colour = GOOD if r[3].startswith("reproduced") else WARN
            styled.append([esc(r[0]), esc(r[1]), esc(r[2]), f'<b style="color:{colour}">{esc(r[3])}</b>'])
        table = html_table(["figure", "ours (ratio to baseline)", "source", "verdict"], styled, "llll",
                           raw_columns=range(4))
        tol = sorted({f"{c.tolerance:g}×" for c in self.comparisons.values()})
        return box(table + small(f"verdicts computed from the measured ratios; tolerance {', '.join(tol)} "
                                 "on each ratio; reasons in the text form"), title="headline figures")


def scoreboard(figures: Mapping[str, Comparison] | None = None) -> Scoreboard:
    """A table of headline figures: ``figures`` or every ``compare(..., figure=...)`` made so far."""
    return Scoreboard(dict(FIGURES if figures is None else figures))
