"""A new author's first typos in a deck's header, tags and classes: each named at its line, never silent.

Errors are one line naming file:line and what to write; an unknown tag or class is a warning (the
build shows the cell or slide as if the word were not there), an error with ``--strict`` or the
header's ``strict: true``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from support import DECKS, ROOT, run_cli
from jaxdeck.errors import DeckError, display_path
from jaxdeck.markers import CLASSES, FRAGMENT_EFFECTS, NO_NOTES, TAGS
from jaxdeck.options import DeckOptions
from jaxdeck.read.formats import write_back
from jaxdeck.read.header import check_header
from jaxdeck.read.source import check_vocabulary, read_notebook, round_trip_difference

FIXTURES = ROOT / "tests" / "fixtures"
STRICT = " (--strict makes this an error)"


def error_of(path: Path, strict: bool = False) -> DeckError:
    with pytest.raises(DeckError) as caught:
        read_notebook(path, strict=strict)
    return caught.value


def warnings_of(path: Path) -> list[str]:
    _, _, learnt = read_notebook(path)
    return learnt.warnings or []


def build_cli(folder, text: str, *options: str):
    """``jaxdeck build talk.md`` of ``text`` written in ``folder``, as a user runs it: (deck, the finished process)."""
    deck = folder / "talk.md"
    deck.write_text(text, encoding="utf-8")
    return deck, run_cli("build", str(deck), "--out", str(folder / "build"), *options, cwd=folder)


def header(*lines: str) -> str:
    return "---\njupyter:\n" + "".join(f"  {line}\n" for line in lines) + "---\n\n# Talk\n\nNote: said.\n"


def readme_header_example() -> str:
    """The header slides/README.md shows under "Header", as written there."""
    readme = (ROOT / "slides" / "README.md").read_text(encoding="utf-8")
    fence = next(t for t in MarkdownIt("commonmark").parse(readme) if t.type == "fence" and t.info.strip() == "yaml")
    return fence.content


# 1. dates and quotes, as the README writes them


def test_the_readme_header_example_reads_as_written_and_writes_back_byte_for_byte(write_deck):
    example = readme_header_example()
    assert "    date: 2026-11-22\n" in example  # a YAML date, unquoted
    text = example + "\n# JAX is not accelerated NumPy\n\nNote: said.\n"
    deck = write_deck(text)
    nb, _, _ = read_notebook(deck)
    options = DeckOptions.of(nb)
    assert (options.date, options.author, options.venue) == ("2026-11-22", "Ada Lovelace", "Seminar room 2")
    assert options.byline() == ["Ada Lovelace", "Seminar room 2", "2026-11-22"]
    assert write_back(nb, deck) == text
    assert round_trip_difference(deck) is None


@pytest.mark.parametrize("written, shown", [
    ("date: 2026-11-22", "2026-11-22"),
    ('date: "2026-12-01"', "2026-12-01"),
    ("date: '2026-12-01'", "2026-12-01"),
    ("date: 2026-11-22 10:30:00", "2026-11-22 10:30:00"),
    ("date: 2026-11-22  # the seminar", "2026-11-22"),
    ('title: "JAX: not NumPy"', None),
])
def test_a_yaml_date_or_a_double_quoted_value_is_shown_as_written_and_kept_byte_for_byte(write_deck, written, shown):
    text = header("jaxdeck:", "  author: Ada", f"  {written}")
    deck = write_deck(text)
    nb, _, _ = read_notebook(deck)
    assert DeckOptions.of(nb).date == shown
    assert nbformat.writes(nb)  # the notebook's metadata is JSON: a date is kept as its text
    assert write_back(nb, deck) == text  # what the live slideshow saves
    assert round_trip_difference(deck) is None  # what `make check` compares


def test_a_header_value_changed_in_the_notebook_is_written_the_new_way(write_deck):
    deck = write_deck(header("jaxdeck:", "  author: Ada", "  date: 2026-11-22"))
    nb, _, _ = read_notebook(deck)
    nb.metadata["jaxdeck"]["date"] = "2026-12-24"
    assert "    date: '2026-12-24'\n" in write_back(nb, deck)


def test_a_date_for_another_option_is_still_the_wrong_type(write_deck):
    deck = write_deck(header("jaxdeck:", "  title: 2026-11-22"))
    assert str(error_of(deck)) == (f"{display_path(deck)}:4: deck option 'title' has the wrong type (date); "
                                   "see slides/README.md for the deck options")


# 2. keys of the header


@pytest.mark.parametrize("typo, meant", [
    ("jaxdek", "jaxdeck"), ("Jaxdeck", "jaxdeck"), ("jaxdeck_", "jaxdeck"), ("deck", "jaxdeck"),
    ("rize", "rise"), ("kernalspec", "kernelspec"),
])
def test_a_key_under_jupyter_close_to_one_jaxdeck_reads_is_an_error_with_a_did_you_mean(write_deck, typo, meant):
    deck = write_deck(header(f"{typo}:", "  theme: projector-dark", "  title: Talk"))
    assert str(error_of(deck)) == (f"{display_path(deck)}:3: unknown key '{typo}' under 'jupyter:', "
                                   f"so what it holds is not read; did you mean '{meant}'?")


@pytest.mark.heavy
def test_the_typo_of_jaxdeck_stops_the_build_in_one_line(tmp_path):
    _, result = build_cli(tmp_path, header("jaxdek:", "  theme: projector-dark", "  title: Talk"))
    assert result.returncode == 1
    assert result.stderr.strip() == ("error: talk.md:3: unknown key 'jaxdek' under 'jupyter:', "
                                     "so what it holds is not read; did you mean 'jaxdeck'?")
    assert not (tmp_path / "build" / "html").exists()


@pytest.mark.parametrize("root, said", [
    ("jupiter:\n  jaxdeck:\n    title: T\n", "2: unknown key 'jupiter' at the header's root, so jupytext keeps it "
                                             "as text; did you mean 'jupyter'?"),
    ("jaxdeck:\n  title: T\n", "2: 'jaxdeck:' at the header's root is not read; indent it under a line "
                               "'jupyter:' (see slides/README.md, Header)"),
    ("jupyter:\n  jaxdeck:\n    title: T\nrise:\n  scroll: true\n",
     "5: 'rise:' at the header's root is not read; indent it under a line 'jupyter:' (see slides/README.md, Header)"),
])
def test_a_key_at_the_headers_root_that_belongs_under_jupyter_is_an_error(write_deck, root, said):
    deck = write_deck(f"---\n{root}---\n\n# Talk\n\nNote: said.\n")
    assert str(error_of(deck)) == f"{display_path(deck)}:{said}"


MYST = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "    format_version: 0.13\n    jupytext_version: 1.16.4\nkernelspec:\n  display_name: Python 3\n"
        "  language: python\n  name: python3\n")


def test_a_myst_header_is_checked_at_its_root(write_deck):
    deck = write_deck(MYST + "jaxdek:\n  title: T\n---\n\n# Talk\n")
    assert str(error_of(deck)) == (f"{display_path(deck)}:12: unknown key 'jaxdek' in the header, "
                                   "so what it holds is not read; did you mean 'jaxdeck'?")


def test_deck_options_in_a_myst_header_are_checked_too(write_deck):
    deck = write_deck(MYST + "jaxdeck:\n  titel: T\n---\n\n# Talk\n")
    assert str(error_of(deck)) == f"{display_path(deck)}:13: unknown deck option 'titel'; did you mean 'title'?"


def test_in_a_header_that_is_not_all_yaml_the_jupyter_block_is_checked_at_its_lines(write_deck):
    deck = write_deck("---\ntitle: [not yaml\njupyter:\n  jaxdek:\n    title: T\n---\n\n# Talk\n")
    assert error_of(deck).line == 4


def test_a_key_nothing_reads_is_a_warning_and_strict_makes_it_an_error(write_deck):
    deck = write_deck(header("jaxdeck:", "  title: Talk", "slideshow_settings:", "  zoom: 2"))
    said = (f"{display_path(deck)}:5: key 'slideshow_settings' under 'jupyter:' is not one jaxdeck, jupytext or "
            "Jupyter reads, so it does nothing; deck options go under 'jaxdeck:' (slides/README.md, Header)")
    assert warnings_of(deck) == [said + STRICT]
    assert str(error_of(deck, strict=True)) == said


def test_a_deck_option_written_beside_jaxdeck_is_a_warning(write_deck):
    deck = write_deck(header("title: Talk", "jaxdeck:", "  author: Ada"))
    assert warnings_of(deck) == [f"{display_path(deck)}:3: 'title' under 'jupyter:' is not read as a deck option, "
                                 "so it does nothing; move it under 'jaxdeck:' (slides/README.md, Header)" + STRICT]


def test_metadata_that_jupyter_writes_is_kept_without_a_word(write_deck):
    deck = write_deck(header("colab:", "  provenance: []", "jaxdeck:", "  title: Talk", "widgets:",
                             "  application/vnd.jupyter.widget-state+json:", "    state: {}"))
    assert warnings_of(deck) == []
    assert round_trip_difference(deck) is None


@pytest.mark.parametrize("key, hint", [
    ("titel", "did you mean 'title'?"), ("them", "did you mean 'theme'?"),
    ("slidenumber", "did you mean 'slide_number'?"), ("colour_scheme", "use one of: "),
])
def test_an_unknown_deck_option_says_which_was_meant(write_deck, key, hint):
    deck = write_deck(header("jaxdeck:", "  author: Ada", f"  {key}: x"))
    err = error_of(deck)
    assert str(err).startswith(f"{display_path(deck)}:5: unknown deck option '{key}'; {hint}")


# 3. how the header is closed


@pytest.mark.parametrize("closing", ["----", "-----", "--", "...", "***", "___", "- - -", "\u2014"])
def test_a_header_closed_by_anything_but_three_dashes_is_an_error_at_that_line(write_deck, closing):
    deck = write_deck(f"---\njupyter:\n  jaxdeck:\n    title: Talk\n{closing}\n\n# Talk\n\nNote: said.\n\n"
                      "---\n\n## Next\n\nNote: said.\n")
    assert str(error_of(deck)) == (f"{display_path(deck)}:5: the YAML header is closed by '{closing}'; "
                                   "close it with a line '---' (three dashes)")


@pytest.mark.heavy
def test_a_header_closed_by_four_dashes_stops_the_build(tmp_path):
    _, result = build_cli(tmp_path, "---\njupyter:\n  jaxdeck:\n    title: Talk\n----\n\n# Talk\n\nNote: said.\n\n"
                                    "---\n\n## Next\n\nNote: said.\n")
    assert result.returncode == 1
    assert result.stderr.strip() == ("error: talk.md:5: the YAML header is closed by '----'; "
                                     "close it with a line '---' (three dashes)")


def test_a_rule_under_a_first_slide_without_header_is_no_header(write_deck):
    """A file opening with '---' and no YAML above its '----' has no header: the '----' is a slide spelling."""
    from jaxdeck.read import deck_to_notebook

    with pytest.raises(DeckError) as caught:
        deck_to_notebook(write_deck("---\n\n# Talk\n\n----\n\n## Next\n"))
    err = caught.value
    assert err.line == 5 and "unknown slide break '----'" in err.message


# 4. tags and classes


@pytest.mark.parametrize("tag, meant", [
    ("chek", "check"), ("Check", "check"), ("slwo", "slow"), ("raise-exception", "raises-exception"),
    ("remove-imput", "remove-input"), ("hide_outpt", "hide_output"),
])
def test_an_unknown_cell_tag_is_a_warning_with_a_did_you_mean(write_deck, tag, meant):
    deck = write_deck(f'# Talk\n\nNote: said.\n\n```python\nx = 1\n```\n\n'
                      f'```python tags=["{tag}"]\nassert x == 1\n```\n')
    said = f"{display_path(deck)}:9: unknown cell tag '{tag}', which does nothing; did you mean '{meant}'?"
    assert warnings_of(deck) == [said + STRICT]
    assert str(error_of(deck, strict=True)) == said


def test_a_tag_like_no_other_says_where_the_tags_are_listed(write_deck):
    deck = write_deck('# Talk\n\n```python tags=["parameters"]\nx = 1\n```\n')
    assert warnings_of(deck) == [f"{display_path(deck)}:3: unknown cell tag 'parameters', which does nothing; "
                                 "use a tag slides/README.md lists (Demo cells, MyST) or remove it" + STRICT]


def test_a_myst_cells_tags_are_checked_at_its_fence(write_deck):
    deck = write_deck(MYST + "---\n\n# Talk\n\n```{code-cell}\n:tags: [hide-imput]\n\nx = 1\n```\n")
    assert warnings_of(deck) == [f"{display_path(deck)}:16: unknown cell tag 'hide-imput', which does nothing; "
                                 "did you mean 'hide-input'?" + STRICT]


def test_unknown_classes_on_a_heading_a_list_and_a_span_are_warnings_at_their_lines(write_deck):
    deck = write_deck("# Talk\n\nNote: said.\n\n---\n\n## Steps {.smaler}\n\n{.incremntal}\n- one\n- two\n\n"
                      "A line,\nthen [this]{.fragment .fade-upp}.\n\nNote: said.\n")
    where = display_path(deck)
    assert warnings_of(deck) == [
        f"{where}:7: unknown class 'smaler', which does nothing; did you mean 'smaller'?" + STRICT,
        f"{where}:9: unknown class 'incremntal', which does nothing; did you mean 'incremental'?" + STRICT,
        f"{where}:14: unknown class 'fade-upp', which does nothing; did you mean 'fade-up'?" + STRICT,
    ]


def test_the_headers_strict_makes_an_unknown_class_an_error(write_deck):
    deck = write_deck(header("jaxdeck:", "  strict: true") + "\n{.incremntal}\n- one\n- two\n")
    assert str(error_of(deck)) == (f"{display_path(deck)}:11: unknown class 'incremntal', which does nothing; "
                                   "did you mean 'incremental'?")


def test_known_tags_and_classes_and_braces_in_code_say_nothing(write_deck):
    deck = write_deck('# Talk {.smaller .no-notes}\n\n{.incremental}\n- one\n\n{.nonincremental}\n- two\n\n'
                      '{.fragment .fade-up}\nA paragraph with [words]{.fragment .highlight-red}.\n\n'
                      '## Fit {.scrollable .r-fit-text}\n\n'
                      '```python tags=["setup", "check", "slow", "raises-exception", "remove-cell", "hide-input"]\n'
                      'x = {.1}\n```\n\n```text\n{.nothing}\n```\n')
    assert warnings_of(deck) == []


@pytest.mark.heavy
def test_unknown_tags_and_classes_are_build_warnings_and_strict_build_errors(tmp_path):
    deck, built = build_cli(tmp_path, '# Talk\n\nNote: said.\n\n```python\nx = 1\n```\n\n```python tags=["chek"]\n'
                                      'assert x == 1\n```\n\n---\n\n## Steps {.smaler}\n\nNote: said.\n')
    assert built.returncode == 0, built.stderr
    assert built.stderr.splitlines() == [
        "warning: talk.md:9: unknown cell tag 'chek', which does nothing; did you mean 'check'?" + STRICT,
        "warning: talk.md:15: unknown class 'smaler', which does nothing; did you mean 'smaller'?" + STRICT,
    ]
    strict = run_cli("build", str(deck), "--out", str(tmp_path / "build"), "--strict", cwd=tmp_path)
    assert strict.returncode == 1
    assert strict.stderr.splitlines() == [  # both, in one build
        "error: talk.md:9: unknown cell tag 'chek', which does nothing; did you mean 'check'?",
        "error: talk.md:15: unknown class 'smaler', which does nothing; did you mean 'smaller'?",
        "error: talk.md: 2 errors in the deck, at lines 9, 15; fix them and build again (nothing ran)"]


# every deck the project has reads as before


DECKS_AND_FIXTURES = DECKS + sorted(p for p in FIXTURES.rglob("*.md"))


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS_AND_FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_deck_and_fixture_reads_without_a_word_about_its_header_tags_or_classes(deck, tmp_path):
    nb, lines, _ = read_notebook(deck, build=tmp_path)
    text = deck.read_text(encoding="utf-8")
    assert check_header(deck, text) == []
    assert check_vocabulary(deck, nb, lines) == []


def test_the_tags_and_classes_the_stages_read_are_in_the_one_list():
    from jaxdeck.check.deck import SETUP_TAG, SLOW_TAG
    from jaxdeck.claims import CHECK
    from jaxdeck.html.markdown import INCREMENTAL, NONINCREMENTAL
    from jaxdeck.html.myst import tags as book
    from jaxdeck.read.structure import REMOVE_CELL

    assert {CHECK, SLOW_TAG, SETUP_TAG, REMOVE_CELL, "raises-exception"} <= TAGS
    assert set().union(book._REMOVE_CELL, book._REMOVE_INPUT, book._REMOVE_OUTPUT, book._HIDE_INPUT,
                       book._HIDE_OUTPUT, book._HIDE_CELL) <= TAGS
    assert {INCREMENTAL, NONINCREMENTAL, NO_NOTES, "smaller", "scrollable", "fragment"} <= CLASSES


def test_every_fragment_effect_and_layout_helper_of_reveal_js_is_a_known_class():
    from jaxdeck.places import NODE_MODULES

    css = NODE_MODULES / "reveal.js" / "dist" / "reveal.css"
    if not css.is_file():
        pytest.skip("reveal.js is not installed here (make installs it)")
    text = css.read_text(encoding="utf-8")
    effects = set(re.findall(r"\.fragment\.([a-z][a-z0-9-]*)", text)) - {"visible", "disabled", "current-fragment"}
    helpers = {name for name in re.findall(r"\.(r-[a-z-]+)", text) if not name.startswith(("r-overlay", "r-media"))}
    assert "fade-up" in effects and "r-fit-text" in helpers
    assert effects <= FRAGMENT_EFFECTS, sorted(effects - FRAGMENT_EFFECTS)
    assert helpers <= CLASSES, sorted(helpers - CLASSES)


def test_a_myst_headers_own_title_and_date_are_kept_without_a_word(write_deck):
    deck = write_deck("---\ndate: 2026-11-22\n" + MYST.removeprefix("---\n") + "title: A tutorial\n---\n\n# Talk\n")
    nb, _, learnt = read_notebook(deck)
    assert learnt.warnings is None and nb.metadata["date"] == "2026-11-22"
    assert nbformat.writes(nb) and round_trip_difference(deck) is None
