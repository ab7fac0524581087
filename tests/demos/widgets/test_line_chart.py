"""demos._widgets.line_chart: a log-log SVG chart, escaped, that copes with one point or none."""

from demos import widgets


def test_line_chart_is_escaped_and_copes_with_one_point():
    svg = widgets.svg_lines([10, 100], {"<a&b>": {10: 2e-6}}, current=10)
    assert svg.startswith("<svg") and "&lt;a&amp;b&gt;" in svg and "<a&b>" not in svg
    assert "<polyline" not in svg and "<circle" in svg
    assert widgets.svg_lines([10], {"a": {}}) == ""
    two = widgets.svg_lines([10, 100], {"a": {10: 1e-6, 100: 1e-3}})
    assert "<polyline" in two and "1 µs" in two and "1 ms" in two
