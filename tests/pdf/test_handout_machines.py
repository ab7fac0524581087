"""A frozen build's handout says on its title page which slides show which machine's outputs, and its
slides say where they show this build's (jaxdeck.pdf.export.machine_rows; jaxdeck.html.outputs_from)."""

from __future__ import annotations

import subprocess

import nbformat
import pytest

from frozen_support import GPU, GPU_SHORT, edit, kept_notebook, laptop_deck
from jaxdeck.build import build
from jaxdeck.pdf.export import machine_rows, provenance_rows
from jaxdeck.records import KEPT, OWN, update_build, update_cell_info

CPU = {"backend": "cpu", "device_kind": "cpu", "device_count": 1, "jax": "0.12.0.1"}


def pdf_text(path, first: int, last: int) -> str:
    done = subprocess.run(["pdftotext", "-layout", "-f", str(first), "-l", str(last), str(path), "-"],
                          capture_output=True, text=True, check=True)
    return " ".join(done.stdout.split())


def notebook(whose: list[str], slides: list[int]):
    nb = nbformat.v4.new_notebook()
    for k, (who, slide) in enumerate(zip(whose, slides)):
        cell = nbformat.v4.new_code_cell(f"x = {k}")
        update_cell_info(cell, slide=slide, line=k + 1, outputs_from=who)
        nb.cells.append(cell)
    update_build(nb, slides=6, frozen_from="gpu/h100/talk.ipynb", frozen_cells=whose.count(KEPT),
                 frozen_provenance=GPU, provenance=GPU if KEPT in whose else CPU,
                 own_provenance=CPU if OWN in whose else None)
    return nb


def test_the_title_page_rows_give_each_machine_its_pages():
    nb = notebook([KEPT, KEPT, OWN], [2, 3, 5])
    rows = [(GPU_SHORT + " (kept: talk.ipynb)"), "1 x cpu · jax 0.12.0.1 (this build)"]
    assert machine_rows(nb) == [("Slides 1-3", rows[0]), ("Slides 5-6", rows[1])]
    # an auto-fitted deck: its pages, a continuation page repeating its section's slide
    assert machine_rows(nb, [1, 2, 3, 3, 4, 5, 6]) == [("Slides 1-4", rows[0]), ("Slides 6-7", rows[1])]
    assert provenance_rows(nb)[:2] == machine_rows(nb) and ("Device", "Test GPU 80GB") in provenance_rows(nb)
    assert machine_rows(notebook([OWN, OWN], [2, 3])) == [("Slides 2-6", rows[1])]
    assert machine_rows(notebook([KEPT, KEPT], [2, 3])) == [], "every output kept: the machine's rows say it"


@pytest.mark.heavy
def test_a_frozen_handout_names_the_machine_of_each_slide(tmp_path):
    kept = kept_notebook(tmp_path / "elsewhere", signed=True)
    deck = laptop_deck(tmp_path / "laptop")
    edit(deck, 'print("three", machine)', 'print("three!", machine)')
    done = build([deck], deck.parent / "build", frozen=kept, pdf=True)[0]
    front = pdf_text(done.handout, 1, 1)
    assert f"Slides 1-3 {GPU_SHORT} (kept: frozen_talk.ipynb)" in front
    assert "Slides 4-5 1 x cpu · jax" in front and "(this build)" in front
    note = "Outputs on this slide: this build, 1 x cpu"
    assert [note in pdf_text(done.pdf, page, page) for page in range(1, 6)] == [False, False, False, True, True]
