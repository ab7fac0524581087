"""`jaxdeck pdf`: decks -> build/pdf/NAME.pdf (slides) and build/pdf/NAME-handout.pdf (A4 or Letter).

Prints only the PDFs that are out of date. Reuses build/notebooks and build/html; a deck
whose notebook or HTML is missing or out of date is built first. An executed notebook
whose deck is unchanged is kept wherever its outputs came from (so outputs taken with
`jaxdeck build --frozen` stay). `--force` prints every PDF again. With no Chromium to
print with, every deck still gets its notebook and HTML, then one line says how to get one.
`--handout-per-page N` and `--paper NAME` lay the handouts out for this run, over the headers'
`handout_per_page` and `paper`, into files named by them (NAME-handout-2up-letter.pdf): NAME-handout.pdf
stays the header's layout, which no other command prints over.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.decks import Outputs, find_decks
from jaxdeck.commands.build import build_decks, report
from jaxdeck.pdf.layout import add_flags, flags_of
from jaxdeck.stages.options import BuildOptions


def add_arguments(command) -> None:
    deck_arguments(command)
    command.add_argument("--force", action="store_true", help="print every PDF again, up to date or not")
    add_flags(command)


def ensure_built(deck: Path, root: Path):
    """The deck's executed notebook and its outputs, building the notebook and HTML first when out of date."""
    import nbformat

    from jaxdeck.build import build

    build([deck], root, execution=False)
    outputs = Outputs(deck, root)
    return nbformat.read(outputs.notebook, as_version=4), outputs


def run(args) -> int:
    build_decks(find_decks(args.decks), args.out,
                BuildOptions(pdf=True, reprint=args.force, execution=False, flags=flags_of(args)), report=report)
    return 0
