"""The shell's limits on this process (``ulimit -n``, ``ulimit -f``), checked before they break a command.

A limit below what a kernel or Chromium needs does not fail where it is set: a kernel dies
before it answers, Chromium's helpers are killed by SIGXFSZ or cannot open their shared memory,
and the page they serve never loads. So each is checked first, and said in one line with what
to do: :func:`check_open_files` before any command, :func:`check_file_size` before Chromium starts.
"""

from __future__ import annotations

from jaxdeck.errors import DeckError
from jaxdeck.ulimit import soft_limit

#: open files a command needs: a kernel that imports JAX, and a Chromium with its helpers (which fail
#: near 140 here); the default on macOS, a quarter of Linux's
OPEN_FILES = 256
#: bytes Chromium writes to one file: the shared memory its helpers hand frames in (a 1280x720
#: slide printed needs some 8 MB; a larger deck or a tall page more), with room to spare
CHROMIUM_FILE_SIZE = 64 * 2**20


def check_open_files() -> None:
    """A DeckError when this process may open fewer files than a command needs (:data:`OPEN_FILES`)."""
    limit = soft_limit("nofile")
    if limit is not None and limit < OPEN_FILES:
        raise DeckError(None, None, f"this shell lets a process open {limit} files at once (`ulimit -n`), "
                        f"fewer than a kernel and Chromium need ({OPEN_FILES})", "raise it: `ulimit -n 4096`")


def check_file_size(what: str) -> None:
    """A DeckError when this process's file-size limit is below what Chromium writes (:data:`CHROMIUM_FILE_SIZE`):
    its helpers would be killed by SIGXFSZ, and ``what`` (the pages it prints or measures) never load."""
    limit = soft_limit("fsize")
    if limit is not None and limit < CHROMIUM_FILE_SIZE:
        raise DeckError(None, None, f"this shell limits files to {limit // 1024} KiB (`ulimit -f`), too small "
                        f"for Chromium's shared memory ({CHROMIUM_FILE_SIZE // 2**20} MiB at least), so {what} "
                        "cannot be made", "raise it: `ulimit -f unlimited`")
