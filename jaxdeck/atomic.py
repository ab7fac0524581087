"""Atomic writes: a failed build never leaves a half-written artefact behind."""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from jaxdeck.errors import DeckError


#: between the writer's pid and mkstemp's random part in a temporary file's name
MARK = ".jdtmp-"
#: a write never takes this long: an older temporary file is a leftover whoever wrote it
STALE_S = 3600
_LEFTOVER = re.compile(r"^\..+\.(\d+)" + re.escape(MARK) + r"[^.]+\.tmp$")


@contextmanager
def _replacing(path: Path) -> Iterator[BinaryIO]:
    """A temporary file beside ``path`` to write; renamed over ``path`` when the block ends, removed if it fails.

    The rename is atomic on POSIX, so readers (and concurrent builds, each with a uniquely
    named temporary file) see either the old file or the new one, never a mix.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # the writer's pid in the name: a later build removes what a killed writer left (see sweep)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}{MARK}", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    path = Path(path)
    with _replacing(path) as handle:
        handle.write(data)
    return path


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


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


#: what each OS error a user can cause means for a build, and what to do about it
FIXES = {
    errno.EROFS: "the file system is read-only: build into a writable folder with --out",
    errno.ENOSPC: "free some space (make clean empties build/), or build elsewhere with --out",
    errno.EDQUOT: "over your disk quota: free some space, or build elsewhere with --out",
    errno.EACCES: "check the folder's permissions, or build elsewhere with --out",
    errno.EPERM: "check the folder's permissions, or build elsewhere with --out",
    errno.EISDIR: "a folder is where a file goes: remove it, or build elsewhere with --out",
    errno.ENOTDIR: "a file is where a folder goes: remove it, or build elsewhere with --out",
    errno.EEXIST: "a file is where a folder goes: remove it, or build elsewhere with --out",
    errno.ENAMETOOLONG: "use a shorter path",
}


def user_error(err: OSError, where: str | Path | None = None):
    """``err`` as a one-line DeckError naming its path and what to do, when a user can cause it; else None."""
    if err.errno not in FIXES:
        return None
    path = err.filename2 or err.filename or where  # a rename's target, not its temporary file
    return DeckError(path, None, f"cannot write: {err.strerror or os.strerror(err.errno)}", FIXES[err.errno])


def check_writable(folder: str | Path, inside: tuple[str, ...] = ()) -> None:
    """Fail now, in one line, when ``folder`` (and its sub-folders ``inside``) cannot be written:
    before a kernel has run for minutes, not after."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in inside:
            if (folder / name).exists() and not (folder / name).is_dir():
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder / name))
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as err:
        named = err.filename if err.errno == errno.ENOTDIR else None  # the folder, not the probe file
        raise (user_error(OSError(err.errno, err.strerror, named), folder) or err) from None
