"""The stock pipeline against ours, as fresh processes on the same deck with an empty cache.

Stock is ``jupytext --to ipynb`` then ``jupyter nbconvert --to slides --execute``; ours is
``python -m jaxdeck build`` (HTML only). The target: ours takes no longer than stock.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from jaxdeck.bench.processes import run_timed, venv_bin


def compare_stock(deck: Path, folder: Path) -> tuple[float | None, dict]:
    """``(ours_s, stock)``: our cold CLI build's seconds (None when it failed) and the stock pipeline's figures.

    ``stock`` holds ``jupytext_s``, ``nbconvert_s``, ``total_s``, ``ok``, ``error``,
    ``ours_error`` and, when both ran, ``ratio`` (ours / stock). Works in ``folder``.
    """
    name = deck.stem
    ours_root = folder / "cli-build"
    shutil.rmtree(ours_root, ignore_errors=True)
    ours = [sys.executable, "-m", "jaxdeck", "build", str(deck), "--out", str(ours_root)]
    ours_s, ours_rc, ours_err = run_timed(ours)
    stock_dir = folder / "stock"
    stock_dir.mkdir(exist_ok=True)
    ipynb = stock_dir / f"{name}.ipynb"
    t1, rc1, err1 = run_timed([venv_bin("jupytext"), "--to", "ipynb", str(deck), "-o", str(ipynb)])
    t2, rc2, err2 = run_timed([venv_bin("jupyter"), "nbconvert", "--to", "slides", "--execute", str(ipynb),
                               "--output-dir", str(stock_dir)]) if rc1 == 0 else (0.0, rc1, err1)
    ok = rc1 == 0 and rc2 == 0
    cli_cold_s = ours_s if ours_rc == 0 else None
    stock = {"jupytext_s": t1, "nbconvert_s": t2, "total_s": t1 + t2, "ok": ok,
             "error": None if ok else (err2 or err1)[-500:], "ours_error": None if ours_rc == 0 else ours_err[-500:]}
    if ok and cli_cold_s:
        stock["ratio"] = cli_cold_s / stock["total_s"]
    return cli_cold_s, stock
