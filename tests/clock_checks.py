"""The claim checks that read a clock, which the device and version matrices leave out.

A check cell that calls ``demos.timing.holds`` or reads a clock itself (``time.perf_counter``,
``time.monotonic``, ``timeit``) judges how fast something ran: that means something in the deck's own
build and on a GPU, not in a matrix that runs every deck again at several device counts and JAX
versions on the same loaded cores. The matrices run the deck without those cells (found in the
cell's code with ``ast``, so no deck lists them by hand) and name each one they left out; every
other check runs at every count and version.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import nbformat

from jaxdeck.claims import is_check
from jaxdeck.records import cell_info

#: what a check calls to read a clock: demos.timing's judge of a timing claim, and the clocks themselves
CLOCKS = frozenset({"holds", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "timeit"})
#: the key of the tests' user property that lists the checks a matrix left out (tests/conftest.py prints them)
LEFT_OUT = "clock checks left out"


def reads_a_clock(source: str) -> bool:
    """Whether the code ``source`` calls one of :data:`CLOCKS` (by name or as an attribute: ``demos.timing.holds``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: not a check the matrices could judge apart
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if called in CLOCKS:
                return True
    return False


def is_clock_check(cell) -> bool:
    return is_check(cell) and reads_a_clock(cell.source)


def without_clock_checks(nb, deck: Path) -> tuple[nbformat.NotebookNode, list[str]]:
    """The notebook ``nb`` of ``deck`` without its clock-reading checks, and those checks as ``DECK.md:LINE``."""
    kept = nbformat.from_dict(nb)
    left = [cell for cell in kept.cells if is_clock_check(cell)]
    kept.cells = [cell for cell in kept.cells if not is_clock_check(cell)]
    return kept, [f"{deck.name}:{cell_info(cell).get('line')}" for cell in left]


def decks_without_clock_checks(decks: list[Path], folder: Path) -> tuple[list[Path], dict[Path, list[str]]]:
    """``decks`` written again into ``folder/slides/`` (beside a copy of what their folder holds, and of the
    repository's jupytext.toml) without their clock-reading checks, as the repository's own write-back
    writes a deck; returns the copies, in order, and each deck's checks left out (``DECK.md:LINE``)."""
    from jaxdeck.read import deck_to_notebook
    from jaxdeck.read.formats import write_back

    source = decks[0].parent
    shutil.copytree(source, folder / "slides")
    shutil.copy(source.parent / "jupytext.toml", folder / "jupytext.toml")
    copies, left_out = [], {}
    for deck in decks:
        nb, left_out[deck] = without_clock_checks(deck_to_notebook(deck), deck)
        copy = folder / "slides" / deck.name
        copy.write_text(write_back(nb, deck), encoding="utf-8")
        copies.append(copy)
    return copies, left_out
