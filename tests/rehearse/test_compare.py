"""Live cells against the build's: matched by source, new errors and warnings, budgets."""

from __future__ import annotations

import nbformat

from jaxdeck.rehearse import compare


def built_notebook():
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_code_cell("x = 1")
    first.metadata["jaxdeck"] = {"duration_s": 0.25, "line": 3}
    warned = nbformat.v4.new_code_cell("f(x)")
    warned.metadata["jaxdeck"] = {"duration_s": 0.5}
    warned.outputs = [nbformat.v4.new_output("stream", name="stderr", text="UserWarning: 12 MB at 0x7f3a\n")]
    again = nbformat.v4.new_code_cell("x = 1")
    again.metadata["jaxdeck"] = {"duration_s": 0.75}
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), first, warned, again]
    return nb


def test_each_build_cell_is_matched_once_by_its_source():
    built = compare.built_cells(built_notebook())
    assert compare.take(built, "x = 1\n").duration_s == 0.25
    assert compare.take(built, "x = 1").duration_s == 0.75
    assert compare.take(built, "x = 1") is None
    assert compare.take(built, "never built") is None


def test_a_warning_the_build_had_is_not_new_whatever_its_numbers():
    built = compare.built_cells(built_notebook())
    before = compare.take(built, "f(x)")
    live = [{"output_type": "stream", "name": "stderr", "text": "UserWarning: 40 MB at 0x55aa\nDeprecationWarning: old\n"}]
    run = compare.cell_run(7, "ok", 0.4, live, None, [], 2.0, before, [])
    assert run.new_warnings == ["DeprecationWarning: old"]
    assert run.build_s == 0.5
    assert [(p.slide, p.kind, p.line) for p in compare.problems_of(4, run)] == [(4, "warning", 7)]


def test_a_new_error_a_slow_cell_and_a_failed_check_are_problems_and_a_slow_tag_has_no_budget():
    live = [{"output_type": "error", "ename": "XlaRuntimeError", "evalue": "RESOURCE_EXHAUSTED: out of memory\nmore", "traceback": []}]
    run = compare.cell_run(9, "error", 3.0, live, "XlaRuntimeError: RESOURCE_EXHAUSTED: out of memory", [], 2.0,
                           compare.BuiltCell(1.0), [{"ok": False, "message": "speed-up below 2x"}])
    kinds = [p.kind for p in compare.problems_of(5, run)]
    assert kinds == ["error", "budget", "check"]
    assert "XlaRuntimeError: RESOURCE_EXHAUSTED: out of memory" in str(compare.problems_of(5, run)[0])
    slow = compare.cell_run(9, "ok", 30.0, [], None, ["slow"], 2.0, None, [])
    assert slow.budget_s is None and compare.problems_of(5, slow) == []
    setup = compare.cell_run(3, "ok", 4.0, [], None, ["setup"], 2.0, None, [])
    assert setup.budget_s is None and compare.problems_of(2, setup) == []


def test_an_error_the_build_raised_too_is_not_new():
    live = [{"output_type": "error", "ename": "TypeError", "evalue": "'tuple' object does not support item assignment", "traceback": []}]
    before = compare.BuiltCell(0.01, errors=compare.output_errors(live))
    run = compare.cell_run(2, "error", 0.01, live, "TypeError: ...", ["raises-exception"], 2.0, before, [])
    assert run.new_errors == [] and compare.problems_of(1, run) == []


def test_a_timed_out_cell_is_one_problem_not_also_a_budget_one():
    run = compare.cell_run(2, "timeout", 60.0, [], "KeyboardInterrupt", [], 2.0, None, [])
    assert [p.kind for p in compare.problems_of(1, run)] == ["timeout", "error"]
