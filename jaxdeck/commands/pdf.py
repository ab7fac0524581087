"""`jaxdeck pdf`: decks -> build/pdf/NAME.pdf (slides) and build/pdf/NAME-handout.pdf (A4).

Reuses build/notebooks and build/html; a deck whose build outputs are missing or
older than its Markdown is built first.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat

from ..browser import chromium
from ..build import build_deck
from ..cli import deck_arguments
from ..decks import Outputs, find_decks


def add_arguments(command) -> None:
    deck_arguments(command)


def is_stale(deck: Path, outputs: Outputs) -> bool:
    """True when the executed notebook or the HTML deck is missing or older than the deck."""
    source = deck.stat().st_mtime
    return any(not path.is_file() or path.stat().st_mtime < source for path in (outputs.notebook, outputs.html))


def ensure_built(deck: Path, root: Path) -> tuple[nbformat.NotebookNode, Outputs]:
    """The deck's executed notebook and its outputs, building the deck first when needed."""
    outputs = Outputs(deck, root)
    if is_stale(deck, outputs):
        outputs = build_deck(deck, root)
    return nbformat.read(outputs.notebook, as_version=4), outputs


def run(args) -> int:
    from ..pdf import export_pdfs

    decks = find_decks(args.decks)
    built = [ensure_built(deck, args.out) for deck in decks]
    with chromium() as browser:
        for nb, outputs in built:
            began = time.perf_counter()
            paths = export_pdfs(nb, outputs.html, outputs, browser=browser)
            print(f"{outputs.deck} -> {', '.join(str(p) for p in paths)} ({time.perf_counter() - began:.1f} s)")
    return 0
