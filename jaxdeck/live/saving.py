"""How the live slideshow writes a deck back: only when it changed, in the deck's own spelling, and whole.

Whole: Jupyter's own save copies a file aside (``.~NAME``) and then truncates and rewrites it in
place, so a server killed in between leaves the deck empty. Every file the live contents manager
writes is instead a new file beside it (a private temporary name, :func:`jaxdeck.atomic.replacing`)
renamed over it, with the file's own mode: a crash at any moment leaves the old file or the new one.

Only when it changed, in its own spelling: the saved notebook's jupytext text is compared with the
jupytext text of the notebook read from the file on disk. Equal, nothing was edited, and the file is
left as it is, byte for byte. Otherwise the new text takes the deck's line endings (CRLF stays CRLF),
its final newline or the lack of one, and, where the header says what the file's header says, the
header's lines as the file writes them (a MyST header without jupytext's version lines keeps none).
"""

from __future__ import annotations

import io
import os
import stat
from contextlib import contextmanager
from pathlib import Path

from jaxdeck.atomic import replacing
from jaxdeck.read.formats import BOM, jupytext_config, read_in_format, write_back
from jaxdeck.read.yaml_header import header_line_count

CRLF = "\r\n"
#: the mode of a file the live server creates (one it replaces keeps its own)
NEW_FILE_MODE = 0o644


def newline_of(text: str) -> str:
    """The line ending most of ``text``'s lines end with (LF when as many end with each)."""
    crlf = text.count(CRLF)
    return CRLF if 2 * crlf > text.count("\n") else "\n"


def disk_text(path: Path, original: str) -> str | None:
    """jupytext's text of the notebook read from the deck's file (``original``, its text), as a save
    writes a notebook (:func:`jaxdeck.read.formats.write_back`); None when jupytext cannot read it."""
    try:
        nb, fmt = read_in_format(path, original.removeprefix(BOM), jupytext_config(path))
        return write_back(nb, path, fmt)
    except Exception:  # a file that does not read (edited elsewhere into a broken one) is written over
        return None


def as_written(saved: str, path: Path) -> bytes | None:
    """The bytes a save of the deck at ``path`` writes, given jupytext's text ``saved`` of the notebook
    being saved; None when it is the notebook the file holds now (the file is left untouched)."""
    try:
        original = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return saved.encode("utf-8")
    disk = disk_text(path, original)
    if disk is not None and disk == saved:
        return None
    bom = BOM if saved.startswith(BOM) else ""
    text = saved.removeprefix(BOM).replace(CRLF, "\n")
    own = original.removeprefix(BOM).replace(CRLF, "\n")
    text = own_header(text, disk.removeprefix(BOM) if disk is not None else None, own)
    if own and not own.endswith("\n") and text.endswith("\n"):
        text = text[:-1]
    if newline_of(original) == CRLF:
        text = text.replace("\n", CRLF)
    return (bom + text).encode("utf-8")


def own_header(text: str, disk: str | None, own: str) -> str:
    """``text`` with the file's own header lines (``own``) where its header is the header jupytext
    writes for the file on disk (``disk``): the notebook's metadata was not edited."""
    count = header_line_count(text)
    if not count or disk is None or header_line_count(own) == 0:
        return text
    lines = text.split("\n")
    if lines[:count] != disk.split("\n")[:header_line_count(disk)]:
        return text
    return "\n".join(own.split("\n")[:header_line_count(own)] + lines[count:])


class UnsafeLink(Exception):
    """A save refused: the file to write is a link another user could have put there (see :func:`save_target`)."""


def save_target(os_path: str, root: str | None) -> Path:
    """The file a save of ``os_path`` writes: ``os_path`` itself, or the file its link leads to when the
    link is this user's (or root's) and leads inside the server's folder ``root``.

    As OpenSSH's StrictModes: a deck folder others may write lets them swap a deck for a link to any file
    of the presenter's, which a save would overwrite with the deck's text. Such a link is refused
    (:class:`UnsafeLink`), and so is any path whose links lead out of ``root``."""
    path = Path(os.path.abspath(os_path))
    target = Path(os.path.realpath(path))
    if target == path:
        return target
    shown = os.path.relpath(path, root) if root else str(path)
    try:
        owner = os.lstat(path).st_uid if path.is_symlink() else os.getuid()
    except OSError:
        owner = os.getuid()
    if owner not in (os.getuid(), 0):
        raise UnsafeLink(f"{shown} is a link to {target} that another user (uid {owner}) owns: not saved; "
                         f"remove the link and put the deck itself there, and keep others from writing in "
                         f"{path.parent}")
    if root is not None and not target.is_relative_to(os.path.realpath(root)):
        raise UnsafeLink(f"{shown} is a link to {target}, outside the server's folder {root}: not saved; "
                         f"put the deck itself inside {root}, or start the slideshow where the deck is")
    return target


@contextmanager
def replacing_file(os_path: str, text: bool = True, encoding: str = "utf-8", root: str | None = None, **kwargs):
    """Jupyter's ``atomic_writing`` as a new file renamed over ``os_path`` (the file a link leads to, when
    :func:`save_target` allows it), keeping its mode: text (``\\n`` line endings, as Jupyter writes them) or bytes."""
    target = save_target(os_path, root)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    with replacing(target, mode) as handle:
        if not text:
            yield handle
            return
        wrapper = io.TextIOWrapper(handle, encoding=encoding, newline=kwargs.get("newline", "\n"))
        yield wrapper
        wrapper.flush()
        wrapper.detach()
