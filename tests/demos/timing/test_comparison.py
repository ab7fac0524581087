"""demos._timing.comparison: compare() under one protocol, its ratios, reference, chart and compact view."""

import dataclasses
import math
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from demos._display import parse_seconds
from demos.timing import CompactComparison, Comparison, Timing, compact, compare

#: wall-clock comparisons: `make test` runs them after the parallel part, on a quiet machine
pytestmark = pytest.mark.alone


@pytest.fixture(scope="module")
def comparison():
    x = np.ones(64, np.float32)
    return compare(
        {"NumPy": np.sin, "JAX <eager>": jnp.sin, "JAX jit": jax.jit(jnp.sin)}, x,
        args_for={"JAX <eager>": (jnp.asarray(x),), "JAX jit": (jnp.asarray(x),)},
        reference={"NumPy": "2 µs", "JAX <eager>": "8 µs"}, reference_label="seed 000 & co", budget_s=0.03,
    )


def test_compare_ratios_and_reference(comparison):
    assert isinstance(comparison, Comparison)
    assert all(isinstance(t, Timing) for t in comparison.timings.values())
    assert comparison.baseline == "NumPy"
    assert comparison.ratios["NumPy"] == 1.0
    expected = comparison["JAX jit"].median_s / comparison["NumPy"].median_s
    assert math.isclose(comparison.ratios["JAX jit"], expected)
    assert math.isclose(comparison.reference_ratios["JAX <eager>"], 4.0)
    assert comparison.reference_ratios["JAX jit"] is None
    assert comparison["JAX jit"].compile_s is not None and comparison["NumPy"].compile_s is None


def test_compare_text_and_html(comparison):
    text = str(comparison)
    assert "seed 000 & co" in text and "baseline" in text and "4.00×" in text
    html = comparison._repr_html_()
    assert "<svg" in html and "</svg>" in html
    assert "JAX &lt;eager&gt;" in html and "JAX <eager>" not in html
    assert "seed 000 &amp; co" in html
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")


def test_compare_without_reference_charts_times():
    c = compare({"a": lambda: None, "b": lambda: time.sleep(0.001)}, budget_s=0.02, baseline="b")
    assert c.ratios["b"] == 1.0 and c.ratios["a"] < 1
    assert "<svg" in c._repr_html_()
    assert "faster" in str(c)


@pytest.mark.parametrize("kw", [{"baseline": "nope"}, {"reference": {"nope": "1 s"}},
                                {"reference": {"a": "1 parsec"}}])
def test_compare_rejects_bad_arguments(kw):
    with pytest.raises(ValueError):
        compare({"a": lambda: None}, budget_s=0.01, **kw)


def test_compact_shows_chart_reference_and_device():
    a = np.ones(4)
    c = compare({"sum": lambda: a.sum(), "max": lambda: a.max()}, reference={"sum": "1 µs", "max": "2 µs"},
                reference_label="seed X", repeat=2, budget_s=0.02)
    view = compact(c)
    assert isinstance(view, CompactComparison) and view.comparison is c
    html = view._repr_html_()
    assert "<svg" in html and "seed X" in html
    assert "host CPU" in view.provenance() and "jax " in view.provenance()
    assert str(view) == str(c)  # the text form is the full table


def test_compact_reports_compile_time_of_jitted_entries():
    x = jnp.ones(8)
    c = compare({"eager": lambda v: jnp.sin(v), "jit": jax.jit(lambda v: jnp.sin(v))}, x, repeat=2, budget_s=0.02)
    line = compact(c).provenance()
    compiles = line.split("compile: ")[1].split(". ")[0]  # a later "warnings: eager" part is not about compiles
    assert compiles.startswith("jit ") and "eager" not in compiles


def test_compact_rejects_other_objects():
    with pytest.raises(TypeError, match="Comparison"):
        compact(42)


@pytest.mark.browser
def test_a_noisy_compact_view_is_as_tall_as_a_quiet_one(make_timing, browser):
    """A slide that fits when the timing was quiet still fits when it was noisy and off target:
    the compact view's verdict and provenance keep their one line each (the text form says it all)."""
    reference = {"eager": "13.6 µs", "jit": "3.72 µs", "fused": "2.1 µs"}
    quiet = Comparison(timings={"eager": make_timing("eager", 20e-6), "jit": make_timing("jit", 5.2e-6),
                                "fused": make_timing("fused", 3e-6)},
                       baseline="eager", reference={k: parse_seconds(v) for k, v in reference.items()},
                       reference_label="seed 002")
    stray = "re-measured with a 900 ms budget: the first interquartile spread (23.6 µs) exceeded its median (7.82 µs)"
    noisy_timings = {name: dataclasses.replace(make_timing(name, seconds, spread=seconds * 1.5), notes=(stray,))
                     for name, seconds in (("eager", 51.5e-6), ("jit", 5.6e-6), ("fused", 0.9e-6))}
    noisy = dataclasses.replace(quiet, timings=noisy_timings)
    assert noisy.verdict().reproduced is False and noisy.verdict().noisy
    assert "still noisy" in str(compact(noisy)) and "warnings: eager, jit, fused" in compact(noisy).provenance()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        heights = []
        for view in (compact(quiet), compact(noisy)):
            page.set_content(f'<body style="margin:0;width:1216px">{view._repr_html_()}</body>')
            heights.append(page.evaluate("document.querySelector('.demos-output').getBoundingClientRect().height"))
    finally:
        page.close()
    assert heights[1] == heights[0], heights
