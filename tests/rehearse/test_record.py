"""The rehearsal's records and what its JSON and HTML say of them."""

from __future__ import annotations

import json

import pytest

from jaxdeck.rehearse import report
from jaxdeck.rehearse.record import CellRun, Fit, Problem, Rehearsal, SlideRun


def a_rehearsal() -> Rehearsal:
    record = Rehearsal(deck="slides/talk.md", sizes=["1280x720", "1920x1080"], duration_min=1)
    fine = SlideRun(1, 0, 0, "Title <b>&</b>", fits={"1280x720": Fit(-300, 0), "1920x1080": Fit(-300, 0)},
                    notes_words=130, estimate_s=60.0)
    over = SlideRun(2, 1, 0, "Prints", cells=[CellRun(9, "ok", 0.5, build_s=0.4, budget_s=2.0)],
                    fits={"1280x720": Fit(120, 0), "1920x1080": Fit(118, 0, [[40, "a long line"]])},
                    notes_words=13, estimate_s=6.5, pictures={"1280x720": "iVBORw0KGgo="})
    record.slides = [fine, over]
    record.problems = [Problem(2, "overflow", "runs 120 px below"), Problem(None, "clock", "over")]
    return record


def test_a_problem_has_a_known_kind_and_names_its_slide_and_line():
    with pytest.raises(ValueError):
        Problem(1, "ugly", "x")
    assert str(Problem(3, "budget", "took 3 s", 41)) == "slide 3 (line 41): budget: took 3 s"
    assert str(Problem(None, "clock", "over")) == "talk: clock: over"


def test_a_fit_allows_rounding_but_not_a_wide_line():
    assert Fit(2, 1).fits and not Fit(3, 0).fits and not Fit(0, 0, [[10, "x"]]).fits


def test_the_json_has_totals_a_schema_and_no_pictures(tmp_path):
    json_path, html_path = report.write(a_rehearsal(), tmp_path)
    assert json_path == tmp_path / "rehearsal" / "talk.json" and html_path.name == "talk.html"
    data = json.loads(json_path.read_text())
    assert data["schema"] == 2 and data["laid_out"] is True and data["ok"] is False and data["cells"] == 1
    assert data["estimate_s"] == 66.5 and data["over_s"] == 6.5
    assert data["slides"][1]["pictures"] == ["1280x720"]
    assert [p["kind"] for p in data["problems"]] == ["overflow", "clock"]


def test_the_html_escapes_titles_and_shows_the_pictures(tmp_path):
    _, html_path = report.write(a_rehearsal(), tmp_path)
    html = html_path.read_text()
    assert "Title &lt;b&gt;&amp;&lt;/b&gt;" in html and "<b>&</b>" not in html
    assert html.count('src="data:image/png;base64,iVBORw0KGgo="') == 1
    assert "2 problem(s) would show" in html and "slide 2: overflow: runs 120 px below" in html


def test_the_table_marks_what_does_not_fit():
    from rich.console import Console

    console = Console(width=140, record=True, color_system=None)
    console.print(report.table(a_rehearsal()))
    text = console.export_text()
    assert "1280x720" in text and "1920x1080" in text
    row = next(line for line in text.splitlines() if "Prints" in line)
    assert "OVER" in row and "overflow" in row and "0.50" in row and "0.40" in row


def test_a_rehearsal_with_no_browser_says_the_slides_were_not_laid_out(tmp_path):
    from rich.console import Console

    record = Rehearsal(deck="slides/talk.md", sizes=[], laid_out=False)
    record.slides = [SlideRun(1, 0, 0, "Waits", cells=[CellRun(5, "ok", 14.5, build_s=6.2, kinds=["text"],
                                                              build_kinds=["text"])])]
    record.problems = [Problem(1, "slower", "took 14.50 s live, 2.3 times the build's 6.20 s", 5)]
    json_path, html_path = report.write(record, tmp_path)
    data = json.loads(json_path.read_text())
    assert data["laid_out"] is False and data["sizes"] == [] and data["slides"][0]["fits"] == {}
    assert data["slides"][0]["cells"][0]["kinds"] == ["text"]
    assert "The slides were not laid out (no browser)" in html_path.read_text()
    console = Console(width=200, record=True, color_system=None)
    report.print_report(record, json_path, html_path, console)
    lines = console.export_text().splitlines()
    assert report.NOT_LAID_OUT in lines
    assert "slide 1 (line 5): slower: took 14.50 s live, 2.3 times the build's 6.20 s" in lines
    assert any(line.startswith("slides/talk.md: 1 problem(s) (its code; the slides were not laid out); ") for line in lines)
