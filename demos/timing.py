"""Honest timing for JAX demos.

The protocol (:func:`bench`), which :func:`compare`, the widgets and ``%jaxtime`` share:

1. A jitted function is traced, lowered and compiled ahead of time
   (``fn.trace(...).lower().compile()``); that cost is ``compile_s``, reported apart and
   never mixed into the run time. JAX's own monitoring events say whether XLA really
   compiled or the executable came from a cache.
2. Warm-up calls (at least one) absorb first-call costs: eager ops compiling their kernels,
   caches filling. The first call's time is kept as ``first_call_s``.
3. Every call is blocked on its whole output pytree, so asynchronous dispatch cannot make a
   computation look faster than the device finishes it.
4. The loop count per repeat is chosen like ``timeit.autorange`` but inside a time budget,
   so microsecond calls are averaged over many loops and a cell still ends in time.
5. Every result carries provenance: device kind, backend, jax/jaxlib versions, UTC time.
"""

from __future__ import annotations

import dataclasses
import gc
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from . import devices as _devices
from ._display import (
    MUTED,
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
from ._events import COMPILE, LOWER, TRACE, CompileEvents

DEFAULT_BUDGET_S = 0.4
DEFAULT_REPEAT = 7
_CALIBRATION_SHARE = 0.2  # a calibration loop stops once it ran this share of a repeat's target


# ---------------------------------------------------------------------------- result

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
    def calls(self) -> int:
        return self.repeat * self.number

    def __float__(self) -> float:
        return self.median_s

    def __truediv__(self, other) -> float:
        """``t_eager / t_jit`` -> ratio of medians (how many times slower)."""
        return self.median_s / float(other)

    @property
    def noisy(self) -> bool:
        """The spread over repeats is larger than the median itself: not a figure to compare."""
        return self.repeat > 1 and self.std_s > self.median_s

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


# ---------------------------------------------------------------------------- blocking

def _host_types() -> tuple:
    import numpy as np

    return (np.ndarray, np.generic, float, int, complex, bool, str, bytes, type(None))


def _make_blocker(out: Any) -> Callable[[Any], Any] | None:
    """The cheapest correct way to wait for outputs shaped like ``out``.

    A single jax.Array uses the array type's own ``block_until_ready`` (no wrapper: it is
    ~0.6 µs on a small CPU, and every extra layer would be charged to the function); anything
    else holding JAX arrays uses ``jax.block_until_ready`` on the whole pytree; plain host
    values (NumPy, Python numbers) have nothing to wait for: ``None``.
    """
    import jax

    if isinstance(out, jax.Array):
        return type(out).block_until_ready
    leaves = jax.tree_util.tree_leaves(out)
    if all(isinstance(leaf, _host_types()) for leaf in leaves):
        return None
    return jax.block_until_ready


def _make_loop(fn: Callable, args: tuple, kwargs: dict, block: Callable | None) -> Callable[[int], float]:
    """``loop(n)`` -> seconds for n calls, each blocked on its output; the garbage collector is
    paused while timing, like timeit. If an output stops matching the fast blocker (a
    TypeError from the array method), the loop re-runs with the generic pytree blocker."""
    import jax

    perf = time.perf_counter
    call = (lambda: fn(*args, **kwargs)) if kwargs else None

    def timed(n, blk):
        it = range(n)
        if call is not None:
            t0 = perf()
            if blk is None:
                for _ in it:
                    call()
            else:
                for _ in it:
                    blk(call())
            return perf() - t0
        t0 = perf()
        if blk is None:
            for _ in it:
                fn(*args)
        else:
            for _ in it:
                blk(fn(*args))
        return perf() - t0

    state = {"block": block}

    def loop(n):
        enabled = gc.isenabled()
        gc.disable()
        try:
            try:
                return timed(n, state["block"])
            except TypeError:
                if state["block"] is None or state["block"] is jax.block_until_ready:
                    raise
                state["block"] = jax.block_until_ready
                return timed(n, state["block"])
        finally:
            if enabled:
                gc.enable()

    return loop


def is_jitted(fn: Any) -> bool:
    """True for ``jax.jit`` (and other AOT-capable) wrappers: they offer ``.lower``."""
    return callable(fn) and callable(getattr(fn, "lower", None))


def _aot_compile(fn, args, kwargs):
    """Trace, lower and compile ``fn`` ahead of time; returns (trace_s, lower_s, compile_s, events)."""
    perf = time.perf_counter
    with CompileEvents() as ev:
        t0 = perf()
        traced = fn.trace(*args, **kwargs)
        t1 = perf()
        lowered = traced.lower()
        t2 = perf()
        lowered.compile()
        t3 = perf()
    return t1 - t0, t2 - t1, t3 - t2, ev


def _provenance(out: Any) -> dict:
    import jax
    import jaxlib

    devices = set()
    for leaf in jax.tree_util.tree_leaves(out):
        if isinstance(leaf, jax.Array):
            try:
                devices |= set(leaf.sharding.device_set)
            except Exception:
                pass
    if devices:
        backend, kind, count = _devices.describe_devices(sorted(devices, key=lambda d: d.id))
    else:
        backend, kind, count = "host", "host CPU", 1
    return dict(device=kind, backend=backend, device_count=count, jax_version=jax.__version__,
                jaxlib_version=getattr(jaxlib, "__version__", "?"), timestamp=_devices.utc_now(),
                host=_devices.host_cpu())


def _choose_number(loop: Callable[[int], float], target_s: float) -> tuple[int, float, float]:
    """Autorange: grow the loop count 1, 2, 5, 10, ... until a loop takes a fair share of
    ``target_s``, then scale it so one repeat lasts about ``target_s``.
    Returns (number, seconds per call estimate, seconds spent calibrating)."""
    spent = 0.0
    n = 1
    threshold = max(target_s * _CALIBRATION_SHARE, 1e-4)
    while True:
        for m in (1, 2, 5):
            k = n * m
            t = loop(k)
            spent += t
            if t >= threshold or k >= 10**8:
                per_call = t / k
                number = max(1, int(target_s / per_call)) if per_call > 0 else k
                return number, per_call, spent
        n *= 10


def bench(fn: Callable, *args, warmup: int = 1, repeat: int = DEFAULT_REPEAT, number: int | None = None,
          budget_s: float | None = DEFAULT_BUDGET_S, label: str | None = None, **kwargs) -> Timing:
    """Time ``fn(*args, **kwargs)`` with the honest protocol (see the module docstring).

    ``warmup``: untimed calls first (>= 1). ``repeat``: repeats to take the median over.
    ``number``: calls per repeat (None: chosen automatically). ``budget_s``: time budget for the
    measurement after compile and warm-up (None: no budget, ~0.2 s per repeat like timeit);
    a slow function gets fewer repeats rather than overrunning. Keyword arguments other than
    these go to ``fn`` (use functools.partial for keywords that clash).
    """
    if warmup < 1:
        raise ValueError("warmup must be at least 1: the first call always pays one-off costs")
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    if number is not None and number < 1:
        raise ValueError("number must be at least 1")
    import jax

    perf = time.perf_counter
    start = perf()
    label = label if label is not None else getattr(fn, "__name__", type(fn).__name__)

    trace_s = lower_s = xla_s = compile_s = None
    compile_cached = None
    # jax.jit offers .trace(): compile ahead of time, and the calls below reuse that executable.
    # pmap and other AOT-capable wrappers would compile again on their first call, so for them
    # the compile is taken from JAX's own monitoring events during the first call instead.
    aot = is_jitted(fn) and callable(getattr(fn, "trace", None))
    if aot:
        trace_s, lower_s, xla_s, ev = _aot_compile(fn, args, kwargs)
        compile_s = trace_s + lower_s + xla_s
        compile_cached = ev.compiles == 0

    with CompileEvents() as warm_events:
        t0 = perf()
        out = fn(*args, **kwargs)
        jax.block_until_ready(out)
        first_call_s = perf() - t0
        block = _make_blocker(out)
        for _ in range(warmup - 1):
            jax.block_until_ready(fn(*args, **kwargs))
    if is_jitted(fn) and not aot:
        trace_s, lower_s, xla_s = (warm_events.seconds(k) for k in (TRACE, LOWER, COMPILE))
        compile_s = trace_s + lower_s + xla_s
        compile_cached = warm_events.compiles == 0
    loop = _make_loop(fn, args, kwargs, block)

    notes = []
    with CompileEvents() as measured:
        if number is None:
            per_repeat = (budget_s / (repeat + 1)) if budget_s else 0.2
            number, per_call, spent = _choose_number(loop, per_repeat)
            if budget_s:
                left = max(budget_s - spent, 0.0)
                if per_call * number * repeat > left:
                    # Keep the loop count (precision per repeat) and drop repeats, not below one.
                    fit = int(left / max(per_call * number, 1e-12))
                    if fit < repeat:
                        notes.append(f"budget {fmt_seconds(budget_s)}: {max(1, fit)} of {repeat} repeats")
                    repeat = max(1, min(repeat, fit))
        measure_start = perf()
        times = []
        for i in range(repeat):
            times.append(loop(number) / number)
            # A loaded machine can stall far past the estimate: keep the cell's time bounded.
            if budget_s and i + 1 < repeat and i + 1 >= min(3, repeat) and perf() - measure_start > 1.5 * budget_s:
                notes.append(f"stopped after {i + 1} of {repeat} repeats: over the {fmt_seconds(budget_s)} budget")
                break
        times = tuple(times)

    return Timing(
        label=label, times_s=times, number=number, compile_s=compile_s, trace_s=trace_s, lower_s=lower_s,
        xla_compile_s=xla_s, compile_cached=compile_cached, first_call_s=first_call_s,
        first_call_compiles=warm_events.compiles, measured_compiles=measured.compiles, warmup=warmup,
        budget_s=budget_s, total_s=perf() - start, notes=tuple(notes), **_provenance(out),
    )


# ---------------------------------------------------------------------------- verdict

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
        return self.apart <= self.tolerance * (1 + 1e-9)

    @property
    def same_direction(self) -> bool:
        """Faster than the baseline in both, slower in both, or level (within 5 %) in one."""
        def side(r):
            return 0 if 0.95 <= r <= 1.05 else (1 if r > 1 else -1)
        a, b = side(self.ours), side(self.theirs)
        return a == b or 0 in (a, b)

    def describe(self, baseline: str, reference_label: str) -> str:
        here = fmt_speed(self.ours) or fmt_ratio(self.ours)
        there = fmt_speed(self.theirs) or fmt_ratio(self.theirs)
        if not self.same_direction:
            return f"{self.name} is {here} than {baseline} here but {there} in {reference_label}"
        return (f"{self.name} takes {fmt_ratio(self.ours)} {baseline}'s time here, {fmt_ratio(self.theirs)} in "
                f"{reference_label} ({fmt_ratio(self.apart)} apart)")


@dataclass(frozen=True, repr=False)
class Verdict(Displayable):
    """Whether a comparison reproduces its reference figures, computed from the ratios.

    Reproduced: every entry that has both our time and a reference time is, relative to the
    baseline, within ``tolerance`` times the reference's ratio. Otherwise the reason names
    each entry outside it. Absolute times never enter: the machines differ.
    """

    rows: tuple  # RowVerdict for each non-baseline entry with a reference figure
    baseline: str
    reference_label: str
    tolerance: float
    noisy: tuple = ()  # entries whose spread still exceeds their median

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
            return (f"reproduced: every ratio to {self.baseline} within {fmt_ratio(worst.apart)} of "
                    f"{self.reference_label}'s ({tol}{noisy})")
        return f"not reproduced: {self.reason} ({tol}{noisy})"

    def _text(self) -> str:
        return str(self)

    def _html(self) -> str:
        colour = "#2e7d32" if self.reproduced else (MUTED if self.reproduced is None else WARN)
        head, _, rest = str(self).partition(":")
        return (f'<div class="verdict" style="font-size:17px"><b style="color:{colour}">{esc(head)}</b>:'
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


# ---------------------------------------------------------------------------- comparison

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

    def _rows(self, for_html: bool = False):
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

    def _provenance(self) -> str:
        first = next(iter(self.timings.values()))
        where = {}
        for name, t in self.timings.items():
            place = "host CPU" if t.backend == "host" else f"{t.device_count} × {t.device} ({t.backend})"
            where.setdefault(place, []).append(name)
        places = "; ".join(f"{', '.join(names)} on {place}" for place, names in where.items())
        protocol = ", ".join(f"{k} {t.repeat} × {fmt_int(t.number)}" for k, t in self.timings.items())
        return (f"{places}. Host {first.host}; jax {first.jax_version} / jaxlib {first.jaxlib_version}; "
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
    counts as reproducing the reference's (:meth:`Comparison.verdict`). ``remeasure``: an
    entry whose spread exceeds its median is measured once more with this many times the
    budget (0: never), and the second measurement is kept. ``figure``: a name for the headline
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
            note = (f"re-measured with a {fmt_seconds(longer)} budget: the first spread "
                    f"({fmt_seconds(t.std_s)}) exceeded its median ({fmt_seconds(t.median_s)})")
            t = dataclasses.replace(again, notes=again.notes + (note,))
        timings[name] = t
    result = Comparison(timings=timings, baseline=baseline, reference=ref, reference_label=reference_label,
                        title=title, tolerance=tolerance, figure=figure)
    if figure:
        FIGURES[figure] = result
    return result


# ---------------------------------------------------------------------------- scoreboard

FIGURES: dict = {}  # figure name -> the latest Comparison made with compare(..., figure=name)


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
            colour = "#2e7d32" if r[3].startswith("reproduced") else WARN
            styled.append([esc(r[0]), esc(r[1]), esc(r[2]), f'<b style="color:{colour}">{esc(r[3])}</b>'])
        table = html_table(["figure", "ours (ratio to baseline)", "source", "verdict"], styled, "llll",
                           raw_columns=range(4))
        tol = sorted({f"{c.tolerance:g}×" for c in self.comparisons.values()})
        return box(table + small(f"verdicts computed from the measured ratios; tolerance {', '.join(tol)} "
                                 "on each ratio; reasons in the text form"), title="headline figures")


def scoreboard(figures: Mapping[str, Comparison] | None = None) -> Scoreboard:
    """A table of headline figures: ``figures`` or every ``compare(..., figure=...)`` made so far."""
    return Scoreboard(dict(FIGURES if figures is None else figures))
