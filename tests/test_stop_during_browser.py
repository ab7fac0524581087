"""A stop signal ends a build or a check within moments also while Chromium starts, opens a page or
prints, and no process of theirs stays behind (a Chromium helper handed to init included).

The signal lands at several moments after Chromium's first process appears, since what the command
waits on then (a launch, a new page, a print) changes within the first second.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import psutil
import pytest

from support import ROOT, RUN_MARK, command_line, end_started_by, run_cli, started_by

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

#: what the design promises (jaxdeck.stopping.STOP_S), and slack for a loaded 2-core machine
STOP_S, SLACK_S = 2.0, 1.0

DECK = ("# Talk\n\nNote: the title.\n\n---\n\n## Code\n\n```python\nprint(6 * 7)\n```\n\nNote: the answer.\n\n"
        "---\n\n## Last\n\nText.\n\nNote: the end.\n")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A deck whose notebook and HTML are built: a `build --pdf --force` then starts no kernel (the execution
    cache has its outputs), and Chromium starts at once."""
    folder = tmp_path_factory.mktemp("stop")
    (folder / "talk.md").write_text(DECK)
    done = run_cli("build", "talk.md", cwd=folder, env={"IPYTHONDIR": str(folder / ".ipython")})
    assert done.returncode == 0, done.stderr
    return folder


#: the Chromium process whose start the signal follows: the browser's first (it is starting), or the
#: renderer a page gets (the command is opening a page, or about to print it)
FIRST = {"chromium": lambda line: "chrom" in line.lower() and "run-driver" not in line,
         "renderer": lambda line: "--type=renderer" in line and "--top-chrome-webui" not in line}


def stop_once_chromium_runs(folder, args: list[str], after: str, delay: float):
    """Start `python -m jaxdeck ARGS`, SIGTERM it ``delay`` s after a Chromium process (``after``: a key of
    :data:`FIRST`) appears under it; returns (seconds it took to exit, its exit status, its stdout and stderr, its
    mark)."""
    mark = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=str(ROOT), IPYTHONDIR=str(folder / ".ipython"), **{RUN_MARK: mark})
    command = subprocess.Popen([sys.executable, "-m", "jaxdeck", *args], cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        me = psutil.Process(command.pid)
        deadline = time.monotonic() + 120  # a hang guard for the test itself
        while not any(FIRST[after](command_line(p)) for p in me.children(recursive=True)):
            assert command.poll() is None, command.communicate()
            assert time.monotonic() < deadline, "no Chromium started"
            time.sleep(0.01)
        time.sleep(delay)
        assert command.poll() is None, command.communicate()  # still at work when the signal comes
        command.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        try:
            out, err = command.communicate(timeout=STOP_S + SLACK_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {STOP_S + SLACK_S} s after SIGTERM (sent {delay} s after a {after} appeared)")
        return time.monotonic() - sent, command.returncode, (out, err), mark
    finally:
        if command.poll() is None:
            end_started_by(mark)
            command.communicate()


@pytest.mark.alone
@pytest.mark.parametrize("after, delay", [("chromium", 0.0), ("chromium", 0.3), ("renderer", 0.0), ("renderer", 0.05),
                                          ("renderer", 0.1), ("renderer", 0.2), ("renderer", 0.4), ("renderer", 0.8)])
def test_a_stop_while_chromium_starts_or_prints_ends_the_build_at_once(project, after, delay):
    took, status, (out, err), mark = stop_once_chromium_runs(project, ["build", "--pdf", "--force", "talk.md"], after, delay)
    if status == 0:  # the signal came after the work, in the interpreter's last moments: the build is whole
        assert out.splitlines()[-1:] == ["talk.md: HTML + PDF"] and err == "", (out, err)
    else:
        assert status == 128 + signal.SIGTERM, err
        assert err.strip().splitlines() == ["stopped by SIGTERM"], err
    assert took <= STOP_S + SLACK_S
    assert [command_line(p) for p in started_by(mark)] == []
    assert not list((project / "build").rglob("*.tmp"))  # nothing half-written


@pytest.mark.alone
@pytest.mark.parametrize("after, delay", [("chromium", 0.0), ("renderer", 0.0), ("renderer", 0.2), ("renderer", 0.5)])
def test_a_stop_while_check_drives_chromium_ends_it_at_once(project, after, delay):
    took, status, (_, err), mark = stop_once_chromium_runs(project, ["check", "talk.md"], after, delay)
    assert status == 128 + signal.SIGTERM, err
    assert err.strip().splitlines() == ["stopped by SIGTERM"], err
    assert took <= STOP_S + SLACK_S
    assert [command_line(p) for p in started_by(mark)] == []
