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
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator

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


def end_children(grace: float = GRACE_S, spare=None) -> int:
    """SIGTERM every descendant of this process, SIGKILL those still alive after ``grace`` s; how many there were.

    The whole tree is listed before any is signalled: a browser's helpers would otherwise be
    handed to init when their parent goes, out of reach. ``spare(process)`` true keeps one
    (and not its descendants) alive.
    """
    try:
        import psutil
    except ImportError:  # psutil comes with ipykernel; without it there is no kernel to stop either
        return 0
    try:
        children = psutil.Process(os.getpid()).children(recursive=True)
    except psutil.Error:
        return 0
    if spare is not None:
        children = [child for child in children if not spare(child)]
    for child in children:
        with contextlib.suppress(psutil.Error):
            child.terminate()
    _, alive = psutil.wait_procs(children, timeout=grace)
    for child in alive:
        with contextlib.suppress(psutil.Error):
            child.kill()
    psutil.wait_procs(alive, timeout=grace)
    return len(children)


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
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, handle) for signum in SIGNALS}
    try:
        yield received
    finally:
        if received:
            end_children()  # whatever the unwinding did not end
        for signum, handler in previous.items():
            signal.signal(signum, handler)
