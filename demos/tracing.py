"""Make tracing and recompilation visible.

:func:`watch` wraps a function in ``jax.jit`` with a Python side effect inside the traced
body, so every real trace is counted exactly (Python code only runs while JAX traces). Each
call also records the abstract signature JAX keys its cache on (shapes, dtypes, weak types,
static argument values, pytree structure); when a call traces again, the signature is
compared with the ones traced before and the differences are named.

:func:`explain` is a context manager that turns on JAX's own ``jax_log_compiles`` and
``jax_explain_cache_misses`` and captures what JAX logs into a displayable object.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ._display import (
    MUTED,
    WARN,
    Displayable,
    box,
    esc,
    html_table,
    small,
    text_table,
)
from ._events import CompileEvents

# ---------------------------------------------------------------------------- signatures


@dataclass(frozen=True)
class Leaf:
    """One entry of a call signature: an array leaf (type) or a static argument (value)."""

    path: str
    kind: str  # "array" or "static"
    dtype: str = ""
    shape: tuple = ()
    weak: bool = False
    value: str = ""

    def type_str(self) -> str:
        if self.kind == "static":
            return self.value
        return f"{self.dtype}[{','.join(map(str, self.shape))}]" + ("~weak" if self.weak else "")

    def __str__(self) -> str:
        if self.kind == "static":
            return f"{self.path}={self.value} (static)"
        return f"{self.path}: {self.type_str()}"


@dataclass(frozen=True)
class Signature:
    """The part of a call that JAX's cache key sees: leaves plus per-argument tree structure."""

    leaves: tuple
    structure: tuple  # (argument name, treedef string) per argument

    def __str__(self) -> str:
        return ", ".join(str(leaf) for leaf in self.leaves) or "(no arguments)"


def _short_dtype(aval) -> str:
    try:
        return aval.str_short(short_dtypes=True).split("[", 1)[0]
    except Exception:
        return str(getattr(aval, "dtype", "?"))


def _value_repr(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_args(fn: Callable, args: tuple, kwargs: dict, static_argnums=(), static_argnames=()) -> Signature:
    """The abstract signature of ``fn(*args, **kwargs)`` as ``jax.jit`` sees it."""
    import jax

    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        named = list(bound.arguments.items())
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
        params = {}
    static_names = set(static_argnames)
    positions = {name: i for i, name in enumerate(params)}
    n_pos = len(args)
    for num in static_argnums:
        index = num if num >= 0 else n_pos + num
        for name, pos in positions.items():
            if pos == index:
                static_names.add(name)
        static_names.add(f"args[{index}]")
    leaves, structure = [], []
    for name, value in named:
        kind = params[name].kind if name in params else None
        if kind is inspect.Parameter.VAR_POSITIONAL:
            pieces = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        elif kind is inspect.Parameter.VAR_KEYWORD:
            pieces = [(f"{name}[{k!r}]", v) for k, v in value.items()]
        else:
            pieces = [(name, value)]
        for pname, pvalue in pieces:
            if pname in static_names:
                leaves.append(Leaf(pname, "static", value=_value_repr(pvalue)))
                structure.append((pname, "static"))
                continue
            flat, tree = jax.tree_util.tree_flatten_with_path(pvalue)
            tree_text = str(tree)
            if tree_text.startswith("PyTreeDef(") and tree_text.endswith(")"):
                tree_text = tree_text[len("PyTreeDef("):-1]
            structure.append((pname, tree_text))
            for path, leaf in flat:
                where = pname + jax.tree_util.keystr(path)
                try:
                    aval = jax.typeof(leaf)
                    leaves.append(Leaf(where, "array", _short_dtype(aval), tuple(aval.shape),
                                       bool(getattr(aval, "weak_type", False))))
                except TypeError:
                    leaves.append(Leaf(where, "static", value=_value_repr(leaf)))
    return Signature(tuple(leaves), tuple(structure))


def signature_diff(old: Signature, new: Signature) -> list[str]:
    """Name what differs between two signatures, e.g. ``'new shape: x f32[3] -> f32[4]'``."""
    reasons = []
    old_struct, new_struct = dict(old.structure), dict(new.structure)
    changed_trees = set()
    for name in list(dict.fromkeys(list(old_struct) + list(new_struct))):
        a, b = old_struct.get(name), new_struct.get(name)
        if a != b:
            changed_trees.add(name)
            if a is None:
                shown = ", ".join(str(leaf) for leaf in new.leaves if leaf.path == name or leaf.path.startswith(name + "[")) or name
                reasons.append(f"argument now passed (was left out): {shown}")
            elif b is None:
                reasons.append(f"argument now left out (was passed): {name}")
            elif "static" not in (a, b):
                reasons.append(f"pytree structure: {name} {a} -> {b}")
    old_leaves = {leaf.path: leaf for leaf in old.leaves}
    for leaf in new.leaves:
        before = old_leaves.get(leaf.path)
        if before is None or before == leaf:
            continue
        if leaf.kind == "static" or before.kind == "static":
            reasons.append(f"static argument {leaf.path}: {before.type_str()} -> {leaf.type_str()}")
            continue
        what = []
        if before.shape != leaf.shape:
            what.append("shape")
        if before.dtype != leaf.dtype:
            what.append("dtype")
        if what:
            reasons.append(f"new {' and '.join(what)}: {leaf.path} {before.type_str()} -> {leaf.type_str()}")
        elif before.weak != leaf.weak:
            reasons.append(
                f"weak type: {leaf.path} {before.type_str()} -> {leaf.type_str()} "
                f"({'Python scalar' if leaf.weak else 'typed array'} now, "
                f"{'Python scalar' if before.weak else 'typed array'} before)")
    return reasons


def signature_distance(old: Signature, new: Signature) -> int:
    """How many things differ (each shape, dtype, weak type, static value or tree counts one)."""
    count = len(set(old.structure) ^ set(new.structure))
    old_leaves = {leaf.path: leaf for leaf in old.leaves}
    for leaf in new.leaves:
        before = old_leaves.get(leaf.path)
        if before is None or before == leaf:
            continue
        if leaf.kind == "static" or before.kind == "static":
            count += 1
        else:
            count += (before.shape != leaf.shape) + (before.dtype != leaf.dtype) + (before.weak != leaf.weak)
    return count


# ---------------------------------------------------------------------------- watch


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
        return self.summary() + "\n" + text_table(["#", "call", "trace", "compile", "why"], self._rows(), "rllll")

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

    def _html(self) -> str:
        styled = self._html_rows()
        table = html_table(["#", "call", "trace", "compile", "why"], styled, "rllll", raw_columns=range(5)) \
            if styled else f'<div style="color:{MUTED}">not called yet</div>'
        return box(table, title=self.summary())


def watch(fn: Callable | None = None, *, name: str | None = None, **jit_kwargs):
    """Wrap ``fn`` (plain or already ``jax.jit``-ed) so every call says whether it traced or
    compiled and why. Use as ``w = watch(f, static_argnames="n")`` or as a decorator
    ``@watch`` / ``@watch(static_argnums=1)``; extra keywords go to ``jax.jit``."""
    if fn is None:
        return lambda f: Watched(f, name=name, **jit_kwargs)
    return Watched(fn, name=name, **jit_kwargs)


# ---------------------------------------------------------------------------- JAX's own log

_PATTERNS = (
    ("cache miss", re.compile(r"^TRACING CACHE MISS at (?P<where>.*?)(?::\n|$)(?P<detail>.*)", re.S)),
    ("compiling", re.compile(r"^Compiling (?P<fn>\S+) with global shapes and types (?P<detail>.*?)\. Argument", re.S)),
    ("traced", re.compile(r"^Finished tracing (?P<fn>.+?) for jit in (?P<secs>[\d.e-]+) sec")),
    ("lowered", re.compile(r"^Finished jaxpr to MLIR module conversion (?P<fn>\S+) in (?P<secs>[\d.e-]+) sec")),
    ("compiled", re.compile(r"^Finished XLA compilation of (?P<fn>\S+) in (?P<secs>[\d.e-]+) sec")),
)


@dataclass
class LogEvent:
    kind: str
    function: str
    detail: str
    message: str


def _parse(message: str) -> LogEvent:
    for kind, pattern in _PATTERNS:
        m = pattern.match(message)
        if not m:
            continue
        groups = m.groupdict()
        if kind == "cache miss":
            lines = [ln.strip() for ln in groups.get("detail", "").splitlines() if ln.strip()]
            fn = ""
            for ln in lines:
                mm = re.match(r"(?:for|never seen function:)\s*(\S+)", ln)
                if mm:
                    fn = mm.group(1)
                    break
            if not fn and len(lines) > 1 and lines[0].startswith("never seen function"):
                fn = lines[1].split()[0]
            return LogEvent(kind, fn, " ".join(lines), message)
        detail = groups.get("detail", "")
        if "secs" in groups:
            from ._display import fmt_seconds

            what = {"traced": "tracing", "lowered": "lowering to StableHLO", "compiled": "XLA compilation"}[kind]
            detail = f"{what} took {fmt_seconds(float(groups['secs']))}"
        return LogEvent(kind, groups.get("fn", ""), detail.strip(), message)
    return LogEvent("log", "", message.strip(), message)


class _Capture(logging.Handler):
    def __init__(self, sink: list):
        super().__init__(level=logging.DEBUG)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.sink.append(_parse(record.getMessage()))
        except Exception:  # never let a display helper break the demo
            pass


class CompileLog(Displayable):
    """What JAX itself logged about tracing and compiling inside a ``with explain():`` block."""

    def __init__(self, show: bool | None = None, echo: bool = False):
        self.events: list[LogEvent] = []
        self.show = show
        self.echo = echo
        self._saved = None

    def __enter__(self) -> "CompileLog":
        import jax

        self._saved = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
        jax.config.update("jax_log_compiles", True)
        jax.config.update("jax_explain_cache_misses", True)
        self._logger = logging.getLogger("jax")
        self._handler = _Capture(self.events)
        self._propagate = self._logger.propagate
        self._logger.addHandler(self._handler)
        if not self.echo:
            self._logger.propagate = False  # keep the raw log out of the cell's stderr
        return self

    def __exit__(self, *exc) -> None:
        import jax

        jax.config.update("jax_log_compiles", self._saved[0])
        jax.config.update("jax_explain_cache_misses", self._saved[1])
        self._logger.removeHandler(self._handler)
        self._logger.propagate = self._propagate
        show = self.show
        if show is None:
            show = _in_ipython()
        if show:
            try:
                from IPython.display import display

                display(self)
            except Exception:
                pass

    # ------------------------------------------------------------------ views
    def of_kind(self, kind: str) -> list[LogEvent]:
        return [e for e in self.events if e.kind == kind]

    @property
    def compiles(self) -> int:
        return len(self.of_kind("compiled"))

    @property
    def cache_misses(self) -> list[str]:
        """JAX's own explanations of why the tracing cache missed."""
        return [e.detail for e in self.of_kind("cache miss")]

    def summary(self) -> str:
        names = [e.function for e in self.of_kind("compiled")]
        counts = {n: names.count(n) for n in dict.fromkeys(names)}
        listed = ", ".join(f"{n} × {c}" for n, c in counts.items()) or "none"
        return f"JAX compile log: {self.compiles} XLA compilations ({listed}); {len(self.cache_misses)} cache misses explained"

    def _rows(self):
        return [[str(i), e.kind, e.function, e.detail] for i, e in enumerate(self.events, 1)]

    def _text(self) -> str:
        if not self.events:
            return self.summary()
        return self.summary() + "\n" + text_table(["#", "event", "function", "detail"], self._rows(), "rlll")

    def _html(self) -> str:
        rows = self._rows()
        body = html_table(["#", "event", "function", "detail"], rows, "rlll") if rows else \
            f'<div style="color:{MUTED}">nothing was traced or compiled</div>'
        return box(body + small("captured with jax_log_compiles + jax_explain_cache_misses"), title=self.summary())


def explain(show: bool | None = None, echo: bool = False) -> CompileLog:
    """``with explain() as log: ...`` captures JAX's compile log and cache-miss explanations.

    In IPython the log is displayed when the block ends (``show=None``); ``echo=True`` also
    lets the raw messages through to stderr.
    """
    return CompileLog(show=show, echo=echo)


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython

        return get_ipython() is not None
    except Exception:
        return False
