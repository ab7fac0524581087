"""Live cells against the build's: matched by source, new errors and warnings, budgets, times, kinds of output."""

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
    assert kinds == ["error", "budget", "slower", "check"]
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


def test_a_cell_over_twice_its_build_time_and_over_2_s_is_slower_whatever_its_budget_or_tag():
    """A new author's cell went from 6.2 s in the build to 14.5 s live, and the rehearsal said it was ready."""
    run = compare.cell_run(12, "ok", 14.5, [], None, ["slow"], 2.0, compare.BuiltCell(6.2), [])
    problems = compare.problems_of(7, run)
    assert [(p.slide, p.kind, p.line) for p in problems] == [(7, "slower", 12)]
    assert "14.50 s live" in problems[0].message and "6.20 s" in problems[0].message
    assert "2.3 times" in problems[0].message


def test_slower_needs_both_twice_the_build_and_over_2_s_and_a_build_to_compare_with():
    def slower(live_s, build_s, status="ok"):
        before = None if build_s is None else compare.BuiltCell(build_s)
        run = compare.cell_run(3, status, live_s, [], None, ["slow"], 2.0, before, [])
        return [p.kind for p in compare.problems_of(1, run)] == ["slower"]

    assert slower(2.5, 0.001) and slower(4.1, 2.0) and slower(2.01, 0.0)
    assert not slower(1.9, 0.1)     # three times slower, but under 2 s: nobody waits for it
    assert not slower(3.9, 2.0)     # over 2 s, but not twice the build's
    assert not slower(4.0, 2.0)     # exactly twice is not more than twice
    assert not slower(30.0, None)   # no build to compare with: the budget alone says
    # a cell interrupted at its limit is a timeout, not also slower
    timeout = compare.cell_run(3, "timeout", 60.0, [], "KeyboardInterrupt", [], 2.0, compare.BuiltCell(1.0), [])
    assert "slower" not in [p.kind for p in compare.problems_of(1, timeout)]


def output(kind: str, **data) -> dict:
    if kind == "stream":
        return {"output_type": "stream", "name": data.get("name", "stdout"), "text": data.get("text", "x\n")}
    return {"output_type": kind, "data": data, "metadata": {}}


def test_an_output_of_another_kind_live_is_a_problem_when_the_kernel_walk_compares_kinds():
    png = output("display_data", **{"image/png": "iVBOR", "text/plain": "<Figure>"})
    built = compare.BuiltCell(0.1, kinds=compare.output_kinds([png]))
    assert built.kinds == ["image/png", "text"]
    only_text = compare.cell_run(4, "ok", 0.1, [output("display_data", **{"text/plain": "<Figure>"})], None, [], 2.0,
                                 built, [], kinds=True)
    said = compare.problems_of(2, only_text)
    assert [(p.kind, p.message) for p in said] == [("output", "the build showed image/png; live it gave only text")]
    nothing = compare.cell_run(4, "ok", 0.1, [], None, [], 2.0, built, [], kinds=True)
    assert compare.problems_of(2, nothing)[0].message == "showed nothing live; the build showed image/png, text"
    more = compare.cell_run(4, "ok", 0.1, [png, output("stream")], None, [], 2.0, built, [], kinds=True)
    assert compare.problems_of(2, more) == [] and more.kinds == ["image/png", "text"]
    # the browser's walk does not compare kinds; an error live is an error, not also an output problem
    unseen = compare.cell_run(4, "ok", 0.1, [], None, [], 2.0, built, [])
    assert unseen.kinds is None and compare.problems_of(2, unseen) == []
    raised = compare.cell_run(4, "error", 0.1, [{"output_type": "error", "ename": "E", "evalue": "v", "traceback": []}],
                              "E: v", [], 2.0, built, [], kinds=True)
    assert [p.kind for p in compare.problems_of(2, raised)] == ["error"]


def test_what_a_cell_wrote_to_stderr_is_a_warning_not_a_kind_of_output():
    assert compare.output_kinds([output("stream", name="stderr", text="careful\n")]) == []
    assert compare.output_kinds([output("stream", text="")]) == []
    assert compare.output_kinds([output("execute_result", **{"text/html": "<b>", "text/plain": "b"})]) == ["text", "text/html"]


def test_a_kernel_that_would_not_stop_or_died_under_a_cell_is_one_problem_that_ends_the_talk():
    stuck = compare.cell_run(6, "stuck", 4.0, [], None, [], 2.0, compare.BuiltCell(0.1), [])
    assert [(p.kind, p.message) for p in compare.problems_of(3, stuck)] == [
        ("timeout", "did not stop when interrupted at its 4 s limit: the kernel is stuck; the slides after it were not run")]
    died = compare.cell_run(6, "died", None, [], None, [], 2.0, compare.BuiltCell(0.1), [])
    said = compare.problems_of(3, died)
    assert [p.kind for p in said] == ["error"] and said[0].message.startswith("the kernel died while it ran")
