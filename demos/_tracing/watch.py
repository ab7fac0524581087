""":func:`watch`: a ``jax.jit`` wrapper that counts its traces and compilations exactly and says why.

Every real trace is counted by a Python side effect inside the traced body (Python only runs
while JAX traces); each call's signature is compared with those traced before.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

from .._display import MUTED, WARN, Displayable, box, esc, html_table, text_table
from .._events import CompileEvents
from .signature import Signature, describe_args, signature_diff, signature_distance

_HEADERS = ["#", "call", "trace", "compile", "why"]  # the log's columns, in text and HTML alike


@dataclass
class CallRecord:
    """One call of a watched function."""

    index: int
    signature: Signature
    traced: int  # how many times the body was traced during this call (normally 0 or 1)
    compiled: int  # XLA compilations of this function during the call
    reasons: list = field(default_factory=list)
    under_trace: bool = False

    @property
    def why(self) -> str:
        return "; ".join(self.reasons)


def _jit_options(jitted) -> dict:
    """Recover the options a ``jax.jit`` wrapper was created with (so watch() can re-jit)."""
    info = getattr(jitted, "_jit_info", None)
    if info is None:
        raise TypeError("watch() cannot read this wrapper's jit options; pass the plain function and "
                        "the options instead: watch(f, static_argnums=...)")
    import jax

    opts = {}
    for key in ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames"):
        value = tuple(getattr(info, key, ()) or ())
        if value:
            opts[key] = value
    if getattr(info, "keep_unused", False):
        opts["keep_unused"] = True
    if getattr(info, "inline", False):
        opts["inline"] = True
    if getattr(info, "user_specified_in_shardings", False):
        opts["in_shardings"] = jax.tree_util.tree_unflatten(info.in_shardings_treedef, info.in_shardings_leaves)
    out_leaves = getattr(info, "out_shardings_leaves", ())
    if out_leaves and not all(type(leaf).__name__ == "UnspecifiedValue" for leaf in out_leaves):
        opts["out_shardings"] = jax.tree_util.tree_unflatten(info.out_shardings_treedef, out_leaves)
    kvs = getattr(info, "compiler_options_kvs", ())
    if kvs:
        opts["compiler_options"] = dict(kvs)
    return opts


class Watched(Displayable):
    """A jitted function that counts its traces and compilations and says why each happened.

    Call it like the function. ``.traces`` / ``.compiles`` / ``.calls`` are exact counts,
    ``.log`` has one :class:`CallRecord` per call; displaying it shows the log as a table.
    It has its own cache: calls of other jitted copies of the function are not seen.
    """

    def __init__(self, fn: Callable, name: str | None = None, **jit_kwargs):
        import jax

        if callable(getattr(fn, "lower", None)) and hasattr(fn, "__wrapped__"):
            jit_kwargs = {**_jit_options(fn), **jit_kwargs}
            fn = fn.__wrapped__
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "function")
        self._traces = 0
        self._seen_in_trace: list[Signature] = []
        self.log: list[CallRecord] = []

        @functools.wraps(fn)
        def body(*args, **kwargs):
            self._traces += 1  # Python side effect: runs only while JAX traces
            return fn(*args, **kwargs)

        self.jitted = jax.jit(body, **jit_kwargs)
        info = getattr(self.jitted, "_jit_info", None)
        nums = jit_kwargs.get("static_argnums", ())
        names = jit_kwargs.get("static_argnames", ())
        self.static_argnums = tuple(getattr(info, "static_argnums", None) or
                                    ((nums,) if isinstance(nums, int) else tuple(nums)))
        self.static_argnames = tuple(getattr(info, "static_argnames", None) or
                                     ((names,) if isinstance(names, str) else tuple(names)))
        functools.update_wrapper(self, fn, updated=())

    # ------------------------------------------------------------------ counts
    @property
    def traces(self) -> int:
        """How many times JAX traced the function (counted by a side effect in its body)."""
        return self._traces

    @property
    def compiles(self) -> int:
        """How many XLA compilations of this function happened during watched calls."""
        return sum(r.compiled for r in self.log)

    @property
    def calls(self) -> int:
        return len(self.log)

    def reset(self) -> None:
        """Forget the log and counts and clear the compilation cache (the next call traces)."""
        self._traces = 0
        self._seen_in_trace.clear()
        self.log.clear()
        self.jitted.clear_cache()

    def __getattr__(self, attr):  # lower, trace, eval_shape, ... of the jitted function
        if attr in ("jitted", "fn"):
            raise AttributeError(attr)
        return getattr(self.jitted, attr)

    # ------------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        import jax

        signature = describe_args(self.fn, args, kwargs, self.static_argnums, self.static_argnames)
        under = any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves((args, kwargs)))
        before = self._traces
        with CompileEvents() as events:
            out = self.jitted(*args, **kwargs)
        traced = self._traces - before
        compiled = sum(1 for name in events.compiled_names if name == f"jit({self.jitted.__name__})")
        reasons = self._why(signature, traced, under)
        if traced:
            self._seen_in_trace.append(signature)
        self.log.append(CallRecord(len(self.log) + 1, signature, traced, compiled, reasons, under))
        return out

    def _why(self, signature: Signature, traced: int, under: bool) -> list[str]:
        prefix = ["inside an outer jit/transform: traced into the caller, not compiled alone"] if under else []
        if not traced:
            for rec in self.log:
                if rec.traced and rec.signature == signature:
                    return prefix + [f"cache hit (same signature as call {rec.index})"]
            return prefix + ["cache hit"]
        if not self._seen_in_trace:
            return prefix + ["first call: nothing cached yet"]
        best, best_distance = None, None
        for old in reversed(self._seen_in_trace):  # the most recent closest signature wins
            distance = signature_distance(old, signature)
            if best is None or distance < best_distance:
                best, best_distance = signature_diff(old, signature), distance
        if not best:
            return prefix + ["signature seen before but traced again (cache cleared, a static argument "
                             "that hashes by identity, or a changed global setting)"]
        return prefix + best

    # ------------------------------------------------------------------ display
    def summary(self) -> str:
        return f"{self.name}: {self.calls} calls, {self.traces} traces, {self.compiles} compiles"

    def _rows(self):
        return [[str(r.index), str(r.signature), "traced" if r.traced else "—",
                 "compiled" if r.compiled else "—", r.why] for r in self.log]

    def _text(self) -> str:
        if not self.log:
            return self.summary() + " (not called yet)"
        return self.summary() + "\n" + text_table(_HEADERS, self._rows(), "rllll")

    def _html_rows(self, last: int | None = None) -> list[list[str]]:
        """The log's rows as escaped HTML cells (the last ``last`` calls), traces and compiles in colour."""
        records = self.log if last is None else self.log[-last:]
        rows = self._rows() if last is None else self._rows()[-last:]
        styled = []
        for row, rec in zip(rows, records):
            cells = [esc(c) for c in row]
            if rec.traced:
                cells[2] = f'<b style="color:{WARN}">traced</b>'
            if rec.compiled:
                cells[3] = f'<b style="color:{WARN}">compiled</b>'
            styled.append(cells)
        return styled

    def log_table(self, last: int | None = None, highlight_last: bool = False) -> str:
        """The log as an HTML table (the last ``last`` calls), or a muted "not called yet" line."""
        styled = self._html_rows(last)
        if not styled:
            return f'<div style="color:{MUTED}">not called yet</div>'
        return html_table(_HEADERS, styled, "rllll", raw_columns=range(5),
                          highlight_row=len(styled) - 1 if highlight_last else None)

    def _html(self) -> str:
        return box(self.log_table(), title=self.summary())


def watch(fn: Callable | None = None, *, name: str | None = None, **jit_kwargs):
    """Wrap ``fn`` (plain or already ``jax.jit``-ed) so every call says whether it traced or
    compiled and why. Use as ``w = watch(f, static_argnames="n")`` or as a decorator
    ``@watch`` / ``@watch(static_argnums=1)``; extra keywords go to ``jax.jit``."""
    if fn is None:
        return lambda f: Watched(f, name=name, **jit_kwargs)
    return Watched(fn, name=name, **jit_kwargs)
