"""demos._timing.scoreboard: each headline figure with the verdict computed from its ratios."""

import pytest

from demos import timing
from demos.timing import compare, scoreboard


def test_scoreboard_lists_each_figure_with_its_computed_verdict(make_comparison):
    good = make_comparison("x", {"x": "1 s", "y": "2 s"}, {"x": 0.1, "y": 0.2})
    bad = make_comparison("x", {"x": "1 s", "y": "2 s"}, {"x": 0.1, "y": 0.9})
    board = scoreboard({"first": good, "second": bad})
    rows = board.rows()
    assert rows[0][0] == "first" and rows[0][3].startswith("reproduced")
    assert rows[1][3].startswith("not reproduced") and "y 9.00×" in rows[1][1] and "y 2.00×" in rows[1][2]
    assert "second: not reproduced: y takes 9.00×" in str(board)
    assert "not reproduced" in board._repr_html_()
    # the same measurements against a moved reference: the row's verdict follows
    moved = make_comparison("x", {"x": "1 s", "y": "9 s"}, {"x": 0.1, "y": 0.9})
    assert scoreboard({"second": moved}).rows()[0][3].startswith("reproduced")


@pytest.fixture
def fresh_figures():
    """An empty register of figures for the test, and the one before it back afterwards, whatever the test did."""
    kept = dict(timing.FIGURES)
    timing.FIGURES.clear()
    yield timing.FIGURES
    timing.FIGURES.clear()
    timing.FIGURES.update(kept)


def test_compare_with_a_figure_name_registers_it(fresh_figures):
    assert "no headline figures measured yet" in timing.scoreboard()._repr_html_()
    c = compare({"a": lambda: 1, "b": lambda: 2}, budget_s=0.01, reference={"a": "1 µs", "b": "1 µs"},
                figure="unit test figure")
    unnamed = compare({"a": lambda: 1}, budget_s=0.01)
    assert fresh_figures == {"unit test figure": c} and unnamed.figure == ""
    assert list(timing.scoreboard().comparisons) == ["unit test figure"]
    assert "unit test figure" in str(timing.scoreboard())
