"""Stage 2: run a deck notebook in a real Jupyter kernel of this environment (nbclient).

Each code cell gets a timeout (deck default 60 s, ``timeout=N`` on a fence to override) and
its run time recorded in ``metadata.jaxdeck.duration_s``. A cell that raises fails the build
with ``deck.md:LINE (slide K): Error: message`` unless it is tagged ``raises-exception``
(nbconvert's convention) or the deck allows errors (``allow_errors``). A failing claim check
(a cell tagged ``check``) says the claim no longer holds on this machine, naming the machine.

A kernel that dies (``os._exit``, a segfault, the out-of-memory killer) fails the build
within about a second, naming the cell and the exit code: nbclient watches the kernel
process while it waits for the cell's messages, which works because the kernel is
driven by jupyter_client's asynchronous manager. A blocking client would wait for
messages from a dead kernel forever. :class:`Kernel` drives nbclient on an event loop of
its own thread, so the thread that asked for the run only waits, and a stop signal (Ctrl-C,
SIGTERM) reaches it at once. The same kernel runs more cells later (the preview keeps one warm).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from jaxdeck import claims
from jaxdeck.errors import DeckError
from jaxdeck.execute import where
from jaxdeck.execute.cells import DEFAULT_TIMEOUT_S, cell_timeout, deck_timeout, runnable
from jaxdeck.execute.measure import OthersMeter, kernel_peak_rss, record_run, recorded_duration
from jaxdeck.execute.spec import KERNEL_NAME, STACKS_FILE, import_kernel_libraries, this_python_kernels
from jaxdeck.options import DeckOptions
from jaxdeck.orphans import private_folder, remove_private
from jaxdeck.stopping import end_tree, marked, result
from jaxdeck.records import cell_info, update_cell_info

#: seconds nbclient waits past a cell's own timeout before giving up on a kernel that ignores our interrupt
BACKSTOP_S = 30
#: seconds a stuck kernel is given to write its stacks before it is interrupted
STACKS_WAIT_S = 1.0


def _where(cell) -> tuple[int | None, int | None]:
    info = cell_info(cell) if cell is not None else {}
    return info.get("line"), info.get("slide")


def death_hint(code: int | None) -> str:
    """What to do about a kernel that exited with ``code`` (negative: killed by that signal)."""
    memory = "check its memory use (a GPU box may need XLA_PYTHON_CLIENT_MEM_FRACTION)"
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        if -code == getattr(signal, "SIGKILL", 9):
            return f"it was killed by {name}, most often the out-of-memory killer: {memory}"
        if name in ("SIGSEGV", "SIGBUS", "SIGABRT", "SIGILL", "SIGFPE"):
            return f"it crashed with {name} in native code: run the cell alone in a terminal to see where"
        return f"it was killed by {name}: {memory}"
    if code is not None and code != 0:
        return f"something in the cell ended the process (os._exit, or a library that exits); if not, {memory}"
    return memory


class Kernel:
    """A real kernel for one deck, started at once and kept until :meth:`close` (or the ``with`` block ends).

    ``cpus``: the CPUs the kernel may run on (its share when decks are built side by side;
    None: all of this process's). ``caches``: the build's cache folder, where the kernel's libraries
    keep their caches (None: the kernel's private folder, removed with it). The rest of what its start
    writes stays in that private folder: its connection file, IPython's profile (no history).

    ``run(nb, indices)`` executes code cells of ``nb`` in place, in order, stopping at the
    first failure with a DeckError naming its line. nbclient runs on an event loop in a
    thread of the kernel's own; the caller's thread only waits for each run.
    """

    def __init__(self, deck: str | Path, timeout: float = DEFAULT_TIMEOUT_S, cpus: frozenset[int] | None = None,
                 caches: str | Path | None = None):
        self.deck = Path(deck)
        self.cpus = cpus
        self.caches = caches
        self.default = float(timeout)
        self.start_s: float | None = None
        self.peak_rss: int | None = None
        self.dead = False
        self.language_info = None
        #: after a run: the backend, device kind and count its cells ran on, as the kernel says (None: no JAX backend)
        self.devices: dict | None = None
        self.km = self.client = None
        self._closed = self.allow_errors = False
        import_kernel_libraries()  # here, not in the kernel's thread: see import_kernel_libraries
        self._folder = private_folder("jaxdeck-kernel-")  # swept by a later start if this process is killed
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="jaxdeck-kernel", daemon=True)
        self._thread.start()
        try:
            self._call(self._start())
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "Kernel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return getattr(getattr(self.km, "provisioner", None), "pid", None)

    def _call(self, coroutine):
        """Run ``coroutine`` on the kernel's loop and wait for it here (a stop signal cancels it)."""
        done: concurrent.futures.Future = concurrent.futures.Future()
        tasks: list[asyncio.Task] = []

        def start() -> None:
            task = self._loop.create_task(coroutine)
            tasks.append(task)
            task.add_done_callback(lambda t: _settle(t, done))

        self._loop.call_soon_threadsafe(start)
        try:
            return result(done)
        except BaseException:
            self._loop.call_soon_threadsafe(lambda: [t.cancel() for t in tasks])
            raise

    async def _start(self) -> None:
        from jupyter_client.manager import AsyncKernelManager
        from nbclient import NotebookClient
        from nbformat.v4 import new_notebook

        began = time.perf_counter()
        if self.cpus and hasattr(os, "sched_setaffinity"):
            # this thread is the kernel's own, and the process it starts inherits its CPUs
            os.sched_setaffinity(0, self.cpus)
        km = AsyncKernelManager(kernel_name=KERNEL_NAME,
                                kernel_spec_manager=this_python_kernels(self._folder, self.cpus or None, self.caches))
        # its key in the kernel's own folder (0700), not a file in the shared temporary folder
        km.connection_file = os.path.join(self._folder, "connection.json")
        if sys.platform.startswith("linux"):
            # local sockets, by absolute path (the kernel runs in the deck's folder):
            # nothing listens on the network while a deck runs
            km.transport = "ipc"
            km.ip = os.path.join(self._folder, "kernel")
        self.km = km
        self.client = client = NotebookClient(
            new_notebook(), km=km, record_timing=True, startup_timeout=120, interrupt_on_timeout=False,
            # nbclient's own timeout is a backstop for a kernel that ignores our interrupt
            timeout=int(self.default), timeout_func=lambda cell: int(cell_timeout(cell, self.default)) + BACKSTOP_S,
            resources={"metadata": {"path": str(self.deck.parent.resolve())}},
        )
        await client.async_start_new_kernel()
        await client.async_start_new_kernel_client()
        reply = await client.async_wait_for_reply(client.kc.kernel_info())
        self.language_info = (reply or {}).get("content", {}).get("language_info")
        self.start_s = time.perf_counter() - began

    def run(self, nb, indices: list[int] | None = None, on_cell: Callable[[int, int], None] | None = None,
            timeout: float | None = None):
        """Execute the code cells at ``indices`` (default: every runnable one) of ``nb``, in place; returns ``nb``.

        ``on_cell(k, n)`` is called before the k-th of the n cells; ``timeout`` is the
        default per-cell timeout for this run (a fence's ``timeout=N`` still wins).
        """
        if self.dead or self._closed:
            raise RuntimeError("the kernel is no longer running")
        if timeout is not None:
            self.default = float(timeout)
        cells = runnable(nb)
        todo = cells if indices is None else [i for i in indices if i in set(cells)]
        return self._call(self._run(nb, todo, on_cell))

    async def _run(self, nb, todo: list[int], on_cell):
        client = self.client
        client.nb, self.allow_errors = nb, DeckOptions.of(nb).allow_errors  # errors shown, listed by run_deck
        for k, index in enumerate(todo, start=1):
            if on_cell:
                on_cell(k, len(todo))
            await self._run_cell(nb.cells[index], index)
        if self.language_info:
            nb.metadata["language_info"] = self.language_info
        client.set_widgets_metadata()
        self.devices = await self._devices()
        return nb

    async def _run_cell(self, cell, index: int) -> None:
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

        limit = cell_timeout(cell, self.default)
        expired: list[asyncio.Task] = []

        async def stuck() -> str:  # where the kernel was, then an interrupt
            stacks = await self._stacks()
            await self.km.interrupt_kernel()
            return stacks

        def expire():  # our own watchdog: when a cell outlives its timeout
            expired.append(asyncio.ensure_future(stuck()))

        line, slide = _where(cell)
        timer = asyncio.get_running_loop().call_later(limit, expire)
        others = OthersMeter(self.pid)
        try:
            await self.client.async_execute_cell(cell, index, execution_count=self.client.code_cells_executed + 1)
        except DeadKernelError:
            self.dead = True
            code = await self.km.provisioner.poll() if self.km.provisioner else None
            raise DeckError(self.deck, line, f"the kernel died (exit code {code}) while running this cell",
                            death_hint(code), slide=slide) from None
        except (CellTimeoutError, CellExecutionError) as err:
            if expired or isinstance(err, CellTimeoutError):
                raise await self._timed_out(expired, limit, line, slide) from None
            traceback = where.plain(getattr(err, "traceback", "") or "")
            raised = where.raised_at(traceback, cell.get("execution_count"))
            at = line + raised if line and raised else line  # the statement that raised, not the fence
            if claims.is_check(cell) and not self.allow_errors:  # allowed: listed with the others (run_deck)
                machine = await self._machine()
                raise DeckError(self.deck, at, claims.failure(machine, getattr(err, "ename", None),
                                                              getattr(err, "evalue", None)), slide=slide,
                                details=traceback or None) from None
            if self.allow_errors:
                return
            message = f"{err.ename}: {err.evalue}" if getattr(err, "ename", None) else str(err).strip().splitlines()[-1]
            raise DeckError(self.deck, at, message,
                            "fix the cell, or tag it raises-exception if the error is the point", slide=slide,
                            details=traceback or None) from None
        finally:
            timer.cancel()
        if expired:
            raise await self._timed_out(expired, limit, line, slide)
        duration = recorded_duration(cell)
        if duration is not None:
            update_cell_info(cell, duration_s=round(duration, 4))
            load = dict(others_share=others.share(), cpu_s=others.own_seconds(), waited_s=others.waited_seconds())
            if load["others_share"] is not None and load["cpu_s"] is not None:
                update_cell_info(cell, **{key: value for key, value in load.items() if value is not None})
        self.peak_rss = max(self.peak_rss or 0, kernel_peak_rss(self.pid) or 0) or None

    async def _stacks(self) -> str:
        """Every thread's stack, as the kernel writes it on SIGUSR2 (see :mod:`jaxdeck.execute.launch`); "" if it cannot."""
        path = Path(self._folder) / STACKS_FILE
        seen = path.stat().st_size if path.exists() else 0
        try:
            os.kill(self.pid, signal.SIGUSR2)
        except (OSError, TypeError, AttributeError):
            return ""
        waited = 0.0
        while waited < STACKS_WAIT_S:
            await asyncio.sleep(0.1)
            waited += 0.1
            try:
                text = path.read_text(encoding="utf-8", errors="replace")[seen:]
            except OSError:
                continue
            if where.main_thread(text):
                return text
        return ""

    async def _timed_out(self, expired: list[asyncio.Task], limit: float, line: int | None,
                         slide: int | None) -> DeckError:
        """A timeout, saying where the kernel was: a cell stuck waiting is not a slow cell."""
        stacks = ""
        if expired:
            done = await asyncio.gather(*expired, return_exceptions=True)
            stacks = done[0] if isinstance(done[0], str) else ""
        at = where.stuck_at(where.main_thread(stacks), line)
        if stacks:
            stacks = (f"The kernel's threads after {limit:g} s on the cell at {self.deck.name}:{line}, the main thread "
                      "first (most recent call first):\n\n" + "\n\n".join(where.threads(stacks)))
        return DeckError(self.deck, line, f"cell did not finish in {limit:g} s" + (f": {at}" if at else ""),
                         "if it waits there for something that never comes, that is the bug to fix; if it is only "
                         "slow, make it faster or allow longer with timeout=N on its code fence", slide=slide,
                         details=stacks or None, details_are="every thread's stack")

    async def _evaluate(self, expression: str) -> str | None:
        """What ``expression`` evaluates to in the kernel, as its plain-text repr, without a cell or an
        entry in its history (None if it fails or no answer comes in 10 s)."""
        try:
            msg_id = self.client.kc.execute("", silent=True, store_history=False, user_expressions={"x": expression})
            reply = await asyncio.wait_for(self.client.async_wait_for_reply(msg_id), 10)
            found = (reply or {}).get("content", {}).get("user_expressions", {}).get("x", {})
            return found.get("data", {}).get("text/plain") if found.get("status") == "ok" else None
        except Exception:
            return None

    async def _machine(self) -> str | None:
        """The kernel's own account of its devices and jax version (None if it cannot say in 10 s)."""
        text = await self._evaluate(claims.MACHINE_EXPRESSION)
        return text.strip("'\"") if text else None

    async def _devices(self) -> dict | None:
        """The backend, device kind and count JAX ran the cells on, as the kernel says (None: no backend
        started, or no answer in 10 s)."""
        import ast

        text = await self._evaluate(claims.DEVICES_EXPRESSION)
        try:
            said = ast.literal_eval(text) if text else None
        except (ValueError, SyntaxError):
            return None
        return said if isinstance(said, dict) else None

    async def _shutdown(self) -> None:
        client, km = self.client, self.km
        if client is not None and client.kc is not None:
            client.kc.stop_channels()
            client.kc = None
        if km is not None:
            if km.has_kernel:
                await km.shutdown_kernel(now=True)  # kills the kernel's process group, removes its files
            else:
                await km.cleanup_resources()
        # nbclient's watchers of a cell that was cut short: end them here, not at the loop's close
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        """Stop the kernel now (its whole process group) and remove its files; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        pid = self.pid
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=10)
        except BaseException:  # the loop may be stuck or gone: the process group is killed below
            pass
        finally:
            # the kernel leads its own session: its group and all it started go, those that left it too
            end_tree(pid, known=marked(self._folder), grace=None, wait=0)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            if not self._thread.is_alive():
                self._loop.close()
            remove_private(self._folder)


def _settle(task: asyncio.Task, done: concurrent.futures.Future) -> None:
    """Hand a finished task's outcome to the waiting thread (always taking it, so none is left unread)."""
    if task.cancelled():
        outcome = ("cancel", None)
    elif task.exception() is not None:
        outcome = ("raise", task.exception())
    else:
        outcome = ("return", task.result())
    if done.done():
        return
    kind, value = outcome
    if kind == "cancel":
        done.cancel()
    elif kind == "raise":
        done.set_exception(value)
    else:
        done.set_result(value)


def execute(nb, path: str | Path, *, timeout: float | None = None,
            on_cell: Callable[[int, int], None] | None = None, cpus: frozenset[int] | None = None):
    """A copy of ``nb`` with every code cell run (outputs, timings) in a fresh kernel, or a DeckError.

    ``path`` is the deck's Markdown file: the kernel runs in its folder and errors
    name its lines. ``on_cell(k, n)`` is called before the k-th of n code cells; ``cpus``
    is the kernel's share of the machine (see :class:`Kernel`), recorded with the run.
    """
    from jaxdeck.records import write_build

    executed, kernel, facts = run_fresh(nb, path, timeout=timeout, on_cell=on_cell, cpus=cpus)
    kernel.close()
    write_build(executed, facts)
    return executed


def run_fresh(nb, path: str | Path, *, timeout: float | None = None,
              on_cell: Callable[[int, int], None] | None = None, cpus: frozenset[int] | None = None,
              on_start: Callable[[Kernel], None] | None = None, caches: str | Path | None = None):
    """As :func:`execute`, and its kernel left running (the preview's), and what the run measured
    (:class:`jaxdeck.records.ExecFacts`); ``on_start(kernel)`` first; ``caches``: the build's cache folder."""
    nb = copy.deepcopy(nb)
    began = time.perf_counter()
    kernel = Kernel(path, deck_timeout(nb, timeout), cpus=cpus, caches=caches)
    try:
        on_start and on_start(kernel)
        kernel.run(nb, on_cell=on_cell)
    except BaseException:
        kernel.close()
        raise
    return nb, kernel, record_run(nb, kernel, began)
