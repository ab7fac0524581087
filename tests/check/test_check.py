"""`jaxdeck check` in a real Chromium: overflow, wide code, notes, budgets, images."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import DECKS, ROOT, deck_id, run_cli
from jaxdeck.build import build_deck
from jaxdeck.check.deck import Problem, check_deck

import nbformat

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def fixture_build(tmp_path_factory):
    root = tmp_path_factory.mktemp("check-build")
    done = {}

    def get(name: str):
        if name not in done:
            deck = FIXTURES / name
            outputs = build_deck(deck, root)
            done[name] = (deck, outputs, nbformat.read(outputs.notebook, as_version=4))
        return done[name]

    return get


@pytest.mark.heavy
def test_overflowing_slide_is_caught_with_its_number(fixture_build, browser):
    deck, outputs, nb = fixture_build("overflow.md")
    problems = check_deck(deck, nb, outputs.html, browser=browser)
    overflow = [p for p in problems if p.kind == "overflow"]
    assert [p.slide for p in overflow] == [2], problems
    assert "px below" in overflow[0].message
    pixels = int(overflow[0].message.split(" by ")[1].split(" px")[0])
    assert pixels > 100
    text = str(overflow[0])
    assert "overflow.md:" in text and "(slide 2)" in text
    assert not [p for p in problems if p.kind != "overflow"], problems  # fine slides and notes everywhere


@pytest.mark.heavy
def test_every_kind_of_problem_is_reported(fixture_build, browser):
    deck, outputs, nb = fixture_build("check_problems.md")
    problems = check_deck(deck, nb, outputs.html, browser=browser)
    found = {(p.slide, p.kind) for p in problems}
    assert (2, "notes") in found
    wide = [p for p in problems if p.kind == "code-width"]
    assert [p.slide for p in wide] == [3], problems  # a preformatted line (a code cell's line wraps instead)
    assert "1 preformatted line(s) of the text wider than the frame by " in wide[0].message
    assert (4, "image") in found
    budget = [p for p in problems if p.kind == "budget"]
    assert [p.slide for p in budget] == [5], problems  # the cell tagged slow is exempt
    assert not [p for p in problems if p.kind == "overflow"], problems
    assert (1, "notes") not in found
    for problem in problems:
        assert isinstance(problem, Problem) and str(problem).startswith("tests/fixtures/check_problems.md:")


@pytest.mark.heavy
def test_cli_check_exits_non_zero_on_problems(fixture_build, tmp_path):
    deck, outputs, nb = fixture_build("overflow.md")
    result = run_cli("check", str(deck.relative_to(ROOT)), "--out", str(outputs.root))
    assert result.returncode == 1, result.stderr
    assert "(slide 2): overflow" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_deck_passes_check(deck, built, browser):
    outputs, nb = built(deck)
    problems = check_deck(deck, nb, outputs.html, browser=browser)
    assert not problems, "\n".join(str(p) for p in problems)


def test_a_line_jupytext_would_rewrite_is_reported(write_deck):
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    deck = write_deck("# T\n\nNote: n\n\n```python  tags=['check']\nassert 1\n```\n")
    problems = notebook_problems(deck, deck_to_notebook(deck))
    assert [(p.kind, p.line) for p in problems] == [("round-trip", 5)]
    assert """jupytext writes line 5 as '```python tags=["check"]'""" in problems[0].message


def test_a_header_in_the_authors_own_key_order_is_not_a_rewrite(write_deck):
    """The write-back keeps a header as written while its keys say the same (title before author)."""
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    deck = write_deck("---\njupyter:\n  jaxdeck:\n    title: T\n    author: A\n---\n\n# T\n\nNote: n\n")
    assert notebook_problems(deck, deck_to_notebook(deck)) == []


def test_a_cell_over_budget_measured_on_a_cpu_share_says_how_to_measure_it_on_all(write_deck):
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    deck = write_deck("# Talk\n\nNote: said.\n\n```python\n6 * 7\n```\n")
    nb = deck_to_notebook(deck)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.metadata.setdefault("jaxdeck", {})["duration_s"] = 2.5
    nb.metadata["jaxdeck_build"] = {"cpu_share": [1, 2]}
    budget, = [p for p in notebook_problems(deck, nb) if p.kind == "budget"]
    assert "cell took 2.50 s, over the 2 s budget (measured on 1 of 2 CPU cores" in budget.message
    assert f"jaxdeck build --jobs 1 --no-cache {deck}" in budget.message
    del nb.metadata["jaxdeck_build"]["cpu_share"]
    budget, = [p for p in notebook_problems(deck, nb) if p.kind == "budget"]
    assert "CPU cores" not in budget.message


def test_a_setup_cell_is_not_held_to_the_budget_and_a_demo_cell_is(write_deck):
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    deck = write_deck('# Talk\n\nNote: said.\n\n```python tags=["setup"]\nimport math\n```\n\n```python\n6 * 7\n```\n')
    nb = deck_to_notebook(deck)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.metadata.setdefault("jaxdeck", {})["duration_s"] = 3.5  # `import jax` on a slow machine
    budget = [p for p in notebook_problems(deck, nb) if p.kind == "budget"]
    assert [p.line for p in budget] == [9], budget  # the demo cell's, not the setup cell's


def test_every_kind_of_problem_is_a_registered_check():
    from jaxdeck.check.deck import CHECKS, KINDS, Problem

    assert KINDS == tuple(CHECKS) and "round-trip" in KINDS
    assert {c.where for c in CHECKS.values()} == {"browser", "notebook"}
    with pytest.raises(ValueError, match="not a registered check"):
        Problem(1, "spelling", "a kind nobody registered")


def _code(lines: int, fence: str = "```python") -> str:
    return fence + "\n" + "\n".join(f"x{i} = {i}" for i in range(lines)) + "\n```\n"


@pytest.mark.parametrize("header, lines, long", [
    ("", 14, False),                                  # the default limit, met
    ("", 15, True),
    ("    max_code_lines: 16\n", 15, False),         # the header's own limit
    ("    max_code_lines: 10\n", 12, True),
])
def test_a_shown_code_cell_over_the_line_limit_is_reported_at_its_line(write_deck, header, lines, long):
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    head = f"---\njupyter:\n  jaxdeck:\n{header}    title: T\n---\n\n" if header else ""
    deck = write_deck(head + "# Talk\n\nNote: said.\n\n---\n\n## Code\n\nNote: n.\n\n" + _code(lines))
    at = deck.read_text().splitlines().index("```python") + 1
    found = [p for p in notebook_problems(deck, deck_to_notebook(deck)) if p.kind == "code-length"]
    assert [(p.slide, p.line) for p in found] == ([(2, at)] if long else []), found
    if long:
        assert f"a code cell of {lines} lines, over the deck's " in found[0].message
        assert "remove-cell" in found[0].message and "max_code_lines" in found[0].message


@pytest.mark.parametrize("fence", ['```python tags=["check"]', '```python tags=["remove-cell"]',
                                   '```python tags=["remove-input"]', '```python tags=["hide-input"]'])
def test_code_the_slide_does_not_show_has_no_line_limit(write_deck, fence):
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    deck = write_deck("# Talk\n\nNote: said.\n\n```python\nx = 1\n```\n\n" + _code(30, fence))
    assert not [p for p in notebook_problems(deck, deck_to_notebook(deck)) if p.kind == "code-length"]


def test_a_document_without_slide_markers_is_held_to_a_line_limit_only_its_header_sets(write_deck):
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    body = "# A tutorial\n\nSome prose.\n\n" + _code(20)
    deck = write_deck(body)
    assert not [p for p in notebook_problems(deck, deck_to_notebook(deck)) if p.kind == "code-length"]
    deck = write_deck("---\njupyter:\n  jaxdeck:\n    max_code_lines: 18\n---\n\n" + body)
    assert [p.kind for p in notebook_problems(deck, deck_to_notebook(deck))] == ["code-length"]


@pytest.mark.parametrize("value", ["0", "-3", "true", "12.5"])
def test_a_line_limit_that_is_not_a_positive_count_stops_the_read_at_its_line(write_deck, value):
    from jaxdeck.errors import DeckError
    from jaxdeck.read import deck_to_notebook

    deck = write_deck(f"---\njupyter:\n  jaxdeck:\n    max_code_lines: {value}\n---\n\n# T\n\nNote: n.\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 4 and "max_code_lines" in str(caught.value)


def test_a_rewritten_line_is_reported_on_its_own_slide(write_deck):
    """jupytext writes '``` python' as '```python': the note names the slide the line is on."""
    from jaxdeck.check.deck import notebook_problems
    from jaxdeck.read import deck_to_notebook

    deck = write_deck("# T\n\nNote: n\n\n---\n\n## Two\n\nNote: n\n\n---\n\n## Three\n\n``` python\nx = 1\n```\n\nNote: n\n")
    problems = [p for p in notebook_problems(deck, deck_to_notebook(deck)) if p.kind == "round-trip"]
    assert [(p.slide, p.line) for p in problems] == [(3, 15)], [str(p) for p in problems]


OVERFLOW_DECK = """---
jupyter:
  jaxdeck:
    theme: projector
---

# T

Note: n.

---

## Training loop

Some words first.

```python
for step in range(60):
    print(step)
```

Note: the output runs long.
"""


def test_an_overflow_is_reported_at_the_line_of_the_cell_that_runs_over(write_deck, tmp_path, browser):
    import nbformat

    from jaxdeck.check.deck import browser_problems, slide_lines
    from jaxdeck.html.export import export_html
    from jaxdeck.read import deck_to_notebook
    from jaxdeck.records import cell_info

    path = write_deck(OVERFLOW_DECK)
    nb = deck_to_notebook(path)
    [cell] = [c for c in nb.cells if c.cell_type == "code"]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="".join(f"{i}\n" for i in range(60)))]
    html = export_html(nb, path, tmp_path / "html" / "talk.html", fit=False)
    problems = [p for p in browser_problems(path, nb, html, browser) if p.kind == "overflow"]
    line = cell_info(cell)["line"]
    assert line != slide_lines(nb)[2]
    assert [(p.slide, p.line) for p in problems] == [(2, line)], [str(p) for p in problems]
    assert problems[0].message.startswith("the output overflows"), problems[0].message
