"""`jaxdeck bench`'s options, and --strict's exit status from the report's verdicts."""

from __future__ import annotations

import pytest

from jaxdeck.cli import parser


def test_bench_command_is_registered():
    args = parser().parse_args(["bench", "--no-stock", "--repeat", "1"])
    assert args.stock is False and args.repeat == 1 and args.harness is True


@pytest.mark.parametrize("failing, strict, status", [
    (None, True, 0), ("make", True, 1), ("edit_loop", True, 1), ("make", False, 0),
])
def test_strict_fails_on_any_failed_target(monkeypatch, tmp_path, capsys, failing, strict, status):
    """The benchmarks themselves are replaced by a report with one failed target, or none."""
    from jaxdeck.bench import suite
    from jaxdeck.commands import bench

    report = {"decks": [], **{part: {"targets": {"a goal": part != failing}} for part in ("make", "edit_loop")}}
    monkeypatch.setattr(suite, "run_bench", lambda *args, **kwargs: report)
    monkeypatch.setattr("jaxdeck.bench.report.print_report", lambda report: print("the report"))
    args = parser().parse_args(["bench", str(tmp_path / "talk.md"), "--out", str(tmp_path)] + ["--strict"] * strict)
    monkeypatch.setattr("jaxdeck.commands.bench.find_decks", lambda decks: decks)
    assert bench.run(args) == status
    assert capsys.readouterr().out.startswith("the report\n")
