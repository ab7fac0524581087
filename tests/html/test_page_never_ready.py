"""A deck whose page never becomes ready (a raw <script> that never ends) fails in one line naming the
deck and what to do, in bounded time, with no Chromium left behind: in the auto-fit of a deck without
markers, in the PDF's print and in `jaxdeck check`."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from support import ROOT, RUN_MARK, end_started_by, started_by

#: the raw HTML a Markdown deck may hold: a script that keeps the page's only thread busy for ever
LOOP = "<script>while (true) {}</script>"
WITHOUT_MARKERS = f"# A busy deck\n\nSome text.\n\n{LOOP}\n\nMore text.\n"
WITH_MARKERS = f"# A busy deck\n\nNote: the title.\n\n---\n\n## Two\n\n{LOOP}\n\nNote: the loop.\n"
#: the page's load deadline these builds are given (JAXDECK_PAGE_TIMEOUT; 30 s by default): the
#: same path as the default's, reached sooner
PAGE_S = 5
#: what the user is told, after the deck's name
SAID = (f"loading the page took over {PAGE_S} s in Chromium; a script in the deck (a raw <script>, an output's JavaScript) "
        "that never ends keeps the page busy: fix or remove it, then build again")
#: a hang guard for the test, not a performance budget
GUARD_S = 120


def jaxdeck(folder, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    mark = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=str(ROOT), IPYTHONDIR=str(folder / ".ipython"), JAXDECK_PAGE_TIMEOUT=str(PAGE_S),
               **{RUN_MARK: mark})
    try:
        done = subprocess.run([sys.executable, "-m", "jaxdeck", *args], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        end_started_by(mark)
        pytest.fail(f"jaxdeck {' '.join(args)} still ran after {GUARD_S} s")
    return done, mark


def one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.strip().splitlines() if line.startswith("error: ")]
    assert len(lines) == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return lines[0]


@pytest.mark.heavy
def test_a_deck_without_markers_whose_page_never_loads_is_one_line_from_the_fit(tmp_path):
    (tmp_path / "talk.md").write_text(WITHOUT_MARKERS)
    done, mark = jaxdeck(tmp_path, "build", "talk.md")
    assert one_line(done) == f"error: talk.md: {SAID}"
    assert not (tmp_path / "build" / "html" / "talk.html").exists()  # no HTML that was never fitted
    assert not list((tmp_path / "build").rglob("*.tmp"))
    assert started_by(mark) == []


@pytest.mark.heavy
def test_a_deck_whose_page_never_loads_is_one_line_from_the_print_and_from_check(tmp_path):
    (tmp_path / "talk.md").write_text(WITH_MARKERS)
    done, mark = jaxdeck(tmp_path, "build", "--pdf", "talk.md")
    assert one_line(done) == f"error: talk.md: {SAID}"
    built = tmp_path / "build"
    assert (built / "html" / "talk.html").is_file() and not (built / "pdf" / "talk.pdf").exists()
    assert started_by(mark) == []
    done, mark = jaxdeck(tmp_path, "check", "talk.md")
    assert one_line(done) == f"error: talk.md: {SAID}"
    assert started_by(mark) == []


def test_the_page_deadline_is_30_s_unless_the_environment_says_otherwise(monkeypatch):
    from jaxdeck.browser import page_seconds
    from jaxdeck.errors import DeckError

    monkeypatch.delenv("JAXDECK_PAGE_TIMEOUT", raising=False)
    assert page_seconds() == 30
    monkeypatch.setenv("JAXDECK_PAGE_TIMEOUT", "90")
    assert page_seconds() == 90
    for bad in ("soon", "0", "-5"):
        monkeypatch.setenv("JAXDECK_PAGE_TIMEOUT", bad)
        with pytest.raises(DeckError, match="JAXDECK_PAGE_TIMEOUT=.* is not a number of seconds"):
            page_seconds()
