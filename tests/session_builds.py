"""Decks built once for the whole run: into a folder every pytest-xdist worker sees, one process building
each deck while the others wait, a deck that fails kept as its failure so that only its own tests fail."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from support import ENVIRONMENT


def deck_builder(root: Path, shared: bool = False):
    """deck -> (Outputs, executed notebook), each deck built once into ``root``.

    ``shared``: ``root`` is a folder every pytest-xdist worker of the run sees (see
    :func:`shared_folder`); a lock per deck makes one process build it while the others wait,
    then find it up to date (as a second ``make`` would) instead of executing and laying it
    out again. Decks are built side by side into one folder, as ``make`` builds them.
    """
    import nbformat
    import pytest

    from jaxdeck.build import build_deck
    from jaxdeck.errors import DeckError

    done: dict[Path, tuple | str] = {}
    root.mkdir(parents=True, exist_ok=True)

    def get(deck: Path):
        if deck not in done:
            with one_at_a_time(root / f".{deck.stem}.lock" if shared else None), session_environment():
                failure = build_failure(root, deck)
                if failure is None:
                    try:
                        outputs = build_deck(deck, root)
                    except DeckError as err:  # the deck's own mistake: its tests fail, the others run
                        failure = record_build_failure(root, deck, err)
                done[deck] = failure or (outputs, nbformat.read(outputs.notebook, as_version=4))
        if isinstance(done[deck], str):
            pytest.fail(done[deck], pytrace=False)
        return done[deck]

    return get


def record_build_failure(root: Path, deck: Path, error) -> str:
    """Keep ``deck``'s build error (a DeckError) beside the decks built into ``root``, so that every test of
    that deck, in every worker, fails with its lines instead of building it again; returns what it kept."""
    from jaxdeck.atomic import write_text

    lines = [f"{deck.name} did not build: {error}", *(str(e) for e in getattr(error, "errors", ()))]
    write_text(root / f".{deck.stem}.failed", "\n".join(lines))
    return "\n".join(lines)


def build_failure(root: Path, deck: Path) -> str | None:
    """What :func:`record_build_failure` kept for ``deck`` in ``root`` (None: it did not fail there)."""
    try:
        return (root / f".{deck.stem}.failed").read_text()
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def session_environment():
    """Inside: ``os.environ`` as the session started (so every worker's builds share cache keys)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(ENVIRONMENT)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def one_at_a_time(lock: Path | None):
    """Hold an exclusive lock on the file ``lock`` (across processes) inside the block; None: no lock."""
    if lock is None:
        yield
        return
    import fcntl

    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_folder(tmp_path_factory, name: str) -> Path:
    """A folder that every pytest-xdist worker of this run sees (the session's own when not under xdist)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and base.name.startswith("popen-"):
        base = base.parent  # the workers' basetemps are folders of one run's basetemp
    folder = base / f"shared-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
