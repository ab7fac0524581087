"""Which process a recorded pid names now: a pid and its start time, checked before any signal.

A record on disk outlives its process. Once that process is gone its pid can be handed to any
other one, and a record anyone could have written may name any pid at all: signalling the pid
alone could end a stranger's process, or (a negative pid, or 1) a whole group. So a record keeps
each pid with the process's start time (``/proc/PID/stat``, field 22, in clock ticks since boot),
and a signal goes to it only while the pid still names a process of this user started then.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot), or None when there is no such process, or it has
    ended and only waits to be reaped (a zombie, which no signal reaches)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # field 2, the command, is in parentheses and may hold spaces or ")": fields 3.. follow the last ")"
    fields = stat[stat.rfind(")") + 2:].split()
    try:
        state, started = fields[0], int(fields[22 - 3])
    except (IndexError, ValueError):
        return None
    return None if state in ("Z", "X", "x") else started


def owner(pid: int) -> int | None:
    """The user ``pid`` runs as, or None when there is no such process."""
    try:
        return (PROC / str(pid)).stat().st_uid
    except OSError:
        return None


@dataclass(frozen=True)
class Identity:
    """A process as a record names it: its pid and its start time."""

    pid: int
    started: int

    @classmethod
    def of(cls, pid: int) -> "Identity":
        """The running process ``pid`` (this one, or a child just started)."""
        started = start_time(pid)
        if started is None:
            raise ProcessLookupError(pid)
        return cls(pid, started)

    @classmethod
    def parse(cls, data) -> "Identity | None":
        """From a record's ``{"pid": ..., "started": ...}``; None unless both are sound (no pid 0, 1, negative
        or not a whole number: each of those would signal a group, init, or nothing meant)."""
        if not isinstance(data, dict):
            return None
        pid, started = data.get("pid"), data.get("started")
        if type(pid) is not int or type(started) is not int or pid <= 1 or started < 0:
            return None
        return cls(pid, started)

    def as_dict(self) -> dict:
        return {"pid": self.pid, "started": self.started}

    def alive(self) -> bool:
        """True while the pid names this very process (this user's, started then)."""
        return start_time(self.pid) == self.started and owner(self.pid) == os.geteuid()

    def gone(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for it to end; whether it did (a zombie has)."""
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
        return True

    def process(self):
        """A psutil handle to signal it by, or None when the pid no longer names it.

        Taken after the check: psutil notes the process's creation time, and its signals and waits
        refuse a pid that another process took since.
        """
        import psutil

        if not self.alive():
            return None
        try:
            process = psutil.Process(self.pid)
        except psutil.Error:
            return None
        return process if self.alive() else None
