"""Show what JAX and XLA make of a function: the jaxpr, the lowered StableHLO, the optimised HLO.

``show`` prints ``jax.make_jaxpr`` exactly as JAX does, highlighted; ``hlo`` shows one compiler
stage; ``diff`` lines the stages up (jaxpr equations -> StableHLO ops -> XLA kernels), says
what disappeared and what was fused together, and adds the compiler's cost analysis.
All text is escaped by Pygments before it reaches HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from pygments.lexer import RegexLexer, bygroups
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from ._display import (
    MUTED,
    WARN,
    Displayable,
    box,
    esc,
    highlight,
    html_table,
    small,
    text_table,
)

_DTYPES = r"(?:bool|pred|bf16|f8\w*|f16|f32|f64|i1|i4|i8|i16|i32|i64|u4|u8|u16|u32|u64|s4|s8|s16|s32|s64|c64|c128|float0|key<\w+>)"


class JaxprLexer(RegexLexer):
    """Pygments lexer for ``str(jax.make_jaxpr(f)(x))``."""

    name = "jaxpr"
    aliases = ["jaxpr"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"\b(lambda|let|in)\b", Keyword),
            (_DTYPES + r"\[[\d,\s]*\]", Keyword.Type),
            (r"(=)(\s*)([A-Za-z_][\w]*)", bygroups(Operator, Whitespace, Name.Builtin)),
            (r"-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+", Number),
            (r"'[^']*'|\"[^\"]*\"", String),
            (r"[A-Za-z_][\w]*", Name),
            (r"[{}()\[\],;.:=*]", Punctuation),
            (r".", Text),
        ]
    }


class IRLexer(RegexLexer):
    """Pygments lexer for StableHLO (MLIR) and XLA HLO text."""

    name = "xla-ir"
    aliases = ["hlo", "stablehlo"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r'"(?:\\.|[^"\\])*"', String),
            (r"\b(ROOT|ENTRY|HloModule|module|func\.func|public|private|return|attributes)\b", Keyword.Reserved),
            (r"\b(?:stablehlo|chlo|mhlo|sdy|func)\.[\w.]+", Keyword),
            (r"tensor<[^>]*>", Keyword.Type),
            (r"\b" + _DTYPES + r"\[[\d,]*\](?:\{[\d,]*\})?", Keyword.Type),
            (r"%[\w.\-]+", Name.Variable),
            (r"@[\w.\-]+", Name.Function),
            (r"\b[a-z][\w\-]*(?=\()", Name.Builtin),
            (r"-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+", Number),
            (r"[\w.]+", Name),
            (r"[{}()\[\]<>,;:=]", Punctuation),
            (r".", Text),
        ]
    }


# ---------------------------------------------------------------------------- jaxpr


@dataclass(repr=False)
class JaxprView(Displayable):
    """A jaxpr: ``.text`` is exactly ``str(jax.make_jaxpr(fn)(*args))``."""

    text: str
    jaxpr: object = None
    title: str = ""

    def _text(self) -> str:
        return self.text

    def _html(self) -> str:
        return box(highlight(self.text, JaxprLexer()), title=self.title or None)

    @property
    def equations(self) -> list[str]:
        """Primitive names of the top-level equations, in order."""
        return [eqn.primitive.name for eqn in self.jaxpr.jaxpr.eqns] if self.jaxpr is not None else []


def show(fn: Callable, *args, static_argnums=(), **kwargs) -> JaxprView:
    """The jaxpr of ``fn(*args, **kwargs)``, highlighted (``static_argnums`` as in make_jaxpr)."""
    import jax

    closed = jax.make_jaxpr(fn, static_argnums=static_argnums)(*args, **kwargs)
    name = getattr(fn, "__name__", "function")
    return JaxprView(str(closed), closed, f"jaxpr of {name}")


# ---------------------------------------------------------------------------- HLO


def _strip_braced(text: str, key: str) -> str:
    """Remove ``, key={...}`` attributes (balanced braces) from HLO text."""
    out, i, needle = [], 0, f", {key}="
    while True:
        j = text.find(needle, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        k = j + len(needle)
        if k >= len(text) or text[k] != "{":
            out.append(text[i:k])
            i = k
            continue
        depth, m = 0, k
        in_str = False
        while m < len(text):
            c = text[m]
            if c == '"' and text[m - 1] != "\\":
                in_str = not in_str
            elif not in_str:
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                    if depth == 0:
                        break
            m += 1
        out.append(text[i:j])
        i = m + 1


def clean_hlo(text: str) -> str:
    """Optimised HLO without source metadata and stack-frame tables (for reading on a slide)."""
    text = re.sub(r"\n(FileNames|FunctionNames|FileLocations|StackFrames)\n(?:.+\n)*", "\n", text)
    for key in ("metadata", "backend_config", "frontend_attributes"):
        text = _strip_braced(text, key)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"


_STAGES = {"lowered": "lowered", "stablehlo": "lowered", "optimized": "optimized", "optimised": "optimized",
           "compiled": "optimized", "hlo": "optimized"}


def _jitted(fn: Callable):
    import jax

    return fn if callable(getattr(fn, "lower", None)) else jax.jit(fn)


@dataclass(repr=False)
class HloView(Displayable):
    """One compiler stage as text: ``.text`` (readable) and ``.raw`` (exactly what JAX returned)."""

    stage: str
    text: str
    raw: str
    title: str = ""

    def _text(self) -> str:
        return self.text

    def _html(self) -> str:
        return box(highlight(self.text, IRLexer()), title=self.title or None)


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


# ---------------------------------------------------------------------------- diff

_CANON = {
    "sin": "sine", "cos": "cosine", "mul": "multiply", "sub": "subtract", "div": "divide", "exp": "exponential",
    "neg": "negate", "max": "maximum", "min": "minimum", "pow": "power", "dot_general": "dot",
    "broadcast_in_dim": "broadcast", "convert_element_type": "convert", "reduce_sum": "reduce",
    "reduce_max": "reduce", "reduce_min": "reduce", "reduce_prod": "reduce", "argmax": "reduce",
    "argmin": "reduce", "gt": "compare", "lt": "compare", "ge": "compare", "le": "compare", "eq": "compare",
    "ne": "compare", "select_n": "select", "integer_pow": "multiply", "square": "multiply", "log1p": "log-plus-one",
    "expm1": "exponential-minus-one", "logistic": "logistic", "erf_inv": "erf-inv", "dynamic_update_slice":
    "dynamic-update-slice", "dynamic_slice": "dynamic-slice", "pjit": "call", "jit": "call", "closed_call": "call",
    "cumsum": "reduce-window", "sort": "sort", "round_nearest_afz": "round-nearest-afz",
    "round_nearest_even": "round-nearest-even", "exponential_minus_one": "exponential-minus-one",
    "log_plus_one": "log-plus-one", "dynamic_update_slice_": "dynamic-update-slice",
}
_NOT_WORK = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "copy-start", "copy-done",
             "return", "after-all", "opt-barrier", "optimization_barrier", "optimization-barrier"}


def canonical(op: str) -> str:
    """Map a jaxpr primitive / StableHLO op / HLO opcode onto one shared name."""
    op = op.split(".")[-1] if op.startswith(("stablehlo.", "chlo.", "mhlo.")) else op
    op = _CANON.get(op, op)
    return op.replace("_", "-")


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _count(names) -> dict:
    out: dict = {}
    for n in names:
        out[n] = out.get(n, 0) + 1
    return out


def stablehlo_ops(text: str) -> list[str]:
    """Op names in StableHLO text (one per op; region bodies included)."""
    ops = []
    for line in text.splitlines():
        m = re.match(r'\s*(?:%[\w#:,\s%]+=\s*)?"?((?:stablehlo|chlo|mhlo)\.[\w.]+|func\.call|call)\b', line)
        if m:
            ops.append(m.group(1))
    return ops


@dataclass
class HloInstruction:
    name: str
    opcode: str
    attrs: str
    root: bool = False


@dataclass
class HloComputation:
    name: str
    entry: bool
    instructions: list = field(default_factory=list)


def _split_instruction(line: str) -> HloInstruction | None:
    m = re.match(r"\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*", line)
    if not m:
        return None
    rest = line[m.end():]
    if rest.startswith("("):  # tuple type: skip to the matching parenthesis
        depth = 0
        for i, c in enumerate(rest):
            depth += c == "("
            depth -= c == ")"
            if depth == 0:
                rest = rest[i + 1:]
                break
    else:
        rest = rest.split(" ", 1)[1] if " " in rest else ""
    op = re.match(r"\s*([\w\-]+)\(", rest)
    if not op:
        return None
    return HloInstruction(m.group(2), op.group(1), rest[op.end():], bool(m.group(1)))


def parse_hlo(text: str) -> list[HloComputation]:
    """Computations and their instructions from an HLO module's text."""
    comps, current = [], None
    for line in text.splitlines():
        header = re.match(r"^(ENTRY\s+)?%?([\w.\-]+)\s*\(.*\)\s*->\s*.*\{\s*$", line)
        if header:
            current = HloComputation(header.group(2), bool(header.group(1)))
            comps.append(current)
            continue
        if line.startswith("}"):
            current = None
            continue
        if current is not None:
            ins = _split_instruction(line)
            if ins:
                current.instructions.append(ins)
    return comps


@dataclass
class Kernel:
    """One instruction of the entry computation that does work (a fusion, a dot, a custom call...)."""

    name: str
    opcode: str
    kind: str
    ops: list

    def describe(self) -> str:
        work = [op for op in self.ops if op != "constant"]
        inside = ", ".join(f"{op} × {n}" if n > 1 else op for op, n in _count(work).items())
        label = self.opcode + (f" ({self.kind})" if self.kind else "")
        return f"{label}: {inside}" if inside else label


@dataclass(repr=False)
class HloDiff(Displayable):
    """jaxpr -> StableHLO -> optimised HLO, side by side, with cost analysis."""

    name: str
    jaxpr_ops: list
    stablehlo_ops: list
    kernels: list
    hlo_ops: list  # canonical ops inside the optimised module's kernels (reducer regions excluded)
    cost: dict
    memory: dict
    lowered_text: str = ""
    optimized_text: str = ""

    @property
    def intensity(self) -> float | None:
        """Arithmetic intensity from XLA's cost analysis: FLOPs per byte accessed (None if unknown)."""
        flops, moved = self.cost.get("flops"), self.cost.get("bytes accessed")
        return flops / moved if flops is not None and moved else None

    @property
    def removed(self) -> list[str]:
        """Ops present in the jaxpr or StableHLO that no longer appear after XLA optimisation."""
        before = set(map(canonical, self.jaxpr_ops)) | set(map(canonical, self.stablehlo_ops))
        after = set(self.hlo_ops) | {canonical(k.opcode) for k in self.kernels}
        return sorted(op for op in before - after if op not in _NOT_WORK and op != "call")

    @property
    def dropped_by_jax(self) -> list[str]:
        """jaxpr equations with no StableHLO counterpart (JAX's dead-code elimination while lowering)."""
        j, s = _count(map(canonical, self.jaxpr_ops)), _count(map(canonical, self.stablehlo_ops))
        return sorted(op for op, n in j.items() if n > s.get(op, 0) and op != "call")

    @property
    def fusions(self) -> list[Kernel]:
        return [k for k in self.kernels if k.opcode == "fusion"]

    def headline(self) -> str:
        fused = sum(1 for k in self.fusions for op in k.ops if op != "constant")
        return (f"{self.name}: {_n(len(self.jaxpr_ops), 'jaxpr equation')} -> "
                f"{_n(len(self.stablehlo_ops), 'StableHLO op')} -> {_n(len(self.kernels), 'XLA kernel')} "
                f"({_n(len(self.fusions), 'fusion')} holding {_n(fused, 'op')})")

    def _op_rows(self) -> list[list[str]]:
        j = _count(map(canonical, self.jaxpr_ops))
        s = _count(map(canonical, self.stablehlo_ops))
        h = _count(self.hlo_ops)
        rows = []
        for op in dict.fromkeys(list(j) + list(s) + list(h)):
            if op in ("parameter",):
                continue
            note = ""
            nj, ns, nh = j.get(op, 0), s.get(op, 0), h.get(op, 0)
            if nj > ns and op != "call":
                note = "unused: dropped by JAX" + (f" ({nj - ns} of {nj})" if ns else "")
            elif ns > nh and op not in _NOT_WORK:
                note = "removed by XLA" + (f" ({ns - nh} of {ns})" if nh else "")
            elif nh > ns and not nj:
                note = "added by XLA"
            rows.append([op, str(j.get(op, 0)), str(s.get(op, 0)), str(h.get(op, 0)), note])
        return rows

    def cost_lines(self) -> list[str]:
        lines = []
        names = (("flops", "flops"), ("transcendentals", "transcendentals"), ("bytes accessed", "bytes accessed"))
        for key, label in names:
            if key in self.cost:
                lines.append(f"{label}: {self.cost[key]:,.0f}")
        if self.intensity is not None:
            lines.append(f"intensity: {self.intensity:.2g} FLOP/byte")
        for key, label in (("argument_size_in_bytes", "arguments"), ("output_size_in_bytes", "outputs"),
                           ("temp_size_in_bytes", "temporaries")):
            if key in self.memory:
                lines.append(f"{label}: {self.memory[key]:,} B")
        return lines

    def _text(self) -> str:
        out = [self.headline(), ""]
        out.append(text_table(["op", "jaxpr", "StableHLO", "optimised", ""], self._op_rows(), "lrrrl"))
        out.append("")
        out.append("kernels after XLA:")
        out += [f"  {k.name}: {k.describe()}" for k in self.kernels] or ["  (none)"]
        if self.removed:
            out.append("removed: " + ", ".join(self.removed))
        costs = self.cost_lines()
        out.append("cost analysis: " + ("; ".join(costs) if costs else "not available on this backend"))
        return "\n".join(out)

    def _html(self) -> str:
        rows = self._op_rows()
        styled = []
        for r in rows:
            cells = [esc(c) for c in r]
            if r[4]:
                cells[4] = f'<b style="color:{WARN}">{esc(r[4])}</b>'
            styled.append(cells)
        table = html_table(["op", "jaxpr", "StableHLO", "optimised", ""], styled, "lrrrl", raw_columns=range(5))
        kernels = html_table(["kernel", "what it runs"], [[k.name, k.describe()] for k in self.kernels], "ll") \
            if self.kernels else f'<div style="color:{MUTED}">no kernels</div>'
        costs = self.cost_lines()
        cost = f"<div><b>cost analysis</b>: {esc('; '.join(costs) if costs else 'not available on this backend')}</div>"
        return box(
            f'<div style="font-weight:bold">{esc(self.headline())}</div>'
            f'<div style="display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start">'
            f"<div>{table}</div><div>{kernels}</div></div>{cost}"
            + small("counts per op kind; 'optimised' counts ops inside XLA's kernels (reduction bodies excluded)")
        )


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


def kernels_of(module_text: str) -> tuple[list[Kernel], list[str]]:
    """(kernels of the entry computation, canonical ops inside them) from optimised HLO text."""
    comps = {c.name: c for c in parse_hlo(module_text)}
    reducers = set()
    for comp in comps.values():
        for ins in comp.instructions:
            for m in re.finditer(r"\bto_apply=%?([\w.\-]+)", ins.attrs):
                reducers.add(m.group(1))

    def ops_in(comp_name: str, seen: set) -> list[str]:
        if comp_name in seen or comp_name not in comps:
            return []
        seen.add(comp_name)
        ops = []
        for ins in comps[comp_name].instructions:
            if ins.opcode in ("parameter",):
                continue
            if ins.opcode == "fusion":
                for m in re.finditer(r"\bcalls=%?([\w.\-]+)", ins.attrs):
                    ops += ops_in(m.group(1), seen)
                continue
            ops.append(canonical(ins.opcode))
        return ops

    entry = next((c for c in comps.values() if c.entry), None)
    kernels, all_ops = [], []
    if entry is None:
        return kernels, all_ops
    for ins in entry.instructions:
        if ins.opcode in _NOT_WORK:
            continue
        kind = ""
        m = re.search(r"\bkind=(\w+)", ins.attrs)
        if m:
            kind = m.group(1)
        inner = []
        if ins.opcode == "fusion":
            for c in re.finditer(r"\bcalls=%?([\w.\-]+)", ins.attrs):
                inner += ops_in(c.group(1), set())
        else:
            for c in re.finditer(r"\b(?:calls|body|condition|branch_computations)=\{?%?([\w.\-]+)", ins.attrs):
                if c.group(1) not in reducers:
                    inner += ops_in(c.group(1), set())
            if not inner:
                inner = []
        kernels.append(Kernel(ins.name, ins.opcode, kind, inner))
        all_ops += inner if ins.opcode in ("fusion", "call", "while", "conditional") else [canonical(ins.opcode)] + inner
    return kernels, all_ops


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


@dataclass(repr=False)
class Residuals(Displayable):
    """What reverse-mode autodiff keeps from the forward pass for the backward pass."""

    name: str
    entries: list  # (type string, bytes, where it comes from)

    @property
    def count(self) -> int:
        return len(self.entries)

    @property
    def nbytes(self) -> int:
        return sum(b for _, b, _ in self.entries)

    def summary(self) -> str:
        from ._display import fmt_int

        return f"{self.name}: {self.count} residuals, {fmt_int(self.nbytes)} bytes kept for the backward pass"

    def _kinds(self) -> list[list[str]]:
        kinds: dict = {}
        for t, b, src in self.entries:
            what = re.sub(r" from \S+:\d+:\d+", "", src)
            key = (t, what)
            n, tot = kinds.get(key, (0, 0))
            kinds[key] = (n + 1, tot + b)
        return [[str(n), t, what, f"{tot:,}"] for (t, what), (n, tot) in kinds.items()]

    def _text(self) -> str:
        return self.summary() + "\n" + text_table(["×", "type", "kept", "bytes"], self._kinds(), "rllr")

    def _html(self) -> str:
        return box(html_table(["×", "type", "kept", "bytes"], self._kinds(), "rllr"), title=self.summary())


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
