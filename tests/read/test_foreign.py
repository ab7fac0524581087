"""Quarto's fenced divs and attributes after a picture, written in a deck, are errors at their
lines that say this format's spelling (the inputs are a new author's drafts, as written)."""

from __future__ import annotations

import pytest

from jaxdeck.errors import DeckError, DeckProblems
from jaxdeck.read import deck_to_notebook

HEADER = "---\njupyter:\n  jaxdeck:\n    title: T\n---\n\n# T\n\nNote: n.\n\n---\n\n"
#: the draft's slide, as written: Quarto's columns (line 15 on)
COLUMNS = """## A tiny model

:::: {.columns}
::: {.column width="50%"}
The model is $\\hat y = w \\cdot x + b$ and the loss is the mean squared error $L(\\theta)$.
:::
::: {.column width="50%"}
![the parameter tree](img/tree.svg)
:::
::::

Note: Standard linear regression.
"""


@pytest.fixture
def deck(write_deck):
    def write(body: str):
        path = write_deck(HEADER + body)
        (path.parent / "img").mkdir(exist_ok=True)
        (path.parent / "img" / "tree.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
        return path
    return write


def problems(path) -> list[DeckError]:
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(path)
    return caught.value.errors if isinstance(caught.value, DeckProblems) else [caught.value]


def test_quarto_columns_are_errors_at_each_div_saying_how_columns_are_written(deck):
    said = problems(deck(COLUMNS))
    assert [p.line for p in said] == [15, 16, 19]
    assert all("fenced div" in p.message and "'|||'" in p.hint and "jupytext" not in str(p) for p in said)
    assert said[1].message.startswith("'::: {.column width=\"50%\"}'")


def test_quarto_notes_are_an_error_saying_how_notes_are_written(deck):
    said = problems(deck("## Two\n\nText.\n\n::: {.notes}\nSay this.\n:::\n"))
    assert [p.line for p in said] == [17] and "'Note:'" in said[0].hint


def test_a_div_inside_a_code_fence_is_code(deck):
    nb = deck_to_notebook(deck("## Two\n\n```markdown\n::: {.notes}\nSay this.\n:::\n```\n\nNote: n.\n"))
    assert any("::: {.notes}" in cell.source for cell in nb.cells)


@pytest.mark.parametrize("written, hint", [
    ("{width=40%}", '<img src="img/tree.svg" alt="..." width="40%">'),
    ("{.on-light}", "write {.on-light} alone on the line before the picture"),
])
def test_attributes_after_a_picture_are_an_error_saying_what_to_write(deck, written, hint):
    body = f"## A tiny model\n\nThe model.\n\n{{.on-light}}\n![the parameter tree](img/tree.svg){written}\n\nNote: n.\n"
    said = problems(deck(body))
    assert [p.line for p in said] == [18] and written in said[0].message and hint in said[0].hint


def test_on_light_on_the_line_before_a_picture_is_no_problem(deck):
    deck_to_notebook(deck("## A\n\n{.on-light}\n![the parameter tree](img/tree.svg)\n\nNote: n.\n"))
