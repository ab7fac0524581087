"""A cell's unexpected error: the build's failure, or, where the deck allows errors, a warning and the error on its slide."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from jaxdeck.errors import DeckError
from jaxdeck.execute import errors_listed
from jaxdeck.records import BuildRecord, ExecFacts, write_build


def notebook(allow: bool) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    failing = nbformat.v4.new_code_cell("import missing")
    failing.outputs = [nbformat.v4.new_output("error", ename="ModuleNotFoundError", evalue="No module named 'missing'",
                                              traceback=["Traceback", "ModuleNotFoundError: No module named 'missing'"])]
    failing.metadata["jaxdeck"] = {"line": 7, "slide": 2}
    expected = nbformat.v4.new_code_cell("1 / 0")
    expected.metadata["tags"] = ["raises-exception"]
    expected.outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                                               traceback=["ZeroDivisionError: division by zero"])]
    nb.cells = [failing, expected]
    if allow:
        nb.metadata["jaxdeck"] = {"allow_errors": True}
    return nb


def test_an_unexpected_error_fails_as_the_run_would_have_failed():
    with pytest.raises(DeckError) as caught:
        errors_listed(notebook(allow=False), Path("talk.md"))
    assert caught.value.line == 7 and caught.value.slide == 2
    assert "ModuleNotFoundError: No module named 'missing'" in str(caught.value) and "raises-exception" in str(caught.value)


def test_where_errors_are_allowed_each_unexpected_one_is_a_warning_once():
    nb = notebook(allow=True)
    write_build(nb, ExecFacts(warnings=errors_listed(nb, Path("talk.md"))))  # listed again: said once
    assert errors_listed(nb, Path("talk.md")) == BuildRecord.of(nb).warnings == [
        "talk.md:7 (slide 2): ModuleNotFoundError: No module named 'missing'; the slide shows it (allow_errors)"]
