"""jaxdeck.execute.measure's load meter: what other processes took of the CPUs while a cell ran."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from jaxdeck.execute.measure import OthersMeter

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="the machine's load is read from /proc")


def test_the_measured_process_own_work_is_not_counted_as_another_process():
    """Two meters over the same window, one for this process and one for an idle one: only the second
    counts this process's spinning, so their difference is this process's share of the CPUs, whatever
    else the machine does meanwhile (it may give this process less of a CPU than the window's length)."""
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        mine, theirs = OthersMeter(os.getpid()), OthersMeter(idle.pid)
        t0, cpu0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < 0.6:
            pass
        ours, seen = mine.share(), theirs.share()
        window, spun = time.perf_counter() - t0, time.process_time() - cpu0
    finally:
        idle.kill()
        idle.wait()
    assert ours is not None and seen is not None
    expected = spun / (window * (os.cpu_count() or 1))      # this process's share of every CPU's time
    assert seen - ours >= 0.5 * expected > 0, f"only the idle process's meter should count this process's spinning: {ours} vs {seen}, expected a gap of {expected:.2f}"


def test_a_process_that_cannot_be_read_gives_no_share():
    assert OthersMeter(None).share() is None
