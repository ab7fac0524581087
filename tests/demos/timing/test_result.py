"""demos._timing.result: a Timing reads like timeit, escapes its label, divides into a ratio, says where it ran."""

import dataclasses
import re

import jax
import jax.numpy as jnp

from demos.timing import bench


def test_text_reads_like_timeit():
    t = bench(jnp.sin, jnp.ones(16), budget_s=0.05)
    pattern = r"^[\d.]+ (ns|µs|ms|s) ± [\d.]+ \1 \(median of \d+ × [\d\u202f]+, \w+\)$"
    assert re.match(pattern, t.summary()), t.summary()
    assert t.summary() in str(t) and t.summary() in repr(t)
    assert "jax " + jax.__version__ in str(t)


def test_timing_html_escapes_the_label():
    t = bench(lambda: None, budget_s=0.01, label="<b>x & y</b>")
    html = t._repr_html_()
    assert "&lt;b&gt;x &amp; y&lt;/b&gt;" in html
    assert "<b>x & y" not in html
    assert "<script" not in html


def test_ratio_of_two_timings(make_timing):
    """A ratio is of medians, so one stalled repeat (another process, a GC pause) leaves it alone."""
    slow = dataclasses.replace(make_timing("slow", 4e-3), times_s=(4e-3, 4e-3, 4e-3, 0.5))
    fast = make_timing("fast", 2e-3, spread=5e-4)
    assert slow / fast == 2.0 and fast / slow == 0.5
    assert slow / 1e-3 == 4.0  # a time in seconds divides it too


def test_place_names_the_devices_or_the_host(make_timing):
    assert make_timing("numpy", 1e-3, backend="host").place == "host CPU"
    two = make_timing("jit", 2e-3, spread=1e-3, backend="gpu", device="NVIDIA H100", device_count=2)
    assert two.place == "2 × NVIDIA H100 (gpu)"
    assert float(two) == two.median_s == 2e-3 and two.min_s == 1e-3
