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
    counts this process's spinning, so their difference is that spinning whatever else the machine does."""
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        mine, theirs = OthersMeter(os.getpid()), OthersMeter(idle.pid)
        end = time.perf_counter() + 0.6
        while time.perf_counter() < end:
            pass
        ours, seen = mine.share(), theirs.share()
    finally:
        idle.kill()
        idle.wait()
    cpus = len(os.sched_getaffinity(0))
    assert ours is not None and seen is not None
    assert seen - ours >= 0.6 / cpus, f"this process's spinning should show for the idle one's meter only: {ours} vs {seen}"


def test_a_process_that_cannot_be_read_gives_no_share():
    assert OthersMeter(None).share() is None
