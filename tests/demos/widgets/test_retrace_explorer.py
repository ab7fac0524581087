"""demos._widgets.retrace: each control change is one watched call, and the log says why it traced."""

from demos import widgets

WIDGET = "application/vnd.jupyter.widget-view+json"


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


def test_retrace_explorer_controls_call_at_once_and_the_log_shows_it(shown_text):
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


def test_retrace_explorer_shows_only_the_last_rows(shown_text):
    r = widgets.retrace_explorer(fn=lambda x: x * 2, shapes=[(1,), (2,), (3,), (4,)], dtypes=["float32"],
                                 script=[((n,), "float32") for n in (1, 2, 3, 4, 1, 2)], max_rows=3)
    text = shown_text(r._html())
    assert "6 calls, 4 traces" in text and "… 3 earlier call(s) not shown" in text
    assert "first call" not in text and "call 6: cache hit" in text
    assert "first call" in str(r)  # the text form keeps the whole log


def test_a_failing_call_is_shown_not_raised(shown_text):
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
