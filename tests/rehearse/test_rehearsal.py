"""`jaxdeck rehearse` end to end: its real live server, kernel and headless Chromium, on a small deck.

The deck (tests/fixtures/rehearsed_talk.md) reads how many rows to print and how long to wait
from two files beside it. It is built with a few rows and no wait, so its build fits and keeps to
its budget; the rehearsal then runs it as built (a clean talk, with a fault injected) and again
with many rows and a long wait, as a GPU box that prints or takes more would.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from support import ROOT, built_repo, left_behind, left_behind_after, run_cli

DECK = ROOT / "tests" / "fixtures" / "rehearsed_talk.md"

pytestmark = [pytest.mark.heavy, pytest.mark.browser]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A repository with the deck, built with 3 rows and no wait."""
    return built_repo(tmp_path_factory.mktemp("rehearse").resolve(), DECK, {"lines.txt": "3", "pause.txt": "0"})


def rehearse(repo: Path, *args: str):
    done = run_cli("rehearse", "slides/talk.md", *args, cwd=repo, timeout=300)
    report = repo / "build" / "rehearsal" / "talk.json"
    return done, json.loads(report.read_text()) if report.is_file() else None


def built_seconds(repo: Path) -> dict[int, float]:
    """Each executed cell's time as the build recorded it in the notebook, by the cell's line in the deck."""
    import nbformat

    from jaxdeck.execute import cell_durations

    notebook = nbformat.read(repo / "build" / "notebooks" / "talk.ipynb", as_version=4)
    return {line: seconds for line, _, seconds, _ in cell_durations(notebook)}


def test_a_clean_talk_rehearses_with_exit_0_and_comes_back_from_a_killed_kernel(repo):
    (repo / "slides" / "lines.txt").write_text("3")
    (repo / "slides" / "pause.txt").write_text("0")
    done, report = rehearse(repo, "--faults")
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["ok"] and report["problems"] == []
    assert [s["title"] for s in report["slides"]] == ["A rehearsed talk", "Setup", "What it prints",
                                                      "How long it waits", "The end"]
    assert report["cells"] == 4 and report["sizes"] == ["1280x720", "1920x1080"]
    built = built_seconds(repo)
    lines = []
    for slide in report["slides"]:
        assert set(slide["fits"]) == {"1280x720", "1920x1080"}
        for cell in slide["cells"]:
            # each cell ran live and was timed, beside the time its build recorded (no clock limit: the
            # live time on a busy machine says nothing of the talk)
            assert cell["status"] == "ok" and cell["live_s"] >= 0 and cell["build_s"] == built[cell["line"]]
            lines.append(cell["line"])
    assert lines == [18, 31, 41, 58]  # every cell, in the deck's order (the check on line 48 runs with 41's)
    waits = report["slides"][3]["cells"][0]
    assert waits["checks"] == [{"ok": True, "message": None}]  # the claim check ran after it, live
    # the kernel was killed at the middle slide with code, R re-ran the cells before it, and the
    # last slide printed what the recovered kernel held
    assert report["faults"]["slide"] == 3 and report["faults"]["recovered"], report["faults"]
    assert report["estimate_s"] > 0 and report["duration_min"] == 1
    assert "ready to present" in done.stdout
    html = (repo / "build" / "rehearsal" / "talk.html").read_text()
    assert "Ready to present" in html and "data:image/png" not in html  # pictures only of problems
    assert left_behind(repo) == []


def test_what_overflows_or_runs_long_only_live_is_named_by_slide_with_exit_1(repo):
    (repo / "slides" / "lines.txt").write_text("40")
    (repo / "slides" / "pause.txt").write_text("1.5")
    try:
        done, report = rehearse(repo, "--size", "1600x900")
    finally:
        (repo / "slides" / "lines.txt").write_text("3")
        (repo / "slides" / "pause.txt").write_text("0")
    assert done.returncode == 1, done.stdout + done.stderr
    kinds = {(p["slide"], p["kind"]) for p in report["problems"]}
    assert (3, "overflow") in kinds, report["problems"]
    assert (4, "budget") in kinds, report["problems"]
    assert all(slide in (3, 4) for slide, _ in kinds), report["problems"]
    assert report["sizes"] == ["1280x720", "1600x900"]
    prints = report["slides"][2]
    assert not prints["fits"]["1280x720"]["down"] <= 2 and prints["cells"][0]["build_s"] is not None
    waits = report["slides"][3]["cells"][0]
    # it slept 1.5 s live (a clock never runs short of a sleep, however busy the machine), and the
    # build's time beside it is the one the build recorded when it did not sleep
    assert waits["live_s"] >= 1.5 and waits["build_s"] == built_seconds(repo)[waits["line"]]
    assert re.search(r"^slide 3\b.*: overflow: ", done.stdout, re.M), done.stdout
    took = re.escape(f"took {waits['live_s']:.2f} s live, over the 1 s budget")
    assert re.search(rf"^slide 4 \(line 41\): budget: {took}", done.stdout, re.M), done.stdout
    html = (repo / "build" / "rehearsal" / "talk.html").read_text()
    assert html.count("data:image/png") >= 2  # a picture of each slide with a problem
    assert left_behind(repo) == []


def test_a_bad_size_is_one_line_and_nothing_starts(repo):
    done = run_cli("rehearse", "slides/talk.md", "--size", "wide", cwd=repo)
    assert done.returncode == 1
    assert done.stderr.strip() == "error: --size 'wide' is not WIDTHxHEIGHT; write it as 1920x1080"
    assert "Traceback" not in done.stderr


def test_ctrl_c_mid_rehearsal_leaves_no_server_kernel_or_browser(repo):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", "rehearse", "slides/talk.md"], cwd=repo,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in process.stdout:  # the server, the kernel and the browser are all up once a cell has run
        lines.append(line)
        if "cell on line" in line:
            break
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=60)
    assert process.returncode == 130, "".join(lines) + rest
    assert "interrupted" in rest and "Traceback" not in rest
    assert left_behind_after(repo) == []


def test_a_slide_too_long_for_the_projector_scrolls_to_its_end_inside_the_frame(repo, browser):
    """RISE gives a slide taller than the window a scroll box 95vh tall: in window pixels, on a slide
    scaled 1.44 times at 1920x1080, so the box ran past the frame and its last rows were out of reach."""
    from jaxdeck.live.server import start_server
    from jaxdeck.rehearse import walk

    (repo / "slides" / "lines.txt").write_text("40")
    server = start_server(repo, port=0, decks_dir="slides", build_dir="build")
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        walk.open_slideshow(page, server.slideshow_url(repo / "slides" / "talk.md"))
        for h in (1, 2):
            page.evaluate(f"() => window.jaxdeckLive.reveal.slide({h}, 0)")
            walk.selected(page)
            walk.press_run(page, walk.on_show(page)["cells"][0], 30)
        page.evaluate("() => window.jaxdeckLive.reveal.slide(3, 0)")  # away and back: RISE makes it scroll
        page.evaluate("() => window.jaxdeckLive.reveal.slide(2, 0)")
        page.wait_for_function("() => window.jaxdeckLive.reveal.getCurrentSlide().style.overflowY === 'scroll'")
        box = page.evaluate("""() => { const s = window.jaxdeckLive.reveal.getCurrentSlide();
          s.scrollTop = s.scrollHeight;
          const rows = [...s.querySelectorAll('.jp-OutputArea-output pre')].pop().getBoundingClientRect();
          return {frame: window.jaxdeckLive.reveal.getSlidesElement().getBoundingClientRect().bottom,
                  box: s.getBoundingClientRect().bottom, last: rows.bottom}; }""")
    finally:
        page.close()
        server.stop()
        (repo / "slides" / "lines.txt").write_text("3")
    assert box["box"] <= box["frame"] + 1 and box["last"] <= box["frame"] + 1, box


def test_attach_rehearses_on_the_detached_present_and_leaves_it_running(repo):
    missing = run_cli("rehearse", "slides/talk.md", "--attach", cwd=repo)
    assert missing.returncode == 1 and missing.stderr.startswith("error: no detached present is running from build")
    started = run_cli("present", "slides/talk.md", "--detach", "--port", "0", cwd=repo)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        state = json.loads((repo / "build" / "present" / "present.json").read_text())
        done, report = rehearse(repo, "--attach")
        assert done.returncode == 0, done.stdout + done.stderr
        assert report["ok"] and report["cells"] == 4
        assert psutil.pid_exists(state["pid"]) and (repo / "build" / "present" / "present.json").is_file()  # still presenting
    finally:
        stopped = run_cli("present", "--stop", cwd=repo)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert left_behind(repo) == []


def test_a_process_a_live_cell_started_outside_the_kernels_tree_ends_with_the_server(repo):
    """`setsid` in a shell that exits at once: the sleeper leaves the kernel's tree and group."""
    deck = repo / "slides" / "escape.md"
    deck.write_text("# Escape\n\n```python\nimport subprocess\nsubprocess.run([\"sh\", \"-c\", "
                    "\"setsid sleep 300 & echo $! > escaped.pid\"], check=True)\n```\n\nNote: it leaves.\n")
    try:
        done = run_cli("rehearse", "slides/escape.md", cwd=repo, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        pid = int((repo / "slides" / "escaped.pid").read_text())
        deadline = time.monotonic() + 10
        while psutil.pid_exists(pid) and time.monotonic() < deadline:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                break
            time.sleep(0.1)
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    finally:
        deck.unlink()
        (repo / "slides" / "escaped.pid").unlink(missing_ok=True)
