"""The talk clock: how long each slide takes, from its speaker notes and its cells' live time.

A presenter says about what the notes say (on a slide without notes, what the slide says), at some
130 words a minute (a measured, explaining pace; the deck may set another with
``words_per_minute:``), and waits for each cell to run.
"""

from __future__ import annotations

import re

WORDS_PER_MINUTE = 130
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def words(notes: list[str]) -> int:
    """The spoken words in a slide's notes (Markdown punctuation and code marks are not words)."""
    return sum(len(_WORD.findall(text)) for text in notes)


def slide_seconds(notes_words: int, live_s: float, words_per_minute: int = WORDS_PER_MINUTE) -> float:
    """The slide's expected length: its notes read aloud, plus the time its cells run."""
    return 60.0 * notes_words / words_per_minute + live_s


def verdict(estimate_s: float, duration_min: float | None) -> str:
    """One line on the talk's length, against the deck's ``duration:`` when it has one."""
    said = f"about {estimate_s / 60:.1f} min"
    if not duration_min:
        return f"The talk runs {said} (set `duration:` in minutes in the header to compare)."
    gap = estimate_s / 60 - duration_min
    if abs(gap) < 0.05:
        return f"The talk runs {said}, on its {duration_min:g} min."
    side = "over" if gap > 0 else "under"
    return f"The talk runs {said}: {abs(gap):.1f} min {side} its {duration_min:g} min."
