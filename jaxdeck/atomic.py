"""Atomic writes: a failed build never leaves a half-written artefact behind."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from jaxdeck.errors import os_error


#: between the writer's pid and mkstemp's random part in a temporary file's name
MARK = ".jdtmp-"
#: a write never takes this long: an older temporary file is a leftover whoever wrote it
STALE_S = 3600
#: ``.PID.jdtmp-RANDOM.tmp`` (and ``.NAME.PID.jdtmp-RANDOM.tmp``, as earlier versions named them)
_LEFTOVER = re.compile(r"^\.(?:.+\.)?(\d+)" + re.escape(MARK) + r"[^.]+\.tmp$")


def _temporary(folder: Path) -> tuple[int, str]:
    """A new private file in ``folder`` to rename over a file there: its descriptor and path. Its name is
    short and never the target's (``.PID.jdtmp-RANDOM.tmp``): a target whose name is near the file system's
    limit (255 bytes) still has one, and an error names the target, never a name the user never chose.
    The writer's pid is in it: a later build removes what a killed writer left (see :func:`sweep`)."""
    return tempfile.mkstemp(prefix=f".{os.getpid()}{MARK}", suffix=".tmp", dir=folder)


#: the mode of a folder jaxdeck makes, less what the umask takes: no other user may write in it
FOLDER_MODE = 0o755


def make_folders(folder: str | Path) -> Path:
    """``folder`` and any missing folder above it, each made 0755 or stricter (as the umask says): never
    writable by group or others, whatever the umask allows (``Path.mkdir`` makes the parents 0777 less
    the umask), so that a later build finds its folders its own (:func:`jaxdeck.places.own_build_folder`)."""
    folder = Path(folder)
    missing, above = [], folder
    while not above.is_dir() and above.parent != above:
        missing.append(above)
        above = above.parent
    for each in reversed(missing):
        try:
            os.mkdir(each, FOLDER_MODE)
        except FileExistsError:
            if not each.is_dir():
                raise
    return folder


@contextmanager
def _replacing(path: Path, mode: int = 0o644) -> Iterator[BinaryIO]:
    """A temporary file beside ``path`` to write; renamed over ``path`` when the block ends, removed if it fails.

    The rename is atomic on POSIX, so readers (and concurrent builds, each with a uniquely
    named temporary file) see either the old file or the new one, never a mix. The temporary
    file is created 0600 (mkstemp) and given ``mode`` before the rename.
    """
    make_folders(path.parent)
    try:
        fd, tmp = _temporary(path.parent)
    except OSError as err:
        _name(err, path, None)
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if mode != 0o600:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(err, OSError):
            _name(err, path, tmp)
        raise


def _name(err: OSError, path: Path, tmp: str | None) -> None:
    """Make ``err`` name the artefact ``path`` where it named no file or the temporary one (a write
    cut short by a full disk or a file-size limit names none): the file a user knows."""
    if err.filename is None or err.filename == tmp or _LEFTOVER.match(Path(str(err.filename)).name):
        err.filename, err.filename2 = str(path), None


def replacing(path: str | Path, mode: int = 0o644):
    """A binary file to write that replaces ``path``, given ``mode``, when the block ends (or never, if it
    fails): for a writer that streams, or keeps a file's own mode (a deck saved live)."""
    return _replacing(Path(path), mode)


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    path = Path(path)
    with _replacing(path) as handle:
        handle.write(data)
    return path


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def write_private(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically, readable by this user alone from its first byte (a secret:
    a token). The file is 0600 from its creation to its rename, never widened, not even for a moment."""
    path = Path(path)
    with _replacing(path, mode=0o600) as handle:
        handle.write(text.encode("utf-8"))
    return path


def create_private(path: str | Path) -> int:
    """A new empty file at ``path``, readable by this user alone, open for writing; its descriptor.

    For a log that will hold a secret as it is written. A new file, created 0600 beside ``path``
    and renamed over it: whoever held the old file open (when it was readable) reads nothing of
    the new one, unlike truncating the old file in place. A link or a device there (``/dev/stderr``)
    is not replaced but written through, as the user named it, made 0600 when it leads to a file.
    """
    path = Path(path)
    try:
        kind = os.lstat(path).st_mode
    except FileNotFoundError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOCTTY, 0o600)
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)
        return fd
    make_folders(path.parent)
    fd, tmp = _temporary(path.parent)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return fd


def copy_file(source: str | Path, target: str | Path) -> Path:
    """Copy ``source`` to ``target`` atomically, keeping the source's times."""
    source, target = Path(source), Path(target)
    with _replacing(target) as handle, open(source, "rb") as original:
        shutil.copyfileobj(original, handle, 1 << 20)
    stat = source.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return target


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def sweep(folder: str | Path) -> list[Path]:
    """Remove the temporary files that writes into ``folder`` (recursively) left when their process
    was killed mid-write (SIGKILL, power loss): those whose writer is gone, or that are over an hour
    old. A write in progress, by this process or another build beside it, is left alone."""
    removed = []
    now = time.time()
    for tmp in Path(folder).rglob(f".*{MARK}*.tmp"):
        found = _LEFTOVER.match(tmp.name)
        if not found:
            continue
        try:
            stale = now - tmp.stat().st_mtime > STALE_S
            if stale or not _alive(int(found.group(1))):
                tmp.unlink()
                removed.append(tmp)
        except OSError:
            continue
    return removed


def user_error(err: OSError, where: str | Path | None = None):
    """``err`` as a one-line DeckError naming its path and what to do, when a user can cause it; else None
    (:func:`jaxdeck.errors.os_error`, which says what each errno means)."""
    return os_error(err, where)


def check_writable(folder: str | Path, inside: tuple[str, ...] = ()) -> None:
    """Fail now, in one line, when ``folder`` (and its sub-folders ``inside``) cannot be written:
    before a kernel has run for minutes, not after."""
    folder = Path(folder)
    try:
        make_folders(folder)
        for name in inside:
            if (folder / name).exists() and not (folder / name).is_dir():
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder / name))
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as err:
        named = err.filename if err.errno == errno.ENOTDIR else None  # the folder, not the probe file
        raise (user_error(OSError(err.errno, err.strerror, named), folder) or err) from None
