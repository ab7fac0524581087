"""Atomic writes: a failed build never leaves a half-written artefact behind."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def _replacing(path: Path) -> Iterator[BinaryIO]:
    """A temporary file beside ``path`` to write; renamed over ``path`` when the block ends, removed if it fails.

    The rename is atomic on POSIX, so readers (and concurrent builds, each with a uniquely
    named temporary file) see either the old file or the new one, never a mix.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
