"""A long-running server's stop signals: SIGINT, SIGTERM and SIGHUP raised once as :class:`Stopped`,
and held back across a step that must not be split.

A command that runs until it is stopped (``present``, with its Jupyter server and kernels) has a
``finally`` that stops what it started; a second signal must not cut that short, and a signal that
lands between starting a process and keeping its handle must wait for the handle. A command that
works and ends (a build) uses :func:`jaxdeck.stopping.stop_on_signals` instead.
"""

from __future__ import annotations

import signal
import threading

from jaxdeck.stopping import SIGNALS, Stopped


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
