"""`make bench`'s run: build.json and make.json written with the figures the report returned, the source untouched."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_the_run_writes_build_json_and_make_json(bench_run):
    report, deck, build = bench_run
    written = json.loads((build / "bench" / "build.json").read_text())
    made = json.loads((build / "bench" / "make.json").read_text())
    assert set(written) == {"when", "machine", "environment", "decks", "make"}
    assert written["decks"][0]["name"] == "cache_basic" and written["decks"] == json.loads(json.dumps(report["decks"]))
    assert made["targets"] == written["make"]["targets"] and made["when"] == written["when"]
    assert made["first"]["report"] == ["slides/cache_basic.md: HTML"], "the first make found the benchmark's cache"
    assert made["prose_edit"]["decks_rebuilt"] == ["cache_basic"]


def test_the_source_deck_is_never_edited(bench_run):
    _, deck, _ = bench_run
    assert deck.read_text() == (FIXTURES / "cache_basic.md").read_text()
