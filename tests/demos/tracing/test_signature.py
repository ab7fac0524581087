"""demos._tracing.signature: what jax.jit's cache sees of a call, and each difference named and counted."""

import jax.numpy as jnp

from demos.tracing import describe_args, signature_diff, signature_distance


def f(x, y=1.0, n=1):
    return x * y * n


def test_signature_holds_types_and_static_values():
    sig = describe_args(f, (jnp.ones(3),), {"y": 2.0, "n": 4}, static_argnames=("n",))
    assert str(sig) == "x: f32[3], y: f32[]~weak, n=4 (static)"


def test_each_difference_is_named_and_counted():
    old = describe_args(f, (jnp.ones(3),), {"y": 2.0, "n": 4}, static_argnames=("n",))
    new = describe_args(f, (jnp.ones(4, jnp.int32),), {"y": jnp.float32(2.0), "n": 5}, static_argnames=("n",))
    assert signature_diff(old, new) == [
        "new shape and dtype: x f32[3] -> i32[4]",
        "weak type: y f32[]~weak -> f32[] (typed array now, Python scalar before)",
        "static argument n: 4 -> 5",
    ]
    assert signature_distance(old, new) == 4  # shape, dtype, weak type, static value
    assert signature_diff(old, old) == [] and signature_distance(old, old) == 0
