"""What the live slideshow's browser tests share: a present of one deck in a small repository of its own,
and a RISE page on it that records every request it makes outside the loopback address."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path

from support import presenting

ROOT = Path(__file__).resolve().parents[2]

#: the addresses a live page may ask for: the server and what the page makes itself
LOCAL = ("http://127.0.0.1", "data:", "blob:", "about:")


@contextmanager
def presented_copy(tmp_path_factory, label: str, deck: Path):
    """`jaxdeck present` of a copy of ``deck`` (with the project's jupytext.toml) in a fresh folder."""
    repo = tmp_path_factory.mktemp(label)
    shutil.copy(ROOT / "jupytext.toml", repo / "jupytext.toml")
    (repo / "slides").mkdir()
    shutil.copy(deck, repo / "slides" / deck.name)
    with presenting(repo, f"slides/{deck.name}") as started:
        yield started


def watch_requests(page, remote: list[str]) -> None:
    """Adds to ``remote`` every URL ``page`` asks for outside :data:`LOCAL`."""
    page.on("request", lambda r: remote.append(r.url) if not r.url.startswith(LOCAL) else None)


def open_live(browser, server, remote: list[str], deck: str, width: int = 1280, height: int = 720):
    """A RISE page on ``slides/deck``, once the live extension says it is ready."""
    page = browser.new_page(viewport={"width": width, "height": height})
    watch_requests(page, remote)
    page.goto(f"{server['base']}/rise/slides/{deck}?token={server['token']}")
    page.wait_for_selector("body.jd-live-ready", timeout=90000)
    return page
