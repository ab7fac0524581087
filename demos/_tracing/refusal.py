"""What a call refuses with, in one line a slide can print.

JAX's refusals are long: the reason first, then the arguments, meshes and shardings it compared,
sometimes a guess at the cause. A slide wants the reason; a claim check wants the whole
exception. :func:`refusal` keeps both, so no cell on a slide cuts an error message itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .._display import MUTED, WARN, Displayable, box, esc

#: the end of a message's first sentence: a stop followed by a capital, or the end of its first line
_SENTENCE = re.compile(r"^(.*?[.!?])(?=\s+[A-Z`'\"(])")


def first_sentence(message: str) -> str:
    """The first sentence of a message's first line (the whole line when it has no full stop)."""
    line = message.strip().split("\n", 1)[0].strip()
    found = _SENTENCE.match(line)
    return found.group(1) if found else line


@dataclass(repr=False)
class Refusal(Displayable):
    """The exception a call raised (``None`` when it ran), shown as its type and its first sentence."""

    error: BaseException | None

    def __bool__(self) -> bool:
        return self.error is not None

    @property
    def kind(self) -> str:
        """The exception's type name (``"TypeError"``), ``""`` when the call ran."""
        return type(self.error).__name__ if self.error is not None else ""

    @property
    def reason(self) -> str:
        """The first sentence of the message: what JAX says is wrong, without the details it compared."""
        return first_sentence(str(self.error)) if self.error is not None else ""

    def _text(self) -> str:
        if self.error is None:
            return "ran: nothing refused"
        return f"{self.kind}: {self.reason}" if self.reason else self.kind

    def _html(self) -> str:
        if self.error is None:
            return box(f'<span style="color:{MUTED}">ran: nothing refused</span>')
        return box(f'<span style="color:{WARN};font-weight:bold">{esc(self.kind)}</span>'
                   + (f": {esc(self.reason)}" if self.reason else ""))


def refusal(thunk: Callable[[], object], *errors: type[BaseException]) -> Refusal:
    """Call ``thunk()`` and return what it raised as a :class:`Refusal` (falsy when it ran).

    Only the exception types named are caught (any ``Exception`` when none is), so a refusal of
    another kind still fails the cell rather than reading as the one the slide expects.
    """
    try:
        thunk()
    except (errors or (Exception,)) as err:
        return Refusal(err)
    return Refusal(None)
