"""`present --detach`, `--stop` and `rehearse --attach` on a GPU box that other users share.

The live token runs code as the presenter: no other user may read it, however fast they poll.
A record on disk names processes only by pid and start time, so `--stop` never signals a process
the record did not start; the server a killed present left is still found and stopped; a second
detached present in one folder is refused at once; a record that is not a whole one is one line.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from support import command_line, kernels_under

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
READER = Path(__file__).resolve().parent / "other_user_reader.py"
OTHER_USER = "nobody"
#: the other user's Python: the system's, which any user may run (a venv under /root is not)
SYSTEM_PYTHON = "/usr/bin/python3"


def readable_by_others(repo: Path, script: Path) -> Path:
    """A copy of the other user's ``script`` in ``repo``, which other users may enter: the checkout itself
    may sit in a folder only its owner enters (a private home), where the other user could not open it."""
    copy = repo / script.name
    shutil.copy(script, copy)
    copy.chmod(0o644)
    return copy


def jaxdeck(*args: str) -> list[str]:
    return [sys.executable, "-u", "-m", "jaxdeck", *args]


def run(repo: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(jaxdeck(*args), cwd=repo, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=timeout)


def under(repo: Path) -> list:
    """Every process running in ``repo`` or below it (a present, its server, their kernels)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.pid != os.getpid() and Path(process.cwd()).is_relative_to(repo):
                found.append(process)
        except (psutil.Error, OSError, ValueError):
            continue
    return found


@pytest.fixture
def repo():
    """A project folder other users may enter and list (as a checkout on a shared box is), with the
    live fixture deck; whatever still runs in it afterwards is killed, so that no test leaves a server."""
    folder = Path(tempfile.mkdtemp(prefix="jaxdeck-shared-box-"))
    folder.chmod(0o755)
    shutil.copy(ROOT / "jupytext.toml", folder / "jupytext.toml")
    (folder / "slides").mkdir()
    shutil.copy(FIXTURES / "present_demo.md", folder / "slides" / "present_demo.md")
    try:
        yield folder
    finally:
        left = under(folder)
        for process in left:
            try:
                home = process.environ().get("JAXDECK_RUN")  # a live server's private folder, with its token
                process.kill()
            except psutil.Error:
                continue
            if home and Path(home).name.startswith("jaxdeck-jupyter-"):
                shutil.rmtree(home, ignore_errors=True)
        psutil.wait_procs(left, timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def state_paths(repo: Path) -> list[Path]:
    """Where a record is read from: present/present.json in the build folder (and present.json, where an
    older jaxdeck read it, so that a forged record reaches whichever code runs)."""
    return [repo / "build" / "present" / "present.json", repo / "build" / "present.json"]


def forge(repo: Path, state: dict) -> None:
    for path in state_paths(repo):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state))
    (repo / "build" / "present").chmod(0o700)


def start_time(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2:].split()[19])


def detached_state(repo: Path) -> dict:
    for path in state_paths(repo):
        if path.is_file():
            return json.loads(path.read_text())
    raise AssertionError("no record of the detached present")


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


# ------------------------------------------------------------------ 1. the token


@pytest.mark.heavy
def test_another_user_polling_never_reads_the_token_of_a_detached_present(repo):
    if os.geteuid() != 0 or not shutil.which("setpriv") or not Path(SYSTEM_PYTHON).is_file():
        pytest.skip("needs root, setpriv and a system Python to read as another user")
    (repo / "build").mkdir(mode=0o755)
    stop_file = repo / "reader-stop"
    # the other user has a core to spare, as on a box shared by people (not by a test run's processes):
    # given priority, it is not starved of the moments the token could be open to it
    as_other = ["nice", "-n", "-10", "setpriv", "--reuid", OTHER_USER, "--regid", "nogroup", "--clear-groups"]
    reader_script = readable_by_others(repo, READER)
    reader = subprocess.Popen([*as_other, SYSTEM_PYTHON, str(reader_script), str(repo / "build"), str(stop_file), "300"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tokens = []
    try:
        time.sleep(0.5)
        for _ in range(3):
            started = run(repo, "present", "--detach", "--port", "0", "slides/present_demo.md")
            assert started.returncode == 0, started.stdout + started.stderr
            tokens.append(re.search(r"token=(\S+)", started.stdout).group(1))
            stopped = run(repo, "present", "--stop")
            assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    finally:
        stop_file.touch()
        out, err = reader.communicate(timeout=60)
    polled = json.loads(out)
    assert polled["tries"] > 1000, (out, err)  # it did poll, all along
    leaked = {path: texts for path, texts in polled["read"].items()
              if any(token in text for text in texts for token in tokens)}
    assert not leaked, f"another user read the token from {sorted(leaked)}"
    assert not polled["opened"], f"another user opened {polled['opened']}"


def test_the_record_is_private_from_its_first_byte(repo, monkeypatch):
    """The record's temporary file is 0600 when it is renamed into place, and no mode wider than 0600 is
    ever set on it; its folder lets no other user in."""
    from jaxdeck.live import detached

    out = repo / "build"
    seen, widened = [], []
    replace, chmod = os.replace, os.chmod

    def spy_replace(source, target, *args, **kwargs):
        if Path(target).name == "present.json":
            seen.append(os.stat(source).st_mode & 0o777)
        return replace(source, target, *args, **kwargs)

    def spy_chmod(path, mode, *args, **kwargs):
        if "present.json" in Path(path).name and mode & 0o077:
            widened.append((Path(path).name, oct(mode)))
        return chmod(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "replace", spy_replace)
    monkeypatch.setattr(os, "chmod", spy_chmod)
    token = "secret-token-1234"
    path = detached.record(out, url=f"http://127.0.0.1:9/rise/slides/x.md?token={token}",
                           lab=f"http://127.0.0.1:9/lab?token={token}")
    monkeypatch.undo()
    assert seen == [0o600], [oct(mode) for mode in seen]
    assert not widened, widened
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700 and path.parent != out


def test_a_private_log_is_a_new_file_that_an_old_reader_does_not_see(tmp_path):
    from jaxdeck.atomic import create_private

    log = tmp_path / "server.log"
    log.write_text("old lines\n")
    log.chmod(0o644)
    with open(log) as held:  # opened while it was readable
        with os.fdopen(create_private(log), "w") as new:
            new.write("the URL with its token=abc\n")
        assert "token" not in held.read()
    assert log.read_text() == "the URL with its token=abc\n"
    assert log.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["server.log"]
    # a link the user named (as /dev/stderr is) is written through, not replaced
    link = tmp_path / "link.log"
    link.symlink_to(log)
    with os.fdopen(create_private(link), "w") as through:
        through.write("through the link\n")
    assert link.is_symlink() and log.read_text() == "through the link\n"


# ------------------------------------------------------------------ 2. a record names only what it started


@pytest.mark.heavy
@pytest.mark.parametrize("forged", ["pid alone", "another start time", "a group", "text"])
def test_stop_signals_nothing_a_forged_or_stale_record_names(repo, forged):
    victim = subprocess.Popen(["sleep", "300"], start_new_session=True)  # leads a group of its own
    try:
        state = {
            "pid alone": {"pid": victim.pid},
            "another start time": {"pid": victim.pid, "started": start_time(victim.pid) + 1},
            "a group": {"pid": -victim.pid, "started": 0},
            "text": {"pid": str(victim.pid), "started": start_time(victim.pid)},
        }[forged]
        url = "http://127.0.0.1:9/rise/slides/present_demo.md?token=forged"
        forge(repo, dict(state, url=url, lab="http://127.0.0.1:9/lab?token=forged"))
        done = run(repo, "present", "--stop", timeout=120)
        line = one_line_error(done)
        assert "signalled nothing" in line, line
        time.sleep(0.5)
        assert victim.poll() is None, f"--stop signalled pid {victim.pid} (exit {victim.returncode})"
        assert not (repo / "build" / "present" / "present.json").exists()  # a stale record goes
    finally:
        victim.kill()
        victim.wait()


def test_a_record_names_no_pid_that_would_signal_a_group_init_or_nothing_meant():
    """0 signals the caller's own group, 1 is init, a negative pid a group: never taken from a record
    (not run through --stop here, where an older jaxdeck would signal them)."""
    from jaxdeck.live.identity import Identity

    for pid in (0, 1, -1, -os.getpid(), True, str(os.getpid()), float(os.getpid()), None):
        assert Identity.parse({"pid": pid, "started": 0}) is None, pid
    assert Identity.parse({"pid": os.getpid()}) is None  # no start time: nothing to check it by
    me = Identity.parse({"pid": os.getpid(), "started": start_time(os.getpid())})
    assert me is not None and me.alive() and me == Identity.of(os.getpid())
    assert not Identity(os.getpid(), start_time(os.getpid()) + 1).alive()


@pytest.mark.heavy
def test_stop_refuses_a_record_folder_of_another_user(repo):
    victim = subprocess.Popen(["sleep", "300"])
    try:
        forge(repo, {"pid": victim.pid, "started": start_time(victim.pid), "url": "u", "lab": "l"})
        other = pwd.getpwnam(OTHER_USER)
        os.chown(repo / "build" / "present", other.pw_uid, other.pw_gid)
        line = one_line_error(run(repo, "present", "--stop"))
        assert "build/present" in line and "not a folder of yours" in line, line
        time.sleep(0.3)
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


# ------------------------------------------------------------------ 3. kill -9, then --stop


@pytest.mark.heavy
def test_a_kill_9_of_a_detached_present_ends_its_server_and_kernels_and_stop_removes_its_record(repo):
    started = run(repo, "present", "--detach", "--port", "0", "slides/present_demo.md")
    assert started.returncode == 0, started.stdout + started.stderr
    base, token = re.search(r"slideshow:\s+(http://127\.0\.0\.1:\d+)/rise/\S+\?token=(\S+)", started.stdout).groups()
    present = psutil.Process(detached_state(repo)["pid"])
    server = next(p for p in present.children(recursive=True) if "jaxdeck.live.jupyter" in command_line(p))
    home = Path(server.environ()["JUPYTER_TOKEN_FILE"]).parent
    request = urllib.request.Request(f"{base}/api/kernels", method="POST", data=b"{}",
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
    deadline = time.monotonic() + 60
    while not kernels_under(server.pid):
        assert time.monotonic() < deadline, "no kernel started"
        time.sleep(0.2)
    tree = [server, *server.children(recursive=True)]

    present.kill()
    present.wait(10)
    # a SIGKILL cannot be caught, but the present's watchdog (jaxdeck.orphans) ends what it started
    gone, alive = psutil.wait_procs(tree, timeout=15)
    assert not alive, [command_line(p) for p in alive]
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=2).close()
    deadline = time.monotonic() + 10
    while home.exists():  # the token's folder goes with it
        assert time.monotonic() < deadline, home
        time.sleep(0.1)

    stopped = run(repo, "present", "--stop")  # the record is left: --stop signals nothing and removes it
    assert "no detached present is running here: the record was stale" in one_line_error(stopped)
    assert not any(path.exists() for path in state_paths(repo))
    again = run(repo, "present", "--stop")
    assert "no detached present is running here" in one_line_error(again)


# ------------------------------------------------------------------ 4. one detached present per folder


@pytest.mark.heavy
def test_a_second_detached_present_in_the_folder_is_refused_at_once_naming_the_first(repo):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = jaxdeck("present", "--detach", "--port", "0", "slides/present_demo.md")
    both = [subprocess.Popen(command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]  # started together: neither has a record yet when the other looks
    try:
        done = [(p, *p.communicate(timeout=180)) for p in both]
        ok = [(p, out) for p, out, err in done if p.returncode == 0]
        refused = [(p, err) for p, out, err in done if p.returncode != 0]
        assert len(ok) == 1 and len(refused) == 1, [(p.returncode, out, err) for p, out, err in done]
        first = detached_state(repo)["pid"]
        line = refused[0][1].strip()
        assert "Traceback" not in line and len(line.splitlines()) == 1, line
        # how to stop it, as this folder can (no Makefile here: the command itself)
        assert f"already running here (pid {first}" in line and "jaxdeck present --stop" in line, line
        assert "token" not in line, line

        # and once the first is serving: refused at once, naming its URL without the token
        began = time.monotonic()
        second = run(repo, "present", "--detach", "--port", "0", "slides/present_demo.md")
        assert time.monotonic() - began < 30  # at once, not after the 120 s a start may take
        line = one_line_error(second)
        url = re.search(r"slideshow:\s+(\S+)\?token=", ok[0][1]).group(1)
        assert f"(pid {first}, {url})" in line and "token" not in line, line
        assert len([p for p in under(repo) if "jaxdeck.live.jupyter" in command_line(p)]) == 1
    finally:
        stopped = run(repo, "present", "--stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    deadline = time.monotonic() + 15
    while under(repo) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not under(repo), [command_line(p) for p in under(repo)]


# ------------------------------------------------------------------ 5. rehearse --attach on a bad record


@pytest.mark.heavy
@pytest.mark.parametrize("record", ["no token", "no start time"])
def test_rehearse_attach_on_a_stale_or_incomplete_record_says_so_in_one_line(repo, record):
    stand_in = subprocess.Popen(["sleep", "300"])  # a live pid, as a record's present may be
    try:
        state = {"pid": stand_in.pid, "started": start_time(stand_in.pid),
                 "url": "http://127.0.0.1:9/rise/slides/present_demo.md", "lab": "http://127.0.0.1:9/lab"}
        if record == "no start time":
            state = {"pid": stand_in.pid, "lab": "http://127.0.0.1:9/lab?token=abc"}
        forge(repo, state)
        line = one_line_error(run(repo, "rehearse", "slides/present_demo.md", "--attach"))
        assert "stale or incomplete" in line and "--detach" in line, line
        assert stand_in.poll() is None
    finally:
        stand_in.kill()
        stand_in.wait()


# ------------------------------------------------------------------ 6. the browser present opens


@pytest.mark.heavy
def test_present_opens_the_browser_at_a_private_page_and_the_token_is_on_no_command_line(repo):
    """A browser is started with its URL on its command line, which `ps` shows every user: present
    gives it a page of its own instead (0600, in a 0700 folder) that leads on to the slideshow;
    the page is gone when present stops."""
    given = repo / "browser-was-given.txt"
    recorder = repo / "browser.py"
    recorder.write_text(f"import sys\nopen({str(given)!r}, 'w').write(sys.argv[1])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), BROWSER=f"{sys.executable} {recorder} %s")
    process = subprocess.Popen(jaxdeck("present", "--port", "0", "slides/present_demo.md"), cwd=repo, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        token = None
        for line in process.stdout:
            found = re.search(r"slideshow:\s+\S+\?token=(\S+)", line)   # a URL-safe token may hold '-'
            if found:
                token = found.group(1)
                break
        assert token, "present printed no slideshow URL"
        deadline = time.monotonic() + 30
        while not (given.is_file() and given.read_text()) and time.monotonic() < deadline:
            time.sleep(0.2)
        opened = given.read_text()
        assert opened.startswith("file://") and token not in opened, opened
        for other in psutil.process_iter(["cmdline"]):
            assert token not in " ".join(other.info["cmdline"] or []), other.info["cmdline"]
        page = Path(urllib.request.url2pathname(opened[len("file://"):]))
        assert token in page.read_text() and f"?token={token}" in page.read_text()
        assert page.stat().st_mode & 0o777 == 0o600 and page.parent.stat().st_mode & 0o777 == 0o700
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(60)
    assert not page.exists()


# ------------------------------------------------------------------ 7. the live kernel's sockets

PROBE = Path(__file__).resolve().parent / "other_user_kernel_probe.py"
#: what the kernel says of itself: its pid, and the port of ipykernel's pipe for the output of forked
#: children (bound on 127.0.0.1 whatever the transport; it only receives, and drops what lacks a key)
WHO_AM_I = "import os, sys; print(os.getpid(), getattr(getattr(sys.stdout, 'pub_thread', None), '_pipe_port', None))"


def endpoints(info: dict) -> list[str]:
    """The kernel's five sockets as zmq names them, from its connection file."""
    ports = [info[f"{name}_port"] for name in ("shell", "iopub", "stdin", "control", "hb")]
    if info["transport"] == "ipc":
        return [f"ipc://{info['ip']}-{port}" for port in ports]
    return [f"tcp://{info['ip']}:{port}" for port in ports]


@pytest.mark.heavy
def test_another_user_finds_no_port_of_a_live_kernel_and_cannot_reach_its_sockets(repo):
    if os.geteuid() != 0 or not shutil.which("setpriv") or not Path(SYSTEM_PYTHON).is_file():
        pytest.skip("needs root, setpriv and a system Python to probe as another user")
    from jaxdeck.live.server import start_server
    from jaxdeck.rehearse.kernel_channel import KernelChannel

    with start_server(repo, port=0) as server:
        channel = KernelChannel(server.base, server.token, "slides/present_demo.md")
        try:
            channel.start()  # the deck's session and its kernel, as the slideshow starts them
            said = channel.execute(WHO_AM_I, 60)
            assert said.status == "ok", said
            pid, pipe = said.outputs[0]["text"].split()
            kernel = psutil.Process(int(pid))
            listening = [c.laddr for c in kernel.net_connections("inet") if c.status == psutil.CONN_LISTEN]
            assert [a for a in listening if str(a.port) != pipe] == [], f"the kernel listens on TCP: {listening}"
            info = json.loads((server.home / "runtime" / f"kernel-{channel.kernel_id}.json").read_text())
            assert info["transport"] == "ipc" and Path(info["ip"]).is_relative_to(server.home)
            assert server.home.stat().st_mode & 0o777 == 0o700
            connection_file = server.home / "runtime" / f"kernel-{channel.kernel_id}.json"
            probe = subprocess.run(["setpriv", "--reuid", OTHER_USER, "--regid", "nogroup", "--clear-groups",
                                    SYSTEM_PYTHON, str(readable_by_others(repo, PROBE)), str(connection_file), *endpoints(info)],
                                   capture_output=True, text=True, timeout=60)
            assert probe.returncode == 0, probe.stderr
            found = json.loads(probe.stdout)
            assert found["read"] == "PermissionError", found
            assert set(found["endpoints"].values()) == {"PermissionError"}, found
            # and the presenter's own client reaches the kernel through those sockets still
            assert channel.execute("print(6 * 7)", 60).outputs[0]["text"] == "42\n"
        finally:
            channel.close()
