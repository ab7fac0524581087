"""Reading decks: encoding, header, fences, images and line numbers, before any kernel starts."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.read.formats import DEFAULT_JUPYTEXT_CONFIG
from jaxdeck.read.source import cell_lines, read_notebook, round_trip_difference

ROOT = Path(__file__).resolve().parents[2]


def error_of(path: Path) -> DeckError:
    with pytest.raises(DeckError) as caught:
        read_notebook(path)
    return caught.value


def test_repository_config_matches_the_built_in_defaults():
    config = tomllib.loads((ROOT / "jupytext.toml").read_text())
    assert config == DEFAULT_JUPYTEXT_CONFIG


def test_empty_file_is_an_error_on_line_1(write_deck):
    err = error_of(write_deck("  \n\n"))
    assert err.line == 1 and "empty" in err.message and "title slide" in str(err)


def test_non_utf8_file_names_the_line_of_the_bad_byte(write_deck):
    err = error_of(write_deck("# Title\n\nok\n".encode() + b"caf\xe9\n"))
    assert err.line == 4 and "UTF-8" in str(err) and "0xe9" in err.message


def test_missing_file(tmp_path):
    err = error_of(tmp_path / "nope.md")
    assert "no such deck" in str(err)


def test_invalid_yaml_header_points_at_the_line(write_deck):
    err = error_of(write_deck("---\njupyter:\n  jaxdeck:\n    title: [oops\n---\n\n# T\n"))
    assert err.line in (4, 5) and "YAML" in err.message


@pytest.mark.parametrize("entry, fixed", [
    ("title: JAX: the good parts", 'title: "JAX: the good parts"'),
    ("subtitle: a: b: c", 'subtitle: "a: b: c"'),
    ('author: Ada "the count": Lovelace', 'author: "Ada \\"the count\\": Lovelace"'),
])
def test_a_value_with_a_colon_is_told_to_be_quoted_and_the_quoted_line_reads(write_deck, entry, fixed):
    header = "---\njupyter:\n  jaxdeck:\n    {}\n---\n\n# T\n"
    err = error_of(write_deck(header.format(entry)))
    assert err.line == 4 and str(err).endswith(f"a value with ': ' in it needs quotes: write {fixed}"), str(err)
    nb, _, _ = read_notebook(write_deck(header.format(fixed), name="fixed.md"))
    key, value = entry.split(": ", 1)
    assert nb.metadata["jaxdeck"][key] == value


@pytest.mark.parametrize("header", [
    "title: 'JAX': parts",
    "title: T\n      duration: 5",  # an indented line under another: its value has no colon to quote
    "title: JAX: good # a comment",  # quoting would take the comment into the title
])
def test_other_yaml_errors_keep_the_general_advice(write_deck, header):
    err = error_of(write_deck(f"---\njupyter:\n  jaxdeck:\n    {header}\n---\n\n# T\n"))
    assert "needs quotes" not in str(err) and "close brackets and quotes" in str(err), str(err)


@pytest.mark.parametrize("text, line, problem", [
    ("---\njupyter: [\n---\n\n# x\n", 3, "expected the node content, but found '<document start>'"),
    ("---\ntitle: t\njupyter: {a: [\n---\n\n# x\n", 4, "expected the node content, but found '<document start>'"),
])
def test_a_header_jupytext_reads_whole_that_is_not_yaml_is_one_line_at_the_decks_line(write_deck, text, line, problem):
    """A header whose `jupyter:` key is not a block (an unclosed list): jupytext reads the whole deck as
    YAML, and the problem's line is the deck's, said in one line as the other header errors are."""
    err = error_of(write_deck(text))
    assert (err.line, err.message) == (line, f"invalid YAML in the header: {problem}"), str(err)
    assert len(str(err).splitlines()) == 1, str(err)


@pytest.mark.heavy
@pytest.mark.parametrize("header, line, said", [
    ("    title: " + "[" * 20000 + "]" * 20000 + "\n", 4, "nests deeper than 32 levels"),
    # nine aliases of nine aliases of nine: 412 bytes that expand to 9**9 strings
    ("    a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"    {n}: &{n} [{', '.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi")), 5,
     "aliases (*name) are not allowed"),
    ("    title: " + "x" * 70_000 + "\n", 1, "holds 68 KB, more than the 64 KB"),
])
def test_a_header_beyond_what_options_need_is_refused_in_one_line_at_once(write_deck, header, line, said):
    """A recursion, a billion laughs or a megabyte in the header: one line, no traceback, no memory spent."""
    import tracemalloc

    tracemalloc.start()
    try:
        err = error_of(write_deck("---\njupyter:\n  jaxdeck:\n" + header + "---\n\n# T\n"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert err.line == line and said in err.message and "slides/README.md" in str(err.hint), str(err)
    assert "\n" not in str(err) and peak < 50 * 2**20


def test_unknown_deck_option_lists_the_known_ones(write_deck):
    err = error_of(write_deck("---\njupyter:\n  jaxdeck:\n    titel: Talk\n---\n\n# T\n"))
    assert err.line == 4 and "titel" in err.message and "title" in str(err.hint)


def test_deck_option_of_the_wrong_type(write_deck):
    err = error_of(write_deck("---\njupyter:\n  jaxdeck:\n    width: wide\n---\n\n# T\n"))
    assert err.line == 4 and "width" in err.message


def test_unclosed_fence_points_at_its_opening_line(write_deck):
    err = error_of(write_deck("# T\n\ntext\n\n```python\nx = 1\n\n## never closed\n"))
    assert err.line == 5 and "never closed" in err.message and "```" in str(err.hint)


def test_invalid_fence_metadata(write_deck):
    err = error_of(write_deck('# T\n\n```python tags=["slow"\nx = 1\n```\n'))
    assert err.line == 3 and "metadata" in err.message


def test_missing_image(write_deck):
    err = error_of(write_deck("# T\n\n---\n\n## Pic\n\n![a chart](images/chart.png)\n"))
    assert err.line == 7 and "images/chart.png" in err.message and "not found" in err.message


def test_remote_image_that_cannot_be_fetched_is_refused_when_strict_because_decks_present_offline(write_deck):
    with pytest.raises(DeckError) as caught:  # never resolves
        read_notebook(write_deck("# T\n\n![logo](http://images.invalid/logo.png)\n"), strict=True)
    err = caught.value
    assert err.line == 3 and "network" in err.message and "download it next to the deck" in err.hint


def test_existing_image_is_fine(write_deck):
    deck = write_deck("# T\n\n![dot](images/dot.svg)\n")
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "dot.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    nb, _, _ = read_notebook(deck)
    assert nb.cells[0].source.endswith("(images/dot.svg)")


def test_cell_lines_point_at_each_cell(write_deck):
    text = "---\njupyter:\n  jaxdeck:\n    title: T\n---\n\n# T\n\n```python\n1\n```\n\nafter\n\n```python\n2\n```\n"
    nb, lines, _ = read_notebook(write_deck(text))
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "markdown", "code"]
    assert lines == [7, 9, 13, 15]
    assert cell_lines(text, nb) == lines


def test_write_back_filter_keeps_only_the_metadata_the_deck_wrote(write_deck):
    nb, _, _ = read_notebook(write_deck('# T\n\n```python tags=["slow"] timeout=5\n1\n```\n'))
    assert nb.metadata["jupytext"]["cell_metadata_filter"] == "tags,timeout,-all"


def test_jupytext_bookkeeping_keys_follow_jupytext():
    """The keys jaxdeck leaves to jupytext are jupytext's own list (a private name, so checked here)."""
    from jupytext.cell_metadata import _JUPYTEXT_CELL_METADATA

    from jaxdeck.read.formats import JUPYTEXT_CELL_KEYS

    assert set(JUPYTEXT_CELL_KEYS) == set(_JUPYTEXT_CELL_METADATA)


def test_a_header_whose_root_is_not_yaml_is_read_as_jupytext_reads_it(write_deck):
    """Text between '---' lines beside a `jupyter:` block is a raw cell to jupytext, never YAML:
    the deck reads, its first cell is that raw text, and it writes back byte for byte."""
    import jupytext

    text = ("---\nlayout: post\ntitle: Arrays: a first look\njupyter:\n  jupytext:\n    text_representation:\n"
            "      extension: .md\n      format_name: markdown\n      format_version: '1.3'\n"
            f"      jupytext_version: {jupytext.__version__}\n---\n\n# A heading\n\nText.\n")
    deck = write_deck(text)
    nb, _, _ = read_notebook(deck)
    assert nb.cells[0].cell_type == "raw" and "title: Arrays: a first look" in nb.cells[0].source
    assert [c.cell_type for c in jupytext.reads(text, fmt="md").cells] == [c.cell_type for c in nb.cells]
    assert round_trip_difference(deck) is None
    broken = write_deck("---\njupyter:\n  jaxdeck: [unclosed\n---\n\n# T\n", name="broken.md")
    assert "invalid YAML in the header" in str(error_of(broken))  # the part jupytext reads still must parse


# a fence whose language is not the kernel's is a listing: one that meant Python is a warning at its line

def fence_deck(info: str) -> str:
    return f"# Title\n\nNote: said.\n\n---\n\n## Demo\n\n```{info}\nx = 1\nx + 1\n```\n"


@pytest.mark.parametrize("info", ["pyhton", "pytohn", "py", "Python", "ipython", "ipython3", "py3", "{python}",
                                  "pyhton tags=[\"check\"]"])
def test_a_fence_that_meant_python_is_a_warning_naming_what_runs(write_deck, info):
    deck = write_deck(fence_deck(info))
    nb, _, learnt = read_notebook(deck)
    assert [c.cell_type for c in nb.cells].count("code") == 0  # jupytext left it a listing
    said = learnt.warnings or []
    written = info.split()[0]
    assert len(said) == 1 and said[0].startswith(f"{deck}:9: code fence '```{written}' is shown as a listing "
                                                  "and never runs; write '```python' to run it"), said
    with pytest.raises(DeckError) as caught:
        read_notebook(deck, strict=True)
    assert caught.value.line == 9 and "'```python'" in str(caught.value)


@pytest.mark.parametrize("info", ["python", "python3", "text", "console", "pycon", "cython", "bash", "markdown",
                                  "json", "yaml", "c++", ""])
def test_a_fence_of_another_language_is_a_listing_said_nothing_of(write_deck, info):
    _, _, learnt = read_notebook(write_deck(fence_deck(info)))
    assert not learnt.warnings


def test_a_fence_left_unclosed_before_the_notes_is_an_error_at_its_line(write_deck):
    # a draft's slide whose fence was never closed: the next slide's fence would close it
    text = ("# T\n\n---\n\n## Setup\n\n```python\nimport jax\n\nNote: Imports only.\n\n---\n\n## Two\n\n"
            "```python\nx = 1\n```\n")
    with pytest.raises(DeckError) as caught:
        read_notebook(write_deck(text))
    assert caught.value.line == 7 and "left unclosed" in caught.value.message
    assert "'Note: Imports only.' at line 10" in caught.value.message and "line 16" in caught.value.message


def test_a_fence_whose_code_shows_a_fence_in_a_string_is_read(write_deck):
    text = '# T\n\n```python\ndoc = """\n---\n```text\nx\n"""\n```\n'
    nb, _, _ = read_notebook(write_deck(text))
    assert [c.cell_type for c in nb.cells] == ["markdown", "code"]
