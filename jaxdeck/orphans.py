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
- That role dies with the command, so a small watchdog (this file run as a script: the standard
  library only, started with ``-I -S`` in a session of its own, in ``/``) notes the command's tree every
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
:data:`OWNER`. The watchdog sweeps, at the command's start and end, this user's such folders whose
owner is gone: real folders only (never a link), never another user's, never one whose owner record
is missing or unreadable. Elsewhere than Linux none of this runs.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import stat
import sys
import time

#: in a watched command's environment (and so in everything it starts): the token of its watch
VAR = "JAXDECK_COMMAND"
#: a process started with ``KEEP=<the command's token>`` is meant to outlive the command
KEEP = "JAXDECK_KEEP"
#: the file in a private folder that names the process owning it
OWNER = ".jaxdeck-owner"
#: how often the watchdog notes the command's tree, in seconds
TICK_S = 0.2
#: the private folders' prefix, in the temporary folder
PREFIX = "jaxdeck-"

LINUX = sys.platform.startswith("linux")
PR_SET_CHILD_SUBREAPER = 36

#: the watchdog of this process, once :func:`watch` started one
_watchdog: int | None = None


# ------------------------------------------------------------------ /proc, read directly


def _stat(pid: int) -> tuple[str, int, int, int, int] | None:
    """(state, parent, process group, session, start time in clock ticks since boot) of ``pid``; None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2:].split()
    return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])


def _start(pid: int) -> int | None:
    """``pid``'s start time, None when it is gone or a zombie (ended: it uses nothing any more)."""
    found = _stat(pid)
    return None if found is None or found[0] in ("Z", "X") else found[4]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


def _environ(pid: int) -> dict[bytes, bytes]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            pairs = handle.read().split(b"\0")
    except OSError:
        return {}
    return dict(pair.split(b"=", 1) for pair in pairs if b"=" in pair)


def _boot() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


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
        command = [sys.executable, "-I", "-S", os.path.abspath(__file__), str(me), str(_start(me)), token]
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


def write_owner(folder: str | os.PathLike, pid: int) -> None:
    """Record ``pid`` (which must be running) as the owner of ``folder``."""
    start = _start(pid)
    if start is None:
        return
    line = f"{pid} {start} {_boot()} {_namespace()}\n".encode()
    descriptor = os.open(os.path.join(folder, OWNER), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(descriptor, line)
    finally:
        os.close(descriptor)


# ------------------------------------------------------------------ the sweep


def _owner_alive(folder: str) -> bool:
    """Whether the process recorded in ``folder`` runs; True when that cannot be told (no record, another
    pid namespace), so that only a folder surely left behind is removed."""
    try:
        descriptor = os.open(os.path.join(folder, OWNER), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return True
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > 4096:
            return True
        words = os.read(descriptor, 4096).decode("ascii", "replace").split()
    finally:
        os.close(descriptor)
    if len(words) != 4 or not (words[0].isdigit() and words[1].isdigit()):
        return True
    pid, start, boot, namespace = int(words[0]), int(words[1]), words[2], words[3]
    if boot != _boot():
        return False  # recorded before the machine last started
    if namespace != _namespace():
        return True
    return _start(pid) == start


def sweep(tmp: str | None = None) -> list[str]:
    """Remove this user's private folders in ``tmp`` (the temporary folder) whose owner is gone; those removed."""
    import shutil
    import tempfile

    tmp = tmp or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(tmp)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(PREFIX):
            continue
        path = os.path.join(tmp, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or _owner_alive(path):
            continue
        # rmtree does not follow links inside; in a sticky /tmp no other user can swap the folder for a link
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


# ------------------------------------------------------------------ the watchdog


def _signal(pid: int, start: int, signum: int) -> bool:
    """Send ``signum`` to ``pid`` only if it is still the process that started at ``start``."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError) as err:
        if isinstance(err, OSError) and err.errno != errno.ENOSYS:
            return False  # gone
        if _start(pid) != start:  # a kernel older than Linux 5.3: checked just before, as near as it gets
            return False
        try:
            os.kill(pid, signum)
            return True
        except OSError:
            return False
    try:
        if _start(pid) != start:  # checked after the pidfd is held: it cannot be another process's now
            return False
        signal.pidfd_send_signal(handle, signum)
        return True
    except OSError:
        return False
    finally:
        os.close(handle)


class Watch:
    """What the watchdog knows of the command ``pid`` whose environment carries ``token``."""

    def __init__(self, pid: int, begun: int, token: str) -> None:
        self.pid = pid
        self.token = token.encode()
        self.me = os.getpid()
        self.begun = begun  # the command's start: nothing that started before it is its
        self.seen: dict[int, int] = {}  # pid -> start time, of every process noted in the command's tree
        self.kept: set[tuple[int, int]] = set()
        self.leaders: set[int] = set()  # sessions and groups led by a process of the tree at the last note

    def _kept(self, pid: int, start: int) -> bool:
        """Whether the command let this process go; asked again each time until it says yes, since a child
        seen between its fork and its exec still has the command's environment, not the one it was given."""
        if (pid, start) in self.kept:
            return True
        if _environ(pid).get(KEEP.encode()) == self.token:
            self.kept.add((pid, start))
            return True
        return False

    def note(self) -> None:
        """Note the command's tree as it is now (leaving out what it let go, and what that started)."""
        leaders = set()
        stack = [self.pid]
        while stack:
            for child in _children(stack.pop()):
                found = _stat(child)
                if child == self.me or found is None or self._kept(child, found[4]):
                    continue
                self.seen[child] = found[4]
                if child in (found[2], found[3]):
                    leaders.add(child)
                stack.append(child)
        self.leaders = leaders

    def targets(self, ended: dict[int, int]) -> dict[int, int]:
        """What the command started that still runs and is not yet in ``ended``."""
        found: dict[int, int] = {}

        def take(pid: int, start: int | None) -> None:
            if (start is None or pid in (self.me, self.pid) or start < self.begun or pid in found
                    or ended.get(pid) == start or self._kept(pid, start)):
                return
            found[pid] = start

        for pid, start in self.seen.items():
            if _start(pid) == start:
                take(pid, start)
        uid = os.getuid()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            pid = int(name)
            try:
                if os.stat(f"/proc/{name}").st_uid != uid:
                    continue
            except OSError:
                continue
            info = _stat(pid)
            if info is None or info[0] in ("Z", "X"):
                continue
            if info[2] in self.leaders or info[3] in self.leaders or _environ(pid).get(VAR.encode()) == self.token:
                take(pid, info[4])
        stack = [*found, *ended]
        while stack:  # and what those started since the last note
            for child in _children(stack.pop()):
                if child not in found:
                    take(child, _start(child))
                    if child in found:
                        stack.append(child)
        return found

    def end(self) -> int:
        """Stop everything the command left, until nothing more turns up, then kill it all; how many."""
        ended: dict[int, int] = {}
        for _ in range(50):
            found = self.targets(ended)
            if not found:
                break
            for pid, start in found.items():
                _signal(pid, start, signal.SIGSTOP)  # stopped, it starts nothing more
                ended[pid] = start
        for pid, start in ended.items():
            _signal(pid, start, signal.SIGKILL)
        return len(ended)


def main(pid: int, begun: int, token: str) -> None:
    """The watchdog of the command ``pid``: note its tree until it ends, then end what it left and sweep."""
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # its command's stop is not its own: it ends when the command has
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        handle = None  # Linux before 5.3: the command's end is seen at the next tick, when this process has a new parent
    watch = Watch(pid, begun, token)
    swept = False
    while os.getppid() == pid:  # so the pidfd is the command's, not a reused pid's
        watch.note()
        if not swept:
            swept = True
            sweep()
        if handle is None:
            time.sleep(TICK_S)
        elif select.select([handle], [], [], TICK_S)[0]:
            break
    watch.end()
    sweep()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
