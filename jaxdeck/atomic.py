"""Atomic writes: a failed build never leaves a half-written artefact behind."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to a temporary file beside ``path`` then rename it over ``path``.

    The rename is atomic on POSIX, so readers (and concurrent builds) see either
    the old file or the new one, never a mix.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
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
    return path


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def copy_file(source: str | Path, target: str | Path) -> Path:
    """Copy ``source`` to ``target`` atomically (through a uniquely named temporary file beside it).

    Concurrent copies to the same target each write their own temporary file; the last
    rename wins and every reader sees a whole file. The copy keeps the source's times.
    """
    source, target = Path(source), Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle, open(source, "rb") as original:
            shutil.copyfileobj(original, handle, 1 << 20)
            handle.flush()
            os.fsync(handle.fileno())
        shutil.copystat(source, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target
