"""The one Markdown engine: what slides, MyST cells and notes render with, and that decks keep their HTML."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from support import DECKS, ROOT, deck_id
from jaxdeck.html import markdown, myst
from jaxdeck.html.export import exporter
from jaxdeck.pdf.export import render_notes
from jaxdeck.read import deck_to_notebook


def nbconvert_markdown(text: str) -> str:
    """nbconvert's own Markdown filter (mistune) as the exporter ran it before: the HTML decks had,
    but for the delimiters of math (``\\(...\\)`` and ``\\[...\\]`` where nbconvert kept the dollars)."""
    html = MarkdownWithMath(renderer=IPythonRenderer(escape=False, exclude_anchor_links=True)).render(text)
    html = re.sub(r"\$\$(.+?)\$\$", lambda m: f"\\[{m[1]}\\]", html, flags=re.S)
    return re.sub(r"\$(.+?)\$", lambda m: f"\\({m[1]}\\)", html, flags=re.S)


def test_every_view_renders_with_the_one_engine():
    assert exporter().environment.filters["markdown2html"] is markdown.render
    assert myst.render is markdown.render and myst._MD is markdown.PARSER
    note = "| a | b |\n|---|---|\n| 1 | {func}`jax.jit` |"
    assert render_notes([note]) == markdown.render(note)


@pytest.mark.heavy
@pytest.mark.parametrize("first", ["jaxdeck.html.markdown", "jaxdeck.html.myst", "jaxdeck.pdf.export"])
def test_the_engine_and_myst_import_in_either_order(first):
    """jaxdeck.html.markdown puts MyST's plugin on its parser, and the MyST package renders with that parser."""
    code = (f"import {first}\nfrom jaxdeck.html import markdown, myst\n"
            "assert myst._MD is markdown.PARSER\n"
            "assert 'myst-role' in markdown.render('{func}`jax.jit`')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


#: Markdown whose HTML is nbconvert's byte for byte (the cells of slides/ are checked below)
AS_BEFORE = [
    "## A heading, no anchor",
    "A [link](https://jax.dev) and `jnp.dot(a, b)`, a\nsoft break & an <span>inline</span> tag, **bold** *em*",
    "![The build stages](images/example-stages.svg)",
    '<div class="jd-box">raw <b>HTML</b> stays</div>\n\nand *text* after it',
    "<!-- an HTML comment -->\nText",
    "1. first\n2. second\n\n> quoted *words*\n\n- a\n- b",
    "| op | time |\n|:---|---:|\n| `jit` | ~~9~~ 1 ms |\n",
    "Inline $a_1 * b_2$ and $\\;\\partial f/\\partial x$, then\n\n$$\n\\frac{1}{n} \\sum_i x_i < y\n$$\n",
    "```python\nx = {'a': 1}  # a comment\nprint(x < 2)\n```",
    "```c\nint sum(int n) { return n; }\n```",
    "```\nno language\n```",
    "---\n\n## Title\n\nText",
]


@pytest.mark.parametrize("text", AS_BEFORE)
def test_markdown_renders_as_nbconvert_did(text):
    assert markdown.render(text) == nbconvert_markdown(text)


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_cell_of_the_decks_in_slides_renders_as_before(deck, tmp_path):
    cells = [c.source for c in deck_to_notebook(deck, tmp_path).cells if c.cell_type == "markdown"]
    assert cells
    for source in cells:  # a cell with attributes ({.incremental}, {.smaller}) renders what nbconvert never did
        if not markdown.uses_attributes(source):
            assert markdown.render(source) == nbconvert_markdown(source), source


def test_fenced_code_is_highlighted_by_pygments_with_the_themes_classes():
    html = markdown.render("```python\nimport jax\n```")
    assert html.startswith('<div class="highlight"><pre><span></span><span class="kn">import</span>')


def test_a_fence_in_a_language_pygments_lacks_is_code_without_its_name():
    """nbconvert wrote the language name as the first line of the code; the code is shown as written."""
    assert markdown.render("```nosuchlang\nx = 1\n```") == '<pre><code class="language-nosuchlang">x = 1\n</code></pre>\n'


def test_money_is_not_math_and_math_is_not_emphasis():
    assert markdown.render("It costs $5 and $10.") == "<p>It costs $5 and $10.</p>\n"
    assert markdown.render("$a_1 * b_2$ and $$c_1 * d_2$$") == "<p>\\(a_1 * b_2\\) and \\[c_1 * d_2\\]</p>\n"


def test_a_table_and_a_role_render_anywhere():
    html = markdown.render("| a | b |\n|---|---|\n| {func}`~jax.numpy.dot` | ~~x~~ |")
    assert '<td><code class="myst-role func">dot</code></td>' in html and "<del>x</del>" in html
    assert "|" not in html and "{func}" not in html


MONEY_DECK = """---
jupyter:
  jaxdeck:
    theme: projector
---

# Money and math

That costs $0 extra code and $0 extra thought.

It costs $5, and $x$ is math.

$$x$$
"""
TYPESET = """() => [...document.querySelectorAll('.reveal .slides section p')].map(p => ({
  text: p.textContent, inline: p.querySelectorAll('.katex').length,
  display: p.querySelectorAll('.katex-display').length}))"""


def test_money_is_text_by_pandocs_rule_and_math_has_delimiters_of_its_own():
    """A `$` that opens math has a non-space after it; one that closes it a non-space before it and
    no digit after it (Pandoc's rule); math is written between ``\\(...\\)`` or ``\\[...\\]``."""
    sentence = "That costs $0 extra code and $0 extra thought."
    assert markdown.render(sentence) == f"<p>{sentence}</p>\n"
    assert markdown.render("costs $5 and $x$") == "<p>costs $5 and \\(x\\)</p>\n"
    assert markdown.render("a $ x $ b") == "<p>a $ x $ b</p>\n"
    assert markdown.render("$a<b$ and $$c$$") == "<p>\\(a&lt;b\\) and \\[c\\]</p>\n"
    assert markdown.render("$$\nx\n$$") == "<p>\\[\nx\n\\]</p>\n"


def test_money_on_a_slide_is_not_typeset_by_katex_in_the_browser(write_deck, tmp_path, browser):
    from jaxdeck.pages import open_deck
    from jaxdeck.html.export import export_html

    path = write_deck(MONEY_DECK)
    html = export_html(deck_to_notebook(path), path, tmp_path / "html" / "talk.html", fit=False)
    with open_deck(browser, html) as (page, _):
        seen = page.evaluate(TYPESET)
    money, mixed, display = seen
    assert money == {"text": "That costs $0 extra code and $0 extra thought.", "inline": 0, "display": 0}, seen
    assert mixed["text"].startswith("It costs $5, and ") and mixed["inline"] == 1 and mixed["display"] == 0, seen
    assert display["display"] == 1, seen
