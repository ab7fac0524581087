"""demos._display: durations parse and print as slides write them; highlighted code is escaped."""

import math

import pytest

from demos import jaxpr as J
from demos._display import fmt_seconds, highlight, parse_seconds


@pytest.mark.parametrize("text, seconds", [
    ("1.81 s", 1.81), ("410 ms", 0.41), ("7.27 µs", 7.27e-6), ("7.27us", 7.27e-6), ("860 ns", 8.6e-7),
    (0.25, 0.25), (None, None),
])
def test_parse_seconds(text, seconds):
    got = parse_seconds(text)
    assert got == seconds if seconds is None else math.isclose(got, seconds)


@pytest.mark.parametrize("bad", ["fast", "3 parsecs", True])
def test_parse_seconds_rejects_nonsense(bad):
    with pytest.raises(ValueError):
        parse_seconds(bad)


@pytest.mark.parametrize("seconds, text", [
    (1.234e-6, "1.23 µs"), (0.41, "410 ms"), (1.81, "1.81 s"), (9.7e-6, "9.70 µs"), (0.99996, "1.00 s"),
])
def test_fmt_seconds(seconds, text):
    assert fmt_seconds(seconds) == text


def test_highlight_escapes_angle_brackets_and_ampersands():
    html = highlight("a < b && c > d", J.IRLexer())
    assert "&lt;" in html and "&gt;" in html and "&amp;&amp;" in html
    assert "a < b" not in html
