"""One small real benchmark run for the whole folder: a fixture deck, no stock pipeline, no PDF, `make` included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture(scope="session")
def bench_run(tmp_path_factory):
    """``(report, deck, build folder)`` of ``run_bench`` on a copy of cache_basic.md, run once."""
    from jaxdeck.bench.suite import run_bench

    root = tmp_path_factory.mktemp("bench")
    deck = root / "slides" / "cache_basic.md"
    deck.parent.mkdir()
    shutil.copy(FIXTURES / "cache_basic.md", deck)
    report = run_bench([deck], root / "build", generated=False, repeat=1, stock=False, harness=False, pdf=False,
                       make=True)
    return report, deck, root / "build"
