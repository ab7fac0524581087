"""Show what JAX and XLA make of a function: the jaxpr, the lowered StableHLO, the optimised HLO.

``show`` prints ``jax.make_jaxpr`` exactly as JAX does, highlighted; ``hlo`` shows one compiler
stage; ``diff`` lines the stages up (jaxpr equations -> StableHLO ops -> XLA kernels), says
what disappeared and what was fused together, and adds the compiler's cost analysis.
All text is escaped by Pygments before it reaches HTML.

This module asks JAX for the text; ``demos._jaxpr`` reads it (``hlo_text``), highlights it
(``lexers``) and displays it (``views``).
"""

from __future__ import annotations

import re
from typing import Callable

from ._jaxpr.hlo_text import (
    Collective,
    HloComputation,
    HloInstruction,
    Kernel,
    canonical,
    clean_hlo,
    collectives,
    kernels_of,
    parse_hlo,
    replica_groups,
    stablehlo_ops,
)
from ._jaxpr.lexers import IRLexer, JaxprLexer
from ._jaxpr.program import Program, read_program
from ._jaxpr.views import HloDiff, HloView, JaxprView, Residuals

__all__ = [
    "Collective", "HloComputation", "HloDiff", "HloInstruction", "HloView", "IRLexer", "JaxprLexer", "JaxprView", "Kernel",
    "Program", "Residuals", "canonical", "clean_hlo", "collectives", "diff", "hlo", "kernels_of", "parse_hlo", "primitives", "program",
    "replica_groups", "residuals", "show", "stablehlo_ops",
]


def show(fn: Callable, *args, static_argnums=(), **kwargs) -> JaxprView:
    """The jaxpr of ``fn(*args, **kwargs)``, highlighted (``static_argnums`` as in make_jaxpr)."""
    import jax

    closed = jax.make_jaxpr(fn, static_argnums=static_argnums)(*args, **kwargs)
    name = getattr(fn, "__name__", "function")
    # without terminal colours: in a Jupyter kernel JAX colours str(jaxpr) with ANSI codes,
    # which the HTML view would show as text
    return JaxprView(closed.pretty_print(use_color=False), closed, f"jaxpr of {name}")


def primitives(jaxpr) -> list[str]:
    """The primitives a jaxpr uses, sorted, those of the jaxprs inside it (a ``cond``'s branches,
    a ``jit`` or ``shard_map`` body) included: whether a ``psum`` or a ``cond`` is in the program,
    asked of the program rather than of its printed text. ``jaxpr``: what ``jax.make_jaxpr``
    returns, a ``Jaxpr``, or a :class:`JaxprView`."""
    found: set[str] = set()

    def visit(node) -> None:
        node = getattr(node, "jaxpr", node)          # a view or a ClosedJaxpr: the Jaxpr inside
        node = getattr(node, "jaxpr", node)
        for eqn in getattr(node, "eqns", ()):
            found.add(eqn.primitive.name)
            for value in eqn.params.values():
                for inner in value if isinstance(value, (tuple, list)) else (value,):
                    if hasattr(inner, "eqns") or hasattr(getattr(inner, "jaxpr", None), "eqns"):
                        visit(inner)

    visit(jaxpr)
    return sorted(found)


_STAGES = {"lowered": "lowered", "stablehlo": "lowered", "optimized": "optimized", "optimised": "optimized",
           "compiled": "optimized", "hlo": "optimized"}


def _jitted(fn: Callable):
    import jax

    return fn if callable(getattr(fn, "lower", None)) else jax.jit(fn)


def hlo(fn: Callable, *args, stage: str = "lowered", clean: bool = True, **kwargs) -> HloView:
    """StableHLO (``stage="lowered"``) or XLA's optimised HLO (``stage="optimized"``) of ``fn``.

    ``fn`` is jitted if it is not already; ``clean=True`` drops source metadata from the
    optimised HLO (``.raw`` keeps everything).
    """
    which = _STAGES.get(stage)
    if which is None:
        raise ValueError(f"stage must be 'lowered' or 'optimized', got {stage!r}")
    lowered = _jitted(fn).lower(*args, **kwargs)
    name = getattr(fn, "__name__", "function")
    if which == "lowered":
        raw = lowered.as_text()
        return HloView("lowered", raw, raw, f"StableHLO of {name} (before XLA optimisation)")
    raw = lowered.compile().as_text()
    return HloView("optimized", clean_hlo(raw) if clean else raw, raw, f"optimised HLO of {name} (after XLA)")


def program(fn, *args, **kwargs) -> Program:
    """What XLA compiled ``fn(*args, **kwargs)`` into: its collectives (with shapes and device
    groups), kernels, fusions, constants and library calls, read from the optimised HLO.

    ``fn`` is a function (jitted if it is not already), a ``Lowered`` or ``Compiled`` stage, or
    the optimised HLO text itself.
    """
    if isinstance(fn, str):
        return read_program(fn)
    name = getattr(fn, "__name__", None)
    stage = fn
    if callable(getattr(stage, "lower", None)) or not callable(getattr(stage, "as_text", None)):
        stage = _jitted(fn).lower(*args, **kwargs)  # a function: lower it for these arguments
    if callable(getattr(stage, "compile", None)):
        stage = stage.compile()  # a Lowered stage: XLA's optimised program is the compiled one
    return read_program(stage.as_text(), name or "program")


def _cost_dict(obj) -> dict:
    try:
        cost = obj.cost_analysis()
    except Exception:
        return {}
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else {}
    return {k: float(v) for k, v in dict(cost or {}).items() if isinstance(v, (int, float))}


def _memory_dict(compiled) -> dict:
    try:
        stats = compiled.memory_analysis()
    except Exception:
        return {}
    if stats is None:
        return {}
    keys = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes", "alias_size_in_bytes")
    return {k: int(getattr(stats, k)) for k in keys if hasattr(stats, k)}


def diff(fn: Callable, *args, **kwargs) -> HloDiff:
    """What XLA did to ``fn``: jaxpr equations, StableHLO ops and optimised kernels per op kind,
    which ops disappeared (dead code, folded constants) and which were fused into one kernel,
    plus the compiler's cost analysis (flops, bytes) and memory sizes when the backend has them."""
    import jax

    jitted = _jitted(fn)
    name = getattr(fn, "__name__", "function")
    traced = jitted.trace(*args, **kwargs) if callable(getattr(jitted, "trace", None)) else None
    if traced is not None:
        inner = traced.jaxpr.jaxpr
        lowered = traced.lower()
    else:  # pragma: no cover - older JAX
        inner = jax.make_jaxpr(fn)(*args, **kwargs).jaxpr
        lowered = jitted.lower(*args, **kwargs)
    jaxpr_ops = [eqn.primitive.name for eqn in inner.eqns]
    compiled = lowered.compile()
    lowered_text, optimized_text = lowered.as_text(), compiled.as_text()
    kernels, hlo_ops = kernels_of(optimized_text)
    return HloDiff(name=name, jaxpr_ops=jaxpr_ops, stablehlo_ops=stablehlo_ops(lowered_text), kernels=kernels,
                   hlo_ops=hlo_ops, cost=_cost_dict(compiled), memory=_memory_dict(compiled),
                   lowered_text=lowered_text, optimized_text=optimized_text)


# ---------------------------------------------------------------------------- autodiff residuals

_ITEMSIZE = {"bool": 1, "bf16": 2, "f8": 1}


def _short_bytes(dtype: str, shape: str) -> int:
    """Bytes of an array written the jaxpr way, e.g. ``f32`` and ``512,256``."""
    size = 1
    for d in filter(None, shape.split(",")):
        size *= int(d)
    if dtype in _ITEMSIZE:
        return size * _ITEMSIZE[dtype]
    m = re.match(r"[a-z]+?(\d+)", dtype)
    bits = int(m.group(1)) if m else 32
    return size * max(bits // 8, 1)


def residuals(fn: Callable, *args, name: str | None = None, **kwargs) -> Residuals:
    """The residuals ``jax.grad`` would save for ``fn(*args)``, from JAX's own
    ``jax.ad_checkpoint.print_saved_residuals``, counted and summed in bytes."""
    import contextlib
    import io

    from jax.ad_checkpoint import print_saved_residuals

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_saved_residuals(fn, *args, **kwargs)
    entries = []
    for line in buf.getvalue().splitlines():
        m = re.match(r"\s*(\w+)\[([\d,]*)\]\s*(.*)", line)
        if m:
            entries.append((f"{m.group(1)}[{m.group(2)}]", _short_bytes(m.group(1), m.group(2)), m.group(3)))
    return Residuals(name or getattr(fn, "__name__", "function"), entries)
