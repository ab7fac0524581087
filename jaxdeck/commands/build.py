"""`jaxdeck build`: decks -> build/notebooks/NAME.ipynb (executed) and build/html/NAME.html (+ PDFs with --pdf,
+ build/single/NAME.html, the deck in one file, with --self-contained; + build/article/NAME.html, the talk as a
readable page, with --article, and build/article/NAME.pdf with --article --pdf).

Only what is out of date is made: each artefact keeps a record of what it was made from
(jaxdeck.stamps), and one line per deck says what was done (`up to date`, `HTML`,
`HTML + PDF`, `executed 3 cells, HTML + PDF`). `--force` rebuilds every artefact.
Executed outputs are cached under build/cache/ keyed on the code cells, the kernel
environment and the demos version, so a prose-only edit runs no cell; `--no-cache` always
executes. `--frozen PATH` builds with outputs executed elsewhere (e.g. on a GPU box): PATH
is that machine's build/notebooks/NAME.ipynb, or a folder of them; a code cell keeps its output
from there while it and every code cell before it match, the later ones are this build's, and
one line per deck says which (jaxdeck.execute.frozen).

With `--pdf` and no Chromium to print with, every deck still gets its notebook and HTML;
then the build stops (non-zero) with one line saying how to get a browser.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.decks import Outputs, find_decks
from jaxdeck.errors import DeckError
from jaxdeck.pdf.layout import add_flags, flags_of
from jaxdeck.stages.options import BuildOptions


def add_arguments(command) -> None:
    deck_arguments(command)
    command.add_argument("--timeout", type=float, default=None, help="default per-cell timeout in seconds (60)")
    command.add_argument("--no-cache", dest="cache", action="store_false",
                         help="execute every deck even if its code is unchanged (bypass build/cache)")
    command.add_argument("--frozen", type=Path, default=None, metavar="PATH",
                         help="take outputs from an executed notebook (e.g. build/notebooks/NAME.ipynb copied "
                              "from a GPU box, or a folder of them) while the deck's code cells match it, up to "
                              "the first changed one; the rest run here")
    command.add_argument("--pdf", action="store_true",
                         help="print build/pdf/NAME.pdf and NAME-handout.pdf too (the browser starts while decks run)")
    add_flags(command)
    command.add_argument("--self-contained", dest="single", action="store_true",
                         help="write build/single/NAME.html too: the deck in one HTML file, every asset inlined, "
                              "that presents offline from a folder of its own")
    command.add_argument("--article", action="store_true",
                         help="write build/article/NAME.html too: the talk as a readable page, each slide's content "
                              "with its notes as prose beneath it (with --pdf also build/article/NAME.pdf)")
    command.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                         help="build N decks at once (default: one per core, as many as memory allows)")
    command.add_argument("--strict", action="store_true",
                         help="make warnings errors: a remote image that cannot be fetched stops the build "
                              "(the header's `strict: true` does the same for one deck)")
    command.add_argument("--allow-errors", action="store_true",
                         help="show a cell's error on its slide and list it as a warning instead of failing "
                              "(a tutorial run where it cannot fully run; the header's `allow_errors: true`)")
    command.add_argument("--force", action="store_true",
                         help="rebuild every artefact, up to date or not (outputs still come from the execution "
                              "cache; add --no-cache to run every kernel again)")


def _jobs(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of decks from 1 up, got {text!r}")
    return int(text)


def report(built) -> None:
    import sys

    from jaxdeck.errors import printable

    print(f"{printable(str(built.deck))}: {built.done}", flush=True)
    if built.frozen:  # under its deck's line: which outputs --frozen kept, which this build made
        print(f"  {built.frozen}", flush=True)
    for warning in built.warnings:
        print(f"warning: {warning}", file=sys.stderr, flush=True)


def build_decks(decks: list[Path], root: Path, options: BuildOptions | None = None, *, report=None,
                **keywords):
    """:func:`jaxdeck.build.build`; with ``options.pdf`` and no Chromium found, the notebooks and HTML
    of every deck, then a DeckError that says how to get a browser (unless every PDF is up to date).
    """
    from jaxdeck.build import build

    options = replace(options or BuildOptions(), **keywords)
    if options.pdf:
        from jaxdeck.browser import find_chromium

        try:
            find_chromium()
        except DeckError as missing:
            built = build(decks, root, replace(options, pdf=False, reprint=False), report=report)
            if options.reprint or options.force or _pdfs_wanted(decks, root, options):
                reason = missing.message.split(" (needed")[0]
                raise DeckError(None, None, f"{reason}, so no PDFs were printed (notebooks and HTML are built)",
                                missing.hint) from None
            return built
    return build(decks, root, options, report=report)


def _pdfs_wanted(decks: list[Path], root: Path, options: BuildOptions) -> bool:
    """Whether any deck's PDFs (with ``options.article``, its article's too; its handout laid out as
    ``options.flags`` say) are missing or out of date."""
    from jaxdeck import stamps
    from jaxdeck.stages.plan import plan

    sources = stamps.Sources(root)
    wanted = BuildOptions(pdf=True, execution=False, article=options.article, flags=options.flags)
    return any(plan(deck, Outputs(deck, root), sources, wanted).pdfs for deck in decks)


def run(args) -> int:
    decks = find_decks(args.decks)
    if args.strict:  # a deck built earlier, with warnings, is not rebuilt: it fails all the same
        args.force = args.force or bool(warned(decks, args.out))
    build_decks(decks, args.out, BuildOptions(timeout=args.timeout, cache=args.cache, frozen=args.frozen, pdf=args.pdf,
                                              force=args.force, jobs=args.jobs, strict=args.strict,
                                              allow_errors=args.allow_errors, single=args.single,
                                              article=args.article, flags=flags_of(args)),
                report=report)
    return 0


def warned(decks: list[Path], root: Path) -> list[str]:
    """The warnings the decks' executed notebooks recorded when they were read."""
    import json

    from jaxdeck.records import BUILD_KEY

    found = []
    for deck in decks:
        try:
            record = json.loads(Outputs(deck, root).notebook.read_text(encoding="utf-8"))["metadata"]
        except (OSError, ValueError, KeyError):
            continue
        found += (record.get(BUILD_KEY) or {}).get("warnings") or []
    return found
