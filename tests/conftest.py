"""Shared fixtures: the repository's decks, a deck writer, one real browser, built decks."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jaxdeck.decks import find_decks  # noqa: E402

DECKS = find_decks(None, ROOT / "slides")


def deck_id(path: Path) -> str:
    return path.stem


@pytest.fixture
def write_deck(tmp_path):
    """Write a deck (text or bytes) into a fresh slides/ folder and return its path."""

    def write(text: str | bytes, name: str = "talk.md") -> Path:
        folder = tmp_path / "slides"
        folder.mkdir(exist_ok=True)
        path = folder / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session (Playwright + the system browser)."""
    from jaxdeck.browser import chromium

    with chromium() as started:
        yield started


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """Every deck in slides/ built once (executed notebook + HTML) into a session folder.

    Returns a function deck -> (Outputs, executed notebook).
    """
    import nbformat

    from jaxdeck.build import build_deck

    root = tmp_path_factory.mktemp("build")
    done: dict[Path, tuple] = {}

    def get(deck: Path):
        if deck not in done:
            outputs = build_deck(deck, root)
            done[deck] = (outputs, nbformat.read(outputs.notebook, as_version=4))
        return done[deck]

    return get


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 600):
    """Run `python -m jaxdeck ...` as a user would; returns the CompletedProcess."""
    import subprocess

    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "jaxdeck", *args], cwd=cwd or ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
