"""Shared fixtures: the repository's decks, a deck writer, one real browser, built decks."""

from __future__ import annotations

from pathlib import Path

import pytest

import support  # noqa: F401  (puts the repository on sys.path first)


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
    return support.deck_builder(tmp_path_factory.mktemp("build"))


@pytest.fixture(scope="session")
def built_notebooks(tmp_path_factory):
    """The tutorial notebooks (support.NOTEBOOKS), each built once (notebook, HTML fitted in
    Chromium, its cuts) into a session folder whose image cache holds the remote badge."""
    from jaxdeck.read.images import key

    root = tmp_path_factory.mktemp("notebooks")
    (root / "images").mkdir()
    (root / "images" / f"{key(support.BADGE)}.svg").write_bytes(support.BADGE_SVG)
    return support.deck_builder(root)


def pytest_collection_modifyitems(items):
    """Every test that takes the ``browser`` fixture is marked ``browser`` (``-m 'not browser'`` skips them)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
