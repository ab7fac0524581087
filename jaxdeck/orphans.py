"""Nothing a command starts outlives it, ``kill -9`` included; a start sweeps the private folders of dead commands.

A command's children are a kernel and the Jupyter server (each in a session of its own, so that
Ctrl-C in the terminal does not reach them), Chromium (started by Playwright's driver), and whatever
a cell starts: a ``setsid`` daemon, a process started with ``env -i`` (no variable of ours). The
command's own stop handling (:mod:`jaxdeck.stopping`) ends them on a signal it can catch; SIGKILL
(the OOM killer, ``kill -9``) runs none of it, and a kernel left so may hold a GPU's memory for good.

Why this design, on Linux:

- ``PR_SET_PDEATHSIG`` is not enough: it is set by the child on itself (jupyter_client and Playwright
  start these processes, not us), it is not inherited across ``fork``, so a cell's grandchildren
  never get it, and it fires when the *thread* that forked exits, not the process.
- So the command makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``): a process that leaves
  its parent's tree (a double fork, a daemon whose parent exited) is handed to the command instead of
  init, so every process the command started stays in its tree, found by parent links, whatever its
  session or environment.
- That role dies with the command, so a small watchdog (:mod:`jaxdeck.watchdog` run as a script: the
  standard library only, started with ``-I -S`` in a session of its own, in ``/``) notes the command's tree every
  :data:`TICK_S` while the command lives (pid and start time of each process, and which of them lead a
  session or a process group). It learns of the command's death at once from a pidfd, SIGKILL
  included. It then stops (SIGSTOP, so none forks further) and kills: what it noted that still runs
  (same pid *and* start time), what those started since, the members of the sessions and groups they
  lead, and every process of this user whose environment carries the command's token (:data:`VAR`).
  Each signal goes through a pidfd opened and checked against the start time first, so a reused pid
  is never signalled, and nothing that started before the command is touched: the user's other
  processes are safe. A process left running between the last note and the command's death is found
  by its token, its session, or its parent; one that escapes all three within one tick may remain.
- What a command means to leave running (the user's browser that ``preview`` opens, a detached
  ``present``) is started with :func:`let_go`'s variable; the watchdog and
  :func:`jaxdeck.stopping.end_children` leave it and what it starts alone.

Private folders (``/tmp/jaxdeck-kernel-*``, ``-chromium-*``, ``-jupyter-*``) are made by
:func:`private_folder`, which records their owner (pid, start time, boot and pid namespace) in
:data:`OWNER`, and removed by :func:`remove_private`, the record last. The watchdog sweeps, at the
command's start and end, this user's such folders whose owner is gone (:func:`jaxdeck.watchdog.sweep`
says which). Elsewhere than Linux none of this runs.
"""

from __future__ import annotations

import os
import sys

from jaxdeck.watchdog import KEEP, OWNER, PREFIX, VAR, _start, remove_private, write_owner

__all__ = ["KEEP", "OWNER", "PREFIX", "VAR", "let_be", "let_go", "private_folder", "remove_private", "watch",
           "write_owner"]

LINUX = sys.platform.startswith("linux")
PR_SET_CHILD_SUBREAPER = 36

#: the watchdog of this process, once :func:`watch` started one
_watchdog: int | None = None


# ------------------------------------------------------------------ the command's side


def watch() -> None:
    """Make this process (a command) a subreaper and start its watchdog; nothing elsewhere than Linux.

    Called once, by the command line, before anything is started: everything started after inherits
    :data:`VAR`.
    """
    global _watchdog
    if not LINUX or _watchdog is not None:
        return
    import ctypes
    import secrets
    import subprocess

    token = secrets.token_hex(12)
    os.environ[VAR] = token
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        me = os.getpid()
        command = [sys.executable, "-I", "-S", os.path.join(os.path.dirname(os.path.abspath(__file__)), "watchdog.py"), str(me), str(_start(me)), token]
        _watchdog = subprocess.Popen(command,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     cwd="/", start_new_session=True).pid
    except OSError:  # no watchdog: the command's own stop handling is all there is, as before
        return


def let_go() -> dict[str, str]:
    """Environment for a process this command means to leave running when it ends (the user's browser, a
    detached present): neither the watchdog nor the command's stop ends it, or what it starts."""
    token = os.environ.get(VAR)
    return {KEEP: token} if token and _watchdog is not None else {}


def let_be(process) -> bool:
    """Whether the psutil ``process`` is to be spared when this command ends its children: its watchdog
    (which ends what the command leaves), or a process it let go (:func:`let_go`)."""
    if _watchdog is None:
        return False
    if process.pid == _watchdog:
        return True
    try:
        return process.environ().get(KEEP) == os.environ.get(VAR)
    except Exception:
        return False


def private_folder(prefix: str) -> str:
    """``tempfile.mkdtemp(prefix=prefix)`` (mode 0700) with its owner, this process, recorded in :data:`OWNER`,
    so that a later start removes it once this process is gone however it ended."""
    import tempfile

    folder = tempfile.mkdtemp(prefix=prefix)
    if LINUX:
        write_owner(folder, os.getpid())
    return folder
