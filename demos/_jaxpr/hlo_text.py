"""Reading compiler text: clean optimised HLO for a slide, name ops alike across the three
stages, parse an HLO module into computations, and find the kernels of its entry computation.

Pure text in, plain data out (no JAX), so it can be tested on hand-written HLO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


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
# Instructions that name, pass or move data rather than compute: never counted as kernels.
NOT_WORK = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "copy-start", "copy-done",
            "return", "after-all", "opt-barrier", "optimization_barrier", "optimization-barrier"}


def canonical(op: str) -> str:
    """Map a jaxpr primitive / StableHLO op / HLO opcode onto one shared name."""
    op = op.split(".")[-1] if op.startswith(("stablehlo.", "chlo.", "mhlo.")) else op
    op = _CANON.get(op, op)
    return op.replace("_", "-")


def tally(names) -> dict:
    """How many times each name occurs, in first-seen order."""
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
    shape: str = ""          # the result type as written: ``f32[2,4]{1,0}``, or a tuple's ``(...)``
    line: str = ""           # the instruction as XLA wrote it, stripped


@dataclass
class HloComputation:
    name: str
    entry: bool
    instructions: list = field(default_factory=list)
    lines: list = field(default_factory=list)  # the computation's text, header to closing brace

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _split_instruction(line: str) -> HloInstruction | None:
    m = re.match(r"\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*", line)
    if not m:
        return None
    rest = line[m.end():]
    if rest.startswith("("):  # tuple type: up to the matching parenthesis
        end = _closing(rest, 0, "(", ")") + 1
    else:
        end = rest.find(" ") if " " in rest else len(rest)
    shape, rest = rest[:end], rest[end:]
    op = re.match(r"\s*([\w\-]+)\(", rest)
    if not op:
        return None
    return HloInstruction(m.group(2), op.group(1), rest[op.end():], bool(m.group(1)), shape, line.strip())


def _closing(text: str, start: int, open_: str = "{", close: str = "}") -> int:
    """Index of the bracket that closes the one at ``start`` (the last index if none does)."""
    depth = 0
    for i in range(start, len(text)):
        depth += (text[i] == open_) - (text[i] == close)
        if depth == 0:
            return i
    return len(text) - 1


def parse_hlo(text: str) -> list[HloComputation]:
    """Computations and their instructions from an HLO module's text."""
    comps, current = [], None
    for line in text.splitlines():
        header = re.match(r"^(ENTRY\s+)?%?([\w.\-]+)\s*\(.*\)\s*->\s*.*\{\s*$", line)
        if header:
            current = HloComputation(header.group(2), bool(header.group(1)), lines=[line])
            comps.append(current)
            continue
        if line.startswith("}"):
            if current is not None:
                current.lines.append(line)
            current = None
            continue
        if current is not None:
            current.lines.append(line)
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
        inside = ", ".join(f"{op} × {n}" if n > 1 else op for op, n in tally(work).items())
        label = self.opcode + (f" ({self.kind})" if self.kind else "")
        return f"{label}: {inside}" if inside else label


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
        if ins.opcode in NOT_WORK:
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


#: the collectives of an HLO module; on a GPU an async pair (``all-reduce-start``/``-done``) stands for one
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")


@dataclass(frozen=True)
class Collective:
    """One collective of a compiled program: its op, result type (without layouts) and the device groups it spans.

    ``groups`` are the replica groups as device ids, whichever way XLA spelled them (a list of
    lists, an iota tile ``[4,2]<=[8]``, or mesh axes ``mesh['x'=4,'y'=2] {'y'}``); ``None`` when
    the spelling is not one of those (``spelled`` keeps XLA's own text)."""

    op: str
    shape: str
    groups: tuple | None
    spelled: str

    def __str__(self) -> str:
        groups = "all devices" if self.groups == () else self.spelled if self.groups is None else \
            " ".join("{" + ",".join(map(str, g)) + "}" for g in self.groups)
        return f"{self.op} {self.shape} over {groups}"


def _iota_groups(dims: list[int], reshape: list[int], perm: list[int] | None) -> tuple:
    """The rows of ``iota(prod(reshape)).reshape(reshape).transpose(perm).reshape(dims)``."""
    import numpy as np

    ids = np.arange(int(np.prod(reshape))).reshape(reshape)
    if perm is not None:
        ids = ids.transpose(perm)
    ids = ids.reshape(dims[0], -1)
    return tuple(tuple(int(i) for i in row) for row in ids)


def replica_groups(spelled: str) -> tuple | None:
    """Device-id groups from XLA's spelling of ``replica_groups`` (``()`` means one group of every device)."""
    import numpy as np

    text = spelled.strip()
    if text.startswith("{"):
        inner = re.findall(r"\{([\d,\s]*)\}", text[1:-1])
        return tuple(tuple(int(i) for i in g.split(",") if i.strip()) for g in inner)
    iota = re.fullmatch(r"\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", text)
    if iota:
        nums = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
        return _iota_groups(nums(iota.group(1)), nums(iota.group(2)), nums(iota.group(3)) if iota.group(3) else None)
    mesh = re.fullmatch(r"mesh\[([^\]]*)\]\s*\{([^}]*)\}", text)
    if mesh:
        axes = re.findall(r"'([^']+)'=(\d+)", mesh.group(1))
        if not axes or ",".join(f"'{a}'={s}" for a, s in axes) != mesh.group(1).replace(" ", ""):
            return None  # a device order of its own, or sub-axes: not read here
        names, sizes = [a for a, _ in axes], [int(s) for _, s in axes]
        grouped = re.findall(r"'([^']+)'", mesh.group(2))
        if not grouped or any(g not in names for g in grouped) or ":" in mesh.group(2):
            return None
        order = [i for i, a in enumerate(names) if a not in grouped] + [names.index(g) for g in grouped]
        ids = np.arange(int(np.prod(sizes))).reshape(sizes).transpose(order)
        per_group = int(np.prod([sizes[names.index(g)] for g in grouped]))
        return tuple(tuple(int(i) for i in row) for row in ids.reshape(-1, per_group))
    return None


def collectives(module_text: str) -> list[Collective]:
    """Every collective of an optimised HLO module, in program order (an async start and its done once)."""
    found = []
    for comp in parse_hlo(module_text):
        done_shape = {}  # an async start's result is its done's: an all-gather-start's own is (operand, result)
        for ins in comp.instructions:
            if ins.opcode.endswith("-done"):
                started = re.search(r"%?([\w.\-]+)\)", ins.attrs)
                if started:
                    done_shape[started.group(1)] = ins.shape
        for ins in comp.instructions:
            op = ins.opcode.removesuffix("-start")
            if op not in COLLECTIVES or ins.opcode.endswith("-done"):
                continue
            spelled = ""
            at = ins.attrs.find("replica_groups=")
            if at >= 0:
                rest = ins.attrs[at + len("replica_groups="):]
                if rest.startswith("{"):
                    spelled = rest[:_closing(rest, 0) + 1]
                else:
                    spelled = re.match(r"(mesh\[[^\]]*\]\s*\{[^}]*\}|\[[\d,]+\]<=\[[\d,]+\](?:T\([\d,]+\))?|[^,\s]+)",
                                       rest).group(1)
            groups = () if spelled in ("", "{}") else replica_groups(spelled)
            shape = re.sub(r"\{[^}]*\}|/\*.*?\*/", "", done_shape.get(ins.name, ins.shape))  # layouts, index comments out
            found.append(Collective(op, shape, groups, spelled))
    return found
