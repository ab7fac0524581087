"""User-facing errors: one line naming file:line and what to do, never a traceback."""

from __future__ import annotations

from pathlib import Path


class DeckError(Exception):
    """A mistake in a deck (or a missing system part) that the user can fix.

    The CLI prints ``str(error)`` alone and exits non-zero; anything that is
    not a DeckError is a bug in jaxdeck and keeps its traceback.
    """

    def __init__(self, path: str | Path | None, line: int | None, message: str,
                 hint: str | None = None, slide: int | None = None, details: str | None = None,
                 details_are: str = "the whole traceback"):
        self.path = str(path) if path is not None else None
        self.line = line
        self.message = message
        self.hint = hint
        self.slide = slide
        #: what the one line leaves out (a traceback, a stuck kernel's stacks): kept beside the build, shown by --verbose
        self.details = details
        self.details_are = details_are  # what the details are, for the line that names where they went
        super().__init__(self.format())

    def location(self) -> str:
        if self.path is None:
            return ""
        where = display_path(self.path)
        if self.line is not None:
            where += f":{self.line}"
        if self.slide is not None:
            where += f" (slide {self.slide})"
        return where

    def format(self) -> str:
        text = self.message
        if self.hint:
            text += f"; {self.hint}"
        where = self.location()
        return f"{where}: {text}" if where else text

    def __str__(self) -> str:
        return self.format()


class DecksFailed(DeckError):
    """Several decks of one build failed: each failure's own line, then how many (the others are built)."""

    def __init__(self, errors: list[DeckError], total: int):
        self.errors = errors
        names = ", ".join(Path(e.path).stem if e.path else "?" for e in errors)
        super().__init__(None, None, f"{len(errors)} of {total} decks failed ({names}); every other deck is built")

    def lines(self) -> list[str]:
        return [str(e) for e in self.errors] + [self.format()]


def display_path(path: str | Path) -> str:
    """A path relative to the current directory when it lies below it (shorter messages)."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)
