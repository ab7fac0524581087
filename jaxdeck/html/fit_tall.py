"""Blocks taller than a slide: what an auto-fit does once cutting between cells is not enough.

After :func:`jaxdeck.html.fit.fit` has cut a deck's sections between their pieces, a piece
taller than a slide still sits alone under its heading: a long code cell, a long output, a
full traceback, a wide table. The theme's ``fit-tall.js`` works on each such slide in the
laid-out page and reports what made it fit (:class:`Decision`); this module keeps those
decisions in the copy the HTML renders (``metadata.jaxdeck.fit``, drawn by
:mod:`jaxdeck.html.outputs` and ``fit.css``) and splits a code cell that does not fit even at
the floor: its first lines stay, the rest continues on a " (continued)" slide with the outputs.

The order, from what keeps most at the largest type: the cell a little smaller (outputs that
are long), each text output cut at a line with "… N more lines" (the handout has it all),
rich outputs scaled; then the code's type smaller down to :data:`FLOOR`; then code and outputs
side by side; then the outputs cut at the floor; then the split, into as many parts as the cell
needs at once (a cell longer than any talk shows was cut first: :mod:`jaxdeck.html.fit_long`).

:data:`FLOOR` is 60 % of the theme's type: code at 22 px on a 720-px slide becomes 13.2 px,
1.8 % of the slide's height (on a 1920x1080 projector about 20 px, a terminal's usual size),
still larger against its frame than a 10-pt listing on an A4 page (1.2 %). Below that the back
of a seminar room reads nothing, so a block that needs less is split instead.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from jaxdeck.html.fit_blocks import unique_ids
from jaxdeck.html.fit_cuts import apply_cuts
from jaxdeck.html.fit_record import Block
from jaxdeck.records import cell_info, update_cell_info

#: the smallest type scale a fit uses (see the module docstring)
FLOOR = 0.6
#: the scale's steps
STEP = 0.05


@dataclass(frozen=True)
class Decision:
    """What fit-tall.js did to the tallest block of one slide (``cell``: its id)."""

    cell: str
    scale: float = 1.0
    output_scale: float = 1.0
    beside: bool = False
    lines: dict[int, int] = field(default_factory=dict)   # output number -> lines it keeps
    zoom: dict[int, float] = field(default_factory=dict)  # output number -> its scale
    clip: dict[int, int] = field(default_factory=dict)    # output number -> the px of it shown (rich, at the floor)
    split: int | None = None                               # lines of code that stay (the rest moves on)
    fits: bool = False
    picture: bool = False                                  # a Markdown cell that is a picture alone (no type)

    @classmethod
    def from_page(cls, found: dict) -> Decision:
        return cls(str(found["id"]), float(found.get("scale", 1)), float(found.get("outputScale", 1)),
                   bool(found.get("beside")), {int(k): int(v) for k, v in (found.get("lines") or {}).items()},
                   {int(k): float(v) for k, v in (found.get("zoom") or {}).items()},
                   {int(k): int(v) for k, v in (found.get("clip") or {}).items()},
                   None if found.get("split") is None else int(found["split"]), bool(found.get("fits")),
                   bool(found.get("picture")))

    def record(self) -> dict:
        """As ``metadata.jaxdeck.fit`` keeps it: only what differs from the cell as it was."""
        kept: dict = {}
        if self.scale < 1:
            kept["scale"] = self.scale
        if self.output_scale != self.scale:
            kept["output_scale"] = self.output_scale
        if self.beside:
            kept["beside"] = True
        if self.lines:
            kept["lines"] = {str(k): v for k, v in self.lines.items()}
        if self.zoom:
            kept["zoom"] = {str(k): v for k, v in self.zoom.items()}
        if self.clip:
            kept["clip"] = {str(k): v for k, v in self.clip.items()}
        if self.picture and kept:
            kept["picture"] = True
        return kept


def measure_tall(browser, html: str | Path, size: tuple[int, int]) -> list[Decision]:
    """fit-tall.js's decisions for every slide of an HTML deck that runs past its bottom."""
    from jaxdeck.browser import fonts_ready, run_script
    from jaxdeck.pages import open_deck

    width, height = size
    with open_deck(browser, html, width=width, height=height) as (page, _requests):
        fonts_ready(page)
        found = run_script(page, "fit-tall.js", {"floor": FLOOR, "step": STEP})
    return [Decision.from_page(item) for item in found]


def split_line(source: str, keep: int) -> int:
    """Where to split a code cell that ``keep`` lines of fit: at the last top-level statement
    that starts in the second half of them (each part then runs on its own), else at ``keep``."""
    try:
        starts = sorted({node.lineno - 1 for node in ast.parse(source).body})
    except SyntaxError:  # IPython magics, a cell meant to fail: lines are all there is
        starts = []
    good = [s for s in starts if keep // 2 <= s <= keep and s > 0]
    return good[-1] if good else max(1, keep)


def _split(nb: nbformat.NotebookNode, index: int, keep: int) -> list[int]:
    """Split code cell ``index`` into parts of at most ``keep`` lines (fewer where a statement starts
    near the end of one: :func:`split_line`), all in one round however long the cell: the indices
    of the parts after the first, each to start a slide."""
    parts = []
    while nb.cells[index].source.count("\n") >= keep:
        index = _split_once(nb, index, keep)
        if index is None:
            break
        parts.append(index)
    return parts


def _split_once(nb: nbformat.NotebookNode, index: int, keep: int) -> int | None:
    """Split code cell ``index`` after ``keep`` lines: the index of the second part, or None.

    The first part keeps ``split`` (its number of lines) for the live view, which splits the
    cell it serves there too; a part split again keeps only its own record.
    """
    cell = nb.cells[index]
    info = cell_info(cell)
    lines = cell.source.split("\n")
    at = split_line(cell.source, keep)
    if not 0 < at < len(lines):
        return None
    first, rest = copy.deepcopy(cell), copy.deepcopy(cell)
    first.source, rest.source = "\n".join(lines[:at]).rstrip("\n"), "\n".join(lines[at:])
    first.outputs = []
    update_cell_info(first, fit={"scale": FLOOR}, split=at, split_from=info.get("split_from", info.get("line")))
    update_cell_info(rest, fit={}, split_from=info.get("split_from", info.get("line")))
    if info.get("line") is not None:
        update_cell_info(rest, line=int(info["line"]) + at)
    rest["id"] = f"{str(cell.get('id') or 'cell')[:50]}-part"
    nb.cells[index:index + 1] = [first, rest]
    return index + 1


def apply_tall(nb: nbformat.NotebookNode, decisions: list[Decision]) -> int:
    """Keep each decision in its cell's record and make its splits; how many cells changed."""
    where = {str(c.get("id")): i for i, c in enumerate(nb.cells)}
    changed = 0
    splits = []
    for decision in decisions:
        index = where.get(decision.cell)
        if index is None:
            continue
        cell = nb.cells[index]
        if decision.split is not None and cell.cell_type == "code":
            splits.append((index, decision.split))
            continue
        record = decision.record()
        if record and record != cell_info(cell).get("fit"):
            update_cell_info(cell, fit=record)
            changed += 1
    cuts = []
    for index, keep in sorted(splits, reverse=True):
        parts = _split(nb, index, keep)
        if parts:
            cuts = [c + len(parts) for c in cuts] + parts
            changed += 1
    if cuts:
        apply_cuts(nb, cuts)
        unique_ids(nb)
    return changed


def smallest_type(fits) -> float:
    """The smallest type scale among fit records (``metadata.jaxdeck.fit``, or the blocks of a
    fit's record): 1.0 when none made type smaller; a picture alone has no type and is left out."""
    scales = [1.0]
    for fit in fits:
        if not fit.get("picture"):
            scales += [float(fit.get("scale", 1)), float(fit.get("output_scale", fit.get("scale", 1)))]
    return min(scales)


def blocks_of(fitted: nbformat.NotebookNode) -> list[Block]:
    """The fitted blocks of a fitted deck, as the live view reads them (:class:`Block`).

    A split cell's first part carries the split (its lines that stay) and its scale; its
    second part, a cell of its own from the line it starts at, carries its own fit.
    """
    found = []
    for cell in fitted.cells:
        info = cell_info(cell)
        fit = info.get("fit") or {}
        if info.get("line") is None or cell_info(cell).get("continues") or not (fit or info.get("split")):
            continue
        found.append(Block(int(info["line"]), cell.source.split("\n")[0], dict(fit), info.get("split")))
    return found
