"""The slides of a ``--frozen`` build that show this build's outputs, not the kept machine's, say so.

A frozen build keeps another machine's outputs up to the first changed code cell and makes its own
from there on (:mod:`jaxdeck.execute.frozen`); the title slide names the kept machine. So that no
reader takes a figure made here for one of that machine's, :class:`OutputsFrom` (an export
preprocessor, after :class:`jaxdeck.html.layout.SlideNesting`) gives the cell that closes such a
slide ``jd.outputs_from``: this build's machine in a few words (:func:`jaxdeck.machines.short`),
and where the note goes (``jd.outputs_from_at``). The theme's template writes it in small type
(``markup.outputs_from``): in the band above the slide's heading (the heading's own margin, so it
takes no room and covers nothing, however full the slide), or under the slide's content when the
slide starts with something else.
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor

from jaxdeck.html.layout import PART_SHOWN, SHOWN, VERTICAL
from jaxdeck.machines import short
from jaxdeck.records import OWN, BuildRecord, cell_info


def shows_own(cell) -> bool:
    """Whether ``cell`` draws outputs on its slide that this build made (in a frozen build)."""
    jd = cell.metadata.get("jd") or {}
    return (cell.cell_type == "code" and bool(cell.get("outputs")) and jd.get("role") == SHOWN
            and jd.get("output", PART_SHOWN) == PART_SHOWN and cell_info(cell).get("outputs_from") == OWN)


def heads(cell) -> bool:
    """Whether ``cell`` (the first a slide shows) starts with a Markdown heading."""
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith("#")


class OutputsFrom(Preprocessor):
    """On the cell that closes each slide showing this build's outputs: ``jd.outputs_from``, its machine,
    and ``jd.outputs_from_at``: ``top`` above the slide's heading, ``foot`` under its content."""

    def preprocess(self, nb, resources):
        record = BuildRecord.of(nb)
        if not record.frozen_from or record.own_provenance is None:
            return nb, resources
        machine, shows, first = short(record.own_provenance), False, None
        for cell in nb.cells:
            jd = cell.metadata.get("jd") or {}
            if VERTICAL in jd.get("opens", ()):
                shows, first = False, None
            if first is None and jd.get("role") == SHOWN:
                first = cell
            shows = shows or shows_own(cell)
            if VERTICAL in jd.get("closes", ()) and shows:
                jd["outputs_from"], shows = machine, False
                jd["outputs_from_at"] = "top" if first is not None and heads(first) else "foot"
        return nb, resources
