"""`make bench`: every benchmark in turn, written to ``build/bench/build.json`` (and ``make.json``).

For each deck (plus a generated 30-slide deck): its stages against their floor, cached
rebuilds and the stock pipeline (:mod:`jaxdeck.bench.deck_stages`); then `make` over all the
decks as a user runs it (:mod:`jaxdeck.bench.user_make`); then the preview's edit loop
(:mod:`jaxdeck.bench.edit_loop`); then a newcomer's first run in a fresh clone
(:mod:`jaxdeck.bench.first_run`: setup, the decks at -j 1 and -j N, the suite); then the timing harness's own benchmark
(:mod:`jaxdeck.bench.calibration`). :mod:`jaxdeck.bench.report` prints the figures and verdicts.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime
from pathlib import Path

from jaxdeck.atomic import write_text
from jaxdeck.bench.calibration import MODULE, timing_harness
from jaxdeck.bench.deck_stages import bench_deck
from jaxdeck.bench.edits import generated_deck
from jaxdeck.execute import fingerprint


def _say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def run_bench(decks: list[Path], out: Path, *, generated: bool = True, repeat: int = 3, stock: bool = True,
              harness: bool = True, pdf: bool = True, make: bool = False, edit_loop: bool = False,
              first_run: bool = False, suite: bool = True) -> dict:
    """Run the benchmarks asked for under ``out/bench`` and return build.json's content."""
    bench = out / "bench"
    work = bench / "work"
    work.mkdir(parents=True, exist_ok=True)
    sources = list(decks)
    if generated:
        gen = work / "source" / "generated-30.md"
        gen.parent.mkdir(parents=True, exist_ok=True)
        write_text(gen, generated_deck(30))
        sources.append(gen)
    report = {
        "when": datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {"hostname": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "environment": fingerprint.provenance(fingerprint.environment(work)),
        "decks": [],
    }
    for source in sources:
        _say(f"{source} ...")
        report["decks"].append(bench_deck(source, work, repeat=repeat, stock=stock, pdf=pdf))
    if make and decks:
        from jaxdeck.bench.user_make import bench_make

        _say("make over every deck: nothing to do, then one prose edit ...")
        seeds = [work / Path(d["deck"]).stem / "build" for d in report["decks"]]
        report["make"] = bench_make(list(decks), work, seeds, repeat=repeat, pdf=pdf)
        # its own file too, as demos.calibration writes timing.json: a partial run that rewrites build.json keeps it
        write_text(bench / "make.json", json.dumps(dict(report["make"], when=report["when"]), indent=1, default=str))
    if edit_loop and decks:
        from jaxdeck.bench.edit_loop import bench_edit_loop

        main = next((d for d in decks if d.name.startswith("01-")), decks[0])
        _say(f"the edit loop on {main}: --help, a prose edit from the CLI, the preview in Chromium ...")
        report["edit_loop"] = bench_edit_loop(main, work, repeat=repeat)
    if first_run:
        from jaxdeck.bench.first_run import bench_first_run
        from jaxdeck.html.assets import ROOT

        _say("a fresh clone: make, every deck at -j 1 and -j N" + (", make test" if suite else "") + " ...")
        report["first_run"] = bench_first_run(ROOT, work, suite=suite)
        write_text(bench / "first_run.json", json.dumps(dict(report["first_run"], when=report["when"]), indent=1))
    if harness:
        _say(f"python -m {MODULE} ...")
        report["timing_harness"] = timing_harness(bench)
    write_text(bench / "build.json", json.dumps(report, indent=1, default=str))
    return report
