"""What the live view's rewrites keep in a cell, read back on the JSON model a save receives.

Each rewrite (markers hidden, MyST shown, tags applied, cells cut) stashes what it replaced under
a key of its own in the cell's ``metadata.jaxdeck``; the browser sends that back untouched.
"""

from __future__ import annotations

from typing import Any


def take(cell: dict, key: str) -> Any:
    """Remove and return what a rewrite kept in ``cell`` under ``key``; None when it kept nothing."""
    info = cell.get("metadata", {}).get("jaxdeck")
    return info.pop(key, None) if isinstance(info, dict) else None


def text(cell: dict) -> str:
    """The cell's source as one string (a JSON model may hold it as a list of lines)."""
    source = cell.get("source")
    return "".join(source) if isinstance(source, list) else (source or "")
