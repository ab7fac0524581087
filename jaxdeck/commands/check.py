"""`jaxdeck check`: every deck opened in a real browser; problems per slide, exit 1 on any."""

from __future__ import annotations

import sys

from jaxdeck.cli import deck_arguments
from jaxdeck.decks import find_decks


def add_arguments(command) -> None:
    deck_arguments(command)


def run(args) -> int:
    from jaxdeck.browser import chromium
    from jaxdeck.check.deck import check_deck
    from jaxdeck.commands.pdf import ensure_built
    from jaxdeck.records import BuildRecord

    decks = find_decks(args.decks)
    built = [(deck, *ensure_built(deck, args.out)) for deck in decks]
    total = 0
    with chromium() as browser:
        for deck, nb, outputs in built:
            problems = check_deck(deck, nb, outputs.html, browser=browser)
            for problem in problems:
                print(problem)
            # what the build showed another way (an image it could not fetch): listed, not a problem
            warnings = BuildRecord.of(nb).warnings or []
            for warning in warnings:
                print(f"warning: {warning}")
            total += len(problems)
            if not problems:
                print(f"{deck}: ok" + (f" ({len(warnings)} warning(s))" if warnings else ""))
    if total:
        print(f"{total} problem(s) in {len(decks)} deck(s)", file=sys.stderr)
        return 1
    return 0
