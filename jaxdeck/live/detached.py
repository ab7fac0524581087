"""``jaxdeck present --detach`` and ``--stop``: a live server that outlives the terminal that started it.

Presenting from an SSH session on the GPU box, a dropped link would hang up the terminal and,
with it, ``present`` and every kernel (SIGHUP ends it on purpose, so nothing is left behind).
``--detach`` runs ``present`` again as a process of its own session, with no terminal to lose.

Its files are in ``present/`` in the build folder, a folder only the presenter can enter (0700),
each file created 0600: ``present.log`` (its lines, which print the token), ``present.json`` (the
record: the URLs with the token, and the present's and its Jupyter server's pid, each with its
start time) and ``present.lock``. The detached process holds a lock on ``present.lock`` for as
long as it runs, so a second ``--detach`` in the same folder is refused at once, naming the
first. ``--stop`` signals a recorded pid only while its start time still matches (a record
outlives its process, and the pid goes to another): SIGTERM to the present, which stops the
server and its kernels as Ctrl-C would; or, when the present was killed (``kill -9``), to the
server it left running, then its kernels and its private folder (:mod:`jaxdeck.live.stop_detached`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

from jaxdeck.atomic import create_private, write_private
from jaxdeck.errors import DeckError, display_path
from jaxdeck.live.identity import Identity
from jaxdeck.orphans import let_go
from jaxdeck.stopping import end_tree

FOLDER = "present"
STATE = "present.json"
LOG = "present.log"
LOCK = "present.lock"


def folder(out: Path) -> Path:
    return Path(out) / FOLDER


def state_path(out: Path) -> Path:
    return folder(out) / STATE


def log_path(out: Path) -> Path:
    return folder(out) / LOG


def command(*args: str, out: Path | None = None) -> str:
    """``python -m jaxdeck present ARGS`` as a fresh shell runs it: this interpreter's path (relative
    to the current folder when it is under it, as ``.venv/bin/python``), ``--out`` when not the default."""
    python = Path(sys.executable)
    try:
        python = python.relative_to(Path.cwd())
    except ValueError:
        pass
    words = [str(python), "-m", "jaxdeck", "present", *args]
    if out is not None and Path(out) != Path("build"):
        words += ["--out", str(out)]
    return " ".join(shlex.quote(word) for word in words)


def make_runs(target: str) -> bool:
    """Whether ``make TARGET`` works in this folder: a Makefile here that has that target (where
    jaxdeck runs from a wheel install there is none, and the words name the command alone)."""
    if shutil.which("make") is None or not any(Path(name).is_file() for name in ("GNUmakefile", "makefile", "Makefile")):
        return False
    env = {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    try:  # --question runs no recipe: 0 or 1 (up to date or not) when the target exists, 2 when it does not
        done = subprocess.run(["make", "--question", target], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode in (0, 1)


def stop_words(out: Path) -> str:
    """How to stop the detached present from any shell in this folder."""
    stop = command("--stop", out=out)
    return f"make present-stop (or {stop})" if Path(out) == Path("build") and make_runs("present-stop") else stop


def start_words(out: Path) -> str:
    """How to start a detached present from this folder."""
    start = command("--detach", out=out)
    return f"make present DETACH=1 (or {start})" if Path(out) == Path("build") and make_runs("present") else start


@dataclass(frozen=True)
class Record:
    """What ``present.json`` holds: the detached present, the Jupyter server it started, and its URLs."""

    present: Identity
    server: Identity | None
    #: the server's private folder (its token, runtime files): removed when a killed present's server is stopped
    home: str | None
    url: str
    lab: str

    @property
    def token(self) -> str | None:
        found = parse_qs(urlsplit(self.lab).query).get("token")
        return found[0] if found and found[0] else None

    @property
    def public_url(self) -> str:
        """The slideshow's URL without its token: fit to print in an error."""
        parts = urlsplit(self.url)
        return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))

    def as_dict(self) -> dict:
        server = None if self.server is None else dict(self.server.as_dict(), home=self.home)
        return dict(self.present.as_dict(), server=server, url=self.url, lab=self.lab)

    @classmethod
    def parse(cls, data) -> "Record":
        """A record from its JSON, or ValueError saying what is wrong with it."""
        present = Identity.parse(data)
        if present is None:
            raise ValueError("no sound pid and start time")
        server = data.get("server")
        if server is not None and Identity.parse(server) is None:
            raise ValueError("no sound pid and start time for its server")
        url, lab = data.get("url"), data.get("lab")
        if not isinstance(url, str) or not isinstance(lab, str):
            raise ValueError("no URLs")
        home = server.get("home") if isinstance(server, dict) else None
        return cls(present, Identity.parse(server), home if isinstance(home, str) else None, url, lab)


def private_folder(out: Path, create: bool = True) -> Path | None:
    """``out``/present/, which only this user may enter: made 0700, or checked (and tightened) when it is
    there. None when it is not there and ``create`` is false; a one-line error when it is not this
    user's own folder (another user's, or a link)."""
    path = folder(out)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise DeckError(path, None, "is not a folder of yours: the detached present's token would not be private",
                        "remove it, or present with another --out")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def read(out: Path) -> Record | None:
    """The record under ``out``, None when there is none; a one-line error when it is not a whole one."""
    path = state_path(out)
    try:
        return Record.parse(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except json.JSONDecodeError:
        why = "not JSON"
    except ValueError as err:
        why = str(err)
    except OSError as err:
        why = err.strerror or str(err)
    raise DeckError(path, None, f"the detached present's record is stale or incomplete ({why})",
                    f"start the present again: {start_words(out)}")


def running(out: Path) -> Record | None:
    """The detached ``present`` recorded under ``out``, while that very process runs (its pid and start time)."""
    if private_folder(out, create=False) is None:
        return None
    state = read(out)
    return state if state is not None and state.present.alive() else None


def record(out: Path, url: str, lab: str, server=None) -> Path:
    """Written by the detached process once its server answers; 0600 from its first byte in a 0700 folder."""
    private_folder(out)
    server_id = home = None
    if server is not None:
        server_id, home = Identity.of(server.process.pid), str(server.home)
    state = Record(Identity.of(os.getpid()), server_id, home, url, lab)
    return write_private(state_path(out), json.dumps(state.as_dict(), indent=1))


def forget(out: Path) -> None:
    """Remove the record, if it is this process's."""
    try:
        state = read(out)
        if state is not None and state.present.pid == os.getpid():
            state_path(out).unlink()
    except (OSError, DeckError):
        pass


# ------------------------------------------------------------------ one detached present per folder


def take_lock(out: Path) -> int | None:
    """The descriptor of ``present.lock``, locked (flock) for this process; None when another holds it."""
    fd = os.open(folder(out) / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        raise
    return fd


def note_holder(fd: int, holder: Identity) -> None:
    """Who holds the lock, in the lock file: a present still starting has no record yet to be named by."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(holder.as_dict()).encode(), 0)


def holder(out: Path) -> Identity | None:
    """The process that noted itself as holding the lock, while it runs."""
    try:
        found = Identity.parse(json.loads((folder(out) / LOCK).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return found if found is not None and found.alive() else None


def already_running(out: Path) -> DeckError:
    """The one line that refuses a second detached present, naming the first (which, started a moment
    ago, may take that moment to note itself)."""
    deadline = time.monotonic() + 2
    while True:
        try:
            state = running(out)
        except DeckError:
            state = None
        first = holder(out)
        if state is not None or first is not None or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if state is not None:
        what = f"pid {state.present.pid}, {state.public_url}"
    else:
        what = f"pid {first.pid}, still starting" if first is not None else "still starting"
    return DeckError(None, None, f"a detached present is already running here ({what})",
                     f"stop it first: {stop_words(out)}")


def detach(argv: list[str], out: Path, timeout: float = 120) -> dict:
    """Start ``python -m jaxdeck present ARGV`` in a session of its own; its record once its server answers."""
    out = Path(out)
    private_folder(out)
    lock = take_lock(out)
    if lock is None:
        raise already_running(out)
    try:
        left = leftover(out)
        if left is not None:
            raise left
        state_path(out).unlink(missing_ok=True)
        log = log_path(out)
        handle = create_private(log)
        try:
            # the lock goes with the child (pass_fds): held as long as the detached present runs, even killed
            child = subprocess.Popen([sys.executable, "-m", "jaxdeck", "present", *argv], stdin=subprocess.DEVNULL,
                                     stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
                                     pass_fds=(lock,), env={**os.environ, **let_go()})
        finally:
            os.close(handle)
        with contextlib.suppress(ProcessLookupError):
            note_holder(lock, Identity.of(child.pid))
        return wait_started(child, out, log, timeout)
    finally:
        os.close(lock)


def leftover(out: Path) -> DeckError | None:
    """With the lock held: a refusal while the server of a killed present still runs (it holds the token
    and the kernels; ``--stop`` ends it), from the record that present left; else None."""
    try:
        state = read(out)
    except DeckError:
        state = None
    if state is not None and state.server is not None and state.server.alive():
        return DeckError(None, None, f"the Jupyter server of a killed detached present still runs here "
                                     f"(pid {state.server.pid}, {state.public_url})",
                         f"stop it first: {stop_words(out)}")
    return None


def wait_started(child: subprocess.Popen, out: Path, log: Path, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = running(out)
        except DeckError:
            state = None  # not the child's (it writes a whole one, atomically): wait for that
        if state is not None and state.present.pid == child.pid:
            return dict(state.as_dict(), log=display_path(log))
        if child.poll() is not None:
            lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
            last = lines[-1] if lines else child.returncode
            raise DeckError(None, None, f"the detached present stopped at start: {last}", f"read {display_path(log)}")
        time.sleep(0.2)
    child.terminate()  # our own child: it stops its server and kernels as on `kill`
    try:
        child.wait(60)
    except subprocess.TimeoutExpired:
        end_tree(child.pid, grace=None)
    raise DeckError(None, None, f"the detached present did not start within {timeout:.0f} s",
                    f"read {display_path(log)}")
