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


def test_charts_and_code_take_the_pages_theme_colours_with_the_light_ones_as_fallbacks():
    """Every colour an output draws with is a CSS variable (the deck's --jd-*, else JupyterLab's
    --jp-*) ending in the light colour, and SVG paints sit in ``style``, where var() is read."""
    import re

    from demos._display import highlight, html_table, svg_bars
    from demos._jaxpr.lexers import JaxprLexer
    from demos._widgets.line_chart import svg_lines

    chart = svg_bars(["a", "b"], [1.0, 2.0], ["1 s", "2 s"], series=[[1.5, None]], series_names=["ours", "theirs"],
                     title="t", axis_label="time")
    lines = svg_lines([1, 10, 100], {"x": {1: 1e-3, 10: 2e-3}}, current=10, x_label="n")
    for svg in (chart, lines):
        assert not re.search(r'\s(fill|stroke)="(?!none)', svg), svg  # no presentation-attribute colours
        paints = re.findall(r"(?:fill|stroke):(var\(--jd-[a-z0-9-]+, (?:var\(--jp-[a-z0-9-]+, )?#[0-9a-f]{6}\)+)", svg)
        assert len(paints) == len(re.findall(r"(?:fill|stroke):", svg)) - svg.count("fill:none"), svg
    assert "var(--jd-fg, var(--jp-content-font-color0, #111111))" in chart
    assert "var(--jd-chart-1, #1f4e9c)" in chart and "var(--jd-chart-reference, #9e9e9e)" in chart
    table = html_table(["a"], [["1"]], highlight_row=0)
    assert "background:var(--jd-chart-highlight, var(--jp-layout-color2, #eef3fb))" in table
    code = highlight("{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }", JaxprLexer())
    assert "color: var(--jp-mirror-editor-keyword-color,#008000); font-weight: bold" in code
    assert not re.search(r"color: #", code), code
