"""The timing harness's own benchmark, run as part of `make bench`: ``python -m demos.calibration --out DIR``.

It runs as a fresh process, so that JAX is imported there and never by ``jaxdeck``;
it writes its own ``timing.json`` beside build.json.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from jaxdeck.bench.processes import run_timed

MODULE = "demos.calibration"
TIMEOUT_S = 900


def demos_folder() -> Path | None:
    """Where the installed ``demos`` package lives, found without importing it (it may start JAX)."""
    from importlib import util

    try:
        spec = util.find_spec("demos")
    except (ImportError, ValueError):
        return None
    return Path(spec.origin).parent if spec is not None and spec.origin else None


def timing_harness(out: Path, package: Path | None = None) -> dict:
    """Run ``demos.calibration`` into ``out`` when ``package`` (default: the installed ``demos``) has it.

    Returns build.json's ``timing_harness`` entry: ``available``, and ``ok``, ``seconds``,
    ``returncode``, ``tail`` (the error output's end on failure) or ``why``.
    """
    package = package or demos_folder()
    if package is None or not (package / "calibration.py").is_file():
        return {"available": False, "why": "demos/calibration.py not found"}
    try:  # run beside the package, so that this `demos` is the one imported
        seconds, rc, tail = run_timed([sys.executable, "-m", MODULE, "--out", str(Path(out).resolve())],
                                      cwd=package.parent, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"available": True, "ok": False, "why": f"timed out after {TIMEOUT_S} s"}
    return {"available": True, "ok": rc == 0, "seconds": seconds, "returncode": rc, "tail": tail if rc else ""}
