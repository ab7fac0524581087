"""`jaxdeck bench`: build benchmarks into build/bench/build.json and a printed table."""

from __future__ import annotations

from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.decks import SLIDES, find_decks


#: the parts of the benchmark a ``--no-<part>`` switch leaves out (``--no-edit-loop`` sets ``edit_loop``),
#: each with its help
_PARTS = {
    "generated": "skip the generated 30-slide deck",
    "stock": "skip the stock jupytext + nbconvert comparison",
    "harness": "skip `python -m demos.calibration` (the timing harness's own benchmark)",
    "make": "skip `make` over every deck (nothing to do, then a one-deck prose edit)",
    "edit_loop": "skip the edit loop (--help, a CLI prose edit, the preview's latency in Chromium)",
    "first_run": "skip the fresh clone (make from nothing, every deck at -j 1 and -j N, make test)",
    "suite": "in the fresh clone, skip `make test`",
}


def _part_switches(command, parts: dict[str, str]) -> None:
    """A ``--no-<part>`` switch for each part, which sets ``args.<part>`` False."""
    for part, said in parts.items():
        command.add_argument(f"--no-{part.replace('_', '-')}", dest=part, action="store_false", help=said)


def add_arguments(command) -> None:
    deck_arguments(command)
    command.add_argument("--repeat", type=int, default=3, help="prose-edit rebuilds to take the median of (3)")
    _part_switches(command, _PARTS)
    command.add_argument("--strict", action="store_true", help="exit non-zero when a target fails")
    command.add_argument("--corpus", type=Path, default=None, metavar="DIR",
                         help="instead: build every notebook in DIR as a deck and report, for each, whether it "
                              "built, its slides, those that overflow static and live, the smallest type scale "
                              "and the seconds (build/bench/corpus.json)")
    _part_switches(command, {"live": "with --corpus: measure the static decks only"})


def run(args) -> int:
    if args.corpus is not None:
        return run_corpus(args)
    from jaxdeck.bench.report import print_report
    from jaxdeck.bench.suite import run_bench

    decks = find_decks(args.decks) if args.decks or SLIDES.is_dir() else []
    report = run_bench(decks, args.out, generated=args.generated, repeat=args.repeat, stock=args.stock,
                       harness=args.harness, make=args.make, edit_loop=args.edit_loop,
                       first_run=args.first_run, suite=args.suite)
    print_report(report)
    print(f"\nwritten {args.out / 'bench' / 'build.json'}")
    verdicts = [t for d in report["decks"] for t in d["targets"].values()]
    verdicts += [t for part in ("make", "edit_loop", "first_run") for t in report.get(part, {}).get("targets", {}).values()]
    failed = [t for t in verdicts if t is False]
    return 1 if (args.strict and failed) else 0


def run_corpus(args) -> int:
    """`--corpus DIR`: the corpus table, printed and written to build/bench/corpus.json."""
    import json

    from jaxdeck.atomic import write_text
    from jaxdeck.bench.corpus import as_json, bench_corpus, table

    rows = bench_corpus(args.corpus, args.out, live=args.live)
    print(table(rows))
    written = write_text(args.out / "bench" / "corpus.json", json.dumps({"corpus": str(args.corpus),
                                                                         "notebooks": as_json(rows)}, indent=1))
    print(f"\nwritten {written}")
    failed = [r for r in rows if not r.built or r.overflow_static or r.overflow_live]
    return 1 if (args.strict and failed) else 0
