"""A talk's facts (jaxdeck.site.facts): the machine its outputs were made on, named the short way, and its length."""

from __future__ import annotations

import nbformat

from jaxdeck.options import DeckOptions
from jaxdeck.records import KEPT, OWN, update_build, update_cell_info
from jaxdeck.site.facts import machine_of, minutes_of
from jaxdeck.site.slides import words_of

H100 = {"backend": "gpu", "device_kind": "NVIDIA H100 80GB HBM3", "device_count": 1, "jax": "0.11.2"}
CPU = {"backend": "cpu", "device_kind": "cpu", "device_count": 1, "jax": "0.12.0.1"}


def notebook(whose: list[str] | None):
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("# Title"))
    update_cell_info(nb.cells[0], slide=1, slide_type="slide")
    nb.cells.append(nbformat.v4.new_markdown_cell("Note: one two three four five six."))
    update_cell_info(nb.cells[1], slide=1, slide_type="notes")
    for k, who in enumerate(whose or [OWN]):
        cell = nbformat.v4.new_code_cell(f"x = {k}")
        update_cell_info(cell, slide=k + 2, line=k + 1, duration_s=30.0, **({"outputs_from": who} if whose else {}))
        nb.cells.append(cell)
    if whose is None:
        update_build(nb, slides=3, provenance=CPU)
    else:
        update_build(nb, slides=3, frozen_from="gpu/h100/talk.ipynb", frozen_cells=whose.count(KEPT),
                     frozen_provenance=H100, provenance=H100 if KEPT in whose else CPU,
                     own_provenance=CPU if OWN in whose else None)
    return nb


def test_a_frozen_gpu_build_names_the_gpu():
    assert machine_of(notebook([KEPT, KEPT])) == ("1 x NVIDIA H100 80GB HBM3 · jax 0.11.2", True)


def test_a_build_here_names_this_machine():
    assert machine_of(notebook(None)) == ("1 x cpu · jax 0.12.0.1", False)


def test_a_mixed_build_names_both_machines_with_their_slides():
    said, frozen = machine_of(notebook([KEPT, OWN]))
    assert frozen and said == "1 x NVIDIA H100 80GB HBM3 · jax 0.11.2 (slides 1-2); 1 x cpu · jax 0.12.0.1 (slides 3)"


def test_the_length_is_the_headers_else_the_clocks_estimate():
    nb = notebook(None)
    assert minutes_of(nb, DeckOptions(duration=45), words_of(nb)) == (45.0, False)
    minutes, estimated = minutes_of(nb, DeckOptions(words_per_minute=60), words_of(nb))
    assert estimated and abs(minutes - (6 / 60 + 30 / 60)) < 1e-9  # six words at 60 a minute, a 30 s cell
