"""demos.widgets: explorers work live and leave a static text/html + text/plain rendering."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from demos import widgets
from demos.timing import Comparison

WIDGET = "application/vnd.jupyter.widget-view+json"


def _np_sum(x):
    return np.sum(x * 2)


def _jnp_sum(x):
    return jnp.sum(x * 2)


@pytest.fixture(scope="module")
def explorer():
    return widgets.size_explorer(
        {"<NumPy&>": _np_sum, "JAX jit": jax.jit(_jnp_sum)},
        lambda n: {"<NumPy&>": (np.ones(n, np.float32),), "JAX jit": (jnp.ones(n),)},
        sizes=[10, 100, 1000], budget_s=0.02,
    )


def test_size_explorer_times_only_the_first_size_up_front(explorer):
    assert explorer.size == 10 and list(explorer.results) == [10]
    assert isinstance(explorer.comparison, Comparison)
    assert explorer.comparison["JAX jit"].compile_s is not None


def test_size_explorer_bundle_has_static_fallback_and_widget(explorer):
    bundle = explorer._repr_mimebundle_()
    assert {"text/plain", "text/html", WIDGET} <= set(bundle)
    assert "<svg" in bundle["text/html"] and "measured sizes" in bundle["text/html"]
    assert "&lt;NumPy&amp;&gt;" in bundle["text/html"] and "<NumPy&>" not in bundle["text/html"]
    assert "<NumPy&>" in bundle["text/plain"] and "size" in bundle["text/plain"]


def test_size_explorer_slider_retimes_and_redraws(explorer):
    explorer.widget()
    explorer.slider.value = 1000
    assert explorer.size == 1000 and set(explorer.results) >= {10, 1000}
    assert "size 1\u202f000" in explorer.view.value
    assert "1\u202f000" in str(explorer)


def test_static_mode_sends_no_widget(explorer, monkeypatch):
    monkeypatch.setattr(widgets, "STATIC", True)
    assert set(explorer._repr_mimebundle_()) == {"text/plain", "text/html"}


@pytest.mark.parametrize("make_args", [
    lambda n: np.ones(n),  # one value
    lambda n: (np.ones(n),),  # a shared tuple
    lambda n: {"a": np.ones(n)},  # per function
])
def test_size_explorer_argument_forms(make_args):
    seen = []

    def a(x):
        seen.append(x.shape)
        return x

    ex = widgets.size_explorer({"a": a}, make_args, sizes=[3], budget_s=0.005)
    assert ex.comparison["a"].number >= 1 and set(seen) == {(3,)}


def test_size_explorer_needs_sizes():
    with pytest.raises(ValueError):
        widgets.size_explorer({"a": len}, lambda n: ([0] * n,), sizes=[])


def test_retrace_explorer_default_script_tells_the_story():
    r = widgets.retrace_explorer()
    log = r.watched.log
    assert [bool(rec.traced) for rec in log] == [True, True, False, True, True]
    assert "first call" in log[0].why
    assert "new shape" in log[1].why
    assert "cache hit" in log[2].why
    assert "new dtype" in log[3].why
    assert "static argument n: 2 -> 3" in log[4].why
    bundle = r._repr_mimebundle_()
    assert {"text/plain", "text/html", WIDGET} <= set(bundle)
    assert "4 traces" in bundle["text/plain"] and "<table" in bundle["text/html"]


def test_retrace_explorer_buttons_call_and_reset():
    r = widgets.retrace_explorer(fn=lambda x: x + 1, shapes=[(2,), (5,)], dtypes=["float32", widgets.PY_FLOAT],
                                 script=[((2,), "float32")])
    r.widget()
    shape, dtype = r.controls
    go, reset = r.buttons
    shape.value = (5,)
    go.click()
    assert r.watched.traces == 2 and "new shape" in r.watched.log[-1].why
    dtype.value = widgets.PY_FLOAT
    go.click()
    assert r.watched.log[-1].signature.leaves[0].weak is True
    assert "3 calls" in r.view.value
    reset.click()
    assert r.watched.calls == 0 and "not called yet" in r.view.value
