"""`make` as a user runs it: nothing to do writes nothing; a prose edit of one deck rebuilds that deck only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jaxdeck.bench.user_make import bench_make

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_make_with_nothing_to_do_writes_nothing_and_one_edit_rebuilds_one_deck(tmp_path):
    slides = tmp_path / "slides"
    slides.mkdir()
    decks = [slides / "01-first.md", slides / "02-second.md"]
    shutil.copy(FIXTURES / "cache_basic.md", decks[0])
    decks[1].write_text("# Second\n\n```python\n6 * 7\n```\n")
    made = bench_make(decks, tmp_path / "work", repeat=1, pdf=False)
    assert [line.split(": ")[1] for line in made["first"]["report"]] == ["executed 3 cells, HTML", "executed 1 cell, HTML"]
    (noop,) = made["noop"]["runs"]
    assert noop["written"] == [] and all(line.endswith(": up to date") for line in noop["report"])
    edit = made["prose_edit"]
    assert edit["deck"] == "01-first" and edit["decks_rebuilt"] == ["01-first"]
    assert edit["all_decks"]["report"] == ["slides/01-first.md: HTML", "slides/02-second.md: up to date"]
    assert edit["deck_alone"]["report"] == ["slides/01-first.md: HTML"]
    assert made["noop"]["heaviest"] and made["noop"]["imports_s"] > 0
    assert set(made["targets"]) == {"noop_make_lt_1s", "one_deck_edit_le_deck_alone"}
    assert decks[0].read_text() == (FIXTURES / "cache_basic.md").read_text(), "the benchmark edits its own copy"
