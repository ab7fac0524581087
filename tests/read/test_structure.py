"""Slide structure from markers, near-miss errors, and the lossless round trip."""

from __future__ import annotations

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import jupytext

from jaxdeck.read import deck_to_notebook
from jaxdeck.errors import DeckError
from jaxdeck.read.formats import jupytext_config
from jaxdeck.read.structure import NOTES, notes_by_slide, slide_count


def types(nb):
    return [(c.cell_type, c.metadata["jaxdeck"]["slide_type"]) for c in nb.cells]


def write_back(nb, deck) -> str:
    """What plain jupytext writes for the notebook (after a trip through .ipynb JSON)."""
    again = nbformat.reads(nbformat.writes(nb), as_version=4)
    return jupytext.writes(again, fmt="md", config=jupytext_config(deck))


def test_markers_become_slide_types(write_deck):
    deck = write_deck(
        "# Title\n\nintro\n\nNote: hello\n\n---\n\n## Two\n\n. . .\n\nlater\n\n"
        "```python\n1\n```\n\nNote: about two\n\n--\n\n## Down\n\n|||\n\nleft\n\n|||\n\nright\n"
    )
    nb = deck_to_notebook(deck)
    assert types(nb) == [
        ("markdown", "slide"), ("markdown", "notes"), ("markdown", "slide"), ("markdown", "fragment"),
        ("code", "-"), ("markdown", "notes"), ("markdown", "subslide"), ("markdown", "-"), ("markdown", "-"),
    ]
    assert [c.metadata["jaxdeck"]["slide"] for c in nb.cells] == [1, 1, 2, 2, 2, 2, 3, 3, 3]
    assert [c.metadata["jaxdeck"]["line"] for c in nb.cells] == [1, 5, 7, 11, 15, 19, 21, 25, 29]
    assert [c.metadata["jaxdeck"].get("column_start", False) for c in nb.cells][-2:] == [True, True]
    assert slide_count(nb) == 3
    assert notes_by_slide(nb) == {1: ["hello"], 2: ["about two"]}
    assert all(c.metadata["slideshow"]["slide_type"] == c.metadata["jaxdeck"]["slide_type"] for c in nb.cells)


@pytest.mark.parametrize("line, hint", [
    ("----", "'---'"), ("***", "'---'"), ("___", "'---'"), ("- - -", "'---'"), ("\u2014", "'---'"),
    ("...", "'. . .'"), (". .", "'. . .'"), ("||", "'|||'"), ("||||", "'|||'"),
    ("Notes: say this", "'Note:'"), ("note: say this", "'Note:'"),
])
def test_unknown_spellings_are_errors_naming_the_line(write_deck, line, hint):
    deck = write_deck(f"# Title\n\ntext\n\n{line}\n\nmore\n\n---\n\n## Two\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 5 and hint in str(caught.value)


@pytest.mark.parametrize("marker", ["---", "--"])
def test_break_directly_under_text_would_make_a_heading(write_deck, marker):
    deck = write_deck(f"# Title\n\nsome text\n{marker}\n\n## Next\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 4 and "blank line" in str(caught.value)


def test_without_markers_headings_start_slides(write_deck):
    deck = write_deck("# Title\n\nintro\n\n## One\n\ntext\n\n### Detail\n\nmore\n\n```python\n1\n```\n\n## Two\n")
    nb = deck_to_notebook(deck)
    assert [t for _, t in types(nb)] == ["slide", "slide", "subslide", "-", "slide"]
    assert write_back(nb, deck) == deck.read_text()


def test_markers_inside_code_are_code(write_deck):
    deck = write_deck('# T\n\n```python\nprint("---")\n# --\n```\n\n````markdown\n---\n--\n````\n')
    nb = deck_to_notebook(deck)
    assert slide_count(nb) == 1


def test_explicit_slideshow_metadata_wins_and_round_trips(write_deck):
    text = ("# Title\n\n---\n\n## Two\n\n"
            '<!-- #region slideshow={"slide_type": "skip"} -->\nhidden\n\n---\n\nnot cut\n<!-- #endregion -->\n\n'
            '```python slideshow={"slide_type": "fragment"}\n1\n```\n')
    deck = write_deck(text)
    nb = deck_to_notebook(deck)
    kinds = [c.metadata["jaxdeck"]["slide_type"] for c in nb.cells]
    assert kinds == ["slide", "slide", "skip", "fragment"]
    assert "slideshow" not in nb.cells[0].metadata  # derived values stay out of the write-back
    assert write_back(nb, deck) == text


CORPUS = {
    "nested fences": "# T\n\n````markdown\n```python\n---\n```\n````\n\n---\n\n## B\n\n~~~text\n--\n~~~\n",
    "rule inside code": "# T\n\n```python\nx = '''\n---\n'''\n```\n\n--\n\n## Sub\n",
    "html comments": "# T\n\n<!-- a comment\n---\nstill a comment -->\n\n---\n\n## Next <!-- inline -->\n",
    "math": "# T\n\n$$\na - b\n$$\n\n---\n\n## $\\sqrt{2}$\n\nInline $x_1 - x_2$.\n",
    "unicode": "# Ünïcødé ✓\n\nλ → ∂ ≈ 😀\n\n---\n\n## 日本語\n\nNote: 注意\n",
    "tables": "# T\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n---\n\n| x |\n|---|\n| y |\n",
    "empty slides": "# T\n\n---\n\n---\n\n--\n\n---\n\n## Last\n",
    "many blank lines": "# T\n\n\n\n---\n\n\n## B\n\n\n```python\n1\n```\n\n\n\nNote: n\n",
    "code right after break": "# T\n\n---\n\n```python\n1\n```\n\n. . .\n\n```python\n2\n```\n",
    "trailing break": "# T\n\ntext\n\n---\n",
    "header": "---\njupyter:\n  jaxdeck:\n    author: A\n    title: T\n---\n\n# T\n\n---\n\n## Two\n",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_round_trip_is_byte_identical(write_deck, name):
    deck = write_deck(CORPUS[name])
    nb = deck_to_notebook(deck)
    assert write_back(nb, deck) == CORPUS[name]


def test_slide_count_of_the_corpus():
    assert CORPUS["empty slides"].count("\n---\n") + CORPUS["empty slides"].count("\n--\n") + 1 == 5


PIECES = st.sampled_from([
    "## A heading", "Some *prose* with `code`.", "- a\n- b", "1. one\n2. two", "| a |\n| --- |\n| 1 |",
    "$$\nx^2\n$$", "<!-- comment -->", "> quote", "Unicode: λ ≈ π", "Note: speaker notes here",
    "```python\nx = 1\n```", "```python\nprint('---')\n```", '```python tags=["slow"]\n2\n```',
    "````markdown\n```python\n--\n```\n````", ". . .", "|||", "![dot](images/dot.svg)",
])
SEPARATORS = st.sampled_from(["\n\n", "\n\n\n", "\n\n---\n\n", "\n\n--\n\n", "\n\n\n---\n\n\n"])


@pytest.mark.heavy
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(st.tuples(PIECES, SEPARATORS), min_size=1, max_size=12))
def test_generated_decks_round_trip(tmp_path_factory, body):
    folder = tmp_path_factory.mktemp("gen")
    (folder / "images").mkdir()
    (folder / "images" / "dot.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    text = "# Generated\n\n" + "".join(piece + sep for piece, sep in body).rstrip("\n") + "\n"
    deck = folder / "gen.md"
    deck.write_text(text, encoding="utf-8")
    nb = deck_to_notebook(deck)
    assert write_back(nb, deck) == text
    breaks = sum(sep.count("---") + (sep.strip() == "--") for _, sep in body)
    headings = sum(piece == "## A heading" for piece, _ in body)
    assert slide_count(nb) == 1 + (breaks if breaks else headings)


def test_in_a_file_without_slide_markers_note_paragraphs_are_the_authors_prose(write_deck):
    """A tutorial says "Note: ..." to its reader: no speaker notes, no near-miss error, no notes asked for."""
    from jaxdeck.check.deck import missing_notes, slide_lines

    deck = write_deck("# Title\n\nNote: jit compiles on first call.\n\n## Next\n\nNotes: and a caveat.\n\nNOTE: shout\n")
    nb = deck_to_notebook(deck)
    assert all(c.metadata["jaxdeck"]["slide_type"] != NOTES for c in nb.cells)
    assert "Note: jit compiles" in nb.cells[0].source and "Notes: and a caveat." in nb.cells[-1].source
    assert missing_notes(deck, nb, slide_lines(nb)) == []
    marked = write_deck("# Title\n\nNote: said aloud.\n\n---\n\n## Next\n\ntext\n", name="marked.md")
    nb = deck_to_notebook(marked)
    assert [c.metadata["jaxdeck"]["slide_type"] for c in nb.cells].count(NOTES) == 1
    assert len(missing_notes(marked, nb, slide_lines(nb))) == 1  # the second slide has none


def test_a_myst_notebook_is_a_document_whose_rule_is_no_slide_break(write_deck):
    """Jupyter Book reads `---` as a transition: a MyST tutorial ending with one still gets its slides from its headings."""
    header = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
              "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n")
    nb = deck_to_notebook(write_deck(header + "# Guide\n\nIntro.\n\n## One\n\nText.\n\n## Two\n\nMore.\n\n---\n\nThe end.\n"))
    assert nb.metadata["jaxdeck_build"]["marker_mode"] is False and slide_count(nb) == 3


# a '---' right under a block: CommonMark reads it as part of the block, so it would start no slide

SWALLOWING = {
    # the list's last item takes '---' (a rule inside the item): the next slide, columns and all, ended in the notes
    "list": ("# Title\n\nNote: hello\n\n- a point\n---\n\n## Two\n\n|||\n\nleft\n\n|||\n\nright\n", 6),
    "numbered list": ("# Title\n\n1. first\n2. second\n---\n\n## Two\n\ntext\n", 5),
    "list item's text": ("# Title\n\n- a point\n  ---\n\n## Two\n\ntext\n", 4),
    "quote": ("# Title\n\n> a quote\n---\n\n## Two\n\ntext\n", 4),
    "table": ("# Title\n\n| a | b |\n| - | - |\n| 1 | 2 |\n---\n\n## Two\n\ntext\n", 6),
    "sub-slide under a list": ("# Title\n\n---\n\n## Two\n\n- a point\n--\n\n### Down\n\ntext\n", 8),
    "html": ("# Title\n\n<div>a box</div>\n---\n\n## Two\n\ntext\n", 4),
}


@pytest.mark.parametrize("text, line", SWALLOWING.values(), ids=SWALLOWING.keys())
def test_a_break_right_under_a_block_is_an_error_at_its_line(write_deck, text, line):
    deck = write_deck(text)
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == line and "leave a blank line above" in str(caught.value), str(caught.value)


@pytest.mark.parametrize("text", [t for t, _ in SWALLOWING.values()], ids=SWALLOWING.keys())
def test_with_a_blank_line_above_the_break_starts_the_slide_the_author_wrote(write_deck, text):
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip() in ("---", "--") and lines[i - 1].strip())
    lines[at] = "\n" + lines[at].strip()
    nb = deck_to_notebook(write_deck("\n".join(lines)))
    written = [line for line in lines if line.startswith("#")]
    headings = [next(line for line in c.source.split("\n") if line.startswith("#"))
                for c in nb.cells if c.metadata["jaxdeck"]["slide_type"] in ("slide", "subslide")]
    assert slide_count(nb) == len(written) and headings == written
    assert not any("|||" in said or "##" in said for said in sum(notes_by_slide(nb).values(), []))


@pytest.mark.parametrize("text", [
    "# Title\n\n```python\nx = 1\n---\ny = 2\n```\n\n---\n\n## Two\n",  # a fence's lines are code
    "# Title\n\n~~~markdown\n- a point\n---\n~~~\n\n---\n\n## Two\n",
    "# Title\n\n    - indented code\n    ---\n\n---\n\n## Two\n",
])
def test_a_break_inside_a_fence_is_text(write_deck, text):
    assert slide_count(deck_to_notebook(write_deck(text))) == 2


#: a new author's drafts, as written: a column or a pause glued to the text around it
GLUED = {
    "column under a code fence": ("# T\n\n---\n\n## Gradients\n\n```python\ngrads = 1\ngrads\n```\n|||\n"
                                  "The gradient has **the same structure** as `theta`.\n", 11, "starts no column"),
    "column under a line of text": ("# T\n\n---\n\n## A tiny model\n\nThe model is $y = w x + b$.\n|||\n"
                                    "![the parameter tree](tree.svg)\n", 8, "starts no column"),
    "pause between two lines": ("# T\n\n---\n\n## Points\n\nFirst point\n. . .\nSecond point\n", 8, "makes no pause"),
}


@pytest.mark.parametrize("text, line, says", GLUED.values(), ids=GLUED.keys())
def test_a_column_or_pause_glued_to_text_is_an_error_at_its_line(write_deck, text, line, says):
    deck = write_deck(text)
    (deck.parent / "tree.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == line and says in caught.value.message
    assert "leave a blank line above and below" in caught.value.hint


def test_a_column_or_pause_after_the_notes_ends_them_and_is_on_the_slide(write_deck):
    """Notes run to the slide's next marker: the column (or pause) after them is the slide's, as the deck
    shows it, so an author who writes the notes first loses nothing."""
    text = ("# T\n\n---\n\n## Two\n\nNote: said before the columns.\n\n|||\n\nLeft column text\n\n|||\n\n"
            "Right column text\n\n. . .\n\nLater text\n")
    nb = deck_to_notebook(write_deck(text))
    kinds = {c.source.split("\n")[-1]: c.metadata["slideshow"]["slide_type"] for c in nb.cells}
    assert kinds["Note: said before the columns."] == "notes"
    assert kinds["Left column text"] == kinds["Right column text"] == "-"
    assert kinds["Later text"] == "fragment"


def test_notes_then_a_demo_cell_then_columns_is_no_problem(write_deck):
    text = "# T\n\n---\n\n## Two\n\nNote: say.\n\n```python\n1\n```\n\n|||\n\nright\n"
    deck_to_notebook(write_deck(text))


@pytest.mark.parametrize("written", ["Speaker notes: end on time, take questions.", "**Note:** end on time."])
def test_notes_spelled_otherwise_are_a_warning_at_their_line(write_deck, written):
    deck = write_deck(f"# T\n\n---\n\n## Takeaways\n\nText.\n\n{written}\n")
    nb = deck_to_notebook(deck)
    said = nb.metadata["jaxdeck_build"]["warnings"]
    assert len(said) == 1 and f"{deck}:9:" in said[0] and "did you mean 'Note:'" in said[0]
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck, strict=True)
    assert caught.value.line == 9
