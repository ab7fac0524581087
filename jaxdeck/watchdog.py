"""The watchdog a command leaves beside it, and the private folders it sweeps: the standard library only.

Run as a script (``python -I -S watchdog.py PID START TOKEN``, in a session of its own, in ``/``) by
:func:`jaxdeck.orphans.watch`, which says why this design; imported by the command for what both sides
share: the names in the environment, the owner record of a private folder, and its removal.

A private folder's :data:`OWNER` record is removed last (:func:`remove_private`): a folder that cannot be
emptied now, because a process is still writing into it, keeps its record, and the sweep at a later
start removes it once its owner is gone. The sweep never removes another user's folder, a link, or a
folder whose record it cannot read or names a process of another pid namespace; a folder with no record
at all (made by a jaxdeck from before records, or its maker killed between making it and writing the
record) is removed once nothing in it has changed for :data:`UNRECORDED_S`.
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
#: a private folder with no owner record, unchanged for this long (a day), is left behind
UNRECORDED_S = 24 * 3600


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


# ------------------------------------------------------------------ private folders


def write_owner(folder: str | os.PathLike, pid: int) -> None:
    """Record ``pid`` (which must be running) as the owner of ``folder``."""
    start = _start(pid)
    if start is None:
        return
    _write_record(folder, f"{pid} {start} {_boot()} {_namespace()}\n".encode())


def _write_record(folder: str | os.PathLike | None, line: bytes, dir_fd: int | None = None) -> None:
    path = OWNER if dir_fd is not None else os.path.join(folder, OWNER)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dir_fd)
    try:
        os.write(descriptor, line)
    finally:
        os.close(descriptor)


def _read_record(dir_fd: int) -> bytes | None:
    """The owner record in the folder open as ``dir_fd``: None when it is missing; ``b""`` when it is not a
    regular file of this user's under 4 KB (a link, a FIFO that would block the read): one that cannot be read."""
    try:
        descriptor = os.open(OWNER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError:
        return b""
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > 4096:
            return b""
        return os.read(descriptor, 4096)
    finally:
        os.close(descriptor)


def _open_folder(folder: str) -> int | None:
    """``folder`` opened as a real folder of this user's (never through a link); None when it is not one."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    if os.fstat(descriptor).st_uid != os.getuid():
        os.close(descriptor)
        return None
    return descriptor


def remove_private(folder: str | os.PathLike) -> bool:
    """Remove a private folder, its owner record last; whether it is gone.

    Removing the record first (as ``shutil.rmtree`` may) and then failing on a file that a closing
    process (a Chromium helper) still writes would leave a folder that no sweep can tell is left behind.
    Everything inside is removed through the folder's own handle, so a folder swapped for a link (in a
    temporary folder others may write) leads nowhere else.
    """
    import shutil

    folder = os.fspath(folder)
    handle = _open_folder(folder)
    if handle is None:
        return not os.path.lexists(folder)
    try:
        for name in os.listdir(handle):
            if name == OWNER:
                continue
            try:
                if stat.S_ISDIR(os.lstat(name, dir_fd=handle).st_mode):
                    shutil.rmtree(name, ignore_errors=True, dir_fd=handle)
                else:
                    os.unlink(name, dir_fd=handle)
            except OSError:
                continue
        line = _read_record(handle)
        try:
            if set(os.listdir(handle)) - {OWNER}:
                return False  # the record stays, for a later sweep
            if line is not None:
                os.unlink(OWNER, dir_fd=handle)
            os.rmdir(folder)  # only ever an empty folder, whatever is at that name now
            return True
        except OSError:
            if line and not os.path.lexists(os.path.join(folder, OWNER)):
                try:  # something came in between: the record goes back
                    _write_record(None, line, dir_fd=handle)
                except OSError:
                    pass
            return not os.path.lexists(folder)
    finally:
        os.close(handle)


def _owner_alive(folder: str, changed: float) -> bool:
    """Whether the process recorded in ``folder`` runs; True when that cannot be told (a record that cannot
    be read, another pid namespace, no record in a folder changed within :data:`UNRECORDED_S`), so that
    only a folder surely left behind is removed."""
    handle = _open_folder(folder)
    if handle is None:
        return True
    try:
        line = _read_record(handle)
    finally:
        os.close(handle)
    if line is None:
        return time.time() - changed < UNRECORDED_S
    words = line.decode("ascii", "replace").split()
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
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or _owner_alive(path, info.st_mtime):
            continue
        # rmtree does not follow links inside; in a sticky /tmp no other user can swap the folder for a link
        if remove_private(path):
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
