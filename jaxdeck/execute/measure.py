"""What a run measures besides outputs: each cell's time, the kernel's start, memory and CPU share.

Kept in the records (:mod:`jaxdeck.records`): a cell's time in its cell record, the rest in the
build record, where ``check`` reads budgets and the handout reads the provenance.
"""

from __future__ import annotations

import os
import time
from datetime import datetime

from jaxdeck.execute.cells import runnable
from jaxdeck.records import ExecFacts, cell_info


def recorded_duration(cell) -> float | None:
    """Seconds the kernel spent on a cell, from nbclient's recorded timestamps."""
    timing = cell.metadata.get("execution", {})
    start = timing.get("iopub.execute_input")
    end = timing.get("shell.execute_reply")
    if not start or not end:
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return max(0.0, (parse(end) - parse(start)).total_seconds())


def record_run(nb, kernel, began: float) -> ExecFacts:
    """What a whole run of ``nb`` in a fresh kernel records in the build record; ``began``: its perf_counter."""
    return ExecFacts(executed_at=datetime.now().astimezone().isoformat(timespec="seconds"),
                     cells_executed=len(runnable(nb)), kernel_start_s=round(kernel.start_s or 0.0, 4),
                     execute_s=round(time.perf_counter() - began, 4),
                     kernel_peak_rss_mb=round(kernel.peak_rss / 2**20, 1) if kernel.peak_rss else None,
                     cpu_share=cpu_share(kernel.cpus))


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity where the OS has one, else every core)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return list(range(os.cpu_count() or 1))


def cpu_share(cpus) -> list[int] | None:
    """``[used, all]`` CPUs when a kernel ran on part of the machine; None when it had all of them."""
    every = len(usable_cpus())
    return [len(cpus), every] if cpus and len(cpus) < every else None


def kernel_peak_rss(pid: int | None) -> int | None:
    """The kernel process's peak resident memory in bytes (Linux VmHWM; psutil's RSS elsewhere)."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss
    except Exception:
        return None


def cell_durations(nb) -> list[tuple[int, int, float, list[str]]]:
    """(line, slide, seconds, tags) of each executed code cell, as recorded in the notebook."""
    rows = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        info = cell_info(cell)
        if "duration_s" in info:
            rows.append((info.get("line"), info.get("slide"), info["duration_s"], cell.metadata.get("tags", [])))
    return rows


def _machine_ticks() -> tuple[int, int] | None:
    """(busy, total) clock ticks of every CPU since boot (Linux ``/proc/stat``), None elsewhere."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
        ticks = [int(f) for f in fields[1:9]]  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return None
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def _run_queue_waits(pid: int | None) -> dict[str, int] | None:
    """Nanoseconds each thread of a process has waited on a run queue (``/proc/PID/task/TID/schedstat``)."""
    try:
        waits = {}
        for task in os.scandir(f"/proc/{pid}/task"):
            try:
                with open(f"{task.path}/schedstat", encoding="ascii") as stat:
                    waits[task.name] = int(stat.read().split()[1])
            except (OSError, ValueError, IndexError):
                continue  # a thread that ended meanwhile
        return waits
    except (OSError, TypeError):
        return None


def _process_ticks(pid: int | None) -> int | None:
    """A process's CPU time in clock ticks, its threads and reaped children included."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    except (OSError, ValueError, IndexError, TypeError):
        return None


class OthersMeter:
    """The share of the machine's CPU time that processes other than the kernel took while a cell
    ran: a cell timed beside another build is slower for a reason that is not the cell's, and the
    budget check (:func:`jaxdeck.check.budget.judged_seconds`) reads this to say so."""

    def __init__(self, pid: int | None):
        self.pid = pid
        self._machine, self._own, self._waits = _machine_ticks(), _process_ticks(pid), _run_queue_waits(pid)

    def share(self) -> float | None:
        """Others' share of all CPUs' time since the meter started, 0 to 1; None where it cannot be read."""
        machine, own = _machine_ticks(), _process_ticks(self.pid)
        if None in (machine, own, self._machine, self._own) or machine[1] <= self._machine[1]:
            return None
        busy = (machine[0] - self._machine[0]) - (own - self._own)
        return round(min(1.0, max(0.0, busy / (machine[1] - self._machine[1]))), 3)

    def own_seconds(self) -> float | None:
        """The CPU time the measured process itself used since the meter started (a cell that sleeps
        or waits uses none, and other processes cannot have slowed it)."""
        own = _process_ticks(self.pid)
        if own is None or self._own is None:
            return None
        return round((own - self._own) / os.sysconf("SC_CLK_TCK"), 3)

    def waited_seconds(self) -> float | None:
        """The longest time one of the process's threads was ready to run but waited for a CPU since the meter
        started (Linux schedstat): the time other processes took from the cell, measured rather than guessed
        from their share. None where it cannot be read."""
        waits = _run_queue_waits(self.pid)
        if not waits or self._waits is None:
            return None
        return round(max(ns - self._waits.get(tid, 0) for tid, ns in waits.items()) / 1e9, 3)
