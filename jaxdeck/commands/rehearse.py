"""`jaxdeck rehearse DECK [--size WxH] [--faults] [--no-browser]`: a dress rehearsal of the live talk here.

Starts the live server as ``present`` does, walks the slideshow in headless Chromium as a presenter
would (see :mod:`jaxdeck.rehearse`), prints a table, writes ``build/rehearsal/NAME.json`` and
``NAME.html``, and exits 1 when anything would embarrass the presenter. Nothing is left running.
``--no-browser`` (a GPU box with no Chromium) runs the slideshow's code on the server's kernel alone:
the same report, less the slides' fit, which needs a browser to lay them out.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.errors import DeckError


def add_arguments(command) -> None:
    deck_arguments(command)  # the decks, and --out: the build compared with, and rehearsal/ for the reports
    command.add_argument("--size", default=None,
                         help="the projector's window size, WIDTHxHEIGHT (default 1920x1080); the deck's own size is always rehearsed")
    command.add_argument("--faults", action="store_true",
                         help="also kill the kernel at a slide in the middle and check that R brings the talk back")
    command.add_argument("--no-browser", action="store_true",
                         help="no Chromium here (a GPU box): run the slideshow's code on the live kernel alone, "
                              "timed and checked against the build; the slides are not laid out")
    command.add_argument("--log", type=Path, default=None, help="write the Jupyter server's log to this file")
    command.add_argument("--attach", action="store_true",
                         help="rehearse on the running `present --detach` (its kernel stays warm for the talk) "
                              "instead of a server of its own")


def run(args) -> int:
    from jaxdeck.decks import find_decks
    from jaxdeck.rehearse.rehearsal import parse_size, rehearse
    from jaxdeck.rehearse.report import print_report, write

    if args.no_browser:
        for flag, given, why in (("--size", args.size is not None, "the slides are laid out at that size in Chromium"),
                                 ("--faults", args.faults, "R, which brings the talk back, is the slideshow's key")):
            if given:
                raise DeckError(None, None, f"{flag} needs the browser: {why}",
                                f"leave {flag} out, or leave out --no-browser on a machine with a Chromium")
    projector = parse_size(args.size or "1920x1080")
    decks = find_decks(args.decks)
    if not decks:
        raise DeckError(None, None, "no decks to rehearse", "add a Markdown deck to slides/ or name one")
    failed = 0
    for deck in decks:
        record = rehearse(deck, args.out, projector=projector, faults=args.faults, log=args.log,
                          attached=args.attach, browser=not args.no_browser)
        json_path, html_path = write(record, args.out)
        print_report(record, json_path, html_path)
        failed += not record.ok
    return 1 if failed else 0
