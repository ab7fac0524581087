"""What a preview watches (the deck, its images, the theme) and the loop that rebuilds on a change.

Polling, with the standard library: a stat of a few dozen files every 50 ms costs nothing
measurable, needs no inotify binding, and sees an editor's save however it writes the file
(in place, or a new file renamed over the old one).
"""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path

from jaxdeck.html.assets import THEMES
from jaxdeck.preview.session import Session

#: seconds between two looks at the watched files
INTERVAL_S = 0.05
#: a change counts once the files stay the same this long (an editor may write in two steps)
SETTLE_S = 0.02


def watched(session: Session) -> list[Path]:
    """The deck, the images it shows, and every file of the theme (templates, CSS)."""
    theme = sorted(p for p in THEMES.rglob("*") if p.is_file()) if THEMES.is_dir() else []
    return [session.deck, *session.images, *theme]


def snapshot(paths: list[Path]) -> dict[Path, tuple[int, int] | None]:
    """(mtime in ns, size) of each path; None for one that is missing (mid-save, or deleted)."""
    seen = {}
    for path in paths:
        try:
            stat = path.stat()
            seen[path] = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            seen[path] = None
    return seen


def settled(paths: list[Path]) -> dict:
    """A snapshot taken once two looks in a row agree (or after a few tries)."""
    before = snapshot(paths)
    for _ in range(10):
        time.sleep(SETTLE_S)
        now = snapshot(paths)
        if now == before:
            break
        before = now
    return before


class Rebuilder:
    """Rebuilds ``session`` first, then after every change, in a thread of its own; ``fresh()`` asks for a fresh run."""

    def __init__(self, session: Session):
        self.session = session
        self.stopped = threading.Event()
        self._fresh = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jaxdeck-preview-rebuild", daemon=True)

    def start(self) -> "Rebuilder":
        self._thread.start()
        return self

    def fresh(self) -> None:
        self._fresh.set()

    def stop(self, timeout: float = 10) -> None:
        self.stopped.set()
        self._thread.join(timeout=timeout)

    def _run(self) -> None:
        session = self.session
        seen = snapshot(watched(session))
        self._rebuild(seen)
        while not self.stopped.is_set():
            if self._fresh.is_set():
                self._fresh.clear()
                self._rebuild(seen, fresh=True)
                continue
            self.stopped.wait(INTERVAL_S)
            paths = watched(session)
            now = snapshot(paths)
            if not any(p in seen and now[p] != seen[p] for p in paths):
                continue
            now = settled(paths)
            if any(now.get(p) != seen.get(p) for p in paths if p.is_relative_to(THEMES)):
                from jaxdeck.html.export import exporter

                exporter.cache_clear()  # its compiled templates
            seen.clear()
            seen.update(now)  # before the rebuild: a save during it is seen by the next look
            if not self.stopped.is_set():
                self._rebuild(seen)

    def _rebuild(self, seen: dict, fresh: bool = False) -> None:
        try:
            self.session.rebuild(fresh=fresh)
        except Exception as err:  # a bug: its traceback goes to the terminal, and the preview goes on
            traceback.print_exc()
            self.session.fail(f"internal error ({type(err).__name__}: {err}); the terminal has the details")
        # images the deck shows now are watched from here on
        new = [p for p in watched(self.session) if p not in seen]
        seen.update(snapshot(new))
