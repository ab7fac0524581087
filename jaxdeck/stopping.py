"""Ctrl-C, ``kill`` and a closed terminal stop a command at once, leaving no process behind.

:func:`stop_on_signals` turns SIGINT, SIGTERM and SIGHUP into :class:`Stopped`, raised once
in the main thread. Before raising, the handler ends every process this one started
(:func:`end_children`): the kernel, the browser, a probe. It does so first because those
are what a command waits on (a kernel's reply, a page print), so the ``finally`` blocks that
unwind afterwards find nothing left to wait for and finish within moments. Playwright's
driver is spared until then, so that the browser's connection closes in order; anything
still running when the unwinding is done is ended last. A second signal during the
unwinding is only recorded, so it cannot cut it short.

Whatever the unwinding waits on, the command ends within :data:`STOP_S` of the signal: Chromium's
processes are killed at once (a browser that is starting or printing has nothing to save), the
others get a short grace, and a call that still waits when the time is up (Playwright's, on a
browser killed under it, may wait for ever) is cut short: everything left is killed, the stop is
said and the process exits with the signal's code (:func:`say` says it once, whoever comes first).

The kernel runs in a session of its own (jupyter_client starts it so), so Ctrl-C in the
terminal does not reach it by itself; nor would a SIGTERM to the build alone. A SIGKILL runs
none of this: :mod:`jaxdeck.orphans` (a watchdog) ends what a command killed so leaves.

:func:`end_tree` is the one way a process is ended with everything it started: these
children, a kernel that closes, the live Jupyter server and its kernels.
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import faulthandler
import logging
import os
import signal
import sys
import threading
import time
from typing import Iterable, Iterator

#: the signals that stop a command: Ctrl-C, `kill` (or `timeout`, a service manager), a closed terminal
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
#: seconds the children get to exit on SIGTERM before they are killed
GRACE_S = 2.0
#: a stop signal ends the command within this many seconds, whatever it was doing
STOP_S = 2.0
#: of that, what the children get to exit on SIGTERM (Chromium gets none: it is killed at once)
STOP_GRACE_S = 0.5
#: of that, what is kept for killing what is left and exiting, when the unwinding has not finished
_LAST_S = 0.3
#: the longest the main thread waits at a time: a stop signal may land in any of the process's threads, and
#: Python runs its handler in the main thread only, when that thread next runs
WAKE_S = 0.5


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

    @property
    def message(self) -> str:
        return "interrupted" if self.name == "SIGINT" else f"stopped by {self.name}"


def is_driver(process) -> bool:
    """Playwright's driver: it closes the browser's connection in order once the browser is gone."""
    try:
        return "run-driver" in process.cmdline()
    except Exception:
        return False


def in_browser(process) -> bool:
    """A process Playwright's driver started: Chromium and its helpers, which need no time to exit."""
    try:
        return any(is_driver(parent) for parent in process.parents())
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
             wait: float = GRACE_S, spare=None, at_once=None) -> list:
    """End the process ``root`` (a pid or a psutil process), every descendant of it and the ``known``
    processes still running; returns the processes it signalled.

    The whole tree is listed before any is signalled: a browser's helpers would otherwise be
    handed to init when their parent goes, out of reach. ``known`` are descendants listed
    earlier: a kernel in a session of its own is no longer the child of a server that has exited.
    When ``root`` leads a process group (a kernel, a Jupyter server: each starts a session), the
    group is signalled too, which reaches members whose parent is already gone; ``itself=False``
    spares ``root`` and its group (a process ending its own children). Each gets SIGTERM and
    ``grace`` seconds to exit (``grace=None``: no SIGTERM), then SIGKILL and up to ``wait``
    seconds to go (0: no wait). ``spare(process)`` true keeps one (and not its descendants) alive;
    ``at_once(process)`` true kills one with no SIGTERM first.
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
        gentle = [process for process in tree if at_once is None or not at_once(process)]
        for process in tree:
            with contextlib.suppress(psutil.Error):
                if process in gentle:
                    process.terminate()
                else:
                    process.kill()
        _signal_group(group, signal.SIGTERM)
        _, alive = psutil.wait_procs(tree, timeout=grace if gentle else min(grace, wait))
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


def marked(value: str, variable: str = MARKER) -> list:
    """This user's running processes whose environment holds ``variable=value`` (:data:`MARKER` unless said)."""
    try:
        import psutil
    except ImportError:
        return []
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if process.pid != os.getpid() and process.environ().get(variable) == value:
                found.append(process)
    return found


def end_children(grace: float | None = GRACE_S, spare=None, at_once=None) -> int:
    """SIGTERM every descendant of this process, SIGKILL those still alive after ``grace`` s (None: at once);
    how many there were.

    ``spare(process)`` true keeps one (and not its descendants) alive, ``at_once(process)`` true
    kills one without a SIGTERM first (see :func:`end_tree`).
    """
    from jaxdeck.orphans import let_be  # the watchdog ends what is left after this process; the user's browser stays

    kept = let_be if spare is None else (lambda process: let_be(process) or spare(process))
    return len(end_tree(os.getpid(), itself=False, grace=grace, wait=grace or 0.2, spare=kept, at_once=at_once))


_said = threading.Lock()
_stopping = threading.Event()


def say(stop: Stopped) -> None:
    """Print the stop's line (``interrupted``, ``stopped by SIGTERM``) on stderr, once per process."""
    if _said.acquire(blocking=False):
        print(stop.message, file=sys.stderr, flush=True)


def leave(stop: Stopped) -> None:
    """End a stopped command now: its line said, whatever is left killed, the process gone with the signal's code.

    Not a return through the interpreter's shutdown: a thread still inside Playwright (a printer
    whose browser was killed under it) may keep that waiting, or crash it while it tears down.
    """
    say(stop)
    end_children(grace=None)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(stop.exit_code)


def result(future):
    """``future.result()``, waited for in waits of :data:`WAKE_S`, so that a stop signal is taken within one."""
    while True:
        try:
            return future.result(timeout=WAKE_S)
        except TimeoutError:
            if future.done():  # the future's own TimeoutError, not the wait's
                raise


def stopping() -> bool:
    """Whether a stop signal came: what waits on a thread may wait briefly then, not for its whole timeout."""
    return _stopping.is_set()


def _exit_by_deadline(signum: int, seconds: float, hung: bool = False) -> None:
    """In ``seconds``, unless the process is gone by then: kill every process left, say the stop, exit.

    ``hung``: an unwinding still going then is a bug (an orderly shutdown that should have ended), so
    where every thread stood is printed first, for the report.
    """

    def cut_short() -> None:
        if hung:
            with contextlib.suppress(Exception):
                print(f"error: still stopping {seconds + _LAST_S:g} s after the signal, so ended here; "
                      "please report where its threads stood:", file=sys.stderr, flush=True)
                faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        leave(Stopped(signum))

    timer = threading.Timer(seconds, cut_short)
    timer.daemon = True
    timer.start()


def _interrupt_soon(signum: int, main: int) -> None:
    """Send ``signum`` again to the main thread alone, a moment later: a real signal, which also wakes a
    main thread that sleeps or waits (``_thread.interrupt_main`` only marks it as pending)."""
    time.sleep(0.01)
    signal.pthread_kill(main, signum)


def leave_on_signals() -> None:
    """To the process's end, a stop signal ends it as :func:`leave` does (its line said, its children
    ended, the signal's exit code), and once the interpreter's last exit handler has run it is held back.

    Set before :func:`stop_on_signals`, these are the handlers that it puts back, so a signal that lands
    after the work, while threads are joined and exit handlers run, still reads as a stop. The last part
    of the shutdown (the garbage collector's) runs no Python handler: there a signal would kill the
    process, whose work is done and saved, as if it had failed; held back, it leaves the command's own
    exit code.
    """
    for signum in SIGNALS:
        signal.signal(signum, lambda signum, frame: leave(Stopped(signum)))
    atexit.register(signal.pthread_sigmask, signal.SIG_BLOCK, SIGNALS)  # the first registered runs last


@contextlib.contextmanager
def stop_on_signals(deadline: float = STOP_S) -> Iterator[list[int]]:
    """Inside: SIGINT, SIGTERM and SIGHUP end the children and raise :class:`Stopped` (once); the
    process is gone ``deadline`` s after the signal whatever the unwinding waits on (a server that
    shuts down in order is given longer).

    Yields the list of signals received. Outside the main thread it does nothing (signal
    handlers belong to the main thread). The previous handlers come back on exit.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    lost: list[int] = []  # a Stopped raised where Python could only print it and go on

    def handle(signum, frame):
        received.append(signum)
        if lost:  # the relay below: raise the first signal's stop again, where it can unwind
            raise Stopped(lost.pop())
        if len(received) > 1:
            return
        _stopping.set()
        _exit_by_deadline(signum, deadline - _LAST_S, hung=deadline > STOP_S)
        # the driver ends with its browser connection, as the unwinding closes it
        end_children(grace=STOP_GRACE_S, spare=is_driver, at_once=in_browser)
        # raised inside Playwright's event loop, the stop may be caught there and logged by asyncio as a
        # "fatal write error" with its traceback: the user asked to stop, that is no news to print
        logging.getLogger("asyncio").disabled = True
        raise Stopped(signum)

    unraisable = sys.unraisablehook

    def relay(hook_args) -> None:
        """A handler that ran inside a weakref callback or a ``__del__`` (the garbage collector's work, at any
        moment) raised its Stopped where Python can only print it as "Exception ignored" and go on: say
        nothing, and hand the stop back to the main thread as if the signal came again."""
        if isinstance(hook_args.exc_value, Stopped):
            signum = hook_args.exc_value.signum
            lost.append(signum)
            # from a bare thread, a moment later: here the handler would run at once, inside the callback again
            _thread.start_new_thread(_interrupt_soon, (signum, threading.main_thread().ident))
            return
        unraisable(hook_args)

    previous = {signum: signal.signal(signum, handle) for signum in SIGNALS}
    sys.unraisablehook = relay
    try:
        yield received
    finally:
        if received:
            end_children(grace=STOP_GRACE_S)  # whatever the unwinding did not end
        sys.unraisablehook = unraisable
        for signum, handler in previous.items():
            signal.signal(signum, handler)
