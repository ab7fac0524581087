"""One measurement's result: :class:`Timing`, its statistics and its text/HTML rendering.

Kept apart from the measuring loop so the comparison, the verdicts and the tests can build a
Timing from known figures without running anything.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from .._display import MUTED, WARN, Displayable, box, esc, fmt_int, fmt_seconds, fmt_spread, small


@dataclass(frozen=True, repr=False)
class Timing(Displayable):
    """One measurement: per-call seconds of each repeat plus compile cost and provenance."""

    label: str
    times_s: tuple  # per-call seconds, one entry per repeat
    number: int  # calls per repeat
    compile_s: float | None  # trace + lower + XLA compile (None: not a jit/pmap-style function)
    trace_s: float | None
    lower_s: float | None
    xla_compile_s: float | None
    compile_cached: bool | None  # True: no XLA compile happened (executable was cached)
    first_call_s: float  # the first warm-up call (eager kernels compile here)
    first_call_compiles: int  # XLA compilations during warm-up
    measured_compiles: int  # XLA compilations during the measured loops (should be 0)
    warmup: int
    budget_s: float | None
    device: str
    backend: str
    device_count: int
    jax_version: str
    jaxlib_version: str
    timestamp: str
    host: str
    total_s: float
    notes: tuple = field(default=())

    # statistics over repeats (each repeat is already a mean over `number` calls)
    @property
    def repeat(self) -> int:
        return len(self.times_s)

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)

    @property
    def min_s(self) -> float:
        return min(self.times_s)

    @property
    def mean_s(self) -> float:
        return statistics.fmean(self.times_s)

    @property
    def std_s(self) -> float:
        return statistics.stdev(self.times_s) if len(self.times_s) > 1 else 0.0

    @property
    def iqr_s(self) -> float:
        """The spread of the middle half of the repeats: one stray repeat (a GC, another process) leaves it alone."""
        if len(self.times_s) < 3:
            return 0.0
        low, _, high = statistics.quantiles(self.times_s, n=4)
        return max(0.0, high - low)

    def __float__(self) -> float:
        return self.median_s

    def __truediv__(self, other) -> float:
        """``t_eager / t_jit`` -> ratio of medians (how many times slower)."""
        return self.median_s / float(other)

    @property
    def noisy(self) -> bool:
        """The middle half of the repeats spreads wider than the median itself: not a figure to compare.

        The interquartile range, not the std: the median is robust to one stray repeat, so the
        test of whether to trust it should be too (the std shown beside it still counts every repeat).
        """
        return self.repeat > 2 and self.iqr_s > self.median_s

    def warnings(self) -> list[str]:
        out = list(self.notes)
        if self.measured_compiles:
            out.append(f"{self.measured_compiles} XLA compilation(s) happened inside the measured loops: "
                       "the function recompiles while it runs (check shapes, dtypes, static arguments)")
        if self.repeat > 2 and self.min_s > 0 and self.median_s / self.min_s > 1.5:
            out.append("noisy: median is more than 1.5× the fastest repeat")
        return out

    # ------------------------------------------------------------------ text
    def summary(self) -> str:
        """``'1.23 µs ± 0.04 µs (median of 7 × 100 000, cpu)'`` (± is the std over repeats)."""
        return (f"{fmt_seconds(self.median_s)} ± {fmt_spread(self.std_s, self.median_s)} "
                f"(median of {self.repeat} × {fmt_int(self.number)}, {self.backend})")

    def compile_summary(self) -> str:
        if self.compile_s is None:
            return ""
        if self.compile_cached:
            return f"compile {fmt_seconds(self.compile_s)} (cached: no XLA compile was needed)"
        parts = [f"trace {fmt_seconds(self.trace_s)}", f"lower {fmt_seconds(self.lower_s)}",
                 f"XLA {fmt_seconds(self.xla_compile_s)}"]
        return f"compile {fmt_seconds(self.compile_s)} ({' + '.join(parts)})"

    def first_call_summary(self) -> str:
        extra = f", {self.first_call_compiles} XLA compile(s)" if self.first_call_compiles else ""
        return f"first call {fmt_seconds(self.first_call_s)}{extra} (warm-up, excluded)"

    @property
    def place(self) -> str:
        """Where it ran, as comparisons group their entries: ``'1 × cpu (cpu)'`` or ``'host CPU'``."""
        return "host CPU" if self.backend == "host" else f"{self.device_count} × {self.device} ({self.backend})"

    def provenance(self) -> str:
        where = (f"host CPU (no JAX arrays in the output): {self.host}" if self.backend == "host"
                 else f"{self.device_count} × {self.device} ({self.backend}); host {self.host}")
        return f"{where}; jax {self.jax_version} / jaxlib {self.jaxlib_version}; {self.timestamp}"

    def _text(self) -> str:
        head = f"{self.label}: " if self.label else ""
        lines = [head + self.summary()]
        extra = [s for s in (self.compile_summary(), self.first_call_summary()) if s]
        lines.append("  " + "; ".join(extra))
        lines.append(f"  min {fmt_seconds(self.min_s)}, mean {fmt_seconds(self.mean_s)}; {self.provenance()}")
        lines += [f"  warning: {w}" for w in self.warnings()]
        return "\n".join(lines)

    def _html(self) -> str:
        label = f'<span style="color:{MUTED}">{esc(self.label)}: </span>' if self.label else ""
        head = (
            f'<div style="font-size:24px">{label}<b>{esc(fmt_seconds(self.median_s))}</b> '
            f'± {esc(fmt_spread(self.std_s, self.median_s))} '
            f'<span style="color:{MUTED}">(median of {self.repeat} × {esc(fmt_int(self.number))}, '
            f'{esc(self.backend)})</span></div>'
        )
        details = [f"min {fmt_seconds(self.min_s)}", f"mean {fmt_seconds(self.mean_s)}"]
        if self.compile_s is not None:
            details.append(self.compile_summary())
        details.append(self.first_call_summary())
        body = f"<div>{esc(' · '.join(details))}</div>"
        warn = "".join(f'<div style="color:{WARN};font-weight:bold">⚠ {esc(w)}</div>' for w in self.warnings())
        return box(head + body + warn + small(self.provenance()))

    def to_dict(self) -> dict:
        """Plain JSON-ready record (statistics included)."""
        keys = ("label", "number", "compile_s", "trace_s", "lower_s", "xla_compile_s", "compile_cached",
                "first_call_s", "first_call_compiles", "measured_compiles", "warmup", "budget_s", "device",
                "backend", "device_count", "jax_version", "jaxlib_version", "timestamp", "host", "total_s")
        d = {k: getattr(self, k) for k in keys}
        d.update(times_s=list(self.times_s), repeat=self.repeat, median_s=self.median_s, min_s=self.min_s,
                 mean_s=self.mean_s, std_s=self.std_s, warnings=self.warnings())
        return d
