"""The execution cache: real kernels run fixture decks whose cells log every execution to a file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jaxdeck.execute import fingerprint
from jaxdeck.build import BuildOptions, build_deck
from jaxdeck.execute.cache import ExecutionCache, cache_key
from jaxdeck.read import deck_to_notebook

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture
def deck(tmp_path):
    path = tmp_path / "cache_basic.md"
    shutil.copy(FIXTURES / "cache_basic.md", path)
    return path


def executions(deck: Path) -> list[str]:
    """Cell names in the order the kernel ran them (each fixture cell appends its name)."""
    log = deck.parent / "executed.log"
    return log.read_text().split() if log.exists() else []


def built(outputs) -> nbformat.NotebookNode:
    nb = nbformat.read(outputs.notebook, as_version=4)
    nbformat.validate(nb)
    return nb


def code_outputs(nb) -> list:
    return [c.outputs for c in nb.cells if c.cell_type == "code"]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.heavy
def test_prose_edit_executes_zero_cells(deck, tmp_path):
    root = tmp_path / "build"
    first = built(build_deck(deck, root))
    assert executions(deck) == ["one", "two", "three"]
    assert first.metadata.jaxdeck_build.cells_executed == 3
    assert first.metadata.jaxdeck_build.cache == "miss"

    # prose, speaker notes and a new slide break: no code changes
    edit(deck, "Some prose to edit.", "Some prose, edited.\n\n---\n\n## A slide added by a prose edit")
    edit(deck, "Note: speaker notes to edit too.", "Note: speaker notes, rewritten.")
    outputs = build_deck(deck, root)
    second = built(outputs)
    assert executions(deck) == ["one", "two", "three"], "a prose edit must execute no cell"
    assert second.metadata.jaxdeck_build.cells_executed == 0
    assert (outputs.cells_executed, outputs.cache, outputs.done) == (0, "hit", "HTML")
    assert code_outputs(second) == code_outputs(first)
    assert second.metadata.jaxdeck_build.slides == first.metadata.jaxdeck_build.slides + 1
    assert second.metadata.jaxdeck_build.provenance == first.metadata.jaxdeck_build.provenance
    html = outputs.html.read_text()
    assert "Some prose, edited." in html and "answer 42" in html


@pytest.mark.heavy
def test_a_run_and_a_hit_hand_what_they_learnt_to_the_one_writer_of_the_build_record(deck, tmp_path):
    from jaxdeck.execute import run_deck
    from jaxdeck.records import write_build

    root, nb = tmp_path / "build", deck_to_notebook(deck)
    read = dict(nb.metadata["jaxdeck_build"])
    ran = run_deck(nb, deck, root)
    hit = run_deck(nb, deck, root)
    assert executions(deck) == ["one", "two", "three"]
    # the stage runner writes the record, after the stage
    assert ran.notebook.metadata["jaxdeck_build"] == hit.notebook.metadata["jaxdeck_build"] == read
    assert (ran.learnt.cache, ran.learnt.cells_executed, ran.learnt.cells_reused) == ("miss", 3, None)
    assert (hit.learnt.cache, hit.learnt.cells_executed, hit.learnt.cells_reused) == ("hit", 0, 3)
    assert hit.learnt.cache_key == ran.learnt.cache_key == cache_key(nb, fingerprint.environment(root))
    assert json.loads(json.dumps(hit.learnt.execution())) == json.loads(json.dumps(dict(ran.learnt.execution(),
                                                                                        cells_executed=0)))
    written = write_build(hit.notebook, hit.learnt).to_metadata()
    assert written == {**read, **{k: v for k, v in vars(hit.learnt).items() if v is not None}}
    assert hit.notebook.metadata["jaxdeck_build"] == written


@pytest.mark.heavy
def test_code_edit_executes_every_cell(deck, tmp_path):
    root = tmp_path / "build"
    build_deck(deck, root)
    assert len(executions(deck)) == 3
    edit(deck, 'print("answer", x * 2)', 'print("answer", x * 3)')
    nb = built(build_deck(deck, root))
    assert executions(deck) == ["one", "two", "three"] * 2, "a code edit must execute the whole deck"
    assert nb.metadata.jaxdeck_build.cells_executed == 3
    assert "answer 63" in json.dumps(code_outputs(nb))


@pytest.mark.heavy
def test_changed_environment_fingerprint_invalidates(deck, tmp_path, monkeypatch):
    root = tmp_path / "build"
    build_deck(deck, root)
    assert len(executions(deck)) == 3
    # a real change of the kernel environment: a JAX variable the kernel would see
    monkeypatch.setenv("JAX_ENABLE_X64", "1")
    fingerprint.forget()
    assert fingerprint.environment(root)["env"].get("JAX_ENABLE_X64") == "1"
    nb = built(build_deck(deck, root))
    assert len(executions(deck)) == 6
    assert nb.metadata.jaxdeck_build.cells_executed == 3
    # back to the first environment: its entry is still valid
    monkeypatch.delenv("JAX_ENABLE_X64")
    fingerprint.forget()
    nb = built(build_deck(deck, root))
    assert len(executions(deck)) == 6
    assert nb.metadata.jaxdeck_build.cells_executed == 0


def test_cache_key_covers_code_environment_and_demos(deck):
    nb = deck_to_notebook(deck)
    env = {"python": "3.11.7", "jax": "0.4.30", "jaxlib": "0.4.30", "numpy": "2.0.0", "backend": "cpu",
           "device_kind": "cpu", "env": {}, "hostname": "a", "device_count": 1}
    demos = "0.1.0"
    key = cache_key(nb, env, demos)
    assert cache_key(nb, dict(env, hostname="b", device_count=8), demos) == key  # provenance only
    for change in ({"jax": "0.4.31"}, {"jaxlib": "0.4.31"}, {"numpy": "2.1"}, {"python": "3.12.0"},
                   {"backend": "gpu"}, {"device_kind": "NVIDIA H100"}, {"env": {"XLA_FLAGS": "--x"}}):
        assert cache_key(nb, dict(env, **change), demos) != key, change
    assert cache_key(nb, env, "0.2.0") != key
    prose = deck_to_notebook(deck)
    for cell in prose.cells:
        if cell.cell_type == "markdown":
            cell.source += "\n\nmore words"
    assert cache_key(prose, env, demos) == key
    tagged = deck_to_notebook(deck)
    next(c for c in tagged.cells if c.cell_type == "code").metadata["tags"] = ["raises-exception"]
    assert cache_key(tagged, env, demos) != key
    timed = deck_to_notebook(deck)
    next(c for c in timed.cells if c.cell_type == "code").metadata["timeout"] = 5
    assert cache_key(timed, env, demos) != key


def test_demos_version_is_read_without_importing_it():
    before = set(sys.modules)
    found = fingerprint.demos_version()
    after = set(sys.modules)
    assert "jax" not in after - before and "demos" not in after - before
    import demos

    assert found == demos.__version__


@pytest.mark.heavy
def test_no_cache_bypasses_and_damaged_entry_is_a_miss(deck, tmp_path):
    root = tmp_path / "build"
    first = built(build_deck(deck, root))
    build_deck(deck, root, BuildOptions(cache=False))
    assert len(executions(deck)) == 6
    entry = ExecutionCache(root).path(first.metadata.jaxdeck_build.cache_key)
    entry.write_text('{"schema": 1, "cells": [')  # a torn file (cannot happen with atomic writes; still harmless)
    nb = built(build_deck(deck, root))
    assert len(executions(deck)) == 9 and nb.metadata.jaxdeck_build.cells_executed == 3
    assert json.loads(entry.read_text())["key"] == first.metadata.jaxdeck_build.cache_key  # repaired


@pytest.mark.heavy
def test_concurrent_builds_leave_a_valid_cache_and_outputs(deck, tmp_path):
    root = tmp_path / "build"
    command = [sys.executable, "-m", "jaxdeck", "build", str(deck), "--out", str(root)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for run in runs:
        out, err = run.communicate(timeout=180)
        assert run.returncode == 0, err
    ran = len(executions(deck))
    assert ran >= 3 and ran % 3 == 0  # whole runs only (whether the second found the first's entry is a race)
    entries = list((root / "cache" / "exec").rglob("*.json"))
    assert len(entries) == 1
    entry = json.loads(entries[0].read_text())
    assert len(entry["cells"]) == 3
    assert not [p for p in root.rglob("*.tmp")], "no temporary files left behind"
    nb = built(type("O", (), {"notebook": root / "notebooks" / "cache_basic.ipynb"}))
    assert "answer 42" in json.dumps(code_outputs(nb))
    assert "answer 42" in (root / "html" / "cache_basic.html").read_text()
    # and the cache they left serves the next build
    nb = built(build_deck(deck, root))
    assert len(executions(deck)) == ran and nb.metadata.jaxdeck_build.cells_executed == 0


@pytest.mark.heavy
def test_frozen_outputs_from_another_build(deck, tmp_path):
    gpu_box = built(build_deck(deck, tmp_path / "gpu-build"))
    frozen = tmp_path / "gpu-build" / "notebooks" / "cache_basic.ipynb"
    elsewhere = tmp_path / "laptop"
    elsewhere.mkdir()
    copy = elsewhere / "cache_basic.md"
    shutil.copy(deck, copy)
    edit(copy, "Some prose to edit.", "Prose written on the laptop.")
    nb = built(build_deck(copy, elsewhere / "build", BuildOptions(frozen=frozen)))
    assert executions(copy) == []
    assert nb.metadata.jaxdeck_build.cache == "frozen"
    assert nb.metadata.jaxdeck_build.provenance == gpu_box.metadata.jaxdeck_build.provenance
    assert code_outputs(nb) == code_outputs(gpu_box)
    # a folder of notebooks works too
    build_deck(copy, elsewhere / "build", BuildOptions(frozen=frozen.parent))
    assert executions(copy) == []  # a changed code cell: tests/execute/test_frozen.py
