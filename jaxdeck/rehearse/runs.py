"""One run of a live cell, as either walk hands it to the rehearsal: the browser's (a press of
Shift+Enter on the slideshow) and the kernel's (the same code sent on the kernel's channel).

Both time a cell by the kernel's own clock, from its ``execute_input`` to its ``execute_reply``,
as the build times it, so live and build times are the same measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class Ran:
    """One cell run live: the cell (``line``, ``source``, ``tags``), its run, and the checks after it."""

    cell: dict
    status: str                 # ok, error, timeout
    seconds: float | None
    outputs: list
    error: str | None           # "Name: first line of the value" of an error raised live
    checks: list[dict]          # {ok, message} of each claim check run after it


def seconds_between(start: str | None, end: str | None) -> float | None:
    """Seconds between two of the kernel's ISO timestamps (None when either is missing)."""
    if not start or not end:
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return max(0.0, (parse(end) - parse(start)).total_seconds())


def error_said(ename: str | None, evalue: str | None) -> str:
    """``Name: first line of the value``, as the rehearsal names an error."""
    return f"{ename or 'Error'}: {evalue.splitlines()[0] if evalue else ''}".rstrip(": ")


def check_said(ename: str | None, evalue: str | None) -> str:
    """What a failed claim check says, as the slideshow's status line says it: its message, else the
    exception's name (an assertion without a message: 'an assertion failed')."""
    first = (evalue or "").split("\n")[0]
    return first or (ename if ename and ename != "AssertionError" else "an assertion failed")
