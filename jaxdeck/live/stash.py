"""What the live view's rewrites keep in a cell, read back on the JSON model a save receives.

Each rewrite (markers hidden, MyST shown, tags applied, cells cut) stashes what it replaced under
a key of its own in the cell's ``metadata.jaxdeck``; the browser sends that back untouched.
"""

from __future__ import annotations

from typing import Any

from jaxdeck.records import take_cell_info


def take(cell: dict, key: str) -> Any:
    """Remove and return what a rewrite kept in ``cell`` under ``key``; None when it kept nothing."""
    return take_cell_info(cell, key)


def text(cell: dict) -> str:
    """The cell's source as one string (a JSON model may hold it as a list of lines)."""
    source = cell.get("source")
    return "".join(source) if isinstance(source, list) else (source or "")
