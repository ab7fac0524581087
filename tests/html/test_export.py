"""Exporting to reveal.js HTML: slide markup, escaping, offline assets, widget fallbacks."""

from __future__ import annotations

import re

import nbformat
import pytest

from jaxdeck.read import deck_to_notebook
from jaxdeck.errors import DeckError
from jaxdeck.html.export import export_html, to_html

DECK = ("# Title\n\nintro\n\nNote: first note\n\n---\n\n## Two\n\n. . .\n\nlater\n\n```python\nprint('x')\n```\n\n"
        "Note: second note\n\nNote: more of it\n\n--\n\n## Down\n\n|||\n\nleft\n\n|||\n\nright\n")


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


def test_the_template_writes_reveal_initialize_with_the_deck_options_and_plugins(write_deck):
    nb = deck_to_notebook(write_deck("---\njupyter:\n  jaxdeck:\n    height: 1080\n    width: 1920\n---\n\n# T\n"))
    script = to_html(nb).split("Reveal.initialize(", 1)[1].split(").then(", 1)[0]
    assert '"width": 1920' in script and '"height": 1080' in script and '"slideNumber": "c/t"' in script
    assert "plugins: plugins" in script and '"plugins"' not in script
    html = to_html(nb)
    assert "var plugins = [RevealNotes, RevealHighlight];" in html
    assert "plugins.push(RevealSearch, RevealZoom, RevealMenu)" in html and "plugins.push(RevealChalkboard)" in html


@pytest.mark.heavy
def test_the_title_comes_from_the_header_else_the_file_name(write_deck, tmp_path):
    titled = write_deck("---\njupyter:\n  jaxdeck:\n    title: A <talk>\n---\n\n# T\n")
    assert "<title>A &lt;talk&gt;</title>" in export_html(deck_to_notebook(titled), titled, tmp_path / "a.html").read_text()
    plain = write_deck("# T\n", name="plain-talk.md")
    assert "<title>plain-talk</title>" in export_html(deck_to_notebook(plain), plain, tmp_path / "b.html").read_text()
    assert "<title>Slides</title>" in to_html(deck_to_notebook(plain))
