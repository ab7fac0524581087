"""Which cells of a deck's notebook a run executes, and how long each may take: read by the kernel that
runs them and by what records the run (:mod:`jaxdeck.execute.measure`), so neither imports the other."""

from __future__ import annotations

from jaxdeck.options import DeckOptions

DEFAULT_TIMEOUT_S = 60


def is_listing(cell) -> bool:
    """Cells with code-line highlight steps are listings to show, not to run."""
    return cell.cell_type == "code" and bool(cell.metadata.get("highlight"))


def runnable(nb) -> list[int]:
    """Indices of the code cells a run executes (every code cell but the listings)."""
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and not is_listing(c)]


def cell_timeout(cell, default: float) -> float:
    """A fence's ``timeout=N`` wins over the deck's default."""
    value = cell.metadata.get("timeout", default)
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(default)


def deck_timeout(nb, timeout: float | None = None) -> float:
    """The default per-cell timeout: the command line's, else the deck header's, else 60 s."""
    return float(timeout or DeckOptions.of(nb).timeout or DEFAULT_TIMEOUT_S)
