"""Every deck in slides/ built at the oldest JAX the package admits and at a GPU box's, every check holding.

The lock installs the newest JAX (the rest of the suite runs on it); a presenter's box may hold any
JAX in the package's range. Each version here is installed by uv (from its cache after the first
download) into a venv that sees the project's other packages after it, and every deck is built
by one CLI run in that interpreter, as ``jaxdeck build`` builds a folder of decks: each deck's
kernel, a fresh one, runs on that JAX, a cell error or a failed claim check fails that deck, and
the others are built all the same. One test per deck and version reads that deck's share of the
run: its line in the build's report (executed), and an executed notebook that names the version.
The decks' timings are taken with a quarter of their budget (``DEMOS_TIMING_BUDGET_SCALE``), as in
the device matrix: these builds check that cells run and claims hold, no figure is read. The decks are
built without the checks that read a clock (tests/clock_checks.py), each one named in the run's summary.
Parametrised over slides/. A slower group of its own: ``-m versions`` runs only it; under
pytest-xdist each version's tests keep to one worker, which runs that version's build once.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from clock_checks import LEFT_OUT, decks_without_clock_checks
from support import DECKS, bare_venv, deck_id, see_the_project

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".uv" / "bin" / "uv"
#: the oldest the package admits, and what a typical GPU box's image brings (Python 3.12, CUDA 13)
VERSIONS = ("0.10.2", "0.11.2")
#: seconds one version's install may take, and its build of every deck (each cell has its own timeout too)
INSTALL_S, BUILD_S = 600, 600 + 120 * len(DECKS)

pytestmark = [pytest.mark.versions, pytest.mark.skipif(not DECKS, reason="no decks in slides/"),
              pytest.mark.skipif(not UV.exists(), reason="no .uv/bin/uv: `make setup` bootstraps it"),
              pytest.mark.timeout(INSTALL_S + BUILD_S + 60)]  # the test that comes first waits for both


@dataclass(frozen=True)
class VersionBuild:
    """One CLI build of every deck at one JAX: where it wrote, its exit status (None: it ran out of
    time), what it printed, the copy of each deck it built and the checks each copy left out."""

    out: Path
    returncode: int | None
    stdout: str
    stderr: str
    copies: dict[Path, Path]
    left_out: dict[Path, list[str]]

    def reported(self, deck: Path) -> list[str]:
        """The report's lines for ``deck`` (``COPY: executed N cells, HTML`` once it is built)."""
        return [line for line in self.stdout.splitlines() if line.startswith(f"{self.copies[deck]}: ")]

    def notebook(self, deck: Path) -> Path:
        return self.out / "notebooks" / f"{deck.stem}.ipynb"


@pytest.fixture(scope="session")
def python_with(tmp_path_factory):
    """``python_with(version)``: the interpreter of a venv holding JAX ``version`` and seeing, after it,
    the project's packages (a ``.pth`` line: the checkout for jaxdeck and demos, then the project venv)
    and its share/jupyter (nbconvert's templates)."""
    made = {}

    def make(version: str) -> str:
        if version not in made:
            python = bare_venv(tmp_path_factory.mktemp(f"jax-{version}") / "venv")
            env = dict(os.environ, UV_PYTHON_DOWNLOADS="never")
            done = subprocess.run([str(UV), "pip", "install", "--quiet", "--python", str(python), "--no-deps",
                                   f"jax=={version}", f"jaxlib=={version}"], env=env, capture_output=True, text=True,
                                  timeout=INSTALL_S)
            assert done.returncode == 0, done.stderr
            see_the_project(python, ROOT)  # the checkout first: jaxdeck and demos as they are here
            made[version] = str(python)
        return made[version]

    return make


@pytest.fixture(scope="session")
def built_at(python_with, tmp_path_factory):
    """``built_at(version)``: every deck in slides/ built once by ``jaxdeck build --no-cache --jobs 1`` run
    in that version's interpreter (each deck in a fresh kernel of its own, one after another, as the
    tests ran them one deck per run before)."""
    made: dict[str, VersionBuild] = {}

    def build(version: str) -> VersionBuild:
        if version not in made:
            python = python_with(version)
            out = tmp_path_factory.mktemp(f"build-{version}")
            copies, left_out = decks_without_clock_checks(DECKS, tmp_path_factory.mktemp(f"decks-{version}"))
            env = {k: v for k, v in os.environ.items() if k not in ("JAXDECK_DEVICES", "PYTHONPATH")}
            env["DEMOS_TIMING_BUDGET_SCALE"] = "0.25"
            try:
                done = subprocess.run([python, "-m", "jaxdeck", "build", "--no-cache", "--jobs", "1",
                                       "--out", str(out), *(f"slides/{c.name}" for c in copies)], cwd=copies[0].parent.parent, env=env,
                                      capture_output=True, text=True, timeout=BUILD_S)
                said = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired as late:
                text = lambda s: s.decode(errors="replace") if isinstance(s, bytes) else s or ""  # noqa: E731
                said = None, text(late.stdout), text(late.stderr) + f"\n(the build ran past {BUILD_S} s)"
            made[version] = VersionBuild(out, *said, {d: Path("slides") / c.name for d, c in zip(DECKS, copies)}, left_out)
        return made[version]

    return build


@pytest.mark.parametrize("version", [pytest.param(v, marks=pytest.mark.xdist_group(f"jax-{v}")) for v in VERSIONS])
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_deck_builds_with_every_check_holding_at_this_jax(deck, version, built_at, record_property):
    run = built_at(version)
    record_property(LEFT_OUT, run.left_out[deck])
    printed = run.stdout + run.stderr
    reported = run.reported(deck)
    # a cell error or a failed check fails this deck alone: no report line, its error in what the build printed
    assert reported and reported[0].startswith(f"{run.copies[deck]}: executed "), printed
    # a build that failed although every deck was built (a bug after the last deck) fails every deck's test
    assert run.returncode == 0 or not all(run.reported(d) for d in DECKS), printed
    nb = json.loads(run.notebook(deck).read_text(encoding="utf-8"))
    assert nb["metadata"]["jaxdeck_build"]["provenance"]["jax"] == version
