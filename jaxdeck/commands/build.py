"""`jaxdeck build`: decks -> build/notebooks/NAME.ipynb (executed) and build/html/NAME.html (+ PDFs with --pdf).

Only what is out of date is made: each artefact keeps a record of what it was made from
(jaxdeck.stamps), and one line per deck says what was done (`up to date`, `HTML`,
`HTML + PDF`, `executed 3 cells, HTML + PDF`). `--force` rebuilds every artefact.
Executed outputs are cached under build/cache/ keyed on the code cells, the kernel
environment and the demos version, so a prose-only edit runs no cell; `--no-cache` always
executes. `--frozen PATH` builds with outputs executed elsewhere (e.g. on a GPU box): PATH
is that machine's build/notebooks/NAME.ipynb, or a folder of them; the deck's code cells
must match, and the outputs keep their provenance.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.decks import find_decks


def add_arguments(command) -> None:
    deck_arguments(command)
    command.add_argument("--timeout", type=float, default=None, help="default per-cell timeout in seconds (60)")
    command.add_argument("--no-cache", dest="cache", action="store_false",
                         help="execute every deck even if its code is unchanged (bypass build/cache)")
    command.add_argument("--frozen", type=Path, default=None, metavar="PATH",
                         help="take outputs from an executed notebook (e.g. build/notebooks/NAME.ipynb copied "
                              "from a GPU box, or a folder of them) instead of running the kernel; "
                              "code cells must match")
    command.add_argument("--pdf", action="store_true",
                         help="print build/pdf/NAME.pdf and NAME-handout.pdf too (the browser starts while decks run)")
    command.add_argument("--force", action="store_true",
                         help="rebuild every artefact, up to date or not (outputs still come from the execution "
                              "cache; add --no-cache to run every kernel again)")


def report(built) -> None:
    print(f"{built.deck}: {built.done}", flush=True)


def run(args) -> int:
    from jaxdeck.build import build

    decks = find_decks(args.decks)
    build(decks, args.out, timeout=args.timeout, cache=args.cache, frozen=args.frozen, pdf=args.pdf,
          force=args.force, report=report)
    return 0
