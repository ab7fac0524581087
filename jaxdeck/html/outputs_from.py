"""The slides of a ``--frozen`` build that show this build's outputs, not the kept machine's, say so.

A frozen build keeps another machine's outputs up to the first changed code cell and makes its own
from there on (:mod:`jaxdeck.execute.frozen`); the title slide names the kept machine. So that no
reader takes a figure made here for one of that machine's, :class:`OutputsFrom` (an export
preprocessor, after :class:`jaxdeck.html.layout.SlideNesting`) gives the cell that closes such a
slide ``jd.outputs_from``: this build's machine in a few words (:func:`jaxdeck.machines.short`).
The theme's template writes it in small type at the slide's foot (``markup.outputs_from``).
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


class OutputsFrom(Preprocessor):
    """On the cell that closes each slide showing this build's outputs: ``jd.outputs_from``, its machine."""

    def preprocess(self, nb, resources):
        record = BuildRecord.of(nb)
        if not record.frozen_from or record.own_provenance is None:
            return nb, resources
        machine, shows = short(record.own_provenance), False
        for cell in nb.cells:
            jd = cell.metadata.get("jd") or {}
            if VERTICAL in jd.get("opens", ()):
                shows = False
            shows = shows or shows_own(cell)
            if VERTICAL in jd.get("closes", ()) and shows:
                jd["outputs_from"], shows = machine, False
        return nb, resources
