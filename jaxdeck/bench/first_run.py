"""A newcomer's first run, measured in a fresh clone: `make` from nothing, decks at -j 1 against -j N, `make test`.

The clone is of the repository's committed HEAD, as a newcomer gets it, in ``work/clone``.
Package caches (uv's, npm's) stay warm, as on any machine that has built once; the cold
figure depends on the network and is not a target. Targets: `make` (setup + every deck,
HTML and PDFs) under 60 s; every deck built with ``-j N`` at least 1.4× faster than with
``-j 1`` in the same run (N the cores, at least 2); `make test` under 5 minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from jaxdeck.execute import usable_cpus

#: the figures' targets (seconds, or the speed-up)
FIRST_MAKE_S = 60.0
SPEED_UP = 1.4
SUITE_S = 300.0


def _timed(command: list[str], cwd: Path, timeout: float) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_XDIST_WORKER")}
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed in {cwd}: {(done.stderr or done.stdout).strip()[-800:]}")
    closing = [line.strip("= ") for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    return {"seconds": seconds, "tail": closing or done.stdout.strip().splitlines()[-1:]}


def fresh_clone(root: Path, into: Path) -> Path:
    """``git clone`` of ``root``'s HEAD into ``into`` (replacing what was there)."""
    shutil.rmtree(into, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(root), str(into)], check=True,
                   capture_output=True, timeout=300)
    return into


def bench_first_run(root: Path, work: Path, *, suite: bool = True) -> dict:
    """Every figure of the module's docstring, from a fresh clone of ``root`` in ``work/clone``."""
    clone = fresh_clone(root, work / "clone")
    setup = _timed(["make", "--no-print-directory", "setup"], clone, 900)
    decks = _timed(["make", "--no-print-directory", "all"], clone, 1800)
    first_make_s = setup["seconds"] + decks["seconds"]
    python = str(clone / ".venv" / "bin" / "python")
    cores = len(usable_cpus())
    jobs = max(2, cores)
    build = [python, "-m", "jaxdeck", "build", "--pdf", "--force", "--no-cache"]
    serial = _timed([*build, "--jobs", "1"], clone, 1800)
    parallel = _timed([*build, "--jobs", str(jobs)], clone, 1800)
    speed_up = serial["seconds"] / parallel["seconds"]
    report = {
        "clone": str(clone), "cores": cores,
        "first_make": {"setup_s": setup["seconds"], "decks_s": decks["seconds"], "seconds": first_make_s},
        "parallel": {"jobs": jobs, "serial_s": serial["seconds"], "parallel_s": parallel["seconds"],
                     "speed_up": speed_up},
        "targets": {"first_make_lt_60s": first_make_s < FIRST_MAKE_S, "parallel_speed_up_ge_1_4": speed_up >= SPEED_UP},
    }
    if suite:
        tests = _timed(["make", "--no-print-directory", "test"], clone, 3600)
        report["suite"] = {"seconds": tests["seconds"], "summary": tests["tail"]}
        report["targets"]["suite_lt_5min"] = tests["seconds"] < SUITE_S
    return report
