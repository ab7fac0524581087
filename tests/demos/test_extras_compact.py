"""demos.extras_compact: a comparison shown as its chart plus one provenance line."""

import numpy as np
import pytest

from demos.extras_compact import CompactComparison, compact
from demos.timing import compare


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
    import jax
    import jax.numpy as jnp

    x = jnp.ones(8)
    c = compare({"eager": lambda v: jnp.sin(v), "jit": jax.jit(lambda v: jnp.sin(v))}, x, repeat=2, budget_s=0.02)
    line = compact(c).provenance()
    assert "compile: jit " in line and "eager " not in line.split("compile:")[1]


def test_compact_rejects_other_objects():
    with pytest.raises(TypeError, match="Comparison"):
        compact(42)
