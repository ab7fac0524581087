"""Stage 2: run a deck notebook in a real Jupyter kernel of this environment (nbclient).

Each code cell gets a timeout (deck default 60 s, ``timeout=N`` on a fence to
override) and its run time recorded in ``metadata.jaxdeck.duration_s``. A cell
that raises fails the build with ``deck.md:LINE (slide K): Error: message`` unless
it is tagged ``raises-exception`` (nbconvert's convention).
"""

from __future__ import annotations

import copy
import os
import sys
import time
import tempfile
import threading
from datetime import datetime
from pathlib import Path
from typing import Callable

import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from .errors import DeckError

DEFAULT_TIMEOUT_S = 60
KERNEL_NAME = "jaxdeck"


class ThisPythonKernels(KernelSpecManager):
    """Always the ipykernel of the interpreter running jaxdeck, whatever else is installed."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name=f"Python {sys.version_info.major}.{sys.version_info.minor} (jaxdeck)",
            language="python",
            env=kernel_env(),
        )


def kernel_env() -> dict[str, str]:
    """Environment additions for the kernel: a shared GPU box is never fully preallocated."""
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),
           "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    return env


LISTING_TAG = "jaxdeck-listing"


def mark_listings(nb: nbformat.NotebookNode) -> list:
    """Cells with code-line highlight steps are listings to show, not to run: tag them for nbclient to skip."""
    listings = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("highlight")]
    for cell in listings:
        cell.metadata.setdefault("tags", []).append(LISTING_TAG)
    return listings


def unmark_listings(listings: list) -> None:
    """Take the temporary tag off again, so the notebook still writes back to the same Markdown."""
    for cell in listings:
        tags = [t for t in cell.metadata.get("tags", []) if t != LISTING_TAG]
        if tags:
            cell.metadata["tags"] = tags
        else:
            cell.metadata.pop("tags", None)


class _TimedOut(Exception):
    """Raised from the hook after our watchdog interrupted a cell."""


def cell_timeout(cell, default: float) -> float:
    """A fence's ``timeout=N`` wins over the deck's default."""
    value = cell.metadata.get("timeout", default)
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(default)


def recorded_duration(cell) -> float | None:
    """Seconds the kernel spent on a cell, from nbclient's recorded timestamps."""
    timing = cell.metadata.get("execution", {})
    start = timing.get("iopub.execute_input")
    end = timing.get("shell.execute_reply")
    if not start or not end:
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return max(0.0, (parse(end) - parse(start)).total_seconds())


def _where(cell) -> tuple[int | None, int | None]:
    info = cell.metadata.get("jaxdeck", {})
    return info.get("line"), info.get("slide")


def execute(nb: nbformat.NotebookNode, path: str | Path, *, timeout: float | None = None,
            on_cell: Callable[[int, int], None] | None = None) -> nbformat.NotebookNode:
    """A copy of ``nb`` with every code cell run (outputs, timings), or a DeckError.

    ``path`` is the deck's Markdown file: the kernel runs in its folder and errors
    name its lines. ``on_cell(k, n)`` is called before the k-th of n code cells.
    """
    path = Path(path)
    nb = copy.deepcopy(nb)
    default = timeout or nb.metadata.get("jaxdeck", {}).get("timeout") or DEFAULT_TIMEOUT_S
    listings = mark_listings(nb)
    code_cells = [c for c in nb.cells if c.cell_type == "code" and c not in listings]
    state = {"cell": None, "k": 0, "timer": None, "timed_out": None}

    def started(cell, cell_index, **_):
        state["cell"] = cell
        if cell.cell_type != "code":
            return
        state["k"] += 1
        if on_cell:
            on_cell(state["k"], len(code_cells))

    def watch(cell, cell_index, **_):
        # our own watchdog: interrupt the kernel when a cell outlives its timeout
        limit = cell_timeout(cell, default)

        def expire():
            state["timed_out"] = (cell, limit)
            km.interrupt_kernel()

        state["timer"] = threading.Timer(limit, expire)
        state["timer"].daemon = True
        state["timer"].start()

    def finished(cell, cell_index, **_):
        if state["timer"] is not None:
            state["timer"].cancel()
        if state["timed_out"] is not None:
            raise _TimedOut()
        duration = recorded_duration(cell)
        if duration is not None:
            cell.metadata.setdefault("jaxdeck", {})["duration_s"] = round(duration, 4)
        state["peak"] = max(state.get("peak") or 0, kernel_peak_rss(km) or 0) or None

    def ready(**_):
        state["ready"] = time.perf_counter()

    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernels())
    if sys.platform.startswith("linux"):
        # local sockets, by absolute path (the kernel runs in the deck's folder):
        # nothing listens on the network while a deck runs
        km.transport = "ipc"
        km.ip = os.path.join(tempfile.mkdtemp(prefix="jaxdeck-kernel-"), "kernel")
    client = NotebookClient(
        # nbclient's own timeout is a backstop for a kernel that ignores our interrupt
        nb, km=km, timeout=int(default), timeout_func=lambda cell: int(cell_timeout(cell, default)) + 30,
        skip_cells_with_tag=LISTING_TAG,
        resources={"metadata": {"path": str(path.parent.resolve())}},
        on_cell_start=started, on_cell_execute=watch, on_cell_executed=finished, on_notebook_start=ready, record_timing=True,
        interrupt_on_timeout=False, startup_timeout=120,
    )
    began = time.perf_counter()
    try:
        try:
            client.execute()
        finally:
            if state["timer"] is not None:
                state["timer"].cancel()
            unmark_listings(listings)
            shutdown(km)
    except (CellTimeoutError, _TimedOut, CellExecutionError) as err:
        cell = state["cell"]
        line, slide = _where(cell)
        if state["timed_out"] is not None or isinstance(err, CellTimeoutError):
            limit = cell_timeout(cell, default)
            raise DeckError(path, line, f"cell timed out after {limit:g} s",
                            "make it faster, or allow longer with timeout=N on its code fence", slide=slide) from None
        message = f"{err.ename}: {err.evalue}" if getattr(err, "ename", None) else str(err).strip().splitlines()[-1]
        raise DeckError(path, line, message,
                        "fix the cell, or tag it raises-exception if the error is the point", slide=slide) from None
    except DeadKernelError:
        line, slide = _where(state["cell"]) if state["cell"] is not None else (None, None)
        raise DeckError(path, line, "the kernel died while running this cell",
                        "check its memory use (a GPU box may need XLA_PYTHON_CLIENT_MEM_FRACTION)", slide=slide) from None
    info = nb.metadata.setdefault("jaxdeck_build", {})
    info["executed_at"] = datetime.now().astimezone().isoformat(timespec="seconds")
    info["cells_executed"] = len(code_cells)
    info["kernel_start_s"] = round(state.get("ready", began) - began, 4)
    info["execute_s"] = round(time.perf_counter() - began, 4)
    if state.get("peak"):
        info["kernel_peak_rss_mb"] = round(state["peak"] / 2**20, 1)
    return nb


def kernel_peak_rss(km) -> int | None:
    """The kernel process's peak resident memory in bytes (Linux VmHWM; psutil's RSS elsewhere)."""
    pid = getattr(getattr(km, "provisioner", None), "pid", None)
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


def shutdown(km: KernelManager) -> None:
    """Stop the kernel now: nbclient leaves a kernel manager it was given running."""
    try:
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    except Exception:  # the kernel may already be gone (it died, or was interrupted)
        pass


def cell_durations(nb: nbformat.NotebookNode) -> list[tuple[int, int, float, list[str]]]:
    """(line, slide, seconds, tags) of each executed code cell, as recorded in the notebook."""
    rows = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        info = cell.metadata.get("jaxdeck", {})
        if "duration_s" in info:
            rows.append((info.get("line"), info.get("slide"), info["duration_s"], cell.metadata.get("tags", [])))
    return rows
