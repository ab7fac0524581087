"""How busy the machine was while something was measured.

A timing taken while another build shares the cores is slower for a reason that has nothing to do
with the code on the slide. So a claim that reads a clock and still fails says how much of the CPU
went to other work meanwhile: :class:`LoadMeter` reads the machine's CPU time (``/proc/stat`` on
Linux) and this process's own (``os.times``) before and after, and the difference is what every
other process took. Where ``/proc/stat`` is missing (macOS, Windows) only the load average is
known, and where that is missing too, nothing is claimed.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from .._display import Displayable, esc, small

#: other processes took more than this share of the CPUs: the machine was busy
BUSY_SHARE = 0.25
_STAT = "/proc/stat"


def cpu_count() -> int:
    """The machine's CPUs: the ones ``/proc/stat`` adds up (a build may pin a kernel to fewer of them)."""
    return os.cpu_count() or 1


def _machine_ticks() -> tuple[int, int] | None:
    """(busy, total) clock ticks of all CPUs since boot, or None where ``/proc/stat`` cannot say."""
    try:
        with open(_STAT, encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 5:
        return None
    ticks = [int(f) for f in fields[1:9]]  # user nice system idle iowait irq softirq steal
    ticks += [0] * (8 - len(ticks))
    idle = ticks[3] + ticks[4]
    return sum(ticks) - idle, sum(ticks)


def _own_ticks() -> float:
    """This process's CPU time, every thread and reaped children, in clock ticks."""
    times = os.times()
    return (times.user + times.system + times.children_user + times.children_system) * os.sysconf("SC_CLK_TCK")


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


@dataclass(frozen=True, repr=False)
class Load(Displayable):
    """The machine while a measurement ran: its CPUs, the share of their time other processes took
    (None where the platform cannot say), the one-minute load average and the window's length."""

    cpus: int
    others: float | None
    average: float | None
    seconds: float

    @property
    def busy(self) -> bool:
        """Whether other work took enough of the CPUs to move a timing."""
        if self.others is not None:
            return self.others > BUSY_SHARE
        return self.average is not None and self.average > 0.75 * self.cpus

    def _text(self) -> str:
        cpus = f"{self.cpus} CPU{'s' if self.cpus != 1 else ''}"
        average = f"load average {self.average:.1f}" if self.average is not None else ""
        if self.others is None:
            return f"{average} on {cpus}" if average else f"{cpus}, their load unknown"
        said = f"other processes took {self.others:.0%} of the machine's {cpus}"
        return f"{said} ({average})" if average else said

    def _html(self) -> str:
        return small(esc(self._text()))


def now() -> Load:
    """What is known of the load without a window: the load average alone."""
    return Load(cpu_count(), None, load_average(), 0.0)


class LoadMeter:
    """``with LoadMeter() as meter: ...`` then ``meter.load``: the machine's load over the block."""

    def __init__(self):
        self.load: Load | None = None

    def __enter__(self) -> LoadMeter:
        self._machine, self._own, self._t0 = _machine_ticks(), _own_ticks(), time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        machine, own, seconds = _machine_ticks(), _own_ticks(), time.perf_counter() - self._t0
        others = None
        if machine is not None and self._machine is not None and machine[1] > self._machine[1]:
            busy = machine[0] - self._machine[0] - (own - self._own)
            others = min(1.0, max(0.0, busy / (machine[1] - self._machine[1])))
        self.load = Load(cpu_count(), others, load_average(), seconds)
