"""demos._widgets.size: the size slider re-times live and leaves a static text/html + text/plain rendering."""

from html.parser import HTMLParser

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from demos import widgets
from demos._display import fmt_seconds
from demos.timing import Comparison

WIDGET = "application/vnd.jupyter.widget-view+json"


def _np_sum(x):
    return np.sum(x * 2)


def _jnp_sum(x):
    return jnp.sum(x * 2)


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.in_cell = False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")
            self.in_cell = True

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.in_cell = False

    def handle_data(self, data):
        if self.in_cell:
            self.rows[-1][-1] += data


def table_rows(html: str) -> list[list[str]]:
    """The cell texts of every table row in an HTML fragment, header row first."""
    parser = _Rows()
    parser.feed(html)
    parser.close()
    return [[c.strip() for c in row] for row in parser.rows]


def _small_explorer():
    return widgets.size_explorer({"NumPy": _np_sum, "JAX jit": jax.jit(_jnp_sum)},
                                 lambda n: {"NumPy": (np.ones(n, np.float32),), "JAX jit": (jnp.ones(n),)},
                                 sizes=[10, 100, 1000], budget_s=0.02)


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
    html = bundle["text/html"]
    assert "<svg" in html and "<table" in html and 'class="jd-size-current"' in html
    assert "&lt;NumPy&amp;&gt;" in html and "<NumPy&>" not in html
    assert "<NumPy&>" in bundle["text/plain"] and "size" in bundle["text/plain"]


def test_size_explorer_static_table_lists_every_slider_size(explorer, shown_text):
    text = shown_text(explorer._html())
    assert "size = 10: fastest" in text
    for size in ("10", "100", "1\u202f000"):
        assert size in text
    assert text.count("—") >= 2 * 2  # 100 and 1 000 not measured yet: a dash per function


def test_size_explorer_view_has_the_classes_a_browser_finds():
    ex = _small_explorer()
    box = ex.widget()
    assert "jd-size-explorer" in box._dom_classes
    assert "jd-size-slider" in ex.slider._dom_classes and "jd-size-output" in ex.view._dom_classes
    assert ex.slider.description == "size" and ex.slider.continuous_update is False


def test_moving_the_slider_changes_the_displayed_output(shown_text):
    ex = _small_explorer()
    ex.widget()
    before = shown_text(ex.view.value)
    assert "size = 10: fastest" in before and 'data-size="10"' in ex.view.value
    seen = []
    ex.view.observe(lambda change: seen.append(change["new"]), names="value")

    ex.slider.value = 1000

    after = shown_text(ex.view.value)
    assert after != before
    assert "size = 1\u202f000: fastest" in after and "size = 10: fastest" not in after
    assert 'data-size="1000"' in ex.view.value and 'data-state="done"' in ex.view.value
    # while it measured, the output said so (and kept the previous figures beneath)
    assert any('data-state="measuring"' in v and "timing size = 1\u202f000" in shown_text(v) for v in seen)
    assert seen[-1] == ex.view.value
    # the new row holds a time per function instead of dashes; the other rows are unchanged
    rows = {row[0]: row[1:] for row in table_rows(ex.view.value)[1:]}
    assert rows["1\u202f000"] == [fmt_seconds(ex.results[1000][n].median_s) for n in ex.fns]
    assert rows["10"] == [fmt_seconds(ex.results[10][n].median_s) for n in ex.fns]
    assert rows["100"] == ["—", "—"]


def test_each_slider_move_measures_afresh():
    ex = _small_explorer()
    ex.widget()
    first = ex.results[10]
    ex.slider.value = 1000
    ex.slider.value = 10
    assert ex.runs == 3 and ex.size == 10
    assert ex.results[10] is not first  # a new measurement, not the cached one
    assert ex.results[10]["JAX jit"].timestamp >= first["JAX jit"].timestamp
    assert 'data-runs="3"' in ex.view.value


@pytest.mark.heavy
def test_slider_move_times_numpy_eager_and_jit_honestly(shown_text):
    """The deck's use: NumPy on NumPy arrays, eager and jit JAX on device arrays."""
    def normalise(x):
        x = x - x.mean(axis=1, keepdims=True)
        return x / x.std(axis=1, keepdims=True)

    def inputs(n):
        x = np.random.rand(n, n).astype(np.float32)
        return {"NumPy": x, "JAX eager": jnp.asarray(x), "JAX jit": jnp.asarray(x)}

    ex = widgets.size_explorer({"NumPy": normalise, "JAX eager": normalise, "JAX jit": jax.jit(normalise)},
                               inputs, sizes=[4, 8, 64], value=8, upfront=[4], budget_s=0.02, description="n")
    assert sorted(ex.results) == [4, 8] and ex.size == 8
    ex.widget()
    ex.slider.value = 64
    c = ex.comparison
    assert c["NumPy"].backend == "host" and c["JAX jit"].backend == "cpu"
    assert c["JAX jit"].compile_s is not None and c["JAX jit"].measured_compiles == 0
    assert c["JAX eager"].compile_s is None
    text = shown_text(ex.view.value)
    assert "n = 64: fastest" in text and "blocked on each result" in text


def test_a_failing_measurement_is_shown_and_the_slider_keeps_working(shown_text):
    def make(n):
        if n == 100:
            raise RuntimeError("no memory for this size")
        return np.ones(n)

    ex = widgets.size_explorer({"sum": np.sum}, make, sizes=[10, 100, 1000], budget_s=0.005)
    ex.widget()
    ex.slider.value = 100
    assert 'data-state="error"' in ex.view.value
    assert "RuntimeError: no memory for this size" in shown_text(ex.view.value)
    ex.slider.value = 1000
    assert 'data-state="done"' in ex.view.value and ex.size == 1000


def test_size_explorer_rejects_sizes_off_the_slider():
    with pytest.raises(ValueError):
        widgets.size_explorer({"a": len}, lambda n: ([0] * n,), sizes=[1, 2], value=3)
    with pytest.raises(ValueError):
        widgets.size_explorer({"a": len}, lambda n: ([0] * n,), sizes=[1, 2], upfront=[5])


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
