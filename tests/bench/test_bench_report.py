"""The printed report shows build.json's figures and verdicts, from a made-up report and from a real run."""

from __future__ import annotations

import pytest
from jaxdeck.bench.report import as_text

WIDE = 400  # no cell wraps, so that a row reads as one line


def _deck(name: str, targets: dict, **extra) -> dict:
    return {
        "name": name, "code_cells": 4,
        "cold": {"stages": {"convert": 0.11, "execute": 2.5, "export_html": 0.75, "pdf": 1.25},
                 "build_s": 3.5, "total_s": 5.0},
        "floor": {"one_print_s": 0.9, "total_s": 4.0},
        "warm_prose": {"median_s": 0.35}, "warm_code": {"seconds": 3.25},
        "kernel_peak_rss_mb": 181.5, "targets": targets,
        "pdf": {"available": True, "seconds": 1.25}, **extra,
    }


REPORT = {
    "decks": [
        _deck("01-talk", {"prose_rebuild_le_10pct_cold": True, "cold_le_1.3x_floor": True, "cold_le_stock": False},
              cli_cold_s=4.5, stock={"total_s": 3.0, "ratio": 1.5, "ok": True}),
        _deck("02-other", {"prose_rebuild_le_10pct_cold": False, "cold_le_1.3x_floor": None, "cold_le_stock": None},
              pdf={"available": False, "why": "no Chromium"},
              stock={"ok": False, "error": "Traceback\nNoSuchKernel: python3", "total_s": 0.5}),
    ],
    "make": {"target": "slides", "decks": ["01-talk.md", "02-other.md"], "first": {"seconds": 9.87},
             "noop": {"median_s": 0.42, "runs": [{"written": []}], "startup_s": 0.02, "imports_s": 0.31,
                      "heaviest": [{"module": "jaxdeck.cli", "seconds": 0.12}]},
             "prose_edit": {"deck": "01-talk", "all_decks": {"seconds": 1.05}, "deck_alone": {"seconds": 1.0},
                            "ratio": 1.05, "decks_rebuilt": ["01-talk"]},
             "targets": {"noop_make_lt_1s": True, "one_deck_edit_le_deck_alone": True}},
    "edit_loop": {"deck": "slides/01-talk.md",
                  "cli_start": {"help_s": 0.21, "python_s": 0.02, "import_nbformat_s": 0.15,
                                "import_nbformat_without_rfc3987_syntax_s": 0.09},
                  "cli_prose": {"cold_s": 6.0, "prose_s": 0.48, "fraction": 0.08},
                  "preview": {"prose_s": 0.33, "code_s": 1.61, "code_cell_s": 0.4, "kept_slide": True},
                  "targets": {"cli_prose_le_10pct_cold": True, "preview_prose_lt_1s": True,
                              "preview_code_le_cell_plus_1s": False, "preview_kept_slide": True}},
    "timing_harness": {"available": True, "ok": True, "seconds": 12.5},
}


def _row(text: str, *first: str) -> list[str]:
    """The words of the one line of ``text`` that starts with the words ``first``."""
    (row,) = [line.split() for line in text.splitlines() if line.split()[:len(first)] == list(first)]
    return row


def test_every_figure_and_verdict_is_printed():
    text = as_text(REPORT, WIDE)
    # stages: cells, convert, execute, html, pdf, cold, floor, cold/floor, one print, kernel MB
    assert "01-talk 4 0.11 2.50 0.75 1.25 5.00 4.00 1.25x 0.90 181.50" in " ".join(text.split())
    # rebuilds: prose, prose/cold, prose/html-only cold, code, ours cli, stock, ours/stock
    assert "01-talk 0.35 7.0% 10.0% 3.25 4.50 3.00 1.50x" in " ".join(text.split())
    assert "02-other 0.35 7.0% 10.0% 3.25 - 0.50 -" in " ".join(text.split())
    assert _row(text, "01-talk", "PASS") == ["01-talk", "PASS", "PASS", "FAIL", "1.25", "s"]
    assert _row(text, "02-other", "FAIL")[:4] == ["02-other", "FAIL", "n/a", "n/a"]
    assert "unavailable: no Chromium" in text and "stock pipeline failed: ['NoSuchKernel: python3']" in text
    assert "prose rebuild <= 10% of cold" in " ".join(text.split())


def test_make_edit_loop_and_harness_are_printed():
    flat = " ".join(as_text(REPORT, WIDE).split())
    assert "make slides over 2 decks" in flat and "first build 9.87" in flat
    assert ("nothing to do 0.42 files written: 0; python start-up 0.02 s, imports 0.31 s, "
            "heaviest: jaxdeck.cli 0.12 no-op make < 1 s PASS") in flat
    assert ("prose edit of 01-talk: make 1.05 1.05x make DECK=01-talk alone; decks rebuilt: 01-talk "
            "one-deck edit <= that deck alone (+10 %) PASS") in flat
    assert "prose edit of 01-talk: make DECK=01-talk 1.00" in flat
    assert "edit loop on 01-talk.md" in flat and "jaxdeck --help 0.21 python -c pass 0.02 s" in flat
    assert "prose-edit rebuild 0.48 8.0 % of cold <= 10 % of cold PASS" in flat
    assert "save to visible in Chromium: prose 0.33" in flat and "<= cell + 1 s FAIL" in flat
    assert "demos.calibration: ok (12.50 s)" in flat


def test_a_report_without_decks_shows_the_loops_failures():
    loop = dict(REPORT["edit_loop"], cli_prose={"error": "DeckError: talk.md:3"}, preview={"error": "no browser"})
    flat = " ".join(as_text({"decks": [], "edit_loop": loop, "timing_harness": {"available": False,
                                                                                "why": "not found"}}, WIDE).split())
    assert "failed: DeckError: talk.md:3" in flat and "unavailable: no browser" in flat
    assert "demos.calibration: not found" in flat and "cold build per stage" not in flat


@pytest.mark.heavy
def test_a_real_run_is_printed(bench_run):
    report, _, _ = bench_run
    flat = " ".join(as_text(report).split())
    assert "cache_basic" in flat and "nothing to do" in flat and "prose edit of cache_basic" in flat


def test_a_fresh_clones_first_run_is_printed_with_its_targets():
    first = {"cores": 2, "clone": "/tmp/clone",
             "first_make": {"setup_s": 4.71, "decks_s": 52.37, "seconds": 57.08},
             "parallel": {"jobs": 2, "serial_s": 71.89, "parallel_s": 49.03, "speed_up": 1.466},
             "suite": {"seconds": 494.0, "summary": ["14 passed, 903 deselected in 68.36s"]},
             "targets": {"first_make_lt_60s": True, "parallel_speed_up_ge_1_4": True, "suite_lt_5min": False}}
    flat = " ".join(as_text({"decks": [], "first_run": first}, WIDE).split())
    assert "a fresh clone (2 cores)" in flat
    assert "make (setup + every deck, HTML + PDF) 57.08 setup 4.71 s, decks 52.37 s (package caches warm) < 60 s PASS" in flat
    assert "every deck, --jobs 2 49.03 1.47x faster than --jobs 1 (71.89 s) >= 1.4x PASS" in flat
    assert "make test 494.00 14 passed, 903 deselected in 68.36s < 300 s FAIL" in flat
