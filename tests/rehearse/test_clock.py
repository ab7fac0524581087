"""The talk clock: words of the notes at a pace, plus the cells' live time."""

from __future__ import annotations

import pytest

from jaxdeck.rehearse import clock


def test_words_count_what_is_said_not_markdown_marks():
    assert clock.words(["The **jit** cache: `f(x)` runs once — then it's fast."]) == 10  # f(x): f, x
    assert clock.words(["", "one two", "three"]) == 3
    assert clock.words([]) == 0


def test_a_slide_lasts_its_notes_at_the_pace_plus_its_cells():
    assert clock.slide_seconds(130, 0.0) == pytest.approx(60.0)
    assert clock.slide_seconds(65, 2.5) == pytest.approx(32.5)
    assert clock.slide_seconds(100, 0.0, words_per_minute=100) == pytest.approx(60.0)


@pytest.mark.parametrize("estimate_s, duration, said", [
    (1500, None, "about 25.0 min (set `duration:`"),
    (1500, 20, "5.0 min over its 20 min"),
    (1080, 20, "2.0 min under its 20 min"),
    (1201, 20, "on its 20 min"),
])
def test_the_verdict_says_how_far_over_or_under(estimate_s, duration, said):
    assert said in clock.verdict(estimate_s, duration)
