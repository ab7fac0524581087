"""demos.jaxpr and its views: exact jaxpr text, both HLO stages, a truthful diff, residuals, escaped HTML."""

import jax
import jax.numpy as jnp
import pytest

from demos import jaxpr as J


def elementwise(x):
    return jnp.sin(x) * 2.0 + 1.0


def with_kwargs(x, *, scale):
    return x * scale


def pytree_in(p):
    return p["w"] @ p["x"] + p["b"]


def dead_code(x, w):
    unused = jnp.cos(x) * 3.0  # noqa: F841 - dead on purpose
    return jnp.tanh(x @ w).sum(axis=0)


X = jnp.ones(8)
M = jnp.ones((8, 16))
W = jnp.ones((16, 4))
P = {"w": jnp.ones((4, 3)), "x": jnp.ones(3), "b": jnp.ones(4)}


@pytest.mark.parametrize("fn, args, kwargs", [
    (elementwise, (X,), {}),
    (with_kwargs, (X,), {"scale": 3.0}),
    (pytree_in, (P,), {}),
    (dead_code, (M, W), {}),
    (jax.jit(elementwise), (X,), {}),
])
def test_show_text_is_exactly_make_jaxpr(fn, args, kwargs):
    view = J.show(fn, *args, **kwargs)
    assert view.text == str(jax.make_jaxpr(fn)(*args, **kwargs))
    assert str(view) == view.text == repr(view)


def test_show_text_has_no_terminal_colours_in_a_jupyter_kernel(monkeypatch):
    """A Jupyter kernel makes JAX colour ``str(jaxpr)``; the view's text and HTML stay plain."""
    from jax._src import pretty_printer

    monkeypatch.setattr(pretty_printer, "CAN_USE_COLOR", True)
    assert "\x1b[" in str(jax.make_jaxpr(elementwise)(X))  # what a kernel's str() gives
    view = J.show(elementwise, X)
    assert "\x1b[" not in view.text and "\x1b[" not in view._repr_html_()
    assert "sin" in view.text


def test_show_static_argnums():
    def power(x, n):
        return x ** n

    assert J.show(power, X, 3, static_argnums=1).text == str(jax.make_jaxpr(power, static_argnums=1)(X, 3))


def test_show_html_is_highlighted_inline_and_escaped():
    def shady(x):
        return x

    shady.__name__ = "<b>&"
    html = J.show(shady, X)._repr_html_()
    assert "&lt;b&gt;&amp;" in html and "<b>&" not in html
    assert '<span style="' in html and '<span class=' not in html  # inline styles survive export
    assert "<script" not in html


def test_lowered_stage_is_stablehlo_and_escaped():
    view = J.hlo(elementwise, X)
    assert view.stage == "lowered"
    assert view.text == jax.jit(elementwise).lower(X).as_text()
    assert "stablehlo.sine" in view.text and "tensor<8xf32>" in view.text
    html = view._repr_html_()
    assert "tensor&lt;8xf32&gt;" in html and "tensor<8xf32>" not in html


@pytest.mark.parametrize("stage", ["optimized", "optimised"])
def test_optimised_stage_is_hlo_without_metadata(stage):
    view = J.hlo(elementwise, X, stage=stage)
    assert view.stage == "optimized"
    assert "HloModule" in view.text and "ENTRY" in view.text and "fusion" in view.text
    assert "metadata=" in view.raw and "metadata=" not in view.text
    assert "stack_frame_id" not in view.text
    full = J.hlo(elementwise, X, stage=stage, clean=False)
    assert full.text == full.raw == jax.jit(elementwise).lower(X).compile().as_text()


def test_bad_stage_is_refused():
    with pytest.raises(ValueError, match="stage"):
        J.hlo(elementwise, X, stage="assembly")


def test_diff_shows_fusion_of_an_elementwise_chain():
    d = J.diff(elementwise, jnp.ones(1000))
    assert d.jaxpr_ops == ["sin", "mul", "add"]
    assert len(d.kernels) == 1 and d.kernels[0].opcode == "fusion"
    assert {"sine", "multiply", "add"} <= set(d.kernels[0].ops)
    assert len(d.kernels) < len(d.stablehlo_ops)
    assert d.cost.get("flops", 0) > 0 and d.cost.get("transcendentals", 0) >= 1000
    assert "1 XLA kernel" in str(d)


def test_diff_reports_dead_code():
    d = J.diff(dead_code, M, W)
    assert "cos" in d.jaxpr_ops
    assert "cosine" in d.dropped_by_jax and "cosine" in d.removed
    text = str(d)
    assert "cosine" in text and "dropped by JAX" in text
    html = d._repr_html_()
    assert "dropped by JAX" in html and "<table" in html
    assert "-&gt;" in html  # the headline arrows are escaped


def test_diff_matches_the_compilers_own_cost_analysis():
    d = J.diff(elementwise, X)
    compiled = jax.jit(elementwise).lower(X).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    assert d.cost["flops"] == cost["flops"]


def test_intensity_is_flops_per_byte_from_the_cost_analysis():
    import jax.numpy as jnp

    from demos import jaxpr

    d = jaxpr.diff(lambda x: (jnp.exp(x) * 2.0 + 1.0).sum(), jnp.ones(1000))
    assert d.intensity == pytest.approx(d.cost["flops"] / d.cost["bytes accessed"])
    assert d.intensity < 1  # an elementwise chain does little work per byte
    m = jaxpr.diff(lambda a: a @ a, jnp.ones((256, 256)))
    assert m.intensity > 10 * d.intensity  # a matmul reuses every byte it loads
    assert any("FLOP/byte" in line for line in d.cost_lines())


def test_residuals_count_what_grad_keeps_and_checkpoint_shrinks_it():
    import jax
    import jax.numpy as jnp

    from demos import jaxpr

    def block(h):
        for _ in range(3):
            h = jnp.tanh(h * 1.5)
        return h

    def deep(x, remat=False):
        f = jax.checkpoint(block) if remat else block
        for _ in range(3):
            x = f(x)
        return x.sum()

    x = jnp.ones((64, 32))
    plain = jaxpr.residuals(deep, x)
    remat = jaxpr.residuals(lambda v: deep(v, True), x, name="remat")
    assert plain.count > remat.count > 0
    assert plain.nbytes > 2 * remat.nbytes
    assert plain.nbytes >= 9 * 64 * 32 * 4  # a tanh output per layer at least
    assert "residuals" in str(plain) and "f32[64,32]" in plain._repr_html_()


def test_primitives_of_a_jaxpr_include_the_nested_ones():
    import jax
    import jax.numpy as jnp
    from jax import lax

    from demos import jaxpr

    def branchy(p, x):
        return lax.cond(p, jnp.sin, jnp.cos, x)

    one = jax.make_jaxpr(branchy)(True, 1.0)
    assert {"cond", "sin", "cos"} <= set(jaxpr.primitives(one))            # the branches' too
    batched = jaxpr.primitives(jax.make_jaxpr(jax.vmap(branchy))(jnp.array([True, False]), jnp.ones(2)))
    assert "cond" not in batched and {"select_n", "sin", "cos"} <= set(batched)
    nested = jaxpr.show(jax.jit(lambda x: jnp.sin(jax.jit(jnp.exp)(x))), 1.0)   # a view, a jit inside
    assert jaxpr.primitives(nested) == ["exp", "jit", "sin"]
    assert jaxpr.primitives(one.jaxpr) == jaxpr.primitives(one)
    summed = jax.make_jaxpr(lambda v: lax.pmean(v, "b"), axis_env=[("b", 2)])(1.0)
    assert jaxpr.primitives(summed) == ["div", "psum"]
