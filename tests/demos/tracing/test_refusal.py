"""demos._tracing.refusal: a refused call kept whole for checks, shown as its type and first sentence."""

import jax
import jax.numpy as jnp
import pytest

from demos.tracing import Refusal, refusal
from demos._tracing.refusal import first_sentence


def test_a_compiled_executable_refuses_another_shape_in_one_sentence():
    frozen = jax.jit(lambda v: v * 2).lower(jnp.ones(3)).compile()
    refused = refusal(lambda: frozen(jnp.ones(4)), TypeError)
    assert isinstance(refused, Refusal) and refused and refused.kind == "TypeError"
    assert "float32[4]" in str(refused.error)                  # the whole message stays for checks
    assert str(refused) == f"TypeError: {refused.reason}" and "\n" not in str(refused)
    assert refused.reason.endswith(".") and "float32[4]" not in refused.reason
    assert "TypeError" in refused._repr_html_()


def test_a_call_that_runs_is_falsy_and_says_so():
    ran = refusal(lambda: jnp.ones(3) * 2)
    assert not ran and ran.error is None and ran.kind == "" and ran.reason == ""
    assert str(ran) == "ran: nothing refused" and "nothing refused" in ran._repr_html_()


def test_only_the_named_kinds_are_caught():
    with pytest.raises(ZeroDivisionError):
        refusal(lambda: 1 / 0, TypeError)
    assert refusal(lambda: 1 / 0).kind == "ZeroDivisionError"


def test_html_escapes_the_message():
    def bad():
        raise ValueError("<b>no</b> & never. Details follow.")

    html = refusal(bad)._repr_html_()
    assert "<b>no" not in html and "&lt;b&gt;no&lt;/b&gt; &amp; never." in html and "Details" not in html


@pytest.mark.parametrize("message,first", [
    ("Argument types differ. Perhaps you are calling with float32[5,64]", "Argument types differ."),
    ("Contracting dimensions are sharded. Please specify `out_sharding`.", "Contracting dimensions are sharded."),
    ("a jax.numpy.ndarray is not hashable. Use a tuple", "a jax.numpy.ndarray is not hashable."),
    ("no stop at all\nsecond line. More", "no stop at all"),
    ("Sharding does not match the arg.\narg sharding: NamedSharding(...)", "Sharding does not match the arg."),
    ("", ""),
])
def test_first_sentence(message, first):
    assert first_sentence(message) == first
