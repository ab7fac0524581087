"""SIGTERM and Ctrl-C stop a running build: its kernel and its browser go too, and no partial file stays."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from support import ROOT, SIGNAL_IN_A_THREAD, command_line, is_kernel, run_cli, still_running

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

FIRST = "# Talk\n\n```python\n6 * 7\n```\n\nNote: the answer\n"
#: the second cell says it started (through a file the test names), then runs far past the test
SLOW = FIRST + ("\n---\n\n## Slow\n\n```python timeout=120\nimport os, time\n"
                "open(os.environ['JAXDECK_TEST_STARTED'], 'w').close()\ntime.sleep(100)\n```\n")


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def wait_for(predicate, seconds: float, what: str):
    """A hang guard for the test itself (not a performance budget)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.mark.browser
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_ends_the_build_its_kernel_and_its_browser(tmp_path, signum):
    project = tmp_path / "project"
    (project / "slides").mkdir(parents=True)
    deck = project / "slides" / "talk.md"
    deck.write_text(FIRST)
    assert run_cli("build", "slides/talk.md", "--out", "build", cwd=project).returncode == 0
    before = digest(project / "build")
    deck.write_text(SLOW)
    started = tmp_path / "started"
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAXDECK_TEST_STARTED=str(started))
    build = subprocess.Popen([sys.executable, "-m", "jaxdeck", "build", "--pdf", "slides/talk.md", "--out", "build"],
                             cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: started.exists() or build.poll() is not None, 120, "the slow cell to start")
        assert build.poll() is None, build.communicate()
        me = psutil.Process(build.pid)
        # the browser starts while the kernel runs: wait until it is there too
        wait_for(lambda: any("chrom" in command_line(p).lower() for p in me.children(recursive=True)), 60, "the browser")
        children = [p.pid for p in me.children(recursive=True)]
        build.send_signal(signum)
        out, err = build.communicate(timeout=30)  # a hang guard: it used to take a SIGKILL
    finally:
        if build.poll() is None:
            build.kill()
            build.communicate()
    assert build.returncode == 128 + signum
    assert err.strip().splitlines() == ["interrupted" if signum == signal.SIGINT else "stopped by SIGTERM"], err
    wait_for(lambda: not still_running(children), 5, "the children to be reaped")
    assert digest(project / "build") == before  # no partial file, earlier outputs intact
    assert deck.read_text() == SLOW


def test_a_stop_signal_taken_by_another_thread_still_ends_the_build(tmp_path):
    """Python runs a signal's handler in the main thread, when that thread next runs: the build's main
    thread, waiting for its kernel's cell, must wake to take it (it once waited for the cell to end)."""
    project = tmp_path / "project"
    (project / "slides").mkdir(parents=True)
    (project / "slides" / "talk.md").write_text(SLOW)
    started = tmp_path / "started"
    # the thread sends its signal once the slow cell has started
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAXDECK_TEST_STARTED=str(started), JAXDECK_TEST_GO=str(started))
    build = subprocess.Popen([sys.executable, "-c", SIGNAL_IN_A_THREAD, "build", "slides/talk.md", "--out", "build"],
                             cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: started.exists() or build.poll() is not None, 120, "the slow cell to start")
        out, err = build.communicate(timeout=30)  # a hang guard: the cell sleeps for 100 s
    finally:
        if build.poll() is None:
            build.kill()
            build.communicate()
    assert build.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines() == ["stopped by SIGTERM"], err


#: a stop signal taken while the garbage collector runs a weakref callback, where a raised exception
#: is only printed ("Exception ignored in ...") and the code goes on
IN_A_CALLBACK = """
import signal, sys, time, weakref
from jaxdeck.stopping import Stopped, say, stop_on_signals
class Thing:
    pass
try:
    with stop_on_signals():
        thing = Thing()
        watch = weakref.ref(thing, lambda ref: signal.raise_signal(signal.SIGTERM))
        try:
            del thing  # the callback runs here, and the handler inside it
            time.sleep(30)
        finally:
            print("unwound", flush=True)
except Stopped as stop:
    say(stop)
    sys.exit(stop.exit_code)
"""


def test_a_stop_taken_inside_a_weakref_callback_still_unwinds_the_command(tmp_path):
    """Python prints an exception raised in a weakref callback and goes on: the stop is handed back to the
    main thread, so the command unwinds (its ``finally`` blocks run) and prints no traceback, rather than
    sleeping on until the deadline kills it."""
    done = subprocess.run([sys.executable, "-c", IN_A_CALLBACK], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stdout.splitlines() == ["unwound"], done.stdout
    assert done.stderr.strip().splitlines() == ["stopped by SIGTERM"], done.stderr


def test_a_stop_signal_ends_decks_built_side_by_side_and_all_their_kernels(tmp_path):
    project = tmp_path / "project"
    (project / "slides").mkdir(parents=True)
    slow = FIRST + ("\n---\n\n## Slow\n\n```python timeout=120\nimport os, time\n"
                    "open(os.environ['JAXDECK_TEST_STARTED'] + str(os.getpid()), 'w').close()\ntime.sleep(100)\n```\n")
    for name in ("one", "two"):
        (project / "slides" / f"{name}.md").write_text(slow)
    started = tmp_path / "started"
    started.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAXDECK_TEST_STARTED=str(started / "kernel-"))
    build = subprocess.Popen([sys.executable, "-m", "jaxdeck", "build", "--jobs", "2", "slides/one.md", "slides/two.md",
                              "--out", "build"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        wait_for(lambda: len(list(started.iterdir())) == 2 or build.poll() is not None, 120, "both slow cells to start")
        assert build.poll() is None, build.communicate()
        children = [p.pid for p in psutil.Process(build.pid).children(recursive=True)]
        assert len([p for p in children if is_kernel(psutil.Process(p))]) == 2
        build.send_signal(signal.SIGTERM)
        out, err = build.communicate(timeout=30)  # a hang guard
    finally:
        if build.poll() is None:
            build.kill()
            build.communicate()
    assert build.returncode == 128 + signal.SIGTERM
    assert err.strip().splitlines() == ["stopped by SIGTERM"], err
    wait_for(lambda: not still_running(children), 5, "the children to be reaped")
    notebooks = project / "build" / "notebooks"
    assert not notebooks.is_dir() or not any(notebooks.glob("*.ipynb"))  # neither deck half-written


#: jaxdeck as its own process (``main()`` with no arguments), with a stop signal that lands once the work is
#: done, while the interpreter shuts down (joining a thread that sends it)
AFTER_THE_WORK = """
import os, signal, sys, threading
import jaxdeck.cli as cli
returned = threading.Event()
def send():
    returned.wait()
    os.kill(os.getpid(), signal.SIGTERM)
threading.Thread(target=send).start()
sys.argv = ["jaxdeck", *sys.argv[1:]]
code = cli.main()
returned.set()
sys.exit(code)
"""


def test_a_stop_signal_after_the_work_while_the_process_shuts_down_still_ends_it_as_a_stop(tmp_path):
    """The handlers that ``stop_on_signals`` puts back are the command's own, not the default: a SIGTERM that
    lands as the interpreter shuts down exits with 143 and says so, not as a process killed by the signal."""
    done = subprocess.run([sys.executable, "-c", AFTER_THE_WORK, "new", "talk"], cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=60)
    assert (tmp_path / "slides" / "talk.md").is_file()  # the work was done
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr.strip().splitlines() == ["stopped by SIGTERM"], done.stderr
