"""Exporting to reveal.js HTML: slide markup, escaping, offline assets, widget fallbacks."""

from __future__ import annotations

import re

import nbformat
import pytest

from jaxdeck.read import deck_to_notebook
from jaxdeck.errors import DeckError
from jaxdeck.html.export import export_html, to_html
from jaxdeck.html.layout import layout

DECK = ("# Title\n\nintro\n\nNote: first note\n\n---\n\n## Two\n\n. . .\n\nlater\n\n```python\nprint('x')\n```\n\n"
        "Note: second note\n\nNote: more of it\n\n--\n\n## Down\n\n|||\n\nleft\n\n|||\n\nright\n")


def test_layout_nests_sections_fragments_and_columns(write_deck):
    nb = layout(deck_to_notebook(write_deck(DECK)))
    markup = "".join(c.metadata["jd_open"] + "[%s]" % c.metadata["jaxdeck"]["slide_type"] + c.metadata["jd_close"]
                     for c in nb.cells)
    assert markup == (
        '<section><section data-jd-slide="1">[slide][notes]'
        '</section></section><section><section data-jd-slide="2">[slide]<div class="fragment">[fragment][-][notes][skip]'
        '</div></section><section data-jd-slide="3">[subslide]<div class="jd-columns"><div class="jd-column">[-]'
        '</div><div class="jd-column">[-]</div></div></section></section>'
    )


def test_layout_strips_markers_and_gathers_notes(write_deck):
    nb = layout(deck_to_notebook(write_deck(DECK)))
    sources = [c.source for c in nb.cells]
    assert sources[2] == "## Two" and sources[3] == "later" and sources[1] == "first note"
    assert sources[5] == "second note\n\nmore of it"


def test_html_has_one_section_per_slide_and_notes_asides(write_deck):
    html = to_html(deck_to_notebook(write_deck(DECK)))
    assert html.count('data-jd-slide="') == 3
    assert html.count('<aside class="notes">') == 2
    assert "first note" in html and "more of it" in html


def test_output_text_is_escaped(write_deck):
    nb = deck_to_notebook(write_deck("# T\n\n```python\nprint('<script>alert(1)</script> & co')\n```\n"))
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="<script>alert(1)</script> & co\n"),
                           nbformat.v4.new_output("execute_result", data={"text/plain": "<b>bold</b>"}, execution_count=1)]
    html = to_html(nb)
    body = html[html.index('<div class="slides">'):]
    assert "<script>alert(1)</script>" not in body.replace("print(", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in body
    assert "&lt;b&gt;bold&lt;/b&gt;" in body


def test_widget_outputs_keep_their_static_fallback_only(write_deck):
    nb = deck_to_notebook(write_deck("# T\n\n```python\nw\n```\n"))
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb.cells[1].outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2, "version_minor": 0},
        "text/html": "<p class='fallback'>static chart</p>", "text/plain": "Explorer"})]
    html = to_html(nb)
    assert "static chart" in html and "widget-view" not in html and "model_id" not in html


def test_no_remote_urls_are_loaded(write_deck, tmp_path):
    deck = write_deck(DECK)
    out = export_html(deck_to_notebook(deck), deck, tmp_path / "html" / "talk.html")
    html = out.read_text()
    loaded = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert loaded and all(not url.startswith(("http:", "https:", "//")) for url in loaded)
    for url in loaded:
        if url.startswith("assets/"):
            assert (out.parent / url).is_file(), url


def test_unknown_theme_lists_the_known_ones(write_deck):
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(write_deck("---\njupyter:\n  jaxdeck:\n    theme: neon\n---\n\n# T\n"))
    assert caught.value.line == 4 and "neon" in str(caught.value) and "projector" in str(caught.value)


def test_builtin_reveal_theme_is_accepted(write_deck):
    nb = deck_to_notebook(write_deck("---\njupyter:\n  jaxdeck:\n    theme: black\n---\n\n# T\n"))
    assert "assets/reveal.js/dist/theme/black.css" in to_html(nb)


def test_title_slide_shows_where_the_outputs_were_measured(write_deck):
    nb = deck_to_notebook(write_deck("# T\n\ntext\n"))
    nb.metadata["jaxdeck_build"] = {"provenance": {"backend": "gpu", "device_kind": "NVIDIA H100", "device_count": 1,
                                                   "jax": "0.10.2", "executed_at": "2026-11-20T10:00:00+00:00"}}
    html = to_html(nb)
    assert "Outputs measured on NVIDIA H100 (gpu) · jax 0.10.2 · 2026-11-20" in html
