"""Fresh processes, timed: the benchmarks measure what a user waits for, start-up included."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def run_timed(command: list[str], cwd: Path | None = None, timeout: float = 600) -> tuple[float, int, str]:
    """Seconds, exit status and the tail of the error output (or of the output) of one command."""
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - began, done.returncode, (done.stderr or done.stdout)[-2000:]


def venv_bin(name: str) -> str:
    """A tool installed beside this Python (the project's .venv), so the stock pipeline runs the same versions."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else name
