"""What :mod:`demos.jaxpr` displays: a jaxpr, one compiler stage, the stage-by-stage diff, residuals.

Each view holds plain text and counts; all text is escaped by Pygments or :func:`esc` before
it reaches HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from pygments.lexer import RegexLexer

from .._display import MUTED, WARN, Displayable, box, esc, fmt_int, highlight, html_table, small, text_table
from .hlo_text import NOT_WORK, Kernel, canonical, tally
from .lexers import IRLexer, JaxprLexer


class _Listing(Displayable):
    """A program's text (the subclass's ``text`` field): as it is, and in HTML highlighted by the
    class's ``lexer`` in a box with the ``title`` field."""

    lexer: ClassVar[type[RegexLexer]]

    def _text(self) -> str:
        return self.text

    def _html(self) -> str:
        return box(highlight(self.text, self.lexer()), title=self.title or None)


@dataclass(repr=False)
class JaxprView(_Listing):
    """A jaxpr: ``.text`` is exactly ``str(jax.make_jaxpr(fn)(*args))`` as a terminal without colours prints it."""

    lexer = JaxprLexer
    text: str
    jaxpr: object = None
    title: str = ""


@dataclass(repr=False)
class HloView(_Listing):
    """One compiler stage as text: ``.text`` (readable) and ``.raw`` (exactly what JAX returned)."""

    lexer = IRLexer
    stage: str
    text: str
    raw: str
    title: str = ""


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


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
        return sorted(op for op in before - after if op not in NOT_WORK and op != "call")

    @property
    def dropped_by_jax(self) -> list[str]:
        """jaxpr equations with no StableHLO counterpart (JAX's dead-code elimination while lowering)."""
        j, s = tally(map(canonical, self.jaxpr_ops)), tally(map(canonical, self.stablehlo_ops))
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
        j = tally(map(canonical, self.jaxpr_ops))
        s = tally(map(canonical, self.stablehlo_ops))
        h = tally(self.hlo_ops)
        rows = []
        for op in dict.fromkeys(list(j) + list(s) + list(h)):
            if op in ("parameter",):
                continue
            note = ""
            nj, ns, nh = j.get(op, 0), s.get(op, 0), h.get(op, 0)
            if nj > ns and op != "call":
                note = "unused: dropped by JAX" + (f" ({nj - ns} of {nj})" if ns else "")
            elif ns > nh and op not in NOT_WORK:
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

