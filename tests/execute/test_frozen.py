"""Frozen outputs cell by cell (jaxdeck.execute.frozen): a kept notebook's outputs while the deck's code
still matches it, this build's from the first changed, removed or new code cell on.

Real kernels: tests/fixtures/frozen_talk.md is executed here and kept as if a GPU had made it
(frozen_support); each test edits a copy of the deck and builds it with ``--frozen``. Every
kernel run of the deck appends to its folder's executed.log.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from frozen_support import GPU, GPU_SHORT, code_texts, edit, kept_notebook, laptop_deck, line_of, runs
from jaxdeck import trust
from jaxdeck.build import build
from jaxdeck.execute.frozen import matching, said
from jaxdeck.machines import Split
from jaxdeck.records import KEPT, OWN, BuildRecord, cell_info


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """The kept notebook, signed by this user (its outputs shown as built)."""
    return kept_notebook(tmp_path_factory.mktemp("signed"), signed=True)


def built(deck, frozen, **options):
    """Build ``deck`` with ``frozen``: (the build's report, the executed notebook)."""
    done = build([deck], deck.parent / "build", frozen=frozen, **options)[0]
    return done, nbformat.read(done.notebook, as_version=4)


def whose(nb) -> list[str]:
    return [cell_info(c).get("outputs_from") for c in nb.cells if c.cell_type == "code"]


def slide_html(page: str) -> dict[int, str]:
    """Each slide's markup by its number (``data-jd-slide``)."""
    return {int(n): body for n, body in re.findall(r'<section data-jd-slide="(\d+)"[^>]*>(.*?)</section>', page, re.S)}


@pytest.mark.heavy
def test_an_unchanged_deck_keeps_every_output_and_runs_no_kernel(kept, tmp_path):
    deck = laptop_deck(tmp_path / "laptop")
    done, nb = built(deck, kept.parent)
    assert runs(deck.parent) == 0
    record = BuildRecord.of(nb)
    assert record.cache == "frozen" and record.frozen_cells == 4 and record.own_provenance is None
    assert record.provenance == GPU == record.frozen_provenance
    assert whose(nb) == [KEPT] * 4
    assert all("far" in text and "here" not in text for text in code_texts(nb))
    assert done.frozen == f"outputs of all 4 code cells kept from {kept} ({GPU_SHORT})"
    assert trust.signed_file(done.notebook), "kept from a notebook this user signed: shown as built"
    assert "Outputs on this slide" not in done.html.read_text()


@pytest.mark.heavy
def test_a_prose_and_notes_edit_keeps_every_output(kept, tmp_path):
    deck = laptop_deck(tmp_path / "laptop")
    edit(deck, "Some prose to edit.", "Prose written on the laptop.\n\n---\n\n## A slide more")
    edit(deck, "Notes on slide three.", "Notes rewritten on the laptop.")
    done, nb = built(deck, kept)
    assert runs(deck.parent) == 0 and whose(nb) == [KEPT] * 4
    assert done.frozen.startswith("outputs of all 4 code cells kept")
    assert "Prose written on the laptop." in done.html.read_text()


@pytest.mark.heavy
def test_a_changed_middle_cell_keeps_the_cells_before_it_and_runs_the_rest_here(kept, tmp_path):
    deck = laptop_deck(tmp_path / "laptop")
    edit(deck, 'print("three", machine)', 'print("three!", machine)')
    done, nb = built(deck, kept)
    assert runs(deck.parent) == 1, "the kernel ran the deck (the earlier cells too, for their state)"
    texts = code_texts(nb)
    assert ["far" in t for t in texts] == [True, True, False, False]
    assert ["here" in t for t in texts] == [False, False, True, True]
    assert "three! here" in texts[2]
    assert whose(nb) == [KEPT, KEPT, OWN, OWN]
    record = BuildRecord.of(nb)
    assert record.frozen_cells == 2 and record.frozen_from == str(kept)
    assert record.provenance == GPU, "the title slide names the kept machine"
    assert record.own_provenance["backend"] == "cpu" and record.cache == "miss"
    line = line_of(deck, 'print("three!"')
    assert done.frozen == (f"outputs of code cells 1-2 (slides 1-3) kept from {kept} ({GPU_SHORT}); code cells 3-4 "
                           f"(slides 4-5) changed since, from {deck}:{line} on: their outputs are from this build "
                           f"(1 x cpu · jax {record.own_provenance['jax']})")
    page = done.html.read_text()
    assert "Outputs measured on Test GPU 80GB" in page
    slides = slide_html(page)
    note = f"Outputs on this slide: this build, 1 x cpu · jax {record.own_provenance['jax']}"
    assert [n for n, body in sorted(slides.items()) if note in body] == [4, 5]
    assert "window.two = 1" in page and "window.four = 1" in page, "signed kept outputs and this build's: as built"
    assert trust.signed_file(done.notebook)

    # nothing changed: nothing to do; a later code edit makes the notebook again (from the cache, or a run)
    again = build([deck], deck.parent / "build", frozen=kept)[0]
    assert again.done == "up to date" and again.frozen is None and runs(deck.parent) == 1
    edit(deck, 'print("three!", machine)', 'print("three?", machine)')
    done, nb = built(deck, kept)
    assert runs(deck.parent) == 2 and "three? here" in code_texts(nb)[2] and whose(nb) == [KEPT, KEPT, OWN, OWN]
    assert build([deck], deck.parent / "build")[0].done == "HTML", "a plain build takes no kept output"


@pytest.mark.heavy
def test_a_changed_first_cell_builds_every_output_here_and_says_so_in_one_line(kept, tmp_path):
    deck = laptop_deck(tmp_path / "laptop")
    edit(deck, 'machine = "here"', 'machine = "here"  # as on the laptop')
    done, nb = built(deck, kept)
    assert runs(deck.parent) == 1 and whose(nb) == [OWN] * 4
    assert all("here" in text and "far" not in text for text in code_texts(nb))
    record = BuildRecord.of(nb)
    assert record.frozen_cells == 0 and record.provenance == record.own_provenance != GPU
    assert done.frozen == (f"code cell 1 changed since {kept} ({GPU_SHORT}), at {deck}:{line_of(deck, 'as on the laptop')}: "
                           f"every output is from this build (1 x cpu · jax {record.own_provenance['jax']})")
    assert "\n" not in done.frozen
    assert trust.signed_file(done.notebook), "wholly this build's"


@pytest.mark.heavy
def test_a_cell_added_at_the_end_keeps_every_other_output(kept, tmp_path):
    deck = laptop_deck(tmp_path / "laptop")
    deck.write_text(deck.read_text() + '\n---\n\n## Five\n\n```python\nprint("five", machine)\n```\n')
    done, nb = built(deck, kept)
    assert runs(deck.parent) == 1 and whose(nb) == [KEPT] * 4 + [OWN]
    texts = code_texts(nb)
    assert all("far" in t for t in texts[:4]) and "five here" in texts[4]
    assert done.frozen.startswith("outputs of code cells 1-4 (slides 1-5) kept from")
    assert f"code cell 5 (slide 6) changed since, at {deck}:{line_of(deck, 'five')}: its outputs are from" in done.frozen


@pytest.mark.heavy
def test_a_cell_removed_at_the_end_keeps_the_others_and_runs_no_kernel(kept, tmp_path):
    deck = laptop_deck(tmp_path / "laptop")
    text = deck.read_text()
    deck.write_text(text[:text.index("---\n\n## Four")])
    done, nb = built(deck, kept)
    assert runs(deck.parent) == 0 and whose(nb) == [KEPT] * 3
    assert done.frozen.startswith("outputs of all 3 code cells kept")


@pytest.mark.heavy
def test_an_unsigned_kept_notebook_is_sanitised_and_the_build_s_own_outputs_are_not(tmp_path):
    unsigned = kept_notebook(tmp_path / "elsewhere", signed=False)
    deck = laptop_deck(tmp_path / "laptop")
    edit(deck, 'print("three", machine)', 'print("three!", machine)')
    done, nb = built(deck, unsigned)
    texts = code_texts(nb)
    assert "two far" in texts[1] and "<script>" not in texts[1], "a kept output made elsewhere shows no script"
    assert "four here" in texts[3] and "window.four = 1" in texts[3], "this build's output is its own"
    assert not trust.signed_file(done.notebook), "a notebook with an unsigned kept part is not signed"


def split(kept: int, cells: int = 30, **more) -> Split:
    return Split(**{"source": "gpu/h100/04-vmap.ipynb", "cells": cells, "kept": kept,
                    "kept_machine": "1 x NVIDIA H100 80GB HBM3 · jax 0.11.2", "own_machine": "1 x cpu · jax 0.12.0.1",
                    "kept_slides": (1, 8) if kept else None, "own_slides": (9, 14) if kept < cells else None,
                    "stale_line": 184, **more})


def test_the_line_names_the_kept_cells_the_machines_and_the_first_stale_line():
    assert said(split(16), "slides/04-vmap.md") == (
        "outputs of code cells 1-16 (slides 1-8) kept from gpu/h100/04-vmap.ipynb (1 x NVIDIA H100 80GB HBM3 · "
        "jax 0.11.2); code cells 17-30 (slides 9-14) changed since, from slides/04-vmap.md:184 on: their outputs "
        "are from this build (1 x cpu · jax 0.12.0.1)")
    assert said(split(29, own_slides=(14, 14)), "d.md").endswith(
        "code cell 30 (slide 14) changed since, at d.md:184: its outputs are from this build (1 x cpu · jax 0.12.0.1)")
    assert said(split(0), "d.md") == ("code cell 1 changed since gpu/h100/04-vmap.ipynb (1 x NVIDIA H100 80GB HBM3 · "
                                      "jax 0.11.2), at d.md:184: every output is from this build (1 x cpu · jax 0.12.0.1)")
    assert said(split(30, own_machine=None), "d.md").startswith("outputs of all 30 code cells kept from gpu/h100/")


def test_cells_match_by_their_code_and_how_they_run_up_to_the_first_that_differs():
    from nbformat.v4 import new_code_cell

    ours = [new_code_cell("a = 1"), new_code_cell("b = 2"), new_code_cell("c = 3")]
    assert matching(ours, [new_code_cell("a = 1"), new_code_cell("b = 2"), new_code_cell("c = 3"), new_code_cell("d")]) == 3
    assert matching(ours, [new_code_cell("a = 1"), new_code_cell("b = 2 ")]) == 1
    tagged = new_code_cell("b = 2", metadata={"tags": ["raises-exception"]})
    assert matching(ours, [new_code_cell("a = 1"), tagged, new_code_cell("c = 3")]) == 1
