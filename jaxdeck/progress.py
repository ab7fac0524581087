"""Progress for multi-deck builds on a terminal: a bar for the decks done, a line per deck running; quiet otherwise."""

from __future__ import annotations

import sys
import threading

from jaxdeck.errors import printable


class Progress:
    """One display for a build, however many decks run at once.

    A bar counts the decks done; under it each running deck has a line of its own (``deck
    stage cell k/n``) that goes when the deck is done. Every method may be called from any
    thread. Nothing is printed when the stream is not a terminal.
    """

    def __init__(self, total: int, stream=None):
        self.stream = stream or sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = total
        self._progress = None
        self._task = None
        self._rows: dict[str, object] = {}
        self._stages: dict[str, str] = {}  # each running deck's stage, which a step is said after
        self._lock = threading.Lock()

    def __enter__(self) -> "Progress":
        global _ACTIVE
        _ACTIVE = self
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

            self._progress = RichProgress(
                TextColumn("[bold]{task.fields[deck]}"), TextColumn("{task.fields[stage]}"),
                BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=Console(file=self.stream), transient=True,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("build", total=self.total, deck="decks", stage="")
        return self

    def __exit__(self, *exc) -> None:
        global _ACTIVE
        if _ACTIVE is self:
            _ACTIVE = None
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def stage(self, deck: str, stage: str) -> None:
        """``deck`` is at ``stage`` now (its line appears the first time)."""
        if self._progress is None:
            return
        with self._lock:
            self._stages[deck] = stage
            row = self._rows.get(deck)
            if row is None:
                self._rows[deck] = self._progress.add_task(deck, total=None, deck=f"  {shown(deck)}", stage=stage)
            else:
                self._progress.update(row, stage=stage)

    def step(self, deck: str, what: str) -> None:
        """``deck``'s stage has come to ``what`` (the fit's round): said after the stage's name on its line."""
        if self._progress is None:
            return
        with self._lock:
            row = self._rows.get(deck)
            if row is not None:
                self._progress.update(row, stage=f"{self._stages.get(deck, '')}: {what}")

    def cell(self, deck: str, k: int, n: int) -> None:
        self.stage(deck, f"execute cell {k}/{n}")

    def advance(self, deck: str | None = None) -> None:
        """One more deck done (``deck``'s line goes)."""
        if self._progress is None:
            return
        with self._lock:
            row = self._rows.pop(deck, None) if deck is not None else None
            if row is not None:
                self._progress.remove_task(row)
            self._progress.advance(self._task)


def shown(deck: str) -> str:
    """``deck``'s name as its line shows it: printable (:func:`jaxdeck.errors.printable`), and its
    brackets text, never rich's markup (the line is ``[bold]NAME``)."""
    from rich.markup import escape

    return escape(printable(deck))


#: the build's display while one runs: what a stage deep inside (the fit) reports its steps to
_ACTIVE: Progress | None = None


def step(deck: str, what: str) -> None:
    """Say on ``deck``'s line of the running build's display that its stage is at ``what``; nothing outside a build."""
    shown = _ACTIVE
    if shown is not None:
        shown.step(deck, what)
