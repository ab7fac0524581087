"""Code cells longer than slides could show: cut to their first lines before an auto-fit measures them.

The fit renders a deck, lays it out in Chromium and measures it at every round, and splits a
long code cell one slide's worth per round (:mod:`jaxdeck.html.fit_tall`). A cell of 50,000 lines
(data pasted into a tutorial, a generated table) made every round highlight and lay out all of
them: minutes per round, for a cell still unfitted at the end. So the copy the HTML renders keeps
the first :data:`MAX_LINES` lines of such a cell, then one comment line that says how many more
there are; the fit splits what is left as it splits any long cell, in rounds it can finish. The
source and the executed notebook keep the whole cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import nbformat

from jaxdeck.records import cell_info

#: lines of one code cell the slides show: what the fit's rounds split into slides whole (some 40 lines
#: a slide at the smallest type of a 720-px deck); far more than a talk shows of one cell
MAX_LINES = 200


@dataclass(frozen=True)
class Shortened:
    """A code cell cut to its first lines: its line in the deck, and how many lines it had."""

    line: int | None
    lines: int


def more_lines(count: int) -> str:
    """The comment line that ends a cut cell."""
    return f"# … {count:,} more line{'' if count == 1 else 's'}, not shown on the slides (the notebook has them all)"


def too_long(nb: nbformat.NotebookNode, limit: int = MAX_LINES) -> list[Shortened]:
    """The code cells of ``nb`` that :func:`shorten` cuts, in order."""
    return [Shortened(cell_info(cell).get("line"), cell.source.count("\n") + 1) for cell in nb.cells
            if cell.cell_type == "code" and cell.source.count("\n") > limit]


def shorten(nb: nbformat.NotebookNode, limit: int = MAX_LINES) -> int:
    """Cut every code cell of ``nb`` longer than ``limit`` lines to its first ``limit`` and a
    :func:`more_lines` line (in place: ``nb`` is the fit's copy); how many it cut."""
    cut = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.count("\n") > limit:
            lines = cell.source.split("\n")
            cell.source = "\n".join(lines[:limit] + [more_lines(len(lines) - limit)])
            cut += 1
    return cut
