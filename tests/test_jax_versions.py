"""Every deck in slides/ built at the oldest JAX the package admits and at a GPU box's, every check holding.

The lock installs the newest JAX (the rest of the suite runs on it); a presenter's box may hold any
JAX in the package's range. Each version here is installed by uv (from its cache after the first
download) into a venv that sees the project's other packages after it, and each deck is built
by the CLI in that interpreter, so its kernel runs on that JAX: a cell error or a failed
claim check fails the build, and the executed notebook must name the version. Parametrised over
slides/. A slower group of its own: ``-m versions`` runs only it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support import DECKS, bare_venv, deck_id, see_the_project

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".uv" / "bin" / "uv"
#: the oldest the package admits, and what a typical GPU box's image brings (Python 3.12, CUDA 13)
VERSIONS = ("0.10.2", "0.11.2")

pytestmark = [pytest.mark.versions, pytest.mark.skipif(not DECKS, reason="no decks in slides/"),
              pytest.mark.skipif(not UV.exists(), reason="no .uv/bin/uv: `make setup` bootstraps it")]


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
                                  timeout=600)
            assert done.returncode == 0, done.stderr
            see_the_project(python, ROOT)  # the checkout first: jaxdeck and demos as they are here
            made[version] = str(python)
        return made[version]

    return make


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_deck_builds_with_every_check_holding_at_this_jax(deck, version, python_with, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("JAXDECK_DEVICES", "PYTHONPATH")}
    done = subprocess.run([python_with(version), "-m", "jaxdeck", "build", "--no-cache", "--jobs", "1",
                           "--out", str(tmp_path / "build"), str(deck)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    nb = json.loads((tmp_path / "build" / "notebooks" / f"{Path(deck).stem}.ipynb").read_text(encoding="utf-8"))
    assert nb["metadata"]["jaxdeck_build"]["provenance"]["jax"] == version
