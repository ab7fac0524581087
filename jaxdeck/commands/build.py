"""`jaxdeck build`: decks -> build/notebooks/NAME.ipynb (executed) and build/html/NAME.html."""

from __future__ import annotations

from ..build import build
from ..cli import deck_arguments
from ..decks import find_decks


def add_arguments(command) -> None:
    deck_arguments(command)
    command.add_argument("--timeout", type=float, default=None, help="default per-cell timeout in seconds (60)")


def run(args) -> int:
    decks = find_decks(args.decks)
    for outputs in build(decks, args.out, timeout=args.timeout):
        print(f"{outputs.deck} -> {outputs.notebook}, {outputs.html}")
    return 0
