"""Each live cell set against the build of the same source: its time, its errors, its warnings.

The build's executed notebook (``build/notebooks/NAME.ipynb``) is what the slides and the PDFs
show; a cell is matched there by its source (the first unmatched cell with the same text), so a
deck edited since keeps what it can. A live error or stderr line is new when the build's cell
did not have it, numbers and addresses aside (a warning that names a size or a time is the same
warning). A cell more than :data:`SLOWER_RATIO` times slower live than in the build, and over
:data:`SLOWER_MIN_S`, is a problem whatever its budget: a demo that waits three times as long in front
of the room has a cause worth finding first. With the kernel walk, what the outputs show is compared
by kind too (:func:`output_kinds`): a chart or a table in the build and only text, or nothing, live.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from jaxdeck.check.budget import SLOW_TAG, held_to_budget
from jaxdeck.rehearse.record import CellRun, Problem

_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+(?:\.\d+)?")
#: a live cell this many times its build's time, and over SLOWER_MIN_S, is a problem
SLOWER_RATIO = 2.0
SLOWER_MIN_S = 2.0
#: what plain text (a result's text/plain, a print) is called among the kinds
TEXT = "text"
#: the statuses of a cell that did not run to its end: interrupted at its limit; with no browser also stuck
#: (it did not stop when interrupted) and died (the kernel died under it), after which nothing more runs
CUT_SHORT = ("timeout", "stuck", "died")


@dataclass
class BuiltCell:
    """What the build kept of one code cell."""

    duration_s: float | None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)


def output_errors(outputs: list[dict]) -> list[str]:
    """``Name: value`` of each error output."""
    return [f"{o.get('ename', 'Error')}: {str(o.get('evalue', '')).splitlines()[0] if o.get('evalue') else ''}".rstrip(": ")
            for o in outputs if o.get("output_type") == "error"]


def output_warnings(outputs: list[dict]) -> list[str]:
    """The non-blank lines a cell wrote to stderr."""
    lines = []
    for o in outputs:
        if o.get("output_type") == "stream" and o.get("name") == "stderr":
            text = o.get("text", "")
            text = "".join(text) if isinstance(text, list) else text
            lines += [line.strip() for line in text.splitlines() if line.strip()]
    return lines


def output_kinds(outputs: list[dict]) -> list[str]:
    """What a cell's outputs show, by kind: each MIME type of a result or a display (``text`` for
    text/plain) and ``text`` for what it printed; stderr and errors are compared on their own."""
    kinds = set()
    for o in outputs:
        if o.get("output_type") in ("display_data", "execute_result"):
            kinds.update(TEXT if mime == "text/plain" else mime for mime in (o.get("data") or {}))
        elif o.get("output_type") == "stream" and o.get("name") != "stderr" and o.get("text"):
            kinds.add(TEXT)
    return sorted(kinds)


def _shape(line: str) -> str:
    return _NUMBERS.sub("#", line)


def built_cells(nb) -> dict[str, list[BuiltCell]]:
    """The build's code cells by source, in order (a source may appear more than once)."""
    from jaxdeck.records import cell_info

    found: dict[str, list[BuiltCell]] = defaultdict(list)
    if nb is None:
        return found
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = [dict(o) for o in cell.get("outputs", [])]
        found[cell.source.strip()].append(BuiltCell(cell_info(cell).get("duration_s"), output_errors(outputs),
                                                    output_warnings(outputs), output_kinds(outputs)))
    return found


def take(built: dict[str, list[BuiltCell]], source: str) -> BuiltCell | None:
    """The build's cell for ``source`` (each build cell is matched once)."""
    same = built.get(source.strip())
    return same.pop(0) if same else None


def cell_run(line: int | None, status: str, live_s: float | None, outputs: list[dict], error: str | None,
             tags: list[str], budget_s: float, before: BuiltCell | None, checks: list[dict],
             kinds: bool = False) -> CellRun:
    """The record of one live run, with what is new against the build; ``kinds``: with what its outputs
    show and what the build's showed, to compare."""
    errors, warnings = output_errors(outputs), output_warnings(outputs)
    if error and not errors:
        errors = [error]
    seen_errors = {_shape(e) for e in before.errors} if before else set()
    seen_warnings = {_shape(w) for w in before.warnings} if before else set()
    return CellRun(line=line, status=status, live_s=None if live_s is None else round(live_s, 4),
                   build_s=before.duration_s if before else None,
                   budget_s=budget_s if held_to_budget(tags) else None, error=error,
                   new_errors=[e for e in errors if _shape(e) not in seen_errors],
                   new_warnings=[w for w in warnings if _shape(w) not in seen_warnings], checks=checks,
                   kinds=output_kinds(outputs) if kinds else None,
                   build_kinds=before.kinds if kinds and before else None)


def problems_of(number: int, cell: CellRun) -> list[Problem]:
    """What in one live run would embarrass the presenter."""
    found = []
    if cell.status == "timeout":
        found.append(Problem(number, "timeout", f"still running after {cell.live_s:.0f} s; it was interrupted",
                             cell.line))
    elif cell.status in ("stuck", "died"):
        found.append(Problem(number, "timeout" if cell.status == "stuck" else "error",
                             cut_short(cell.status, cell.live_s), cell.line))
    for error in cell.new_errors:
        found.append(Problem(number, "error", f"raised {error} live" + (" (the build did not)" if cell.build_s is not None
                                                                          else ""), cell.line))
    for warning in cell.new_warnings:
        found.append(Problem(number, "warning", f"wrote '{warning[:120]}' live", cell.line))
    shown = other_kind(cell)
    if shown:
        found.append(Problem(number, "output", shown, cell.line))
    if cell.status not in CUT_SHORT and cell.budget_s is not None and cell.live_s is not None and cell.live_s > cell.budget_s:
        built = f" (the build took {cell.build_s:.2f} s)" if cell.build_s is not None else ""
        found.append(Problem(number, "budget", f"took {cell.live_s:.2f} s live, over the {cell.budget_s:g} s budget"
                             f"{built}; make it faster, or tag it '{SLOW_TAG}'", cell.line))
    if slower(cell):
        than = (f", {cell.live_s / cell.build_s:.1f} times the build's {cell.build_s:.2f} s" if cell.build_s >= 0.1
                else f"; the build took {cell.build_s:.2f} s")  # a ratio to nearly nothing says nothing
        found.append(Problem(number, "slower", f"took {cell.live_s:.2f} s live{than}", cell.line))
    for check in cell.checks:
        if not check.get("ok"):
            found.append(Problem(number, "check", f"the claim checked after this cell no longer holds: "
                                 f"{check.get('message') or 'an assertion failed'}", cell.line))
    return found


def slower(cell: CellRun) -> bool:
    """Whether a cell that ran to its end took more than twice its build's time, and over 2 s."""
    return (cell.status not in CUT_SHORT and cell.live_s is not None and cell.build_s is not None
            and cell.live_s > SLOWER_MIN_S and cell.live_s > SLOWER_RATIO * cell.build_s)


def other_kind(cell: CellRun) -> str | None:
    """What a cell that ran without error showed live that differs in kind from the build's, said;
    None when it shows what the build showed (more is no problem: the build's kinds are all there)."""
    if cell.status != "ok" or cell.kinds is None or not cell.build_kinds:
        return None
    built = ", ".join(cell.build_kinds)
    if not cell.kinds:
        return f"showed nothing live; the build showed {built}"
    missing = [kind for kind in cell.build_kinds if kind not in cell.kinds]
    if not missing:
        return None
    only = "only " if set(cell.kinds) <= {TEXT} else ""
    return f"the build showed {', '.join(missing)}; live it gave {only}{', '.join(cell.kinds)}"


def cut_short(status: str, limit_s: float | None) -> str:
    """What a kernel that would not stop (``stuck``) or died under a cell (``died``) did to the talk."""
    if status == "stuck":
        return (f"did not stop when interrupted at its {limit_s or 0:g} s limit: the kernel is stuck; the slides "
                "after it were not run")
    return "the kernel died while it ran (out of memory? a crash in compiled code?); the slides after it were not run"
