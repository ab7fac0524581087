"""One deck's figures: the cold build per stage, the floor, rebuilds that execute nothing after prose edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxdeck.bench.deck_stages import stage_record
from jaxdeck.build import Built, StageSeconds


@pytest.mark.heavy
def test_cold_build_floor_and_rebuilds(bench_run):
    report, _, _ = bench_run
    (d,) = report["decks"]
    assert d["cells_executed_cold"] == 3
    assert d["cold"]["stages"]["execute"] > 0 and d["cold"]["stages"]["pdf"] is None
    assert d["floor"]["build_s"] > 0 and d["floor"]["one_print_s"] is None
    assert d["pdf"] == {"available": False, "why": "skipped"}
    assert d["kernel_peak_rss_mb"] and d["kernel_peak_rss_mb"] > 10
    (prose,) = d["warm_prose"]["runs"]
    assert set(prose) == {"seconds", "cells_executed", "convert", "execute", "export_html", "pdf", "cache", "done"}
    assert prose["cells_executed"] == 0 and prose["done"] == "HTML", "a prose edit executes nothing"
    assert d["warm_code"]["cells_executed"] == 3 and d["warm_code"]["done"] == "executed 3 cells, HTML"
    assert "stock" not in d and d["targets"]["cold_le_stock"] is None
    assert set(d["targets"]) == {"prose_rebuild_le_10pct_cold", "cold_le_1.3x_floor", "cold_le_stock"}


def test_a_build_without_stage_times_records_none():
    built = Built(Path("talk.md"), Path("build"), "up to date")
    assert stage_record(built) == {"convert": None, "execute": None, "export_html": None, "pdf": None,
                                   "cache": None, "cells_executed": None, "done": "up to date"}
    timed = Built(Path("talk.md"), Path("build"), "HTML", seconds=StageSeconds(0.5, 0.0, 0.25), cache="hit",
                  cells_executed=0)
    assert stage_record(timed) == {"convert": 0.5, "execute": 0.0, "export_html": 0.25, "pdf": None,
                                   "cache": "hit", "cells_executed": 0, "done": "HTML"}
