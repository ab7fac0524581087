"""`jaxdeck rehearse --no-browser` end to end, as on a GPU box with no Chromium: a real live server with
jupyterlab-rise, a real kernel, no browser on PATH, ``CHROMIUM`` unset, and (for the fixture deck)
neither jaxdeck's browser module nor Playwright importable.

The fixture deck (tests/fixtures/rehearsed_on_kernel.md) reads from a file beside it what is to go
wrong live; it is built with nothing there, so the build is clean and the rehearsal finds only what
changed live.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from jaxdeck.stopping import MARKER
from support import (ROOT, WITHOUT_BROWSER_MODULES, built_repo, is_kernel, left_behind, left_behind_after, run_cli,
                     without_browser)

FIXTURE = ROOT / "tests" / "fixtures" / "rehearsed_on_kernel.md"
TITLES = ["A talk rehearsed on its kernel", "Setup", "A claim", "A wait", "A table", "An error", "A listing", "A hang"]

pytestmark = [pytest.mark.heavy]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A repository with the fixture deck, built with nothing going wrong."""
    return built_repo(tmp_path_factory.mktemp("no-browser").resolve(), FIXTURE, {"live.txt": ""})


@pytest.fixture(scope="module")
def no_browser(tmp_path_factory) -> dict[str, str]:
    env = without_browser(tmp_path_factory.mktemp("no-browser-env"))
    assert shutil.which("chromium", path=env["PATH"]) is None and "CHROMIUM" not in env
    return env


def rehearse(repo: Path, env: dict, *args: str, live: str = "", modules: bool = False):
    """``python -m jaxdeck rehearse --no-browser slides/talk.md ARGS`` with ``live`` in live.txt; ``modules``: run
    where neither jaxdeck.browser nor Playwright imports. The process, and the JSON report it wrote."""
    (repo / "slides" / "live.txt").write_text(live)
    report = repo / "build" / "rehearsal" / "talk.json"
    report.unlink(missing_ok=True)
    start = [sys.executable, "-c", WITHOUT_BROWSER_MODULES] if modules else [sys.executable, "-m", "jaxdeck"]
    try:
        done = subprocess.run([*start, "rehearse", "--no-browser", "slides/talk.md", *args], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        (repo / "slides" / "live.txt").write_text("")
    return done, json.loads(report.read_text()) if report.is_file() else None


def test_a_clean_talk_runs_on_its_kernel_alone_with_exit_0(repo, no_browser):
    done, report = rehearse(repo, no_browser, modules=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["ok"] and report["problems"] == [] and report["laid_out"] is False and report["sizes"] == []
    assert [s["title"] for s in report["slides"]] == TITLES
    assert [len(s["cells"]) for s in report["slides"]] == [0, 1, 1, 1, 1, 1, 0, 1]  # the listing never ran
    for slide in report["slides"]:
        assert slide["fits"] == {} and slide["pictures"] == []
        for cell in slide["cells"]:
            assert cell["status"] == "ok" and cell["build_s"] is not None and cell["kinds"] == cell["build_kinds"]
    assert report["slides"][2]["cells"][0]["checks"] == [{"ok": True, "message": None}]
    assert report["slides"][4]["cells"][0]["kinds"] == ["text", "text/html"]
    assert report["estimate_s"] > 0 and report["build"]["executed_at"]
    # the setup ran first, then every slide in order, each said as it went
    said = [line for line in done.stdout.splitlines() if line.startswith("slide ")]
    assert said[0] == "slide 2/8: the setup cell on line 18, first" and said[1] == f"slide 1/8: {TITLES[0]}"
    assert said[-1] == "slide 8/8: A hang"
    assert "The slides were not laid out (no browser)" in done.stdout
    assert re.search(r"^slides/talk\.md: ready to present \(its code; the slides were not laid out\)", done.stdout, re.M)
    assert "not laid out" in (repo / "build" / "rehearsal" / "talk.html").read_text()
    assert left_behind(repo) == []


def test_what_goes_wrong_only_live_is_named_by_slide_with_exit_1(repo, no_browser):
    done, report = rehearse(repo, no_browser, live="check slower text error hang", modules=True)
    assert done.returncode == 1, done.stdout + done.stderr
    problems = {(p["slide"], p["kind"]): p for p in report["problems"]}
    assert set(problems) == {(3, "check"), (4, "slower"), (5, "output"), (6, "error"), (8, "timeout"), (8, "error")}
    assert problems[(3, "check")]["message"].endswith("no longer holds: the answer is 42")
    waits = report["slides"][3]["cells"][0]
    assert waits["live_s"] >= 2.5 and waits["budget_s"] == 5  # under its budget: only slower than the build
    assert f"took {waits['live_s']:.2f} s live" in problems[(4, "slower")]["message"]
    assert f"{waits['build_s']:.2f} s" in problems[(4, "slower")]["message"]
    assert problems[(5, "output")]["message"] == "the build showed text/html; live it gave only text"
    assert problems[(6, "error")]["message"] == "raised RuntimeError: only live live (the build did not)"
    hang = report["slides"][7]["cells"][0]
    assert hang["status"] == "timeout" and hang["live_s"] == 4 and hang["error"].startswith("KeyboardInterrupt")
    assert [len(s["cells"]) for s in report["slides"]] == [0, 1, 1, 1, 1, 1, 0, 1]  # the rest ran after each
    assert re.search(r"^slide 4 \(line 48\): slower: took \d+\.\d\d s live", done.stdout, re.M), done.stdout
    assert re.search(r"^slides/talk\.md: 6 problem\(s\)", done.stdout, re.M), done.stdout
    assert "Traceback" not in done.stderr
    assert left_behind(repo) == []


def test_the_example_deck_rehearses_with_no_browser_against_its_build(built, no_browser):
    deck = ROOT / "slides" / "example.md"
    outputs, _ = built(deck)
    out = outputs.notebook.parent.parent
    done = subprocess.run([sys.executable, "-m", "jaxdeck", "rehearse", "--no-browser", "slides/example.md",
                           "--out", str(out)], cwd=ROOT, env=no_browser, capture_output=True, text=True, timeout=600)
    report = json.loads((out / "rehearsal" / "example.json").read_text())
    # timing on a loaded machine is the one thing no test can promise: nothing else may be a problem
    assert {p["kind"] for p in report["problems"]} <= {"slower", "budget"}, report["problems"]
    assert done.returncode == (1 if report["problems"] else 0), done.stdout + done.stderr
    assert len(report["slides"]) == 16 and report["laid_out"] is False
    ran = {s["number"]: s["cells"] for s in report["slides"] if s["cells"]}
    assert sorted(ran) == [3, 4, 6, 8, 9, 10]  # not slide 7's listing
    assert [c["line"] for c in ran[3]] == [32, 39] and ran[3][1]["checks"] == [{"ok": True, "message": None}]
    raised = ran[8][0]
    assert raised["status"] == "error" and raised["new_errors"] == []  # it raises as it did in the build
    assert all(c["build_s"] is not None for cells in ran.values() for c in cells)
    assert "text/html" in ran[9][0]["kinds"]
    assert "Traceback" not in done.stderr


def test_attached_it_runs_on_the_detached_presents_kernel_and_leaves_it_running(repo, no_browser):
    missing = run_cli("rehearse", "--no-browser", "slides/talk.md", "--attach", cwd=repo)
    assert missing.returncode == 1 and missing.stderr.startswith("error: no detached present is running from build")
    started = run_cli("present", "slides/talk.md", "--detach", "--port", "0", cwd=repo)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        state = json.loads((repo / "build" / "present" / "present.json").read_text())
        done, report = rehearse(repo, no_browser, "--attach")
        assert done.returncode == 0, done.stdout + done.stderr
        assert report["ok"] and report["cells"] == 6
        assert psutil.pid_exists(state["pid"]) and (repo / "build" / "present" / "present.json").is_file()
    finally:
        stopped = run_cli("present", "--stop", cwd=repo)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert left_behind(repo) == []


def test_sigterm_mid_rehearsal_leaves_no_server_or_kernel(repo, no_browser):
    (repo / "slides" / "live.txt").write_text("hang")
    process = subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", "rehearse", "--no-browser", "slides/talk.md"],
                               cwd=repo, env=no_browser, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for line in process.stdout:  # the server and the kernel are up, and the last cell runs until interrupted
            lines.append(line)
            if line.startswith("slide 8/8"):
                break
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=60)
    finally:
        (repo / "slides" / "live.txt").write_text("")
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, "".join(lines) + rest
    assert "stopped by SIGTERM" in rest and "Traceback" not in rest
    assert left_behind_after(repo) == []


def test_the_rehearsals_kernel_listens_on_no_tcp_port(repo, no_browser):
    """Its five sockets are local ones (ipc) in the server's private folder: nothing of the kernel on TCP
    but ipykernel's pipe for the output of forked children (one port on 127.0.0.1, receive only)."""
    (repo / "slides" / "live.txt").write_text("hang")
    process = subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", "rehearse", "--no-browser", "slides/talk.md"],
                               cwd=repo, env=no_browser, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in process.stdout:  # the kernel is up, running the last cell until it is interrupted
            if line.startswith("slide 8/8"):
                break
        kernel = next(p for p in psutil.Process(process.pid).children(recursive=True) if is_kernel(p))
        home = Path(kernel.environ()[MARKER])
        [connection_file] = (home / "runtime").glob("kernel-*.json")
        info = json.loads(connection_file.read_text())
        listening = [c.laddr for c in kernel.net_connections("inet") if c.status == psutil.CONN_LISTEN]
        local = {c.laddr for c in kernel.net_connections("unix") if c.laddr}
        private = home.stat().st_mode & 0o777
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
        (repo / "slides" / "live.txt").write_text("")
    assert info["transport"] == "ipc", info
    assert len(listening) <= 1 and all(a.ip == "127.0.0.1" for a in listening), listening
    assert {f"{info['ip']}-{info[f'{name}_port']}" for name in ("shell", "iopub", "stdin", "control", "hb")} <= local
    assert Path(info["ip"]).is_relative_to(home) and private == 0o700
    assert left_behind_after(repo) == []


def test_a_server_that_does_not_come_up_is_one_line(repo, no_browser):
    """A Jupyter that cannot start (here a module of the repository's own shadows jupyter_server)."""
    shadow = repo / "jupyter_server.py"
    shadow.write_text("# not Jupyter's server\n")
    try:
        done = subprocess.run([sys.executable, "-m", "jaxdeck", "rehearse", "--no-browser", "slides/talk.md"],
                              cwd=repo, env=no_browser, capture_output=True, text=True, timeout=300)
    finally:
        shadow.unlink()
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith("error: the Jupyter server stopped at start (exit 1): "), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert left_behind(repo) == []
