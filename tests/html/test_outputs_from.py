"""A frozen build's slide that shows this build's outputs, not the kept machine's, says so in small type
(jaxdeck.html.outputs_from, markup.html.j2's ``outputs_from``): the fixture deck read, its outputs and
records set as a frozen build leaves them, rendered to HTML (no kernel, no browser)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from jaxdeck.html.export import to_html
from jaxdeck.read import deck_to_notebook
from jaxdeck.records import KEPT, OWN, update_build, update_cell_info

FIXTURE = Path(__file__).parents[1] / "fixtures" / "frozen_talk.md"
GPU = {"backend": "gpu", "device_kind": "Test GPU 80GB", "device_count": 1, "jax": "9.9.9"}
CPU = {"backend": "cpu", "device_kind": "cpu", "device_count": 1, "jax": "0.12.0.1"}
NOTE = "Outputs on this slide: this build, 1 x cpu · jax 0.12.0.1"


def frozen(tmp_path, whose: list[str], hide: int | None = None):
    """The fixture deck as a frozen build leaves it: code cell k's outputs from ``whose[k]``
    (cell ``hide`` tagged remove-output)."""
    nb = deck_to_notebook(FIXTURE, tmp_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for k, (cell, who) in enumerate(zip(code, whose)):
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"cell {k + 1} from {who}\n")]
        update_cell_info(cell, outputs_from=who)
        if k == hide:
            cell.metadata["tags"] = ["remove-output"]
    update_build(nb, frozen_from="gpu/frozen_talk.ipynb", frozen_cells=whose.count(KEPT), frozen_provenance=GPU,
                 provenance=GPU, own_provenance=CPU if OWN in whose else None)
    return nb


def noted(page: str) -> list[int]:
    """The slides (``data-jd-slide``) whose markup holds the note."""
    slides = re.findall(r'<section data-jd-slide="(\d+)"[^>]*>(.*?)</section>', page, re.S)
    return [int(n) for n, body in slides if NOTE in body]


def test_only_the_slides_showing_this_build_s_outputs_say_so(tmp_path):
    page = to_html(frozen(tmp_path, [KEPT, KEPT, OWN, OWN]))
    assert noted(page) == [4, 5]
    assert page.count('class="jd-outputs-from jd-at-top"') == 2, "in the band above each slide's heading"
    assert "Outputs measured on Test GPU 80GB" in page, "the title slide names the kept machine"


def test_a_slide_that_shows_none_of_its_outputs_says_nothing(tmp_path):
    assert noted(to_html(frozen(tmp_path, [KEPT, KEPT, OWN, OWN], hide=2))) == [5]


def test_every_kept_output_or_a_plain_build_no_note(tmp_path):
    assert noted(to_html(frozen(tmp_path, [KEPT] * 4))) == []
    nb = frozen(tmp_path, [OWN] * 4)
    assert noted(to_html(nb)) == [2, 3, 4, 5]
    update_build(nb, frozen_from=None, own_provenance=None)
    assert noted(to_html(nb)) == []


def test_a_slide_that_starts_without_a_heading_says_so_under_its_content(tmp_path):
    nb = frozen(tmp_path, [KEPT, KEPT, OWN, OWN])
    four = next(c for c in nb.cells if c.cell_type == "markdown" and "## Four" in c.source)
    four.source = four.source.replace("## Four", "Four, without a heading")
    page = to_html(nb)
    assert noted(page) == [4, 5]
    assert page.count('class="jd-outputs-from jd-at-top"') == 1 and page.count('class="jd-outputs-from"') == 1
