"""Ctrl-C, ``kill`` and a closed terminal stop a command at once, leaving no process behind.

:func:`stop_on_signals` turns SIGINT, SIGTERM and SIGHUP into :class:`Stopped`, raised once
in the main thread. Before raising, the handler ends every process this one started
(:func:`end_children`): the kernel, the browser, a probe. It does so first because those
are what a command waits on (a kernel's reply, a page print), so the ``finally`` blocks that
unwind afterwards find nothing left to wait for and finish within moments. Playwright's
driver is spared until then, so that the browser's connection closes in order; anything
still running when the unwinding is done is ended last. A second signal during the
unwinding is only recorded, so it cannot cut it short.

The kernel runs in a session of its own (jupyter_client starts it so), so Ctrl-C in the
terminal does not reach it by itself; nor would a SIGTERM to the build alone.

:func:`end_tree` is the one way a process is ended with everything it started: these
children, a kernel that closes, the live Jupyter server and its kernels.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from typing import Iterable, Iterator

#: the signals that stop a command: Ctrl-C, `kill` (or `timeout`, a service manager), a closed terminal
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
#: seconds the children get to exit on SIGTERM before they are killed
GRACE_S = 2.0


class Stopped(BaseException):
    """A stop signal arrived; ``signum`` says which.

    A BaseException, like KeyboardInterrupt, so that ``except Exception`` does not swallow it.
    """

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """The shell's convention for "ended by this signal": 128 + its number."""
        return 128 + self.signum


def is_driver(process) -> bool:
    """Playwright's driver: it closes the browser's connection in order once the browser is gone."""
    try:
        return "run-driver" in process.cmdline()
    except Exception:
        return False


def _group(pid: int) -> int | None:
    """The process group ``pid`` leads, to signal with it; also when ``pid`` is gone, since a
    group outlives its leader (and its id is not reused while it does)."""
    if not hasattr(os, "killpg"):
        return None
    try:
        return pid if os.getpgid(pid) == pid else None
    except ProcessLookupError:
        return pid
    except OSError:
        return None


def _signal_group(group: int | None, signum: int) -> None:
    if group is not None:
        with contextlib.suppress(OSError):
            os.killpg(group, signum)


def end_tree(root=None, *, known: Iterable = (), itself: bool = True, grace: float | None = GRACE_S,
             wait: float = GRACE_S, spare=None) -> list:
    """End the process ``root`` (a pid or a psutil process), every descendant of it and the ``known``
    processes still running; returns the processes it signalled.

    The whole tree is listed before any is signalled: a browser's helpers would otherwise be
    handed to init when their parent goes, out of reach. ``known`` are descendants listed
    earlier: a kernel in a session of its own is no longer the child of a server that has exited.
    When ``root`` leads a process group (a kernel, a Jupyter server: each starts a session), the
    group is signalled too, which reaches members whose parent is already gone; ``itself=False``
    spares ``root`` and its group (a process ending its own children). Each gets SIGTERM and
    ``grace`` seconds to exit (``grace=None``: no SIGTERM), then SIGKILL and up to ``wait``
    seconds to go (0: no wait). ``spare(process)`` true keeps one (and not its descendants) alive.
    """
    try:
        import psutil
    except ImportError:  # psutil comes with ipykernel; without it there is no kernel to stop either
        return []
    tree: list = []
    group = None
    if root is not None:
        pid = root.pid if isinstance(root, psutil.Process) else int(root)
        with contextlib.suppress(psutil.Error):
            process = root if isinstance(root, psutil.Process) else psutil.Process(pid)
            if process.is_running():
                tree = process.children(recursive=True)
                if itself:
                    tree.insert(0, process)
        if itself:
            group = _group(pid)
    tree += [process for process in known if process not in tree and process.is_running()]
    if spare is not None:
        tree = [process for process in tree if not spare(process)]
    alive = tree
    if grace is not None:
        for process in tree:
            with contextlib.suppress(psutil.Error):
                process.terminate()
        _signal_group(group, signal.SIGTERM)
        _, alive = psutil.wait_procs(tree, timeout=grace)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    _signal_group(group, signal.SIGKILL)
    if wait:
        psutil.wait_procs(alive, timeout=wait)
    return tree


#: set in a kernel's (and a live server's) environment to a value of its own: what a cell starts
#: inherits it, so a process that left the kernel's tree (a double fork, a session of its own) is found
MARKER = "JAXDECK_RUN"


def marked(value: str) -> list:
    """This user's running processes whose environment holds ``MARKER=value``."""
    try:
        import psutil
    except ImportError:
        return []
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if process.pid != os.getpid() and process.environ().get(MARKER) == value:
                found.append(process)
    return found


def end_children(grace: float = GRACE_S, spare=None) -> int:
    """SIGTERM every descendant of this process, SIGKILL those still alive after ``grace`` s; how many there were.

    ``spare(process)`` true keeps one (and not its descendants) alive (see :func:`end_tree`).
    """
    return len(end_tree(os.getpid(), itself=False, grace=grace, wait=grace, spare=spare))


@contextlib.contextmanager
def stop_on_signals() -> Iterator[list[int]]:
    """Inside: SIGINT, SIGTERM and SIGHUP end the children and raise :class:`Stopped` (once).

    Yields the list of signals received. Outside the main thread it does nothing (signal
    handlers belong to the main thread). The previous handlers come back on exit.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handle(signum, frame):
        received.append(signum)
        if len(received) > 1:
            return
        end_children(spare=is_driver)  # the driver ends with its browser connection, as the unwinding closes it
        # raised inside Playwright's event loop, the stop may be caught there and logged by asyncio as a
        # "fatal write error" with its traceback: the user asked to stop, that is no news to print
        logging.getLogger("asyncio").disabled = True
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, handle) for signum in SIGNALS}
    try:
        yield received
    finally:
        if received:
            end_children()  # whatever the unwinding did not end
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# ------------------------------------------------------------------ a long-running server


class StopSignals:
    """SIGINT, SIGTERM and SIGHUP as :class:`Stopped`, raised at most once.

    ``install()`` sets the handlers (in the main thread; elsewhere it does nothing) and arms
    them: the first stop signal disarms and raises :class:`Stopped` in the main thread. Every
    later one is only appended to ``received``, so the cleanup that follows the first cannot
    be interrupted. ``armed = False`` (a plain attribute store, which no handler can cut in
    front of) disarms by hand before a shutdown. Inside ``with hold():`` a signal is kept
    pending and raised when the outermost hold ends, for steps that must not be split (start
    a process and keep its handle). ``uninstall()`` puts the previous handlers back.
    """

    def __init__(self) -> None:
        self.armed = False
        self.held = 0
        self.pending: int | None = None
        self.received: list[int] = []
        self.previous: dict[int, object] = {}

    def install(self) -> "StopSignals":
        if threading.current_thread() is not threading.main_thread():
            return self
        self.received = []
        self.pending = None
        self.armed = True  # before the handlers: a signal that comes while they are set is not lost
        for signum in SIGNALS:
            self.previous.setdefault(signum, signal.signal(signum, self._handle))
        return self

    def uninstall(self) -> None:
        self.armed = False
        while self.previous:
            signum, handler = self.previous.popitem()
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame) -> None:
        self.received.append(signum)
        if not self.armed:
            return
        if self.held:
            if self.pending is None:
                self.pending = signum
            return
        self.armed = False
        raise Stopped(signum)

    def hold(self) -> "_Hold":
        return _Hold(self)


class _Hold:
    def __init__(self, signals: StopSignals) -> None:
        self.signals = signals

    def __enter__(self) -> None:
        self.signals.held += 1

    def __exit__(self, *exc) -> None:
        signals = self.signals
        signals.held -= 1
        if not signals.held and signals.armed and signals.pending is not None:
            signum, signals.pending, signals.armed = signals.pending, None, False
            raise Stopped(signum)


#: this process's stop-signal handling (signal handlers belong to the process: there is one)
STOP = StopSignals()
