"""`jaxdeck rehearse DECK [--size WxH] [--faults]`: a dress rehearsal of the live talk on this machine.

Starts the live server as ``present`` does, walks the slideshow in headless Chromium as a presenter
would (see :mod:`jaxdeck.rehearse`), prints a table, writes ``build/rehearsal/NAME.json`` and
``NAME.html``, and exits 1 when anything would embarrass the presenter. Nothing is left running.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.errors import DeckError


def add_arguments(command) -> None:
    deck_arguments(command)  # the decks, and --out: the build compared with, and rehearsal/ for the reports
    command.add_argument("--size", default="1920x1080",
                         help="the projector's window size, WIDTHxHEIGHT (default 1920x1080); the deck's own size is always rehearsed")
    command.add_argument("--faults", action="store_true",
                         help="also kill the kernel at a slide in the middle and check that R brings the talk back")
    command.add_argument("--log", type=Path, default=None, help="write the Jupyter server's log to this file")
    command.add_argument("--attach", action="store_true",
                         help="rehearse on the running `present --detach` (its kernel stays warm for the talk) "
                              "instead of a server of its own")


def run(args) -> int:
    from jaxdeck.decks import find_decks
    from jaxdeck.rehearse.rehearsal import parse_size, rehearse
    from jaxdeck.rehearse.report import print_report, write

    projector = parse_size(args.size)
    decks = find_decks(args.decks)
    if not decks:
        raise DeckError(None, None, "no decks to rehearse", "add a Markdown deck to slides/ or name one")
    failed = 0
    for deck in decks:
        record = rehearse(deck, args.out, projector=projector, faults=args.faults, log=args.log,
                          attached=args.attach)
        json_path, html_path = write(record, args.out)
        print_report(record, json_path, html_path)
        failed += not record.ok
    return 1 if failed else 0
