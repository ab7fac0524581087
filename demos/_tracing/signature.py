"""Call signatures as ``jax.jit``'s cache sees them, and what differs between two of them.

A :class:`Signature` is the abstract part of a call (shapes, dtypes, weak types, static
values, pytree structure); :func:`signature_diff` names the differences in words and
:func:`signature_distance` counts them, so a retrace can be explained by its nearest match.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable


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


def _changed_leaves(old: Signature, new: Signature):
    """(before, after) for each leaf present in both signatures whose type or value changed."""
    old_leaves = {leaf.path: leaf for leaf in old.leaves}
    for leaf in new.leaves:
        before = old_leaves.get(leaf.path)
        if before is not None and before != leaf:
            yield before, leaf


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
    for before, leaf in _changed_leaves(old, new):
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
    for before, leaf in _changed_leaves(old, new):
        if leaf.kind == "static" or before.kind == "static":
            count += 1
        else:
            count += (before.shape != leaf.shape) + (before.dtype != leaf.dtype) + (before.weak != leaf.weak)
    return count
