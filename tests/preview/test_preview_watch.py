"""A save of the deck, of an image it shows, or of the theme rebuilds the preview; nothing else does."""

from __future__ import annotations

import os
import time

import pytest

from jaxdeck.preview import watch
from jaxdeck.preview.session import Session

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

DECK = "# Talk\n\n![a chart](images/chart.svg)\n\n---\n\n## Two\n\nText.\n"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="{}"/></svg>'


def wait_for_seq(session: Session, seq: int, seconds: float = 30) -> None:
    """A hang guard, not a latency budget (the benchmark measures that)."""
    deadline = time.monotonic() + seconds
    with session.changed:
        while session.state.seq < seq:
            left = deadline - time.monotonic()
            assert left > 0, f"no rebuild (seq {session.state.seq}, wanted {seq})"
            session.changed.wait(left)


@pytest.fixture
def watched(write_deck, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    theme = tmp_path / "themes"
    theme.mkdir()
    (theme / "extra.css").write_text("body { color: black; }\n")
    monkeypatch.setattr(watch, "THEMES", theme)
    deck = write_deck(DECK).relative_to(tmp_path)
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "chart.svg").write_text(SVG.format("red"))
    session = Session(deck, tmp_path / "build", say=lambda line: None)
    rebuilder = watch.Rebuilder(session).start()
    wait_for_seq(session, 1)
    yield session, theme
    rebuilder.stop()
    session.close()


def touch_later(path) -> None:
    """Move the mtime on, as a save a moment later does (some file systems keep whole seconds)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def test_deck_image_and_theme_saves_each_rebuild_once(watched):
    session, theme = watched
    copied = session.html.parent / "talk_files" / "images" / "chart.svg"
    assert "red" in copied.read_text()

    session.deck.write_text(DECK.replace("Text.", "New text."))
    wait_for_seq(session, 2)
    assert "New text." in session.html.read_text()

    image = session.deck.parent / "images" / "chart.svg"
    image.write_text(SVG.format("blue"))
    touch_later(image)
    wait_for_seq(session, 3)
    assert "blue" in copied.read_text()

    (theme / "extra.css").write_text("body { color: navy; }\n")
    touch_later(theme / "extra.css")
    wait_for_seq(session, 4)

    (session.deck.parent / "unrelated.txt").write_text("not part of the deck")
    time.sleep(10 * watch.INTERVAL_S)
    assert session.state.seq == 4
