"""Which machine made which outputs of a deck built with ``--frozen``, each named the same short way.

A frozen build shows the outputs kept from another machine up to the first changed code cell and its
own from there on (:mod:`jaxdeck.execute.frozen`): each code cell's record says whose it shows
(``CellInfo.outputs_from``), the build record keeps both machines. The build's report line, the note
on a slide that shows this build's outputs and the handout's title page all read them through
:func:`split_of` and name a machine with :func:`short`, so that the three say the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from jaxdeck.records import KEPT, BuildRecord, cell_info


def short(provenance: dict | None) -> str:
    """A machine in a few words: ``1 x NVIDIA H100 80GB HBM3 · jax 0.11.2`` (``?`` when nothing was recorded)."""
    found = provenance or {}
    device = found.get("device_kind") or found.get("backend") or "?"
    count = found.get("device_count")
    named = f"{count} x {device}" if isinstance(count, int) else str(device)
    return f"{named} · jax {found['jax']}" if found.get("jax") else named


def ranges(numbers) -> str:
    """Whole numbers as runs: ``1-8, 10, 12-13``."""
    runs: list[list[int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@dataclass(frozen=True)
class Split:
    """A frozen build's code cells: the first ``kept`` of ``cells`` show the frozen notebook's outputs,
    the rest (from the deck's line ``stale_line`` on) this build's.

    ``kept_slides`` and ``own_slides`` are the first and last slide each machine's outputs may be on
    (None when it has none): the kept from the first slide to the last kept cell's, this build's from
    the first stale cell's slide to the deck's last; one slide is in both when it shows both.
    """

    source: str
    cells: int
    kept: int
    kept_machine: str
    own_machine: str | None
    kept_slides: tuple[int, int] | None
    own_slides: tuple[int, int] | None
    stale_line: int | None

    @property
    def mixed(self) -> bool:
        """Some outputs are kept and some this build's."""
        return 0 < self.kept < self.cells


def split_of(nb) -> Split | None:
    """How ``nb``'s outputs divide between the frozen notebook's machine and this build's (None: not frozen)."""
    record = BuildRecord.of(nb)
    if not record.frozen_from:
        return None
    code = [c for c in nb.cells if c.cell_type == "code"]
    kept = sum(1 for c in code if cell_info(c).get("outputs_from") == KEPT)
    slides = [s for c in nb.cells if isinstance(s := cell_info(c).get("slide"), int)]
    last = max([record.slides or 0, *slides], default=1) or 1
    stale = cell_info(code[kept]) if kept < len(code) else {}
    first_stale = stale.get("slide") or 1
    last_kept = (cell_info(code[kept - 1]).get("slide") or 1) if kept else None
    return Split(source=record.frozen_from, cells=len(code), kept=kept,
                 kept_machine=short(record.frozen_provenance),
                 own_machine=short(record.own_provenance) if record.own_provenance else None,
                 kept_slides=(1, last_kept) if kept else None,
                 own_slides=(first_stale, last) if kept < len(code) else None,
                 stale_line=stale.get("line"))


def pages_of(span: tuple[int, int] | None, slides: list[int] | None) -> list[int]:
    """The printed pages (1-based) of the deck's slides ``span`` (first, last), given the slide each
    page shows (``slides``, an auto-fit's continuation pages repeating their section's; a page that
    names none goes with the page before); without ``slides``, page k is slide k."""
    if span is None:
        return []
    if slides is None:
        return list(range(span[0], span[1] + 1))
    pages, current = [], 1
    for page, number in enumerate(slides, start=1):
        current = number or current
        if span[0] <= current <= span[1]:
            pages.append(page)
    return pages
