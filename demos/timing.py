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
6. A result whose middle half of repeats spreads wider than its median is noisy (one stray
   repeat is not enough): :func:`compare` measures it once more with a longer budget and
   says so; its compact view names it without growing a line, so the slide still fits.

A check cell that asserts a claim about timings holds it with :func:`holds`: the slide's own
figures first, measured again only when they do not bear it out, and when no measurement does,
how busy the machine was meanwhile (:class:`Load`), so a failure on a shared machine says so.

This module is the public face; the pieces live in ``demos._timing``: ``measure`` (the loop),
``result`` (:class:`Timing`), ``comparison`` (:func:`compare`, :func:`compact`, :data:`FIGURES`), ``verdict``,
``scoreboard``, ``holds`` and ``load``.
"""

from __future__ import annotations

from ._timing.comparison import FIGURES, CompactComparison, Comparison, compact, compare
from ._timing.holds import DEFAULT_TRIES, Held, fastest, holds
from ._timing.load import Load, LoadMeter
from ._timing.measure import DEFAULT_BUDGET_S, DEFAULT_REPEAT, bench, is_jitted
from ._timing.result import Timing
from ._timing.scoreboard import Scoreboard, scoreboard
from ._timing.verdict import DEFAULT_TOLERANCE, RowVerdict, Verdict, verdict_from_ratios

__all__ = [
    "DEFAULT_BUDGET_S", "DEFAULT_REPEAT", "DEFAULT_TOLERANCE", "DEFAULT_TRIES", "FIGURES", "CompactComparison",
    "Comparison", "Held", "Load", "LoadMeter", "RowVerdict", "Scoreboard", "Timing", "Verdict", "bench", "compact",
    "compare", "fastest", "holds", "is_jitted", "scoreboard", "verdict_from_ratios",
]
