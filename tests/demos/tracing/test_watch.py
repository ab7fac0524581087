"""demos._tracing.watch: exact trace/compile counts and named reasons for every call."""

import jax
import jax.numpy as jnp
import numpy as np

from demos.tracing import Watched, watch


F32_3 = jnp.ones(3, jnp.float32)


F32_4 = jnp.ones(4, jnp.float32)


I32_4 = jnp.ones(4, jnp.int32)


SCRIPT = [
    ((F32_3,), {}, True, "first call"),
    ((F32_3,), {}, False, "cache hit (same signature as call 1)"),
    ((F32_4,), {}, True, "new shape: x f32[3] -> f32[4]"),
    ((I32_4,), {}, True, "new dtype: x f32[4] -> i32[4]"),
    ((np.ones(3, np.float32),), {}, False, "cache hit"),  # NumPy input, same abstract type
    ((F32_3,), {"n": 2}, True, "argument now passed"),
    ((F32_3,), {"n": 3}, True, "static argument n: 2 -> 3"),
    ((F32_3,), {"n": 3}, False, "cache hit"),
    ((F32_3, 2.0), {"n": 3}, True, "argument now passed"),
    ((F32_3, jnp.float32(2.0)), {"n": 3}, True, "weak type: y f32[]~weak -> f32[]"),
    ((F32_3, 5.0), {"n": 3}, False, "cache hit"),  # another Python float: same weak type
]


def test_scripted_sequence_gives_exact_counts_and_reasons():
    bodies = []  # an independent witness: a Python side effect of the user's own function

    def f(x, y=1.0, n=1):
        bodies.append(x.shape)
        return x * y * n

    w = watch(f, static_argnames="n")
    for i, (args, kwargs, traced, why) in enumerate(SCRIPT):
        w(*args, **kwargs)
        record = w.log[-1]
        assert bool(record.traced) is traced, (i, record)
        assert bool(record.compiled) is traced, (i, record)
        assert why in record.why, (i, record.why)
    expected = sum(1 for step in SCRIPT if step[2])
    assert w.traces == expected == len(bodies)
    assert w.compiles == expected
    assert w.calls == len(SCRIPT)


def test_results_are_the_functions_results():
    w = watch(lambda x, k: x * k, static_argnums=1)
    np.testing.assert_allclose(w(F32_3, 4), np.full(3, 4.0))


def test_pytree_structure_change_is_named():
    w = watch(lambda p: p["a"] * 2)
    w({"a": F32_3})
    w({"a": F32_3, "b": F32_3})
    assert w.traces == 2
    assert "pytree structure: p {'a': *} -> {'a': *, 'b': *}" in w.log[-1].why


def test_already_jitted_function_keeps_its_static_arguments():
    jitted = jax.jit(lambda x, k: x * k, static_argnums=1)
    w = watch(jitted)
    w(F32_3, 2)
    w(F32_3, 2)
    w(F32_3, 3)
    assert [r.traced for r in w.log] == [1, 0, 1]
    assert "static argument k: 2 -> 3" in w.log[-1].why


def test_decorator_forms():
    @watch
    def plain(x):
        return x + 1

    @watch(static_argnums=1)
    def with_static(x, k):
        return x + k

    plain(F32_3)
    with_static(F32_3, 1)
    with_static(F32_3, 1)
    assert isinstance(plain, Watched) and plain.traces == 1
    assert with_static.traces == 1 and with_static.calls == 2
    assert plain.__name__ == "plain"


def test_call_inside_an_outer_jit_is_traced_but_not_compiled_alone():
    w = watch(lambda x: x * 2)
    outer = jax.jit(lambda x: w(x) + 1)
    np.testing.assert_allclose(outer(F32_3), np.full(3, 3.0))
    record = w.log[-1]
    assert record.under_trace and record.traced == 1 and record.compiled == 0
    assert "outer" in record.why


def test_reset_starts_from_scratch():
    w = watch(lambda x: x - 1)
    w(F32_3)
    w.reset()
    assert (w.traces, w.compiles, w.calls) == (0, 0, 0)
    w(F32_3)
    assert w.traces == 1 and "first call" in w.log[-1].why


def test_identity_hashed_static_argument_retraces_and_says_so():
    class Config:  # hashes by identity: an equal-looking new object is a new cache key
        def __repr__(self):
            return "Config()"

    w = watch(lambda x, c: x, static_argnums=1)
    w(F32_3, Config())
    w(F32_3, Config())
    assert w.traces == 2
    assert "seen before" in w.log[-1].why


def test_display_is_readable_and_escaped():
    w = watch(lambda x, tag: x, static_argnames="tag")
    w(F32_3, tag="<b>&</b>")
    text = repr(w)
    assert "1 calls, 1 traces, 1 compiles" in text and "x: f32[3]" in text
    html = w._repr_html_()
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in html
    assert "<b>&" not in html
    assert "traced" in html and "<table" in html
