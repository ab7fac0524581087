"""User-facing errors: one line naming file:line and what to do, never a traceback."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from jaxdeck.ulimit import said, soft_limit


class DeckError(Exception):
    """A mistake in a deck (or a missing system part) that the user can fix.

    The CLI prints ``str(error)`` alone and exits non-zero; anything that is
    not a DeckError is a bug in jaxdeck and keeps its traceback.
    """

    #: what the CLI's line starts with: a warning said beside the errors of one deck (DeckProblems) says so
    kind = "error"

    def __init__(self, path: str | Path | None, line: int | None, message: str,
                 hint: str | None = None, slide: int | None = None, details: str | None = None,
                 details_are: str = "the whole traceback"):
        self.path = str(path) if path is not None else None
        self.line = line
        self.message = message
        self.hint = hint
        self.slide = slide
        #: what the one line leaves out (a traceback, a stuck kernel's stacks): kept beside the build, shown by --verbose
        self.details = details
        self.details_are = details_are  # what the details are, for the line that names where they went
        super().__init__(self.format())

    def location(self) -> str:
        if self.path is None:
            return ""
        where = display_path(self.path)
        if self.line is not None:
            where += f":{self.line}"
        if self.slide is not None:
            where += f" (slide {self.slide})"
        return where

    def format(self) -> str:
        text = self.message
        if self.hint:
            text += f"; {self.hint}"
        where = self.location()
        return f"{where}: {text}" if where else text

    def __str__(self) -> str:
        return self.format()


class DeckProblems(DeckError):
    """Every problem found in one deck at once, so that one build lists them all: each error's own
    line and each warning's (``errors``, in the order of the file, as the CLI prints them), then
    how many there are."""

    def __init__(self, path: str | Path, errors: list[DeckError], warnings: list[DeckError] = ()):
        said = [DeckError(w.path, w.line, w.message, w.hint, w.slide) for w in warnings]
        for each in said:
            each.kind = "warning"
        self.errors = sorted([*errors, *said], key=lambda e: (e.line or 0))
        counted = f"{len(errors)} error{'s' * (len(errors) != 1)}"
        if warnings:
            counted += f" and {len(warnings)} warning{'s' * (len(warnings) != 1)}"
        lines = ", ".join(dict.fromkeys(str(e.line) for e in self.errors if e.line is not None))
        super().__init__(path, None, f"{counted} in the deck" + (f", at lines {lines}" if lines else ""),
                         "fix them and build again (nothing ran)")


class DecksFailed(DeckError):
    """Several decks of one build failed: each failure's own line, then how many (the others are built)."""

    def __init__(self, errors: list[DeckError], total: int):
        names = ", ".join(Path(e.path).stem if e.path else "?" for e in errors)
        # a deck with several problems says each of them, then its count
        self.errors = [each for e in errors for each in (e.errors + [e] if isinstance(e, DeckProblems) else [e])]
        super().__init__(None, None, f"{len(errors)} of {total} decks failed ({names}); every other deck is built")


def display_path(path: str | Path) -> str:
    """A path relative to the current directory when it lies below it (shorter messages), printable
    (:func:`printable`): a file's name is anyone's to choose, escapes for the terminal included."""
    p = Path(path)
    try:
        return printable(str(p.resolve().relative_to(Path.cwd().resolve())))
    except ValueError:
        return printable(str(p))


def printable(text: str) -> str:
    """``text`` with each character a terminal would act on rather than show (an escape sequence, a
    newline, a byte that was not UTF-8) written as Python's repr writes it (``\\x1b``, ``\\n``): one line,
    its colours and cursor the terminal's own."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# ------------------------------------------------------------------ OS errors a user can cause


def _too_large() -> str:
    limit = said("fsize")
    if limit:
        return (f"the file would be larger than this shell allows (`ulimit -f`: {limit}): "
                "raise it (`ulimit -f unlimited`)")
    return "the file would be larger than the file system allows: build elsewhere with --out"


def _too_many() -> str:
    limit = soft_limit("nofile")
    if limit is None:
        return "more files open at once than the system allows: close some programs, and build again"
    return (f"more files open at once than this shell allows (`ulimit -n`: {limit}): "
            f"raise it (`ulimit -n {max(4096, 2 * limit)}`)")


@dataclass(frozen=True)
class OsFix:
    """What a command could not do when an OS error stopped it, and what to do about that
    (``advice`` a callable where it names a limit in force, read when the error is said)."""

    doing: str
    advice: str | Callable[[], str]

    def said(self) -> str:
        return self.advice() if callable(self.advice) else self.advice


#: each OS error a user can cause (a full disk, a limit of the shell, a folder's permissions) and its fix;
#: any other errno is a bug of jaxdeck's and keeps its traceback
OS_ERRORS: dict[int, OsFix] = {
    errno.EROFS: OsFix("cannot write", "the file system is read-only: build into a writable folder with --out"),
    errno.ENOSPC: OsFix("cannot write", "free some space (make clean empties build/), or build elsewhere with --out"),
    errno.EDQUOT: OsFix("cannot write", "over your disk quota: free some space, or build elsewhere with --out"),
    errno.EFBIG: OsFix("cannot write", _too_large),
    errno.EACCES: OsFix("cannot write", "check the folder's permissions, or build elsewhere with --out"),
    errno.EPERM: OsFix("cannot write", "check the folder's permissions, or build elsewhere with --out"),
    errno.EISDIR: OsFix("cannot write", "a folder is where a file goes: remove it, or build elsewhere with --out"),
    errno.ENOTDIR: OsFix("cannot write", "a file is where a folder goes: remove it, or build elsewhere with --out"),
    errno.EEXIST: OsFix("cannot write", "a file is where a folder goes: remove it, or build elsewhere with --out"),
    errno.ENAMETOOLONG: OsFix("cannot write", "a name on this path is longer than the file system allows (255 bytes "
                                              "a name): rename the deck (or the folder) shorter"),
    errno.EMFILE: OsFix("cannot open", _too_many),
    errno.ENFILE: OsFix("cannot open",
                        "the system has as many files open as it allows: close some programs, and build again"),
    errno.EIO: OsFix("cannot read or write",
                     "the disk reported an input/output error: check it (`dmesg`), or build elsewhere with --out"),
    errno.ELOOP: OsFix("cannot open", "a symbolic link on the way points in a circle: fix or remove it"),
    errno.ESTALE: OsFix("cannot read or write", "the network file system lost track of the file: build again"),
}


def os_error(err: BaseException, where: str | Path | None = None) -> DeckError | None:
    """``err`` as one line naming its file and what to do, when it is an OS error a user can cause
    (:data:`OS_ERRORS`); else None. An error that came of one (a library's, raised from an
    OSError, or one with an ``errno`` of its own, as ZeroMQ's) is said as that OS error.
    ``where`` names the place when the error names no file."""
    found = _os_cause(err)
    if found is None:
        return None
    number, reason, path = found
    fix = OS_ERRORS[number]
    return DeckError(path or where, None, f"{fix.doing}: {reason}", fix.said())


def _os_cause(err: BaseException) -> tuple[int, str, str | None] | None:
    """(errno, the OS's reason, the file) of the first OS error in ``err``'s chain that :data:`OS_ERRORS` knows."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        number = getattr(err, "errno", None)
        if isinstance(number, int) and number in OS_ERRORS:
            reason = getattr(err, "strerror", None) or os.strerror(number)
            path = getattr(err, "filename2", None) or getattr(err, "filename", None)  # a rename's target
            return number, reason, str(path) if path is not None else None
        err = err.__cause__ if err.__cause__ is not None or err.__suppress_context__ else err.__context__
    return None
