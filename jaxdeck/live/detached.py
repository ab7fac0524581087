"""``jaxdeck present --detach`` and ``--stop``: a live server that outlives the terminal that started it.

Presenting from an SSH session on the GPU box, a dropped link would hang up the terminal and,
with it, ``present`` and every kernel (SIGHUP ends it on purpose, so nothing is left behind).
``--detach`` runs ``present`` again as a process of its own session, with no terminal to lose:
its lines go to ``present.log`` in the build folder (mode 0600: they hold the token), and once
its server answers it writes ``present.json`` there (its pid, the URLs). ``--stop`` sends that
process SIGTERM, which stops the server and its kernels as Ctrl-C would, and waits for it.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from jaxdeck.atomic import write_text
from jaxdeck.errors import DeckError

STATE = "present.json"
LOG = "present.log"


def state_path(out: Path) -> Path:
    return Path(out) / STATE


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


def stop_words(out: Path) -> str:
    """How to stop the detached present from any shell in this folder."""
    stop = command("--stop", out=out)
    return f"make present-stop (or {stop})" if Path(out) == Path("build") else stop


def running(out: Path) -> dict | None:
    """The detached ``present`` recorded under ``out``, when its process is still there."""
    try:
        state = json.loads(state_path(out).read_text(encoding="utf-8"))
        os.kill(int(state["pid"]), 0)
        return state
    except (OSError, ValueError, KeyError, TypeError):
        return None


def record(out: Path, **state) -> Path:
    """Written by the detached process once its server answers (mode 0600: the URLs hold the token)."""
    path = state_path(out)
    write_text(path, json.dumps(dict(state, pid=os.getpid()), indent=1))
    os.chmod(path, 0o600)
    return path


def forget(out: Path) -> None:
    """Remove the record, if it is this process's."""
    try:
        if json.loads(state_path(out).read_text(encoding="utf-8")).get("pid") == os.getpid():
            state_path(out).unlink()
    except (OSError, ValueError):
        pass


def detach(argv: list[str], out: Path, timeout: float = 120) -> dict:
    """Start ``python -m jaxdeck present ARGV`` in a session of its own; its record once its server answers."""
    out = Path(out)
    if running(out):
        raise DeckError(state_path(out), None, "a detached present is already running here",
                        f"stop it first: {stop_words(out)}")
    out.mkdir(parents=True, exist_ok=True)
    state_path(out).unlink(missing_ok=True)
    log = out / LOG
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.chmod(log, 0o600)
    try:
        child = subprocess.Popen([sys.executable, "-m", "jaxdeck", "present", *argv], stdin=subprocess.DEVNULL,
                                 stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        os.close(handle)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = running(out)
        if state is not None and state.get("pid") == child.pid:
            return dict(state, log=str(log))
        if child.poll() is not None:
            lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
            raise DeckError(None, None, f"the detached present stopped at start: {lines[-1] if lines else child.returncode}",
                            f"read {log}")
        time.sleep(0.2)
    os.kill(child.pid, signal.SIGTERM)
    raise DeckError(None, None, f"the detached present did not start within {timeout:.0f} s", f"read {log}")


def stop(out: Path, timeout: float = 60) -> int:
    """Stop the detached ``present`` recorded under ``out``; its pid."""
    state = running(out)
    if state is None:
        state_path(out).unlink(missing_ok=True)
        raise DeckError(None, None, "no detached present is running here", f"start one: {command('--detach', out=out)}")
    pid = int(state["pid"])
    os.kill(pid, signal.SIGTERM)  # as `kill` would: the server and its kernels stop, its folder goes
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            state_path(out).unlink(missing_ok=True)
            return pid
        time.sleep(0.1)
    raise DeckError(None, None, f"the detached present (pid {pid}) did not stop within {timeout:.0f} s",
                    f"end it by hand: kill -9 {pid}")
