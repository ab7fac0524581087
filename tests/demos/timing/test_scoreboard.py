"""demos._timing.scoreboard: each headline figure with the verdict computed from its ratios."""

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


def test_compare_with_a_figure_name_registers_it():
    timing.FIGURES.pop("unit test figure", None)
    c = compare({"a": lambda: 1, "b": lambda: 2}, budget_s=0.01, reference={"a": "1 µs", "b": "1 µs"},
                figure="unit test figure")
    assert timing.FIGURES["unit test figure"] is c
    assert "unit test figure" in str(timing.scoreboard())
    timing.FIGURES.pop("unit test figure")
