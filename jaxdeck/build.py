"""The build pipeline: deck -> notebook -> executed notebook -> HTML, one stage at a time."""

from __future__ import annotations

from pathlib import Path

import nbformat

from .atomic import write_text
from .convert import deck_to_notebook
from .decks import BUILD, Outputs
from .execute import execute
from .export import export_html
from .progress import Progress


def build_deck(deck: Path, root: Path = BUILD, shown: Progress | None = None,
               timeout: float | None = None) -> Outputs:
    """Build one deck's executed notebook and HTML; earlier artefacts stay until each is replaced."""
    outputs = Outputs(deck, root)
    name = deck.name
    if shown:
        shown.stage(name, "convert")
    nb = deck_to_notebook(deck)
    if shown:
        shown.stage(name, "execute")
    executed = execute(nb, deck, timeout=timeout,
                       on_cell=(lambda k, n: shown.cell(name, k, n)) if shown else None)
    if shown:
        shown.stage(name, "export html")
    write_text(outputs.notebook, nbformat.writes(executed))
    export_html(executed, deck, outputs.html)
    return outputs


def build(decks: list[Path], root: Path = BUILD, timeout: float | None = None) -> list[Outputs]:
    """Build every deck in turn (stopping at the first error, which names its deck and line)."""
    results = []
    with Progress(len(decks)) as shown:
        for deck in decks:
            results.append(build_deck(deck, root, shown, timeout))
            shown.say(f"built {deck} -> {results[-1].html}")
            shown.advance()
    return results
