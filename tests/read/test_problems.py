"""A deck's problems are said together: every error and warning the reader finds, in one build,
before anything runs (a first draft is fixed in one go, not one problem per build)."""

from __future__ import annotations

import pytest

from jaxdeck.errors import DeckError, DeckProblems
from jaxdeck.read import deck_to_notebook
from support import run_cli

#: a first draft with one problem of each kind, and the line each is said at
DRAFT = """---
jupyter:
  jaxdek:
    title: My talk
  jaxdeck:
    theem: dark
    duration: 20
---

# My talk

Note: hello.

- a point
---

## Two {.smaler}

![plot](images/plto.png)

```pyhton
x = 1
```

```python tags=["chek"]
assert x == 1
```

```python timeout=
x
```

***

## Three

Text.
"""
PROBLEMS = {
    3: "unknown key 'jaxdek'",
    6: "unknown deck option 'theem'",
    15: "'---' right under the block above it",
    17: "unknown class 'smaler'",
    19: "image 'images/plto.png' not found; did you mean 'images/plot.png'?",
    21: "code fence '```pyhton' is shown as a listing",
    25: "unknown cell tag 'chek'",
    29: "cannot read the code fence's metadata",
    33: "unknown slide break '***'",
}

#: the lines whose problems are warnings (the others stop the build)
WARNED = [17, 21, 25]


@pytest.fixture
def draft(write_deck):
    deck = write_deck(DRAFT)
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return deck


def test_every_problem_of_a_deck_is_said_at_its_line_at_once(draft):
    with pytest.raises(DeckProblems) as caught:
        deck_to_notebook(draft)
    said = [(e.line, str(e)) for e in caught.value.errors]
    assert [line for line, _ in said] == sorted(PROBLEMS), said
    for (line, text), expected in zip(said, PROBLEMS.values()):
        assert expected in text, (line, text)
    assert [e.line for e in caught.value.errors if e.kind == "warning"] == WARNED
    assert "6 errors and 3 warnings" in str(caught.value)


def test_strict_says_the_warnings_as_errors_in_the_same_list(draft):
    with pytest.raises(DeckProblems) as caught:
        deck_to_notebook(draft, strict=True)
    assert [e.line for e in caught.value.errors] == sorted(PROBLEMS)
    assert {e.kind for e in caught.value.errors} == {"error"}
    assert "9 errors in the deck" in str(caught.value)


@pytest.mark.parametrize("text, line", [
    ("# My talk\n\n- a point\n---\n\n## Two\n", 4),
    ("# My talk\n\n![plot](images/plto.png)\n", 3),
    ("# My talk\n\n```python timeout=\nx\n```\n", 3),
])
def test_a_deck_with_one_problem_says_it_as_it_always_was(write_deck, text, line):
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(write_deck(text))
    assert type(caught.value) is DeckError and caught.value.line == line


def test_the_build_prints_each_problem_and_runs_nothing(draft):
    done = run_cli("build", str(draft), "--out", "build", cwd=draft.parent.parent)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert [line.split(":")[2] for line in lines[:-1]] == [str(n) for n in sorted(PROBLEMS)], lines
    # each line says whether it stops the build: a warning beside the errors is said as a warning
    assert [int(line.split(":")[2]) for line in lines if line.startswith("warning: ")] == WARNED, lines
    assert lines[-1] == ("error: slides/talk.md: 6 errors and 3 warnings in the deck, at lines "
                         "3, 6, 15, 17, 19, 21, 25, 29, 33; fix them and build again (nothing ran)")
    assert not list((draft.parent.parent / "build").rglob("*.ipynb"))


def test_a_build_of_several_decks_says_each_problem_of_each(draft):
    (draft.parent / "other.md").write_text("# Other\n\n> a quote\n---\n\n## Two\n")
    done = run_cli("build", "slides/talk.md", "slides/other.md", "--out", "build", cwd=draft.parent.parent)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and lines[-1] == "error: 2 of 2 decks failed (talk, other); every other deck is built"
    assert [line.split(":")[2] for line in lines[:-3]] == [str(n) for n in sorted(PROBLEMS)], lines
    assert lines[-3].startswith("error: slides/talk.md: 6 errors and 3 warnings in the deck"), lines
    assert lines[-2].startswith("error: slides/other.md:4: '---' right under the block above it"), lines
