"""`jaxdeck bench`: a real (small) run of the benchmark on a fixture deck, and its report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jaxdeck.bench.pipeline import bench_deck, bench_make, generated_deck, run_bench, table
from jaxdeck.cli import parser

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_generated_deck_has_thirty_slides(tmp_path):
    from jaxdeck.read import deck_to_notebook

    path = tmp_path / "generated-30.md"
    path.write_text(generated_deck(30))
    nb = deck_to_notebook(path)
    assert nb.metadata.jaxdeck_build.slides == 30
    assert sum(c.cell_type == "code" for c in nb.cells) >= 5


def test_bench_measures_cold_warm_and_writes_json(tmp_path):
    deck = tmp_path / "slides" / "cache_basic.md"
    deck.parent.mkdir()
    shutil.copy(FIXTURES / "cache_basic.md", deck)
    report = run_bench([deck], tmp_path / "build", generated=False, repeat=1, stock=False, harness=False, pdf=False,
                       make=True)
    written = json.loads((tmp_path / "build" / "bench" / "build.json").read_text())
    made = json.loads((tmp_path / "build" / "bench" / "make.json").read_text())
    assert made["targets"] == written["make"]["targets"] and made["prose_edit"]["decks_rebuilt"] == ["cache_basic"]
    assert made["first"]["report"] == ["slides/cache_basic.md: HTML"], "the first make found the benchmark's cache"
    assert written["decks"][0]["name"] == "cache_basic"
    d = report["decks"][0]
    assert d["cells_executed_cold"] == 3
    assert all(run["cells_executed"] == 0 for run in d["warm_prose"]["runs"]), "prose edits execute nothing"
    assert d["warm_code"]["cells_executed"] == 3, "a code edit executes the deck"
    assert d["cold"]["stages"]["execute"] > 0 and d["floor"]["build_s"] > 0
    assert d["kernel_peak_rss_mb"] and d["kernel_peak_rss_mb"] > 10
    assert set(d["targets"]) == {"prose_rebuild_le_10pct_cold", "cold_le_1.3x_floor", "cold_le_stock"}
    text = table(report)
    assert "cache_basic" in text and "prose rebuild <= 10% of cold" in text
    assert deck.read_text() == (FIXTURES / "cache_basic.md").read_text(), "the source deck is never edited"


def test_bench_command_is_registered():
    args = parser().parse_args(["bench", "--no-stock", "--repeat", "1"])
    assert args.stock is False and args.repeat == 1


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
    report = {"decks": [], "make": made}
    assert "nothing to do" in table(report) and "prose edit of 01-first" in table(report)
