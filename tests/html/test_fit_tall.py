"""Blocks taller than a slide, built for real: a kernel runs the fixture, Chromium measures and checks it.

Each section of tests/fixtures/tall/tall_blocks.md holds one kind of tall block; none may
overflow, none may use type below the legibility floor, and what a slide leaves out is in
the handout.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from jaxdeck.build import build
from jaxdeck.check.deck import check_deck
from jaxdeck.decks import Outputs
from jaxdeck.html.fit_tall import FLOOR, Decision, split_line

#: builds with a kernel and Chromium (a live server too)
pytestmark = pytest.mark.heavy

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "tall" / "tall_blocks.md"


@pytest.fixture(scope="module")
def tall(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tall")
    deck = folder / FIXTURE.name
    shutil.copy(FIXTURE, deck)
    build([deck], folder / "build", pdf=True, jobs=1)
    outputs = Outputs(deck, folder / "build")
    return deck, outputs, outputs.html.read_text(encoding="utf-8")


def test_no_tall_block_overflows_its_slide(tall, browser):
    deck, outputs, _ = tall
    nb = nbformat.read(outputs.notebook, as_version=4)
    problems = [p for p in check_deck(deck, nb, outputs.html, browser=browser) if p.kind == "overflow"]
    assert problems == []


def test_a_long_code_cell_gets_smaller_type_no_smaller_than_the_floor_then_a_split(tall):
    _, _, html = tall
    scales = [float(s.split(";")[0]) for s in html.split("--jd-fit-scale: ")[1:]]
    assert scales and min(scales) >= FLOOR
    assert "A long code cell (continued)" in html  # 50 lines do not fit even at the floor


def test_a_long_output_shows_its_first_lines_and_how_many_more(tall):
    _, _, html = tall
    assert "step  0: loss 1.0000" in html and "more lines (all of it in the handout)" in html


def test_an_expected_error_shows_as_xmode_minimal_on_the_slide_and_whole_in_the_handout(tall):
    _, outputs, html = tall
    assert "<pre>ValueError: the innermost call refuses: n reached 0" in html
    assert 'data-jd-full="Full traceback"' in html
    handout = subprocess.run(["pdftotext", "-layout", str(outputs.handout), "-"], capture_output=True, text=True,
                             check=True).stdout
    assert "Full traceback" in handout and handout.count("deeper(n - 1)") >= 10
    assert "Full output" in handout and "step 59: loss 0.0167" in handout


def test_a_tall_rich_output_is_scaled_no_smaller_than_the_floor(tall):
    _, _, html = tall
    zooms = [float(z.split('"')[0]) for z in html.split('style="--jd-zoom: ')[1:]]
    assert zooms and FLOOR <= min(zooms) < 1


def test_a_rich_output_too_tall_at_the_floor_is_cut_at_a_height_and_whole_in_the_handout(tall):
    _, outputs, html = tall
    assert '<div class="jd-clip" style="max-height: ' in html and "cut here to fit the slide" in html
    handout = subprocess.run(["pdftotext", "-layout", str(outputs.handout), "-"], capture_output=True, text=True,
                             check=True).stdout
    assert "entry 59" in handout


def test_a_split_falls_at_a_top_level_statement_where_one_is_near():
    source = "def f():\n    return 1\n\ndef g():\n    return 2\n\nx = f()\ny = g()\n"
    assert split_line(source, 5) == 3  # g's def starts the second part
    assert split_line("x = [\n" + "1,\n" * 20 + "]\n", 10) == 10  # one statement: lines are all there is
    assert Decision("c", scale=0.7, lines={1: 3}).record() == {"scale": 0.7, "output_scale": 1.0, "lines": {"1": 3}}


def test_the_smallest_type_leaves_pictures_out():
    from jaxdeck.html.fit_tall import smallest_type

    assert smallest_type([]) == 1.0
    assert smallest_type([{"scale": 0.8, "output_scale": 0.7}, {"scale": 0.4, "picture": True}]) == 0.7
