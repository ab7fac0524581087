"""`jaxdeck present` end to end: the real Jupyter server (RISE + jupytext), a real headless Chromium.

One server for the module, started the way `make present` does (`python -m jaxdeck present
--port 0 --no-browser`) in a copy of a small repository; the tests use the URL it prints.
The stop-signal tests start one of their own each, since they end it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import psutil
import pytest

from jaxdeck.read import deck_to_notebook
from jaxdeck.errors import DeckError
from jaxdeck.live.listening import check_port
from support import RUN_MARK, command_line, end_started_by

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DECK = "slides/present_demo.md"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A small repository: jupytext.toml, two decks, and a build of the first with a pre-baked output."""
    root = tmp_path_factory.mktemp("present")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    (root / "slides").mkdir()
    for name in ("present_demo.md", "present_other.md"):
        shutil.copy(FIXTURES / name, root / "slides" / name)
    built = deck_to_notebook(root / DECK)
    code = next(c for c in built.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="PREBAKED output of the last build\n")]
    code.execution_count = 1
    (root / "build" / "notebooks").mkdir(parents=True)
    nbformat.write(built, root / "build" / "notebooks" / "present_demo.ipynb")
    return root


def shutting_down(process, deadline: float) -> str | None:
    """The line `present` prints when a stop signal reached it (None if none comes by ``deadline``)."""
    import select

    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        line = process.stdout.readline() if ready else ""
        if "stopping the Jupyter server" in line:
            return line
        if ready and not line:
            return None
    return None


def start_present(repo) -> dict:
    """`python -m jaxdeck present --port 0 --no-browser` in ``repo``, once it printed its slideshow URL."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("XLA_PYTHON_CLIENT_PREALLOCATE", None)
    process = subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", "present", "--port", "0", "--no-browser"],
                               cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    url = None
    deadline = time.monotonic() + 120
    while url is None and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        found = re.search(r"slideshow:\s+(\S+)", line)
        if found:
            url = found.group(1)
    if url is None:
        process.kill()
        pytest.fail("no slideshow URL printed:\n" + "\n".join(lines))
    return {"process": process, "lines": lines, "url": url}


@pytest.fixture(scope="module")
def server(repo):
    """`python -m jaxdeck present --port 0 --no-browser` with no deck; yields (process, printed lines, url)."""
    info = start_present(repo)
    process = info["process"]
    yield info
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # Ctrl-C
        process.wait(30)


def end_all(process, descendants) -> None:
    """What a stop test that failed left: the CLI and what it started."""
    if process.poll() is None:
        process.kill()
        process.wait(10)
    for leftover in descendants:
        with contextlib.suppress(psutil.Error):
            leftover.kill()


def base_and_token(url: str) -> tuple[str, str]:
    found = re.match(r"(http://127\.0\.0\.1:\d+)/rise/(\S+)\?token=(\S+)$", url)
    assert found, url
    return found.group(1), found.group(3)


def api(server, method: str, path: str, body=None, token: bool = True):
    base, tok = base_and_token(server["url"])
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"token {tok}"
    request = urllib.request.Request(f"{base}/api/{path}", data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read() or b"null")


@pytest.mark.heavy
def test_prints_the_slideshow_url_of_the_first_deck_and_lists_the_others(server):
    text = "\n".join(server["lines"])
    assert "Presenting slides/present_demo.md" in text
    assert "slides/present_other.md" in text
    assert re.search(r"/rise/slides/present_demo\.md\?token=[\w-]{32,}$", server["url"])


@pytest.mark.heavy
def test_slideshow_runs_a_demo_cell_live(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    remote = []  # the venue may have no network: the slideshow must not need it
    page.on("request", lambda r: remote.append(r.url)
            if not r.url.startswith(("http://127.0.0.1", "data:", "blob:", "about:")) else None)
    try:
        page.goto(server["url"])
        page.wait_for_selector(".reveal .slides section", state="visible", timeout=60000)
        assert "live presenting fixture" in page.inner_text(".reveal .slides section.present").lower()
        first = page.inner_text(".reveal .slides section.present")
        assert not first.lstrip().startswith("---")
        page.screenshot(path=str(tmp_path / "title.png"))

        page.keyboard.press("ArrowRight")  # the demo slide
        slide = page.locator(".reveal .slides section.present").last
        slide.wait_for(state="visible")
        assert "a live demo" in slide.inner_text().lower()
        # pre-baked: the output of the last build is there before anything runs
        output = slide.locator(".jp-CodeCell .jp-OutputArea-output")
        assert "PREBAKED output of the last build" in output.first.inner_text()

        editor = slide.locator(".jp-CodeCell .cm-content").first
        editor.click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-OutputArea-output')].some(e => e.innerText.includes('live 42'))",
            timeout=90000)
        texts = page.eval_on_selector_all(".jp-OutputArea-output", "els => els.map(e => e.innerText)")
        live = [t for t in texts if "live 42" in t]
        # the kernel got the GPU settings: no full-memory preallocation
        assert live == ["live 42 false\n"] or live[0].strip() == "live 42 false", texts
        assert not any("PREBAKED" in t for t in texts)
        page.screenshot(path=str(tmp_path / "demo.png"))
        assert remote == []
    finally:
        page.close()


@pytest.mark.heavy
def test_requests_without_the_token_are_refused(server):
    base, token = base_and_token(server["url"])
    for path in ("api/contents/" + DECK, "api/kernels", "api/status"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{base}/{path}", timeout=10)
        assert err.value.code == 403, path
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{base}/api/status?token=wrong-{token}", timeout=10)
    assert err.value.code == 403
    # the slideshow page itself sends a browser without the token to the login form
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as err:
        opener.open(f"{base}/rise/{DECK}", timeout=10)
    assert err.value.code == 302 and "/login" in err.value.headers["Location"]
    status, _ = api(server, "GET", "status")
    assert status == 200


def test_the_token_is_on_no_command_line_and_in_no_file_others_can_read(server):
    _, token = base_and_token(server["url"])
    listed = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True, timeout=30).stdout
    assert "jaxdeck.live.jupyter" in listed  # the server is running, and listed
    assert token not in listed
    jupyter = next(p for p in psutil.Process(server["process"].pid).children(recursive=True)
                   if "jaxdeck.live.jupyter" in command_line(p))
    environ = jupyter.environ()
    token_file = Path(environ["JUPYTER_TOKEN_FILE"])
    assert token_file.read_text() == token
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
    assert "JUPYTER_TOKEN" not in environ


def test_listens_only_on_loopback(server):
    base, _ = base_and_token(server["url"])
    port = int(base.rsplit(":", 1)[1])
    cli = psutil.Process(server["process"].pid)
    processes = [cli] + cli.children(recursive=True)  # the server and its kernels
    listening = []
    for process in processes:
        try:
            connections = process.net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue
        listening += [c.laddr for c in connections if c.status == psutil.CONN_LISTEN]
    assert any(addr.port == port for addr in listening)
    assert listening and all(addr.ip == "127.0.0.1" for addr in listening), listening


def test_edit_through_the_contents_api_is_saved_into_the_markdown(server, repo):
    deck = repo / DECK
    original = deck.read_text(encoding="utf-8")
    status, model = api(server, "GET", f"contents/{DECK}?type=notebook&content=1")
    assert status == 200 and model["type"] == "notebook"
    nb = model["content"]
    assert any("PREBAKED" in json.dumps(c.get("outputs", [])) for c in nb["cells"])

    # as Jupyter saves: PUT the whole model back, first unchanged, then with one cell edited
    api(server, "PUT", f"contents/{DECK}", {"type": "notebook", "format": "json", "content": nb})
    assert deck.read_text(encoding="utf-8") == original

    cell = next(c for c in nb["cells"] if "- one point" in c["source"])
    cell["source"] = cell["source"].replace("- one point", "- one point, edited live")
    api(server, "PUT", f"contents/{DECK}", {"type": "notebook", "format": "json", "content": nb})
    assert deck.read_text(encoding="utf-8") == original.replace("- one point\n", "- one point, edited live\n", 1)


@pytest.mark.heavy
def test_ctrl_c_stops_the_server_and_its_kernels(repo):
    """A server of its own: the module's is shared by the other tests, in any order."""
    process = start_present(repo)["process"]
    children = psutil.Process(process.pid).children(recursive=True)
    try:
        assert children
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == 0  # a hang guard
        _, alive = psutil.wait_procs(children, timeout=30)
        assert not alive, alive
    finally:
        end_all(process, children)


@pytest.mark.heavy
@pytest.mark.parametrize("signum, then, stuck", [
    (signal.SIGTERM, (), False),
    (signal.SIGHUP, (), False),
    (signal.SIGTERM, (signal.SIGINT, signal.SIGHUP, signal.SIGTERM), False),
    pytest.param(signal.SIGTERM, (), True, marks=pytest.mark.alone),
], ids=["SIGTERM", "SIGHUP", "SIGTERM-then-more-during-the-shutdown", "SIGTERM-with-a-stuck-kernel"])
def test_a_stop_signal_stops_the_server_and_its_kernels_and_cleans_up(repo, signum, then, stuck):
    """`kill`, a closed terminal, a dropped SSH session: nothing is left running, listening or on disk.

    Signals that come while it shuts down (``then``) are ignored: the shutdown still finishes.
    A kernel that does not answer Jupyter's shutdown (``stuck``: SIGSTOPped) is SIGKILLed, not waited
    for: that case alone is timed (in the alone pass); the other waits are hang guards.
    """
    present = start_present(repo)
    process = present["process"]
    descendants: list[psutil.Process] = []
    try:
        base, _ = base_and_token(present["url"])
        port = int(base.rsplit(":", 1)[1])
        wrapper = psutil.Process(process.pid)
        (jupyter,) = [p for p in wrapper.children() if "jaxdeck.live.jupyter" in command_line(p)]  # not the watchdog
        home = Path(jupyter.environ()["JUPYTER_CONFIG_DIR"]).parent  # Server.home
        assert home.name.startswith("jaxdeck-jupyter-") and home.is_dir()

        status, kernel = api(present, "POST", "kernels", {"name": "python3"})
        assert status == 201
        deadline = time.monotonic() + 120
        while not any(kernel["id"] in command_line(p) for p in descendants):
            assert time.monotonic() < deadline, "the kernel process did not appear"
            time.sleep(0.2)
            descendants = wrapper.children(recursive=True)
        (kernel_process,) = [p for p in descendants if kernel["id"] in command_line(p)]
        # the kernel has a session (and process group) of its own: the server's group misses it
        assert os.getsid(kernel_process.pid) != os.getsid(jupyter.pid)
        if stuck:
            kernel_process.suspend()

        signalled = time.monotonic()
        process.send_signal(signum)
        said = ""
        if then:  # once it says it is shutting down: pending together, signals are taken lowest number first
            said = shutting_down(process, signalled + 60)
            assert said, "no stopping line"
        for later in then:
            time.sleep(0.05)
            if process.poll() is None:
                process.send_signal(later)
        assert process.wait(60) == 128 + signum
        elapsed = time.monotonic() - signalled
        _, alive = psutil.wait_procs(descendants, timeout=30)
        assert not alive, alive
        # the port is free: nothing listens there, a new server can bind it. Bound as Jupyter and
        # check_port bind (SO_REUSEADDR), since the connections the server closed sit in TIME_WAIT.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen()
        check_port("127.0.0.1", port)  # what `make present PORT=...` checks before it starts
        assert not home.exists()
        print(f"{signal.Signals(signum).name}: the server gone {elapsed:.2f} s after the signal")
        if stuck:
            assert elapsed < 5, f"the server waited {elapsed:.1f} s on a kernel that does not answer"

        output = said + process.stdout.read()
        assert f"{signal.Signals(signum).name}: stopping the Jupyter server..." in output
        assert "Traceback" not in output
    finally:
        end_all(process, descendants)


def test_non_loopback_needs_an_explicit_flag():
    from jaxdeck.cli import main
    from jaxdeck.live.server import start_server

    with pytest.raises(DeckError, match="not a loopback address"):
        start_server(ROOT, ip="0.0.0.0")
    assert main(["present", "--ip", "0.0.0.0", "--no-browser", str(FIXTURES / "present_demo.md")]) == 1


def test_one_deck_at_a_time(capsys):
    from jaxdeck.cli import main

    assert main(["present", "--no-browser", str(FIXTURES / "present_demo.md"),
                 str(FIXTURES / "present_other.md")]) == 1
    assert "one deck at a time" in capsys.readouterr().err


def test_without_the_built_extension_present_stops_with_one_line_saying_to_run_make(tmp_path, monkeypatch, capsys):
    """RISE would still show the deck without it (no columns, keys or widgets), and nothing would say why."""
    from jaxdeck.cli import main
    from jaxdeck.live import server

    monkeypatch.setattr(server, "EXTENSION", tmp_path / "jaxdeck-live")  # as in a checkout `make` never built
    with pytest.raises(DeckError, match=r"extension is not built .*run `make`"):
        server.start_server(ROOT)
    for detach in ([], ["--detach", "--out", str(tmp_path / "out")]):
        assert main(["present", "--no-browser", *detach, str(FIXTURES / "present_demo.md")]) == 1
        said = capsys.readouterr().err.strip().splitlines()
        assert len(said) == 1 and "the live slideshow's extension is not built" in said[0] and "run `make`" in said[0]
    assert not (tmp_path / "out").exists()  # nothing started in the background


def test_a_temporary_folder_too_long_for_the_kernels_local_sockets_is_said_before_the_server_starts(tmp_path):
    from jaxdeck.live.home import SOCKET_PATH_MAX, check_socket_room

    check_socket_room(Path("/tmp/jaxdeck-jupyter-abcdefgh/runtime"))  # the usual place: room to spare
    deep = Path("/tmp") / ("d" * (SOCKET_PATH_MAX - 40)) / "jaxdeck-jupyter-abcdefgh" / "runtime"
    with pytest.raises(DeckError) as raised:
        check_socket_room(deep)
    assert "too long a path for the live kernel's local sockets" in str(raised.value)
    assert "TMPDIR=/tmp" in str(raised.value) and len(str(raised.value).splitlines()) == 1


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a network namespace of its own (unshare -n) needs root")
def test_present_where_loopback_is_down_says_so_in_one_line_at_once(tmp_path):
    """In a network namespace of its own, whose loopback interface is down (as `unshare -n` gives),
    the server could never be reached: present says so before it starts one, instead of waiting."""
    shutil.copy(FIXTURES.parent.parent / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    shutil.copy(FIXTURES / "present_demo.md", tmp_path / DECK)
    mark = f"loopback-{os.getpid()}"
    env = dict(os.environ, PYTHONPATH=str(FIXTURES.parents[1]), **{RUN_MARK: mark})
    try:  # the deadline: a present that waits for its server runs into it
        done = subprocess.run(["unshare", "-n", sys.executable, "-m", "jaxdeck", "present", DECK, "--port", "0",
                               "--no-browser"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=45)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"present still waiting after {err.timeout} s: {err.stdout!r} {err.stderr!r}")
    finally:
        end_started_by(mark)  # the server a waiting present started, when it is killed at the deadline
    if done.returncode != 0 and "unshare" in done.stderr.split(":")[0]:
        pytest.skip(f"no network namespace here: {done.stderr.strip()}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0 and len(lines) == 1, done.stdout + done.stderr
    assert "cannot connect to itself on 127.0.0.1" in lines[0] and "loopback interface is down" in lines[0], lines
