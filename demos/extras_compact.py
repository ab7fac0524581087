"""A compact view of a :class:`demos.timing.Comparison` for a crowded slide.

``compact(compare(...))`` shows the comparison's bar chart (our ratios beside the reference
figures, each labelled with its absolute time), the computed verdict (reproduced or not,
and why) and one short line saying where each entry
ran, what the jitted entries cost to compile, and how many entries were noisy. The plain-text
form is the full comparison table, so nothing is lost in a terminal or a handout.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._display import Displayable, box, fmt_seconds, small


@dataclass(repr=False)
class CompactComparison(Displayable):
    """The chart and a one-line provenance of a comparison (``.comparison`` is the full one)."""

    comparison: object

    def provenance(self) -> str:
        timings = self.comparison.timings
        where: dict[str, list[str]] = {}
        for name, t in timings.items():
            place = "host CPU" if t.backend == "host" else f"{t.device_count} × {t.device} ({t.backend})"
            where.setdefault(place, []).append(name)
        parts = ["; ".join(f"{', '.join(names)} on {place}" for place, names in where.items())]
        compiles = [f"{name} {'cached' if t.compile_cached else fmt_seconds(t.compile_s)}"
                    for name, t in timings.items() if t.compile_s is not None]
        if compiles:
            parts.append("compile: " + ", ".join(compiles))
        first = next(iter(timings.values()))
        parts.append(f"{first.host}; jax {first.jax_version}")
        noisy = [name for name, t in timings.items() if t.warnings()]
        if noisy:
            parts.append("warnings: " + ", ".join(noisy) + " (see the text form)")
        return ". ".join(parts) + "."

    def _text(self) -> str:
        return str(self.comparison)

    def _html(self) -> str:
        c = self.comparison
        verdict = c.verdict()._html() if c.reference else ""
        return box(c.chart() + verdict + small(self.provenance()), title=c.title or None)

    def verdict(self):
        """The comparison's computed verdict against its reference figures."""
        return self.comparison.verdict()


def compact(comparison) -> CompactComparison:
    """Wrap a Comparison so it displays as its chart plus one line of provenance."""
    if not hasattr(comparison, "chart") or not hasattr(comparison, "timings"):
        raise TypeError(f"compact() needs a demos.timing.Comparison, got {type(comparison).__name__}")
    return CompactComparison(comparison)
