"""A preview rebuild runs the fewest cells that keep the deck right, in a real kernel kept warm."""

from __future__ import annotations

import psutil
import pytest

from jaxdeck.execute import fingerprint
from jaxdeck.build import build_deck
from jaxdeck.execute.cache import ExecutionCache
from jaxdeck.read import deck_to_notebook
from jaxdeck.preview.session import Session, plan
from support import still_running

DECK = ("# Talk\n\nHello.\n\n```python\nx = 6\nx * 7\n```\n\n---\n\n## Two\n\n"
        "```python\nimport os\nos.getpid()\n```\n\nNote: the kernel's process\n")


def outputs(session: Session) -> list[str]:
    """The text each code cell on show printed."""
    return ["".join(o.get("data", {}).get("text/plain", "") or o.get("text", "") or o.get("ename", "")
                    for o in cell["outputs"]) for cell in session.shown["cells"]]


@pytest.fixture
def session(write_deck, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # errors name the deck as slides/talk.md
    deck = write_deck(DECK).relative_to(tmp_path)
    lines: list[str] = []
    started = Session(deck, tmp_path / "build", say=lines.append)
    started.lines = lines
    yield started
    started.close()


def test_plan_runs_changed_and_added_cells_and_a_deletion_needs_a_fresh_kernel():
    assert plan(["a", "b", "c"], ["a", "b", "c"]) == []
    assert plan(["a", "b", "c"], ["a", "B", "c"]) == [1]
    assert plan(["a", "b", "c"], ["a", "b", "new", "c"]) == [2]
    assert plan(["a", None, "c"], ["a", "b", "c"]) == [1]  # one that failed runs again, unchanged or not
    assert plan(["a", "b", "c"], ["a", "c"]) is None
    assert plan(["a", "b", "c"], ["b", "a", "c"]) is None  # moved
    assert plan(["a", "b", "c"], ["a", "X"]) is None  # two cells became one


@pytest.mark.heavy
def test_prose_runs_nothing_and_code_runs_only_the_changed_cell_in_the_same_kernel(session):
    deck = session.deck
    assert session.rebuild().startswith("ran 2 cells in a fresh kernel")
    pid = session.kernel.pid
    assert outputs(session) == ["42", str(pid)]
    first = deck_to_notebook(deck)

    deck.write_text(DECK.replace("Hello.", "Hello, world."))
    assert session.rebuild().startswith("prose edit, no cell run")
    assert "Hello, world." in session.html.read_text()
    assert session.state.version == 2 and not session.state.warm

    deck.write_text(DECK.replace("Hello.", "Hello, world.").replace("x = 6", "x = 7"))
    assert session.rebuild().startswith("1 cell run in the warm kernel")
    assert session.kernel.pid == pid  # no new kernel
    assert outputs(session) == ["49", str(pid)]  # the next cell kept its output
    assert session.state.warm and ">49<" in session.html.read_text()

    store, env = ExecutionCache(session.root), fingerprint.environment(session.root)
    assert store.lookup(first, env)[1] is not None  # a fresh run feeds the cache `make` reads
    assert store.lookup(deck_to_notebook(deck), env)[1] is None  # a warm one never does
    assert not (session.root / "html").exists() and not (session.root / "notebooks").exists()

    deck.write_text("# Talk\n\nOnly the second cell now.\n\n```python\nimport os\nos.getpid()\n```\n")
    assert session.rebuild().startswith("ran 1 cells in a fresh kernel")  # a deleted cell's x would linger
    assert session.kernel.pid != pid and not psutil.pid_exists(pid)
    assert not session.state.warm
    assert deck_to_notebook(deck)  # the deck itself is only read


@pytest.mark.heavy
def test_an_error_keeps_the_last_good_deck_and_the_warm_kernel(session):
    deck = session.deck
    session.rebuild()
    pid, good = session.kernel.pid, session.html.read_bytes()

    deck.write_text(DECK.replace("x * 7", "x * undefined_name"))
    assert session.rebuild() == "error"
    assert session.state.error.startswith("error: slides/talk.md:7 (slide 1): NameError: name 'undefined_name'")
    assert session.html.read_bytes() == good and session.state.version == 1
    assert session.lines[-1] == session.state.error  # the terminal shows the same line

    deck.write_text(DECK.replace("x * 7", "x * 8"))
    assert session.rebuild().startswith("1 cell run in the warm kernel")
    assert session.state.error is None and outputs(session)[0] == "48" and session.kernel.pid == pid


@pytest.mark.heavy
@pytest.mark.parametrize("code, exit_code", [("import os\nos._exit(3)", 3),
                                             ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", -11)])
def test_a_kernel_that_dies_is_replaced_by_a_fresh_one(session, code, exit_code):
    deck = session.deck
    session.rebuild()
    pid = session.kernel.pid

    deck.write_text(DECK.replace("x = 6\nx * 7", code))
    assert session.rebuild() == "error"
    assert f"the kernel died (exit code {exit_code}) while running this cell" in session.state.error
    assert session.kernel is None

    deck.write_text(DECK.replace("x * 7", "x * 9"))
    assert session.rebuild().startswith("ran 2 cells in a fresh kernel")
    assert session.kernel.pid != pid and outputs(session)[0] == "54"


@pytest.mark.heavy
def test_a_deck_in_the_cache_shows_at_once_and_its_kernel_warms_up_behind(session):
    build_deck(session.deck, session.root)  # what `make` leaves behind
    assert session.rebuild().startswith("outputs from the execution cache")
    session.deck.write_text(DECK.replace("x = 6", "x = 5"))
    assert session.rebuild().startswith("1 cell run in the warm kernel")  # after the warm-up run
    assert outputs(session)[0] == "35"


@pytest.mark.heavy
def test_a_fresh_run_on_demand_starts_a_new_kernel(session):
    session.rebuild()
    pid = session.kernel.pid
    session.deck.write_text(DECK.replace("x = 6", "x = 2"))
    session.rebuild()
    assert session.state.warm
    assert session.rebuild(fresh=True).startswith("ran 2 cells in a fresh kernel")
    assert session.kernel.pid != pid and not session.state.warm
    assert outputs(session) == ["14", str(session.kernel.pid)]


@pytest.mark.heavy
def test_closing_stops_the_kernel(session):
    session.rebuild()
    pid = session.kernel.pid
    session.close()
    assert not still_running([pid])
