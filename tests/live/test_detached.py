"""`jaxdeck present --detach`: the server outlives the terminal that started it; `--stop` leaves nothing."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from support import RUN_MARK, command_line, end_started_by, kernels_under

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture
def repo(tmp_path):
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    shutil.copy(FIXTURES / "present_demo.md", tmp_path / "slides" / "present_demo.md")
    return tmp_path


def jaxdeck(*args: str) -> list[str]:
    return [sys.executable, "-u", "-m", "jaxdeck", *args]


def in_session(sid: int) -> list[int]:
    """The pids of the running processes of session ``sid`` (a terminal's, which a hangup reaches whole)."""
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if os.getsid(process.pid) == sid and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process.pid)
    return found


@pytest.fixture
def started(repo):
    """The environment for what a test starts in ``repo``, and the list of the terminals it starts; when the
    test ends, passed or failed, all of it is stopped: each terminal's whole session, then the detached
    present by ``present --stop`` (which signals a recorded pid only while its start time matches), then
    whatever is still running with this test's mark in its environment (the present, its server, kernels)."""
    mark = f"detached-{os.getpid()}-{id(repo)}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{RUN_MARK: mark})
    terminals: list[subprocess.Popen] = []
    yield env, terminals
    for terminal in terminals:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(terminal.pid, signal.SIGKILL)
        terminal.wait(30)
        if terminal.stdout is not None:
            terminal.stdout.close()
    subprocess.run(jaxdeck("present", "--stop"), cwd=repo, env=env, capture_output=True, timeout=120)
    end_started_by(mark)


@pytest.mark.heavy
def test_a_detached_present_survives_its_terminals_hangup_and_stop_leaves_nothing(repo, started):
    env, terminals = started
    # the terminal of an SSH session: a shell leading a session of its own, which starts the
    # detached present and then waits, as the presenter's login would
    command = " ".join(jaxdeck("present", "--detach", "--port", "0", "slides/present_demo.md"))
    # a login's hangup kills: SIGHUP at its default even when this run was started ignoring it (nohup),
    # which a non-interactive bash could not undo
    terminal = subprocess.Popen(["bash", "-c", f"{command}; sleep 600"], cwd=repo, env=env, start_new_session=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    terminals.append(terminal)
    lines = []
    while not any("Stop it with:" in line for line in lines):
        line = terminal.stdout.readline()
        assert line, "\n".join(lines)
        lines.append(line)
    url = re.search(r"slideshow:\s+(\S+)", "".join(lines)).group(1)
    base, token = re.match(r"(http://127\.0\.0\.1:\d+)/rise/\S+\?token=(\S+)$", url).groups()
    port = int(base.rsplit(":", 1)[1])
    state = json.loads((repo / "build" / "present" / "present.json").read_text())
    present = psutil.Process(state["pid"])

    def call(method: str, path: str):
        request = urllib.request.Request(f"{base}/api/{path}", method=method, data=b"{}" if method == "POST" else None,
                                         headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")

    assert call("POST", "kernels")[0] == 201  # a kernel, as a demo cell would start
    jupyter = next(p for p in present.children(recursive=True) if "jaxdeck.live.jupyter" in command_line(p))
    home = Path(jupyter.environ()["JUPYTER_TOKEN_FILE"]).parent
    deadline = time.monotonic() + 60
    while not kernels_under(jupyter.pid):
        assert time.monotonic() < deadline, "no kernel started"
        time.sleep(0.2)
    tree = [present, *present.children(recursive=True)]

    os.killpg(terminal.pid, signal.SIGHUP)  # the link drops: the terminal's whole session is hung up
    terminal.wait(30)
    deadline = time.monotonic() + 60  # until every process the hangup reached has gone
    while in_session(terminal.pid):
        assert time.monotonic() < deadline, f"still in the terminal's session: {in_session(terminal.pid)}"
        time.sleep(0.1)
    assert present.is_running() and call("GET", "status")[0] == 200, "the detached server went with its terminal"

    # the words it printed run as they are in a fresh shell: no venv on PATH, no PYTHONPATH
    # the folder has no Makefile (as where jaxdeck is installed from a wheel): the command alone, no `make`
    said = re.search(r"Stop it with: (.+)$", "".join(lines), re.M)
    assert said, "".join(lines)
    stop_command = said.group(1)
    assert stop_command == f"{sys.executable} -m jaxdeck present --stop", stop_command
    log = (repo / "build" / "present" / "present.log").read_text()
    assert "Ctrl-C" not in log and f"stop it and its kernels with {stop_command}\n" in log, log
    fresh = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", str(repo)), "LANG": "C.UTF-8"}
    stopped = subprocess.run(["bash", "-c", stop_command], cwd=repo, env=fresh, capture_output=True,
                             text=True, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    assert f"pid {present.pid}" in stopped.stdout
    gone, alive = psutil.wait_procs(tree, timeout=10)
    assert not alive, [p.pid for p in alive]
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    assert not home.exists()
    assert not (repo / "build" / "present" / "present.json").exists()
    again = subprocess.run(jaxdeck("present", "--stop"), cwd=repo, env=env, capture_output=True,
                           text=True, timeout=60)
    assert again.returncode != 0 and "no detached present is running here" in again.stderr
    assert "Traceback" not in again.stderr


def test_the_stop_command_names_the_interpreter_relative_to_the_folder_when_under_it(monkeypatch, tmp_path):
    from jaxdeck.live import detached

    python = Path(sys.executable)
    monkeypatch.chdir(python.parents[2])  # the folder that holds the venv, as the repository root holds .venv
    assert detached.command("--stop") == f"{python.relative_to(python.parents[2])} -m jaxdeck present --stop"
    assert detached.stop_words(Path("build")).startswith("make present-stop (or ")
    monkeypatch.chdir(tmp_path)  # elsewhere: the whole path, and the build folder when it is not the default
    assert detached.command("--stop", out=Path("out dir")) == f"{python} -m jaxdeck present --stop --out 'out dir'"


def test_the_words_say_make_only_where_a_makefile_here_has_that_target(monkeypatch, tmp_path):
    from jaxdeck.live import detached

    monkeypatch.chdir(tmp_path)  # a folder jaxdeck runs in from a wheel install: no Makefile
    stop, start = detached.command("--stop"), detached.command("--detach")
    assert (detached.stop_words(Path("build")), detached.start_words(Path("build"))) == (stop, start)
    (tmp_path / "Makefile").write_text("all:\n\ttrue\n")  # someone else's Makefile: neither target
    assert (detached.stop_words(Path("build")), detached.start_words(Path("build"))) == (stop, start)
    monkeypatch.chdir(ROOT)  # a checkout, whose Makefile has both
    stop, start = detached.command("--stop"), detached.command("--detach")
    assert detached.stop_words(Path("build")) == f"make present-stop (or {stop})"
    assert detached.start_words(Path("build")) == f"make present DETACH=1 (or {start})"
