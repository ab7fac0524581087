"""The measuring loop behind :func:`demos.timing.bench` (the protocol is in that module's docstring).

Blocking on outputs, the timed loop, the ahead-of-time compile, the loop-count choice and the
provenance of a result live here; the result object itself is :mod:`.result`.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any, Callable

from .._devices.facts import describe_devices, host_cpu, utc_now
from .._display import fmt_seconds
from .._events import COMPILE, LOWER, TRACE, CompileEvents
from .result import Timing

DEFAULT_BUDGET_S = 0.4
DEFAULT_REPEAT = 7
_CALIBRATION_SHARE = 0.2  # a calibration loop stops once it ran this share of a repeat's target
#: ``DEMOS_TIMING_BUDGET_SCALE=0.25`` shortens every measurement's budget four times: for a test
#: suite that runs whole decks to check that their claims hold, where the figures are not read
BUDGET_SCALE_ENV = "DEMOS_TIMING_BUDGET_SCALE"


def budget_scale() -> float:
    """The factor every budget is multiplied by (1 unless ``DEMOS_TIMING_BUDGET_SCALE`` says otherwise)."""
    try:
        scale = float(os.environ.get(BUDGET_SCALE_ENV, "") or 1.0)
    except ValueError:
        return 1.0
    return scale if scale > 0 else 1.0


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
        backend, kind, count = describe_devices(sorted(devices, key=lambda d: d.id))
    else:
        backend, kind, count = "host", "host CPU", 1
    return dict(device=kind, backend=backend, device_count=count, jax_version=jax.__version__,
                jaxlib_version=getattr(jaxlib, "__version__", "?"), timestamp=utc_now(),
                host=host_cpu())


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
    if budget_s:
        budget_s *= budget_scale()
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

