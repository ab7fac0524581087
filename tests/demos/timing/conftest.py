"""Synthetic timings and comparisons: known figures, so verdicts and views can be checked exactly."""

from __future__ import annotations

import pytest

from demos._display import parse_seconds
from demos.timing import Comparison, Timing


def synthetic_timing(label: str, seconds: float, spread: float = 0.0, backend: str = "cpu", device: str = "cpu",
                     device_count: int = 1) -> Timing:
    """Three repeats centred on ``seconds``, as if measured on ``device_count`` × ``device``."""
    times = (seconds - spread, seconds, seconds + spread)
    return Timing(label=label, times_s=times, number=10, compile_s=None, trace_s=None, lower_s=None,
                  xla_compile_s=None, compile_cached=None, first_call_s=seconds, first_call_compiles=0,
                  measured_compiles=0, warmup=1, budget_s=0.3, device=device, backend=backend,
                  device_count=device_count, jax_version="0", jaxlib_version="0", timestamp="t", host="h", total_s=1.0)


def synthetic_comparison(baseline: str, reference: dict, measured: dict, tolerance: float = 2.0) -> Comparison:
    """A comparison of ``measured`` seconds against ``reference`` figures (strings or seconds)."""
    ref = {k: parse_seconds(v) for k, v in reference.items()}
    timings = {k: synthetic_timing(k, v) for k, v in measured.items()}
    return Comparison(timings=timings, baseline=baseline, reference=ref, reference_label="the seed",
                      tolerance=tolerance)


@pytest.fixture
def make_timing():
    return synthetic_timing


@pytest.fixture
def make_comparison():
    return synthetic_comparison
