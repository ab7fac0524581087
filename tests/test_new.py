"""`jaxdeck new NAME` (and `make new DECK=NAME`): a deck from the template, through the real command line."""

from __future__ import annotations

import datetime
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from jaxdeck.commands import new
from support import ROOT, run_cli


def one_error_line(done: subprocess.CompletedProcess) -> str:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_new_writes_the_deck_and_says_what_to_run_next(tmp_path):
    done = run_cli("new", "13-first-hour", "--author", "Ada Lovelace", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    deck = tmp_path / "slides" / "13-first-hour.md"
    text = deck.read_text(encoding="utf-8")
    today = datetime.date.today().isoformat()
    assert text.startswith(f"---\njupyter:\n  jaxdeck:\n    author: Ada Lovelace\n    date: '{today}'\n"
                           "    title: First hour\n---\n\n# First hour\n")
    assert "@" not in text, "a template marker was left in the deck"
    for needed in ('```python tags=["setup"]', '```python tags=["check"]', "demos.timing.compare(",
                   "demos.jaxpr.show(", "\n. . .\n", "\nNote: "):
        assert needed in text, needed
    lines = done.stdout.splitlines()
    assert lines[0] == "wrote slides/13-first-hour.md"
    assert "-m jaxdeck build slides/13-first-hour.md" in lines[1] and "-m jaxdeck preview slides/13-first-hour.md" in lines[2]
    assert not list((tmp_path / "slides").glob(".*")), "the atomic writer left a temporary file"


def test_new_never_overwrites_a_deck(tmp_path):
    deck = tmp_path / "slides" / "talk.md"
    deck.parent.mkdir()
    deck.write_text("# Mine\n\nwork in progress\n")
    done = run_cli("new", "talk", cwd=tmp_path)
    assert done.returncode == 1
    line = one_error_line(done)
    assert line.startswith("error: slides/talk.md already exists;"), line
    assert "choose another NAME" in line and "jaxdeck build slides/talk.md" in line, line
    assert done.stdout == ""
    assert deck.read_text() == "# Mine\n\nwork in progress\n"


def test_new_counts_a_dangling_link_as_a_deck(tmp_path):
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "talk.md").symlink_to(tmp_path / "elsewhere.md")
    done = run_cli("new", "talk.md", cwd=tmp_path)
    assert done.returncode == 1 and "already exists" in one_error_line(done)
    assert not (tmp_path / "elsewhere.md").exists()


@pytest.mark.parametrize("name", ["../escape", "slides/talk", "/tmp/talk", ".hidden", "two words", "-", "talk.md/"])
def test_new_refuses_a_name_that_is_not_a_plain_file_name(tmp_path, name):
    done = run_cli("new", "--", name, cwd=tmp_path) if name.startswith("-") else run_cli("new", name, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    line = one_error_line(done)
    assert line.startswith(f"error: {name!r} is not a plain file name;"), line
    assert not (tmp_path / "slides").exists() and not (tmp_path.parent / "escape.md").exists()


def test_new_quotes_what_yaml_would_misread(tmp_path):
    done = run_cli("new", "yes", "--title", "JAX: the first hour", "--author", "#1 fan", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    import yaml

    header = (tmp_path / "slides" / "yes.md").read_text(encoding="utf-8").split("---\n")[1]
    assert yaml.safe_load(header)["jupyter"]["jaxdeck"] == {
        "author": "#1 fan", "date": datetime.date.today().isoformat(), "title": "JAX: the first hour"}


def test_title_from_name():
    assert new.title_of("13-my-talk") == "My talk"
    assert new.title_of("jax_basics") == "Jax basics"
    assert new.title_of("2026") == "2026"


def test_the_next_commands_are_make_in_the_repository(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    assert new.next_commands("talk", Path("slides/talk.md")) == ["make DECK=talk", "make preview DECK=talk"]
    monkeypatch.chdir(tmp_path)
    build, preview = new.next_commands("talk", Path("slides/talk.md"))
    assert build.endswith(" -m jaxdeck build slides/talk.md") and preview.endswith(" -m jaxdeck preview slides/talk.md")


@pytest.mark.heavy
def test_make_new_runs_the_verb_and_needs_a_name():
    # --no-print-directory: run from `make test`, a make inside it would name its folder
    dry = subprocess.run(["make", "--no-print-directory", "-n", "new", "DECK=slides/13-talk.md"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[-1] == ".venv/bin/python -m jaxdeck new 13-talk.md"
    bare = subprocess.run(["make", "--no-print-directory", "new"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bare.returncode != 0 and "make new needs a name: make new DECK=NAME" in bare.stderr
    assert "new" in subprocess.run(["make", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout


@pytest.mark.heavy
@pytest.mark.browser
def test_the_new_deck_builds_and_checks_clean_with_the_printed_command(tmp_path):
    """The printed build command, run as a fresh shell runs it (no PYTHONPATH, no venv on PATH), then check.

    Timings take a quarter of their budget (``DEMOS_TIMING_BUDGET_SCALE``), as in the other tests that
    run decks beside a loaded suite: no figure is read here, and the cells stay inside the deck's budget."""
    done = run_cli("new", "talk", "--title", "JAX: the first hour", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    build = done.stdout.splitlines()[1].removeprefix("next:").split("#")[0].strip()
    assert shlex.split(build)[-3:] == ["jaxdeck", "build", "slides/talk.md"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "JAXDECK_DEVICES")}
    env["DEMOS_TIMING_BUDGET_SCALE"] = "0.25"
    built = subprocess.run(build, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    assert re.fullmatch(r"slides/talk\.md: executed \d+ cells, HTML\n", built.stdout), built.stdout
    assert (tmp_path / "build" / "html" / "talk.html").is_file()

    checked = run_cli("check", "slides/talk.md", "--out", "build", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == "slides/talk.md: ok", checked.stdout
