"""demos.timing.LoadMeter on this machine: another process's work is counted, this process's is not."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import demos.timing as timing

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="the share of other processes needs /proc/stat")


def test_a_process_spinning_beside_the_measurement_shows_in_the_load():
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 30\nwhile time.time() < end: pass"])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:   # until the spinner is on a CPU
            with timing.LoadMeter() as meter:
                time.sleep(0.3)
            if meter.load.others is not None and meter.load.others >= 0.9 / meter.load.cpus:
                break
        assert meter.load.others >= 0.9 / meter.load.cpus, str(meter.load)
        assert meter.load.busy or meter.load.cpus > 3
    finally:
        spinner.kill()
        spinner.wait()
