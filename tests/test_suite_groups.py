"""The suite's own scheduling: under ``make test`` (pytest-xdist, ``--dist loadgroup``) the tests of a module
with a module-scoped fixture run on one worker, so that fixture (a server, a built deck) starts once.

Checked on a small suite of its own, run as ``make test`` runs the real one, with this suite's conftest:
a pytest and pytest-xdist pair that drops the groups (pytest-dev/pytest-xdist#1386) fails here, not
silently in every run's time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from support import ROOT, selects_heavy

SUITE = '''
import json, os, pytest

@pytest.fixture(scope="module")
def started():
    with open(os.environ["STARTS"], "a") as log:
        log.write("started\\n")
    return os.environ["PYTEST_XDIST_WORKER"]

@pytest.mark.parametrize("k", range(8))
def test_shares(started, k):
    with open(os.environ["RUNS"], "a") as log:
        log.write(json.dumps([k, started, os.environ["PYTEST_XDIST_WORKER"]]) + "\\n")

@pytest.mark.parametrize("k", range(8))
def test_alone(k):
    pass
'''


def test_a_modules_shared_fixture_starts_once_on_one_worker(tmp_path):
    (tmp_path / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "test_grouped.py").write_text(SUITE, encoding="utf-8")
    env = dict(os.environ, STARTS=str(tmp_path / "starts"), RUNS=str(tmp_path / "runs"), PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadgroup", "tests"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [json.loads(line) for line in (tmp_path / "runs").read_text().splitlines()]
    assert len(runs) == 8
    assert len({worker for _, _, worker in runs}) == 1, runs
    assert (tmp_path / "starts").read_text().splitlines() == ["started"]


def test_the_decks_are_built_before_the_workers_start_only_for_a_run_that_can_read_them():
    """Every test that takes a built deck is marked heavy: `make test` ("not alone") builds them first,
    `make test-quick` (heavy left out) does not wait for thirteen decks it never reads."""
    assert selects_heavy("") and selects_heavy("not alone") and selects_heavy("heavy and browser")
    assert not selects_heavy("not (heavy or browser or devices or versions or alone)")
    assert not selects_heavy("not heavy")
