"""Progress for multi-deck builds: deck, stage, cell k/n on a terminal; quiet otherwise."""

from __future__ import annotations

import sys


class Progress:
    """Shows ``deck  stage  cell k/n`` on a terminal; prints nothing when not one."""

    def __init__(self, total: int, stream=None):
        self.stream = stream or sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = total
        self._progress = None
        self._task = None

    def __enter__(self) -> "Progress":
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

            self._progress = RichProgress(
                TextColumn("[bold]{task.fields[deck]}"), TextColumn("{task.fields[stage]}"),
                BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=Console(file=self.stream), transient=True,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("build", total=self.total, deck="", stage="")
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def stage(self, deck: str, stage: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, deck=deck, stage=stage)

    def cell(self, deck: str, k: int, n: int) -> None:
        self.stage(deck, f"execute cell {k}/{n}")

    def advance(self) -> None:
        if self._progress is not None:
            self._progress.advance(self._task)

    def say(self, text: str) -> None:
        """A line that stays (e.g. a finished deck); shown on terminals only."""
        if self._progress is not None:
            self._progress.console.print(text)
