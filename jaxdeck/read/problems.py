"""What the reader finds wrong in a deck, gathered before anything runs.

An author who fixes one problem only to meet the next, build after build, learns the deck
format one error at a time. So each check of the reader goes on past a problem it can step
over (a header key, an option, a tag, a class, a fence, a marker, a picture) and the build
stops once, naming every error and every warning at its line (:class:`jaxdeck.errors.DeckProblems`).
Only a problem that leaves nothing to read further (an unreadable file, a header that is not
YAML, a deck jupytext cannot read) stops the reading where it is, with what was found before it.
"""

from __future__ import annotations

from contextlib import contextmanager
from difflib import get_close_matches
from dataclasses import dataclass, field
from pathlib import Path

from jaxdeck.errors import DeckError, DeckProblems

#: what a warning's line ends with when the build goes on
STRICT_SAYS = " (--strict makes this an error)"


@dataclass
class Problems:
    """The errors and warnings found in one deck; ``strict`` makes each warning an error."""

    path: Path
    strict: bool = False
    errors: list[DeckError] = field(default_factory=list)
    warnings: list[DeckError] = field(default_factory=list)

    def error(self, problem: DeckError) -> None:
        self.errors.append(problem)

    def warn(self, problem: DeckError) -> None:
        (self.errors if self.strict else self.warnings).append(problem)

    @contextmanager
    def gathered(self):
        """Run a check that raises at its first problem: the problem is kept, the reading goes on."""
        try:
            yield
        except DeckError as problem:
            self.errors.append(problem)

    def warning_lines(self) -> list[str]:
        """The warnings as the build record keeps them (one line each)."""
        return [f"{w}{STRICT_SAYS}" for w in self.warnings]

    def raise_any(self, stopped: DeckError | None = None) -> None:
        """Raise what was found (with ``stopped``, the problem that ended the reading, last): one error
        as it is, several (or errors with warnings) as one :class:`DeckProblems`."""
        errors = self.errors + ([stopped] if stopped is not None else [])
        if not errors:
            return
        if len(errors) == 1 and not self.warnings:
            raise errors[0]
        raise DeckProblems(self.path, errors, self.warnings)


def closest(word: str, known) -> str | None:
    """The known word ``word`` is most likely a typo of (difflib), None when none is close."""
    known = sorted(known)
    lowered = {k.lower(): k for k in known}
    found = get_close_matches(word.lower(), list(lowered), n=1)
    return lowered[found[0]] if found else None
