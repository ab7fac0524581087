"""jaxdeck.machines: which machine made which outputs of a frozen build, named the same everywhere."""

from __future__ import annotations

import nbformat

from jaxdeck.machines import Split, pages_of, ranges, short, split_of
from jaxdeck.records import KEPT, OWN, update_build, update_cell_info

GPU = {"backend": "gpu", "device_kind": "NVIDIA H100 80GB HBM3", "device_count": 1, "jax": "0.11.2"}
CPU = {"backend": "cpu", "device_kind": "cpu", "device_count": 8, "jax": "0.12.0.1"}


def test_a_machine_in_a_few_words():
    assert short(GPU) == "1 x NVIDIA H100 80GB HBM3 · jax 0.11.2"
    assert short(CPU) == "8 x cpu · jax 0.12.0.1"
    assert short({"backend": "cpu"}) == "cpu" and short(None) == "?"


def test_numbers_as_runs():
    assert ranges([3, 1, 2, 5, 7, 8, 8]) == "1-3, 5, 7-8"
    assert ranges([4]) == "4" and ranges([]) == ""


def deck(whose: list[str], slides: list[int]):
    """A frozen build's notebook: a title slide, then a code cell per entry of ``whose`` on its slide."""
    nb = nbformat.v4.new_notebook()
    title = nbformat.v4.new_markdown_cell("# Talk")
    update_cell_info(title, slide=1, line=1)
    nb.cells.append(title)
    for k, (who, slide) in enumerate(zip(whose, slides)):
        cell = nbformat.v4.new_code_cell(f"x = {k}")
        update_cell_info(cell, slide=slide, line=10 * (k + 1), outputs_from=who)
        nb.cells.append(cell)
    update_build(nb, slides=max(slides) + 1, frozen_from="gpu/h100/talk.ipynb", frozen_provenance=GPU,
                 own_provenance=CPU if OWN in whose else None)
    return nb


def test_the_split_of_a_frozen_build():
    split = split_of(deck([KEPT, KEPT, OWN, OWN], [2, 3, 3, 5]))
    assert split == Split(source="gpu/h100/talk.ipynb", cells=4, kept=2, kept_machine=short(GPU),
                          own_machine=short(CPU), kept_slides=(1, 3), own_slides=(3, 6), stale_line=30)
    assert split.mixed
    every = split_of(deck([KEPT, KEPT], [2, 3]))
    assert every.kept == 2 and every.own_machine is None and every.own_slides is None and not every.mixed
    none = split_of(deck([OWN, OWN], [2, 3]))
    assert none.kept == 0 and none.kept_slides is None and none.own_slides == (2, 4) and none.stale_line == 10
    assert split_of(nbformat.v4.new_notebook()) is None, "not a frozen build"


def test_slides_become_printed_pages():
    assert pages_of((1, 3), None) == [1, 2, 3]
    # an auto-fit's continuation pages repeat their section's slide; a page naming none goes with the one before
    assert pages_of((2, 3), [1, 2, 2, 0, 3, 4]) == [2, 3, 4, 5]
    assert pages_of(None, [1, 2]) == []
