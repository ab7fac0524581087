"""What test modules share besides fixtures: the repository, its decks, and the CLI run as a user runs it.

A module of its own (not conftest.py) so that folders with a conftest of their own import the same one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jaxdeck.decks import find_decks  # noqa: E402

DECKS = find_decks(None, ROOT / "slides")


def deck_id(path: Path) -> str:
    return path.stem


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 600):
    """Run `python -m jaxdeck ...` as a user would; returns the CompletedProcess."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "jaxdeck", *args], cwd=cwd or ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def deck_builder(root: Path):
    """deck -> (Outputs, executed notebook), each deck built once into ``root``."""
    import nbformat

    from jaxdeck.build import build_deck

    done: dict[Path, tuple] = {}

    def get(deck: Path):
        if deck not in done:
            outputs = build_deck(deck, root)
            done[deck] = (outputs, nbformat.read(outputs.notebook, as_version=4))
        return done[deck]

    return get
