"""demos.widgets: explorers work live and leave a static text/html + text/plain rendering."""

import re
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


def shown_text(html: str) -> str:
    """The text a browser shows for an HTML fragment (tags dropped, entities decoded)."""
    parts: list[str] = []
    parser = HTMLParser()
    parser.handle_data = parts.append
    parser.feed(html)
    parser.close()
    return re.sub(r"[ \t\r\n]+", " ", " ".join(parts)).strip()  # keeps the narrow no-break spaces


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


def test_size_explorer_static_table_lists_every_slider_size(explorer):
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


def test_moving_the_slider_changes_the_displayed_output():
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


def test_slider_move_times_numpy_eager_and_jit_honestly():
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


def test_a_failing_measurement_is_shown_and_the_slider_keeps_working():
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


def test_line_chart_is_escaped_and_copes_with_one_point():
    svg = widgets.svg_lines([10, 100], {"<a&b>": {10: 2e-6}}, current=10)
    assert svg.startswith("<svg") and "&lt;a&amp;b&gt;" in svg and "<a&b>" not in svg
    assert "<polyline" not in svg and "<circle" in svg
    assert widgets.svg_lines([10], {"a": {}}) == ""
    two = widgets.svg_lines([10, 100], {"a": {10: 1e-6, 100: 1e-3}})
    assert "<polyline" in two and "1 µs" in two and "1 ms" in two


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


def test_retrace_explorer_controls_call_at_once_and_the_log_shows_it():
    r = widgets.retrace_explorer(fn=lambda x: x + 1, shapes=[(2,), (5,)], dtypes=["float32", widgets.PY_FLOAT],
                                 script=[((2,), "float32")])
    top = r.widget()
    assert "jd-retrace-explorer" in top._dom_classes and "jd-retrace-log" in r.view._dom_classes
    shape, dtype = r.controls
    go, reset = r.buttons
    assert "jd-retrace-shape" in shape._dom_classes and "jd-retrace-call" in go._dom_classes
    before = shown_text(r.view.value)

    shape.value = (5,)  # a change of a menu is a call
    assert r.watched.calls == 2 and r.watched.traces == 2
    text = shown_text(r.view.value)
    assert text != before
    assert "call 2 traced and compiled: new shape: x f32[2] -> f32[5]" in text
    assert 'data-state="traced"' in r.view.value

    go.click()  # the same call again: a cache hit
    assert r.watched.traces == 2 and "cache hit" in r.watched.log[-1].why
    assert "call 3: cache hit (same signature as call 2), nothing traced" in shown_text(r.view.value)
    assert 'data-state="hit"' in r.view.value

    dtype.value = widgets.PY_FLOAT
    assert r.watched.log[-1].signature.leaves[0].weak is True
    assert "4 calls" in r.view.value

    shape.value = (2,)  # a Python float has no shape: same signature, cache hit
    assert r.watched.traces == 3 and "cache hit" in r.watched.log[-1].why

    reset.click()
    assert r.watched.calls == 0 and "not called yet" in r.view.value


def test_retrace_explorer_menus_start_at_the_last_call_and_static_values_retrace():
    r = widgets.retrace_explorer(static_values=(2, 3))
    r.widget()
    shape, dtype, static = r.controls
    assert static.description == "n" and "jd-retrace-static" in static._dom_classes
    # the script's last call was (3,), float32, n=3: the menus show it, so "call again" repeats it
    assert (shape.value, dtype.value, static.value) == ((3,), "float32", 3)
    r.buttons[0].click()
    assert r.watched.log[-1].why == "cache hit (same signature as call 5)"
    static.value = 2
    assert r.watched.log[-1].why == "cache hit (same signature as call 1)"
    r.buttons[1].click()  # reset: the cache starts empty
    static.value = 3
    assert [rec.why for rec in r.watched.log] == ["first call: nothing cached yet"]
    static.value = 2
    assert r.watched.log[-1].why == "static argument n: 3 -> 2"
    assert "call 2 traced and compiled: static argument n: 3 -&gt; 2" in r.view.value


def test_retrace_explorer_shows_only_the_last_rows():
    r = widgets.retrace_explorer(fn=lambda x: x * 2, shapes=[(1,), (2,), (3,), (4,)], dtypes=["float32"],
                                 script=[((n,), "float32") for n in (1, 2, 3, 4, 1, 2)], max_rows=3)
    text = shown_text(r._html())
    assert "6 calls, 4 traces" in text and "… 3 earlier call(s) not shown" in text
    assert "first call" not in text and "call 6: cache hit" in text
    assert "first call" in str(r)  # the text form keeps the whole log


def test_a_failing_call_is_shown_not_raised():
    def picky(x):
        if x.ndim > 1:
            raise ValueError("only vectors please")
        return x

    r = widgets.retrace_explorer(fn=picky, shapes=[(3,), (2, 2)], dtypes=["float32"], script=[((3,), "float32")])
    r.widget()
    r.controls[0].value = (2, 2)
    assert 'data-state="error"' in r.view.value and "ValueError: only vectors please" in shown_text(r.view.value)
    r.controls[0].value = (3,)
    assert 'data-state="hit"' in r.view.value
