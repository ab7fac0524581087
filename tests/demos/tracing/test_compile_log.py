"""demos._tracing.compile_log: JAX's own compile log and cache-miss explanations, captured and escaped."""

import logging

import jax
import jax.numpy as jnp
import pytest

from demos.tracing import CompileLog, explain

F32_3 = jnp.ones(3, jnp.float32)
F32_4 = jnp.ones(4, jnp.float32)


def test_explain_captures_jax_log_and_restores_settings(caplog):
    fresh = jax.jit(lambda x: jnp.sin(x) + 2)
    before = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
    with explain(show=False) as log:
        fresh(F32_3)
        fresh(F32_4)
        fresh(F32_4)
    assert isinstance(log, CompileLog)
    assert (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses) == before
    mine = [e for e in log.of_kind("compiled") if e.function == "jit(<lambda>)"]
    assert len(mine) == 2
    assert any("f32[4]" in m and "f32[3]" in m for m in log.cache_misses)
    assert not [r for r in caplog.records if "Compiling" in r.getMessage()]  # captured, not spilled
    assert logging.getLogger("jax").propagate is True
    text = str(log)
    assert "XLA compilation took" in text and "cache miss" in text
    html = log._repr_html_()
    assert "<table" in html and "ShapedArray(float32[3])" in html


def test_explain_escapes_what_jax_logged():
    with explain(show=False) as log:
        logging.getLogger("jax._src.dispatch").warning("odd <tag> & more")
    assert "odd &lt;tag&gt; &amp; more" in log._repr_html_()
    assert "<tag>" not in log._repr_html_()


@pytest.mark.parametrize("echo", [False, True])
def test_explain_echo_controls_propagation(caplog, echo):
    with explain(show=False, echo=echo) as log:
        logging.getLogger("jax._src.dispatch").warning("echo-probe")
    assert any("echo-probe" in e.message for e in log.events)
    assert any("echo-probe" in r.getMessage() for r in caplog.records) is echo


def test_a_cache_miss_lists_what_differed_without_the_link():
    fresh = jax.jit(lambda x, y: x / y)
    with explain(show=False) as log:
        fresh(1.0, F32_3)
        fresh(jnp.float32(1.0), F32_4)      # weak becomes strong, and a new length
    first, second = log.of_kind("cache miss")
    assert first.differences == []          # a function never seen before: nothing to compare
    assert second.differences == ["at x, now f32[]{weak_type=False} and before f32[]{weak_type=True}",
                                  "at y, now f32[4] and before f32[3]"]
    assert all(e.differences == [] for e in log.events if e.kind != "cache miss")
