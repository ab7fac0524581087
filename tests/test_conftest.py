"""The suite's harness (tests/conftest.py): a deck that fails to build before the workers start fails that
deck's tests alone, with the build's line; every other test runs.

Checked on a small suite of its own with this suite's conftest and support module, run as ``make test``
runs the real one (pytest-xdist, the whole suite), over a slides/ folder holding a broken deck.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from support import ROOT

SUITE = '''
import pytest
import support

@pytest.mark.parametrize("deck", support.DECKS, ids=support.deck_id)
@pytest.mark.parametrize("k", range(2))
def test_deck(built, deck, k):
    outputs, notebook = built(deck)
    assert outputs.notebook.exists() and notebook.cells

def test_no_deck():
    pass
'''


@pytest.mark.heavy  # a run of pytest-xdist that builds a deck
def test_a_deck_that_fails_to_build_fails_its_own_tests_and_the_others_run(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("conftest.py", "support.py", "session_builds.py", "clock_checks.py"):
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    (tmp_path / "tests" / "test_planted.py").write_text(SUITE, encoding="utf-8")
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "broken.md").write_text("# Broken\n\n![gone](images/missing.png)\n\nNote: a note.\n")
    (tmp_path / "slides" / "good.md").write_text("# Good\n\nProse alone.\n\nNote: a note.\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
                           "loadgroup", "--junitxml", str(tmp_path / "report.xml"), "tests"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    said = done.stdout + done.stderr
    assert "INTERNALERROR" not in said, said
    assert done.returncode == 1, said  # tests failed; not an internal error (3)
    outcomes = {}
    for case in ElementTree.parse(tmp_path / "report.xml").iter("testcase"):
        failure = case.find("failure")
        outcomes[case.get("name")] = "passed" if failure is None and case.find("error") is None else failure.get("message", "")
    assert outcomes.get("test_no_deck") == "passed", outcomes
    assert [outcomes.get(f"test_deck[{k}-good]") for k in (0, 1)] == ["passed", "passed"], outcomes
    for k in (0, 1):
        message = outcomes[f"test_deck[{k}-broken]"]
        assert message.startswith("Failed: broken.md did not build: "), outcomes
        assert "broken.md:3: image 'images/missing.png' not found" in message, outcomes


NETWORK_SUITE = '''
import pytest

@pytest.mark.network
def test_installs():
    raise AssertionError("ran with no index to install from")
'''


def test_a_test_that_needs_the_package_index_is_skipped_saying_why_when_it_cannot_be_reached(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("conftest.py", "support.py", "session_builds.py", "clock_checks.py"):
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    (tmp_path / "tests" / "test_planted.py").write_text(NETWORK_SUITE, encoding="utf-8")
    (tmp_path / "slides").mkdir()
    with socket.socket() as closed:  # bound, not listening: a connection to it is refused
        closed.bind(("127.0.0.1", 0))
        index = f"http://127.0.0.1:{closed.getsockname()[1]}/simple"
        env = {k: v for k, v in os.environ.items() if k.lower() not in ("https_proxy", "uv_index_url", "pip_index_url")}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests"],
                              cwd=tmp_path, env=dict(env, PYTHONPATH=str(ROOT), UV_DEFAULT_INDEX=index),
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout and f": the package index {index} is unreachable (127.0.0.1:" in done.stdout, done.stdout
    assert "; this test installs from it" in done.stdout
