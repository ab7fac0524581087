"""A deck without markers that holds a 50,000-line code cell builds in bounded time, says how its fit
is getting on at a terminal, and shows the cell on slides that fit: its first lines, split into slides,
and how many more there are.

The build runs as a user runs it, its stderr a real terminal (a pty), so that the progress display
is live; a real kernel runs the cell, a real Chromium measures and checks the slides.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
import time
import uuid

import nbformat
import pytest

from support import ROOT, RUN_MARK, end_started_by, run_cli

LINES = 50_000
#: a hang guard, not a budget: the build took 15 s here (the fit alone some 8 s), and minutes before
GUARD_S = 120


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    folder = tmp_path_factory.mktemp("huge")
    code = "\n".join(f"x{i} = {i}" for i in range(LINES))
    (folder / "talk.md").write_text(f"# A huge cell\n\nOne code cell of {LINES:,} lines.\n\n```python tags=[\"slow\"]\n"
                                    f"{code}\n```\n\n"
                                    "## After it\n\nText.\n")
    mark = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=str(ROOT), IPYTHONDIR=str(folder / ".ipython"), COLUMNS="200",
               TERM="xterm-256color", **{RUN_MARK: mark})
    terminal, side = pty.openpty()
    heard = bytearray()

    def listen() -> None:
        while True:
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # the build closed its side
                return
            if not chunk:
                return
            heard.extend(chunk)

    started = time.monotonic()
    build = subprocess.Popen([sys.executable, "-m", "jaxdeck", "build", "talk.md"], cwd=folder, env=env,
                             stdout=subprocess.PIPE, stderr=side, text=True)
    os.close(side)
    reader = threading.Thread(target=listen, daemon=True)
    reader.start()
    try:
        out, _ = build.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        end_started_by(mark)
        build.communicate()
        pytest.fail(f"the build of a {LINES:,}-line cell still ran after {GUARD_S} s")
    took = time.monotonic() - started
    reader.join(5)
    os.close(terminal)
    said = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", heard.decode("utf-8", "replace"))
    return folder, build.returncode, out, said, took


@pytest.mark.heavy
def test_a_huge_cell_builds_in_bounded_time(huge):
    folder, status, out, said, took = huge
    assert status == 0, said
    assert "talk.md: executed 1 cell, HTML" in said + out  # on the terminal, the display shows the report too
    assert took < GUARD_S
    print(f"built a {LINES:,}-line cell in {took:.1f} s")


def test_the_fit_says_how_it_is_getting_on_and_what_it_left_out(huge):
    _, _, _, said, _ = huge
    assert "export html: fit: measuring" in said and "round 1 of at most 3" in said, said[-3000:]
    assert "export html: fit: blocks taller than a slide, round 1" in said, said[-3000:]
    assert f"jaxdeck: talk.md:5: a code cell of {LINES:,} lines; the slides show its first 200" in said


@pytest.mark.heavy
def test_the_slides_show_the_cells_first_lines_split_into_slides_that_fit_and_how_many_more(huge, browser):
    from jaxdeck.check.deck import check_deck
    from jaxdeck.decks import Outputs
    from jaxdeck.html.fit_long import MAX_LINES, more_lines

    folder, *_ = huge
    outputs = Outputs(folder / "talk.md", folder / "build")
    html = outputs.html.read_text(encoding="utf-8")
    shown = set(re.findall(r"x(\d+)</span>", html))
    assert len(shown) == MAX_LINES and max(map(int, shown)) == MAX_LINES - 1  # bounded work: 200 of 50,000
    assert more_lines(LINES - MAX_LINES).replace("…", "&hellip;") in html or more_lines(LINES - MAX_LINES) in html
    assert html.count("A huge cell (continued)") >= 4  # split into slides, in one round
    nb = nbformat.read(outputs.notebook, as_version=4)
    assert nb.cells[[c.cell_type for c in nb.cells].index("code")].source.count("\n") == LINES - 1  # all kept
    problems = [p for p in check_deck(outputs.deck, nb, outputs.html, browser=browser) if p.kind == "overflow"]
    assert problems == []


@pytest.mark.heavy
def test_the_built_deck_checks_clean(huge):
    folder, *_ = huge
    done = run_cli("check", "talk.md", cwd=folder, env={"IPYTHONDIR": str(folder / ".ipython")})
    assert done.returncode == 0 and done.stdout.strip() == "talk.md: ok", done.stdout + done.stderr


def test_a_long_cell_is_cut_to_its_first_lines_and_split_into_all_its_slides_in_one_round():
    from jaxdeck.html.fit_long import MAX_LINES, more_lines, shorten, too_long
    from jaxdeck.html.fit_tall import Decision, apply_tall
    from jaxdeck.records import cell_info, update_cell_info

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"),
                nbformat.v4.new_code_cell("\n".join(f"y{i} = {i}" for i in range(1000)))]
    update_cell_info(nb.cells[1], line=5)
    nb.cells[1]["id"] = "long"
    assert [(found.line, found.lines) for found in too_long(nb)] == [(5, 1000)]
    assert shorten(nb) == 1
    lines = nb.cells[1].source.split("\n")
    assert lines[:2] == ["y0 = 0", "y1 = 1"] and len(lines) == MAX_LINES + 1 and lines[-1] == more_lines(800)
    assert apply_tall(nb, [Decision("long", scale=0.6, split=30)]) == 1
    parts = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert len(parts) == 7 and all(part.source.count("\n") < 30 for part in parts)  # 201 lines, 30 a slide
    assert [cell_info(part)["line"] for part in parts] == [5 + 30 * k for k in range(7)]
    assert "".join(part.source + "\n" for part in parts).rstrip("\n") == "\n".join(lines)
