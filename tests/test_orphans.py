"""`kill -9` of a command ends everything it started (a kernel, Chromium, the Jupyter server, what a cell started
in a session of its own or with an empty environment), and a start sweeps the private folders of dead commands."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest

from jaxdeck.orphans import KEEP, OWNER, VAR, write_owner
from jaxdeck.watchdog import UNRECORDED_S, Watch, _start
from support import (ROOT, RUN_MARK, built_repo, command_line, end_started_by, is_kernel, kernels_under, started_by,
                     without_browser)

FIXTURES = ROOT / "tests" / "fixtures"

#: a cell that starts a `setsid` child, an `env -i` child and a double-forked daemon (handed to whoever reaps
#: orphans), writes their pids to the file JAXDECK_TEST_STARTED names, then runs far past the test
ESCAPES = """# Talk

```python timeout=120
import json, os, subprocess, time
daemon = os.environ["JAXDECK_TEST_STARTED"] + ".daemon"
children = [subprocess.Popen(["setsid", "sleep", "1000"]), subprocess.Popen(["env", "-i", "sleep", "1000"]),
            subprocess.Popen(["setsid", "sh", "-c", "sleep 1000 & echo $! > " + daemon + ".tmp; mv " + daemon + ".tmp " + daemon])]
while not os.path.exists(daemon):
    time.sleep(0.05)
pids = [child.pid for child in children[:2]] + [int(open(daemon).read())]
with open(os.environ["JAXDECK_TEST_STARTED"] + ".tmp", "w") as out:
    json.dump(pids, out)
os.rename(os.environ["JAXDECK_TEST_STARTED"] + ".tmp", os.environ["JAXDECK_TEST_STARTED"])
time.sleep(100)
```
"""


def wait_for(predicate, seconds: float, what: str):
    """A hang guard for the test itself (not a performance budget)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def running(processes: list) -> list:
    """Those of ``processes`` (psutil, so a reused pid is not taken for them) that still run, zombies aside."""
    left = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                left.append(process)
        except psutil.NoSuchProcess:
            pass
    return left


def tree(pid: int) -> list:
    return [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]


def start(args: list[str], cwd: Path, env: dict | None = None, **popen) -> tuple[subprocess.Popen, str]:
    mark = uuid.uuid4().hex
    full = {**(env or os.environ), "PYTHONPATH": str(ROOT), RUN_MARK: mark}
    return subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", *args], cwd=cwd, env=full, **popen), mark


def kill_9_leaves_nothing(command: subprocess.Popen, mark: str, started: list) -> None:
    """SIGKILL ``command``; every process in ``started`` (taken before, by pid: a process started with
    ``env -i`` carries no mark) must be gone within moments."""
    try:
        os.kill(command.pid, signal.SIGKILL)
        command.wait(30)
        deadline = time.monotonic() + 15  # a hang guard: a killed command's processes go within a second
        while running(started) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [command_line(p) or str(p.pid) for p in running(started)]
        assert left == [], left
    finally:
        for process in running(started):
            process.kill()
        end_started_by(mark)


@pytest.mark.heavy
@pytest.mark.parametrize("verb", ["build", "pdf", "preview"])
def test_a_killed_build_pdf_or_preview_leaves_no_kernel_browser_or_daemon_of_a_cell(tmp_path, verb):
    (tmp_path / "talk.md").write_text(ESCAPES)
    started = tmp_path / "started"
    env = dict(os.environ, JAXDECK_TEST_STARTED=str(started), IPYTHONDIR=str(tmp_path / ".ipython"))
    args = [verb, "talk.md", *(["--port", "0", "--no-browser"] if verb == "preview" else [])]
    command, mark = start(args, tmp_path, env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: started.exists() or command.poll() is not None, 120, "the cell's children")
        assert command.poll() is None
        if verb == "pdf":  # Chromium starts while the kernel runs
            wait_for(lambda: any("chrom" in command_line(p).lower() for p in tree(command.pid)), 60, "Chromium")
        processes = tree(command.pid)[1:] + [psutil.Process(pid) for pid in json.loads(started.read_text())]
    except BaseException:
        command.kill()
        end_started_by(mark)
        raise
    assert any(is_kernel(p) for p in processes)
    kill_9_leaves_nothing(command, mark, processes)


@pytest.mark.heavy
def test_a_killed_present_leaves_no_server_or_kernel_and_no_private_folder(tmp_path):
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    shutil.copy(FIXTURES / "present_demo.md", tmp_path / "slides" / "present_demo.md")
    command, mark = start(["present", "slides/present_demo.md", "--port", "0", "--no-browser"], tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in command.stdout:
            lines.append(line)
            found = re.search(r"slideshow:\s+(http://127\.0\.0\.1:\d+)/rise/\S+\?token=(\S+)", line)
            if found:
                break
        assert found, "".join(lines)
        base, token = found.groups()
        request = urllib.request.Request(f"{base}/api/kernels", method="POST", data=b"{}", headers={
            "Authorization": f"token {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 201
        server = next(p for p in tree(command.pid) if "jaxdeck.live.jupyter" in command_line(p))
        home = Path(server.environ()["JAXDECK_RUN"])
        wait_for(lambda: kernels_under(server.pid), 60, "the kernel")
        processes = tree(command.pid)[1:]
    except BaseException:
        command.kill()
        end_started_by(mark)
        raise
    kill_9_leaves_nothing(command, mark, processes)
    wait_for(lambda: not home.exists(), 10, "the server's private folder to go")


@pytest.mark.heavy
def test_a_killed_rehearsal_leaves_no_server_or_kernel(tmp_path):
    repo = built_repo(tmp_path, FIXTURES / "rehearsed_on_kernel.md", {"live.txt": ""})
    (repo / "slides" / "live.txt").write_text("hang")  # live, its last cell runs until interrupted
    env = without_browser(tmp_path / "env")
    command, mark = start(["rehearse", "--no-browser", "slides/talk.md"], repo, env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in command.stdout:  # the server and the kernel are up, and the last cell runs until interrupted
            lines.append(line)
            if line.startswith("slide 8/8"):
                break
        assert command.poll() is None, "".join(lines)
        processes = tree(command.pid)[1:]
        assert any(is_kernel(p) for p in processes), [command_line(p) for p in processes]
    except BaseException:
        command.kill()
        end_started_by(mark)
        raise
    kill_9_leaves_nothing(command, mark, processes)


def test_the_watchdog_ends_what_its_command_started_and_nothing_else():
    """Of the processes carrying a command's token, one older than the command (it copied the environment, or
    holds a pid noted once), another user's and one the command let go stay running; so do processes the
    command did not start; what it started goes."""
    token = uuid.uuid4().hex
    marked = dict(os.environ, **{VAR: token})
    sleep = ["sleep", "1000"]
    older = subprocess.Popen(sleep, env=marked)
    ticks = os.sysconf("SC_CLK_TCK")
    wait_for(lambda: time.clock_gettime(time.CLOCK_BOOTTIME) * ticks > _start(older.pid) + 1, 5, "a clock tick")
    command = subprocess.Popen(sleep)  # stands for the command: the watch looks for what carries its token
    started = subprocess.Popen(sleep, env=marked)
    kept = subprocess.Popen(sleep, env={**marked, KEEP: token})
    stranger = subprocess.Popen(sleep)
    theirs = subprocess.Popen(["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", *sleep],
                              env=marked)
    everyone = [older, command, started, kept, stranger, theirs]
    try:
        wait_for(lambda: "sleep" in command_line(psutil.Process(theirs.pid)), 10, "the other user's sleep")
        watch = Watch(command.pid, _start(command.pid), token)
        watch.note()
        assert watch.end() == 1
        processes = [psutil.Process(p.pid) for p in everyone]
        wait_for(lambda: not running(processes[2:3]), 10, "the killed process to go")
        assert [p.pid for p in running(processes)] == [older.pid, command.pid, kept.pid, stranger.pid, theirs.pid]
    finally:
        for process in everyone:
            process.kill()
            process.wait()


#: a browser as a user's runs: started by ``webbrowser``, it hands the page to a process of its own that runs on
#: (here a ``sleep``, whose pid it writes to the file it is given) and exits
BROWSER = """import os, subprocess, sys
daemon = subprocess.Popen(["setsid", "sleep", "1000"])
open(sys.argv[1] + ".tmp", "w").write(str(daemon.pid))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
"""


@pytest.mark.heavy
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_the_users_browser_that_preview_opened_outlives_it(tmp_path, signum):
    (tmp_path / "talk.md").write_text("# Talk\n\nText.\n")
    (tmp_path / "browser.py").write_text(BROWSER)
    opened = tmp_path / "browser.pid"
    env = dict(os.environ, BROWSER=f"{sys.executable} {tmp_path / 'browser.py'} {opened} %s")
    command, mark = start(["preview", "talk.md", "--port", "0"], tmp_path, env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    browser = None
    try:
        wait_for(lambda: opened.exists() or command.poll() is not None, 120, "the browser to open")
        assert command.poll() is None
        browser = psutil.Process(int(opened.read_text()))
        watchdogs = [p for p in tree(command.pid) if "watchdog.py" in command_line(p)]
        command.send_signal(signum)
        command.wait(60)
        wait_for(lambda: not running(watchdogs), 10, "the watchdog to finish")
        assert running([browser]) == [browser]
    finally:
        if command.poll() is None:
            command.kill()
        if browser is not None and browser.is_running():
            browser.kill()
        end_started_by(mark)


# ------------------------------------------------------------------ the sweep


def a_dead_pid() -> int:
    """The pid of a process that has ended and been reaped."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


def test_a_start_sweeps_the_folders_of_dead_commands_only(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    holder = subprocess.Popen(["sleep", "1000"])  # a live owner
    try:
        dead = tmp / "jaxdeck-kernel-dead"
        live = tmp / "jaxdeck-chromium-live"
        theirs = tmp / "jaxdeck-jupyter-theirs"
        unrecorded = tmp / "jaxdeck-kernel-unrecorded"  # its maker may be writing the record now
        forgotten = tmp / "jaxdeck-chromium-forgotten"  # no record, and untouched for over a day
        for folder in (dead, live, theirs, unrecorded, forgotten):
            folder.mkdir()
            (folder / "file").write_text("x")
        long_ago = time.time() - UNRECORDED_S - 60
        os.utime(forgotten, (long_ago, long_ago))
        owner = a_dead_pid()
        write_owner(dead, os.getpid())
        write_owner(live, holder.pid)
        write_owner(theirs, os.getpid())
        for folder in (dead, theirs):  # recorded as owned by a process that has ended
            record = (folder / OWNER).read_text().split()
            (folder / OWNER).write_text(" ".join([str(owner), "1", *record[2:]]) + "\n")
        nobody = pwd.getpwnam("nobody")
        for path in (theirs, theirs / "file", theirs / OWNER):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        outside = tmp_path / "outside"  # a link to a folder of the dead owner: never followed
        shutil.copytree(dead, outside)
        (tmp / "jaxdeck-kernel-link").symlink_to(outside)

        command, mark = start(["new", "talk"], tmp_path, dict(os.environ, TMPDIR=str(tmp)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command.wait(60)
        wait_for(lambda: not dead.exists() and not forgotten.exists(), 10, "the dead command's folders to be swept")
        assert started_by(mark, wait=10) == []  # the sweep is over
        assert sorted(p.name for p in tmp.iterdir()) == ["jaxdeck-chromium-live", "jaxdeck-jupyter-theirs",
                                                          "jaxdeck-kernel-link", "jaxdeck-kernel-unrecorded"]
        assert (outside / "file").exists() and (theirs / "file").exists() and (live / "file").exists()
    finally:
        holder.kill()
        holder.wait()
