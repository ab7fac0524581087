"""demos._timing.result: a Timing reads like timeit, escapes its label, divides into a ratio, says where it ran."""

import re
import time

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


def test_ratio_of_two_timings():
    a = bench(lambda: time.sleep(0.004), budget_s=0.1)
    b = bench(lambda: time.sleep(0.002), budget_s=0.1)
    assert 1.5 < a / b < 2.5


def test_place_names_the_devices_or_the_host(make_timing):
    assert make_timing("numpy", 1e-3, backend="host").place == "host CPU"
    two = make_timing("jit", 2e-3, spread=1e-3, backend="gpu", device="NVIDIA H100", device_count=2)
    assert two.place == "2 × NVIDIA H100 (gpu)"
    assert float(two) == two.median_s == 2e-3 and two.min_s == 1e-3
