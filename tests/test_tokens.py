"""A cell's Markdown is parsed once per parser and text, and every caller reads the same tokens."""

from __future__ import annotations

from markdown_it import MarkdownIt

from jaxdeck.tokens import parsed


def test_the_same_text_is_parsed_once_per_parser_and_each_parser_keeps_its_own_reading():
    plain, tables = MarkdownIt("commonmark"), MarkdownIt("commonmark").enable("table")
    text = "## Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    first = parsed(plain, text)
    assert parsed(plain, text) is first  # the second reader takes the first parse
    assert [t.type for t in first] == [t.type for t in plain.parse(text)]
    assert "table_open" not in {t.type for t in first}
    assert "table_open" in {t.type for t in parsed(tables, text)}  # another parser: a parse of its own
    assert parsed(plain, text + "\nMore.\n") is not first
