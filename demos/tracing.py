"""Make tracing and recompilation visible.

:func:`watch` wraps a function in ``jax.jit`` with a Python side effect inside the traced
body, so every real trace is counted exactly (Python code only runs while JAX traces). Each
call also records the abstract signature JAX keys its cache on (shapes, dtypes, weak types,
static argument values, pytree structure); when a call traces again, the signature is
compared with the ones traced before and the differences are named.

:func:`explain` is a context manager that turns on JAX's own ``jax_log_compiles`` and
``jax_explain_cache_misses`` and captures what JAX logs into a displayable object.

:func:`refusal` calls a function that JAX should refuse and keeps the exception, shown as its
type and first sentence, so a slide prints the reason and a check reads the whole message.

The pieces live in ``demos._tracing``: ``signature``, ``watch``, ``compile_log`` and ``refusal``.
"""

from __future__ import annotations
from ._tracing.compile_log import CompileLog, LogEvent, explain
from ._tracing.refusal import Refusal, refusal
from ._tracing.signature import Leaf, Signature, describe_args, signature_diff, signature_distance
from ._tracing.watch import CallRecord, Watched, watch

__all__ = [
    "CallRecord", "CompileLog", "Leaf", "LogEvent", "Refusal", "Signature", "Watched", "describe_args", "explain",
    "refusal", "signature_diff", "signature_distance", "watch",
]
