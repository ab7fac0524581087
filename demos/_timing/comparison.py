"""Several timings under one protocol: :func:`compare`, the :class:`Comparison` it returns, and
its compact view for a crowded slide (:meth:`Comparison.compact`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .._display import (
    PALETTE,
    REFERENCE_COLOUR,
    WARN,
    Displayable,
    box,
    esc,
    fmt_int,
    fmt_ratio,
    fmt_seconds,
    fmt_speed,
    fmt_spread,
    html_table,
    parse_seconds,
    small,
    svg_bars,
    text_table,
)
from .measure import DEFAULT_REPEAT, bench
from .result import Timing
from .verdict import DEFAULT_TOLERANCE, Verdict, verdict_from_ratios

FIGURES: dict = {}  # figure name -> the latest Comparison made with compare(..., figure=name); see scoreboard


@dataclass(repr=False)
class Comparison(Displayable):
    """Several :class:`Timing` results under one protocol, with ratios and a bar chart."""

    timings: dict
    baseline: str
    reference: dict = field(default_factory=dict)  # name -> seconds (or None)
    reference_label: str = "reference"
    title: str = ""
    tolerance: float = DEFAULT_TOLERANCE
    figure: str = ""  # the headline figure this comparison reproduces (see :func:`scoreboard`)

    def __getitem__(self, name: str) -> Timing:
        return self.timings[name]

    def __iter__(self):
        return iter(self.timings)

    @property
    def ratios(self) -> dict:
        """Our median time of each entry divided by the baseline's."""
        base = self.timings[self.baseline].median_s
        return {k: t.median_s / base for k, t in self.timings.items()}

    @property
    def reference_ratios(self) -> dict:
        """The reference figures divided by the reference baseline (None where unknown)."""
        base = self.reference.get(self.baseline)
        return {k: (self.reference.get(k) / base if base and self.reference.get(k) is not None else None)
                for k in self.timings}

    def verdict(self, tolerance: float | None = None) -> Verdict:
        """Reproduced or not, computed from our ratios against the reference's (see :class:`Verdict`)."""
        return verdict_from_ratios(self.ratios, self.reference_ratios, self.baseline, self.reference_label,
                                   self.tolerance if tolerance is None else tolerance,
                                   noisy=tuple(k for k, t in self.timings.items() if t.noisy))

    def _rows(self):
        headers = ["", "time (median ± std)", f"vs {self.baseline}", "", "compile"]
        if self.reference:
            headers += [self.reference_label, f"vs {self.baseline}"]
        rows = []
        ratios, rref = self.ratios, self.reference_ratios
        for name, t in self.timings.items():
            row = [name, f"{fmt_seconds(t.median_s)} ± {fmt_spread(t.std_s, t.median_s)}",
                   fmt_ratio(ratios[name]), "baseline" if name == self.baseline else fmt_speed(ratios[name]),
                   "—" if t.compile_s is None else ("cached" if t.compile_cached and not t.compile_s
                                                     else fmt_seconds(t.compile_s)
                                                     + (" (cached)" if t.compile_cached else ""))]
            if self.reference:
                ref = self.reference.get(name)
                row += [fmt_seconds(ref) if ref is not None else "—", fmt_ratio(rref[name])]
            rows.append(row)
        return headers, rows

    def places(self) -> str:
        """Which entries ran where: ``'NumPy on host CPU; JAX eager, JAX jit on 1 × cpu (cpu)'``."""
        where: dict[str, list[str]] = {}
        for name, t in self.timings.items():
            where.setdefault(t.place, []).append(name)
        return "; ".join(f"{', '.join(names)} on {place}" for place, names in where.items())

    def _provenance(self) -> str:
        first = next(iter(self.timings.values()))
        protocol = ", ".join(f"{k} {t.repeat} × {fmt_int(t.number)}" for k, t in self.timings.items())
        return (f"{self.places()}. Host {first.host}; jax {first.jax_version} / jaxlib {first.jaxlib_version}; "
                f"{first.timestamp}. Repeats × loops: {protocol}.")

    def _text(self) -> str:
        headers, rows = self._rows()
        align = "lrrlr" + ("rr" if self.reference else "")
        out = [self.title] if self.title else []
        out.append(text_table(headers, rows, align))
        if self.reference:
            out.append(str(self.verdict()))
        for name, t in self.timings.items():
            out += [f"warning ({name}): {w}" for w in t.warnings()]
        out.append(self._provenance())
        return "\n".join(out)

    def chart(self) -> str:
        """The SVG bar chart: our times, or (with a reference) both sides as ratios to the baseline."""
        names = list(self.timings)
        if not self.reference:
            values = [self.timings[n].median_s for n in names]
            return svg_bars(names, values, [fmt_seconds(v) for v in values], axis_label="median time per call")
        ours = [self.ratios[n] for n in names]
        ref = [self.reference_ratios[n] for n in names]
        return svg_bars(
            names, ours, [f"{fmt_ratio(v)}  ({fmt_seconds(self.timings[n].median_s)})" for n, v in zip(names, ours)],
            colours=[PALETTE[0]] * len(names), series=[ref],
            series_value_labels=[[f"{fmt_ratio(v)}  ({fmt_seconds(self.reference.get(n))})" if v else ""
                                  for n, v in zip(names, ref)]],
            series_names=["ours", self.reference_label], series_colours=[REFERENCE_COLOUR],
            axis_label=f"time relative to {self.baseline}",
        )

    def _html(self) -> str:
        headers, rows = self._rows()
        align = "lrrlr" + ("rr" if self.reference else "")
        names = list(self.timings)
        table = html_table(headers, rows, align, highlight_row=names.index(self.baseline))
        warn = "".join(f'<div style="color:{WARN};font-weight:bold">⚠ {esc(n)}: {esc(w)}</div>'
                       for n, t in self.timings.items() for w in t.warnings())
        verdict = self.verdict()._html() if self.reference else ""
        return box(table + self.chart() + verdict + warn + small(self._provenance()), title=self.title or None)

    def to_dict(self) -> dict:
        return {"title": self.title, "baseline": self.baseline, "reference_label": self.reference_label,
                "reference_s": dict(self.reference), "ratios": self.ratios,
                "reference_ratios": self.reference_ratios,
                "verdict": self.verdict().to_dict() if self.reference else None,
                "timings": {k: t.to_dict() for k, t in self.timings.items()}}

    def compact(self) -> "CompactComparison":
        """This comparison shown as its chart, verdict and one line of provenance (for a crowded slide)."""
        return CompactComparison(self)


@dataclass(repr=False)
class CompactComparison(Displayable):
    """The chart, the verdict and a one-line provenance of a comparison (``.comparison`` is the full one).

    The plain-text form is the full comparison table, so nothing is lost in a terminal or a handout.
    """

    comparison: Comparison

    def provenance(self) -> str:
        """Where each entry ran, which had warnings, and what the jitted entries cost to compile.

        The warnings come right after the device: the line is cut to one line on a slide, and
        what is cut must be the least important part.
        """
        timings = self.comparison.timings
        parts = [self.comparison.places()]
        warned = [name for name, t in timings.items() if t.warnings()]
        if warned:
            parts.append("warnings: " + ", ".join(warned) + " (see the text form)")
        compiles = [f"{name} {'cached' if t.compile_cached else fmt_seconds(t.compile_s)}"
                    for name, t in timings.items() if t.compile_s is not None]
        if compiles:
            parts.append("compile: " + ", ".join(compiles))
        first = next(iter(timings.values()))
        parts.append(f"{first.host}; jax {first.jax_version}")
        return ". ".join(parts) + "."

    def _text(self) -> str:
        return str(self.comparison)

    def _html(self) -> str:
        """Chart, verdict and provenance, one line each whatever was measured: a slide that fits
        when the timing was quiet and on target still fits when it was not (the text form and
        each line's hover text say it all; the noisy entries are named in the provenance)."""
        c = self.comparison
        verdict = dataclasses.replace(c.verdict(), noisy=()).html(one_line=True) if c.reference else ""
        return box(c.chart() + verdict + small(self.provenance(), one_line=True), title=c.title or None)

    def verdict(self) -> Verdict:
        """The comparison's computed verdict against its reference figures."""
        return self.comparison.verdict()


def compact(comparison: Comparison) -> CompactComparison:
    """``compact(compare(...))``: a comparison displayed as its chart plus one line of provenance."""
    if not hasattr(comparison, "chart") or not hasattr(comparison, "timings"):
        raise TypeError(f"compact() needs a demos.timing.Comparison, got {type(comparison).__name__}")
    return CompactComparison(comparison)


def compare(fns: Mapping[str, Callable], *args, baseline: str | None = None,
            reference: Mapping[str, Any] | None = None, reference_label: str = "reference",
            title: str = "", args_for: Mapping[str, tuple] | None = None, warmup: int = 1,
            repeat: int = DEFAULT_REPEAT, number: int | None = None, budget_s: float | None = 0.3,
            tolerance: float = DEFAULT_TOLERANCE, remeasure: float = 3.0, figure: str = "",
            **kwargs) -> Comparison:
    """Time each function under the :func:`bench` protocol and compare them.

    ``fns``: ``{"NumPy": f1, "JAX eager": f2, "JAX jit": jax.jit(f2)}``, all called with
    ``*args, **kwargs`` unless ``args_for`` gives an entry its own argument tuple (e.g. NumPy
    arrays for NumPy, device arrays for JAX). ``baseline``: the entry ratios refer to
    (default: the first). ``reference``: published figures to show beside ours, as strings
    (``"1.81 s"``, ``"410 ms"``) or seconds, labelled ``reference_label``; ratios are shown
    for both. ``budget_s`` is per function. ``tolerance``: the factor within which a ratio
    counts as reproducing the reference's (:meth:`Comparison.verdict`). ``remeasure``: a noisy
    entry (:attr:`Timing.noisy`) is measured once more with this many times the budget
    (0: never), and the second measurement is kept. ``figure``: a name for the headline
    figure this reproduces; the comparison is then kept for :func:`scoreboard`.
    """
    if not fns:
        raise ValueError("compare() needs at least one function")
    baseline = baseline or next(iter(fns))
    if baseline not in fns:
        raise ValueError(f"baseline {baseline!r} is not one of {list(fns)}")
    ref = {}
    for k, v in (reference or {}).items():
        if k not in fns:
            raise ValueError(f"reference entry {k!r} matches no function (have {list(fns)})")
        ref[k] = parse_seconds(v)
    args_for = dict(args_for or {})
    timings = {}
    for name, fn in fns.items():
        call_args = args_for.get(name, args)
        t = bench(fn, *call_args, warmup=warmup, repeat=repeat, number=number, budget_s=budget_s,
                  label=name, **kwargs)
        if t.noisy and remeasure:
            longer = (budget_s or 0.2 * repeat) * remeasure
            again = bench(fn, *call_args, warmup=warmup, repeat=repeat, number=number, budget_s=longer,
                          label=name, **kwargs)
            note = (f"re-measured with a {fmt_seconds(longer)} budget: the first interquartile spread "
                    f"({fmt_seconds(t.iqr_s)}) exceeded its median ({fmt_seconds(t.median_s)})")
            t = dataclasses.replace(again, notes=again.notes + (note,))
        timings[name] = t
    result = Comparison(timings=timings, baseline=baseline, reference=ref, reference_label=reference_label,
                        title=title, tolerance=tolerance, figure=figure)
    if figure:
        FIGURES[figure] = result
    return result
