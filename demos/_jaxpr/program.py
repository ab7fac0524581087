"""What one compiled program does, in one object: so a slide asks a question, not a regular expression.

:func:`read_program` takes XLA's optimised HLO text (any backend's spelling: a CPU's plain
``all-reduce``, a GPU's ``all-gather-start``/``-done`` pairs and ``async-start`` wrappers, its
``__cublas$gemm`` custom calls) and answers what a talk asks of it: which collectives run, over
which devices, with what shapes; which kernels and fusions; what the entry folded to constants;
which ``jax.named_scope`` names survived. Pure text in, so the tests feed it CPU and GPU HLO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._display import MUTED, Displayable, box, html_table, small
from .hlo_text import COLLECTIVES, Collective, HloComputation, Kernel, clean_hlo, collectives, kernels_of, parse_hlo

#: one array type in a result type: ``f32[16,16]`` of ``(f32[16,16], f32[])``
_ARRAY = re.compile(r"[a-z]+\d*\[[\d,]*\]")


@dataclass(repr=False)
class Program(Displayable):
    """A compiled program read back: ``collectives``, ``kernels`` and the module's ``computations``."""

    name: str
    text: str                        # the optimised HLO exactly as XLA wrote it
    collectives: list[Collective]
    kernels: list[Kernel]
    computations: list[HloComputation]

    # ------------------------------------------------------------------ questions a slide asks

    @property
    def communicates(self) -> list[str]:
        """The kinds of collective the program runs, sorted (``[]``: no communication at all)."""
        return sorted({c.op for c in self.collectives})

    def shapes(self, *ops: str) -> list[str]:
        """The array types the collectives of these kinds produce (every kind when none is named),
        in program order, a tuple's members one by one: ``["f32[16,16]", "f32[16]"]``."""
        return [a for c in self.collectives if not ops or c.op in ops for a in _ARRAY.findall(c.shape)]

    @property
    def entry(self) -> HloComputation | None:
        return next((c for c in self.computations if c.entry), None)

    @property
    def fusions(self) -> list[HloComputation]:
        """The computations XLA fused ops into, each with its ``.text``, in module order."""
        called = {m.group(1) for comp in self.computations for ins in comp.instructions if ins.opcode == "fusion"
                  for m in re.finditer(r"\bcalls=%?([\w.\-]+)", ins.attrs)}
        return [c for c in self.computations if c.name in called]

    def fused_text(self, index: int = 0) -> str:
        """One fused computation as a slide shows it: without metadata (``""`` when nothing was fused)."""
        fused = self.fusions
        return clean_hlo(fused[index].text).strip() if len(fused) > index else ""

    def count(self, opcode: str) -> int:
        """How many instructions of the entry computation have this opcode (``"copy"``, ``"fusion"``...)."""
        return sum(1 for ins in self.entry.instructions if ins.opcode == opcode) if self.entry else 0

    @property
    def calls(self) -> int:
        """The entry computation's calls of other computations: a jitted function XLA did not inline.
        A GPU's command buffers (``call`` of ``%command_buffer...``, kernels launched as one graph)
        are not such calls and are not counted."""
        if self.entry is None:
            return 0
        return sum(1 for ins in self.entry.instructions if ins.opcode == "call"
                   and not re.search(r"\bto_apply=%?command_buffer", ins.attrs))

    @property
    def constants(self) -> list[str]:
        """The entry computation's constants, as XLA wrote them without metadata: ``s32[] constant(5)``."""
        if self.entry is None:
            return []
        return [f"{ins.shape} constant({ins.attrs.split(')')[0]})"
                for ins in self.entry.instructions if ins.opcode == "constant"]

    @property
    def library_calls(self) -> list[str]:
        """The targets of custom calls (a GPU's ``__cublas$gemm``, ``__cudnn$conv...``), in program order."""
        return [m.group(1) for comp in self.computations for ins in comp.instructions if ins.opcode == "custom-call"
                for m in re.finditer(r'custom_call_target="([^"]*)"', ins.attrs)]

    def scopes(self, containing: str = "") -> list[str]:
        """The ``op_name`` metadata (where ``jax.named_scope`` names land) that contains this text, sorted."""
        return sorted({m.group(1) for m in re.finditer(r'op_name="([^"]*)"', self.text) if containing in m.group(1)})

    # ------------------------------------------------------------------ display

    @property
    def compute(self) -> list[Kernel]:
        """The kernels that compute, the collectives and their async halves left out (listed apart)."""
        talk = {op + end for op in COLLECTIVES for end in ("", "-start", "-done")} | {"async-start", "async-done"}
        return [k for k in self.kernels if k.opcode not in talk]

    def headline(self) -> str:
        work = self.compute
        fusions = sum(1 for k in work if k.opcode == "fusion")
        talk = (f"{len(self.collectives)} collective" + ("" if len(self.collectives) == 1 else "s")
                if self.collectives else "no communication")
        return (f"{self.name}: {len(work)} kernel" + ("" if len(work) == 1 else "s")
                + f" ({fusions} fused), {talk}")

    def _rows(self) -> list[list[str]]:
        return [[c.op, c.shape, str(c).split(" over ", 1)[1]] for c in self.collectives]

    def _text(self) -> str:
        lines = [self.headline()]
        lines += [f"  {c}" for c in self.collectives]
        if self.library_calls:
            lines.append("  library calls: " + ", ".join(dict.fromkeys(self.library_calls)))
        return "\n".join(lines)

    def _html(self) -> str:
        table = html_table(["collective", "result", "devices"], self._rows(), "lll") if self.collectives else \
            f'<div style="color:{MUTED}">no collectives: every device works on its own data</div>'
        calls = small("library calls: " + ", ".join(dict.fromkeys(self.library_calls))) if self.library_calls else ""
        return box(table + calls, title=self.headline())


def read_program(text: str, name: str = "program") -> Program:
    """A :class:`Program` from optimised HLO text (``compiled.as_text()``)."""
    kernels, _ops = kernels_of(text)
    return Program(name, text, collectives(text), kernels, parse_hlo(text))

