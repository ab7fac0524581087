"""MyST Markdown and Jupyter Book tags: HTML for the static deck, Markdown for the live talk."""

from __future__ import annotations

import pathlib
import re

import nbformat
import pytest
from markdown_it import MarkdownIt

from jaxdeck.html.myst import ADMONITIONS, CellView, cell_view, has_myst, live_markdown, render

ROOT = pathlib.Path(__file__).resolve().parents[2]


def commonmark(text: str) -> str:
    return MarkdownIt("commonmark").render(text)


def text_of(html: str) -> str:
    """The visible text of some HTML (tags dropped)."""
    return re.sub(r"<[^>]+>", "", html)


# ----------------------------------------------------------------------------- roles

@pytest.mark.parametrize("source, expected", [
    ("{func}`jax.jit`", '<code class="myst-role func">jax.jit</code>'),
    ("{func}`~jax.numpy.dot`", '<code class="myst-role func">dot</code>'),
    ("{class}`jax.Array`", '<code class="myst-role class">jax.Array</code>'),
    ("{meth}`jax.Array.block_until_ready`", '<code class="myst-role meth">jax.Array.block_until_ready</code>'),
    ("{mod}`jax.numpy`", '<code class="myst-role mod">jax.numpy</code>'),
    ("{obj}`!jax.lax.scan`", '<code class="myst-role obj">jax.lax.scan</code>'),
    ("{py:func}`~jax.vmap`", '<code class="myst-role py:func">vmap</code>'),
    ("{func}`the jit <jax.jit>`", '<code class="myst-role func">the jit</code>'),
    ("{doc}`aot`", '<em class="myst-role doc">aot</em>'),
    ("{ref}`jax-201-jit`", '<em class="myst-role ref">jax-201-jit</em>'),
    ("{ref}`the JIT section <jax-201-jit>`", '<em class="myst-role ref">the JIT section</em>'),
    ("{numref}`Figure %s <fig-x>`", '<em class="myst-role numref">Figure fig-x</em>'),
    ("{math}`e^{i\\pi} < 1`", '<span class="math inline">\\(e^{i\\pi} &lt; 1\\)</span>'),
    ("{sub}`2`", '<sub class="myst-role">2</sub>'),
    ("{abbr}`XLA (Accelerated Linear Algebra)`", '<abbr class="myst-role" title="Accelerated Linear Algebra">XLA</abbr>'),
    ("{someday}`x < y`", '<code class="myst-role someday">x &lt; y</code>'),
])
def test_role_renders_as_code_emphasis_or_math(source, expected):
    html = render(f"See {source} here.")
    assert html == f"<p>See {expected} here.</p>\n"


def test_role_never_leaves_braces_or_backticks():
    html = render("Use {func}`jax.jit`, {doc}`aot` and {ref}`x <y>` together.")
    assert "{" not in html and "`" not in html


# --------------------------------------------------------------------- hidden blocks

@pytest.mark.parametrize("source, hidden", [
    ("(jax-201-jit)=\n# Just in time\n", "jax-201-jit"),
    ("Text\n\n% a private comment\n\nMore\n", "private comment"),
    ("Text\n\n+++ {\"slideshow\": 1}\n\nMore\n", "slideshow"),
])
def test_targets_comments_and_breaks_show_nothing(source, hidden):
    html = render(source)
    assert hidden not in html
    assert "<hr" not in html and "=" not in text_of(html)
    assert text_of(html).strip()  # the rest of the cell is still there


def test_target_before_heading_keeps_the_heading():
    assert render("(jax-201-jit)=\n# Just in time\n") == "<h1>Just in time</h1>\n"


# ----------------------------------------------------------------------- admonitions

NAMED = sorted(name for name in ADMONITIONS if name != "admonition")


@pytest.mark.parametrize("fence", ["```", ":::"])
@pytest.mark.parametrize("name", NAMED)
def test_admonition_is_a_titled_box_with_rendered_body(name, fence):
    html = render(f"{fence}{{{name}}}\nMind the **gap** and `x`.\n{fence}\n")
    assert html == (f'<div class="admonition {name}">\n<p class="admonition-title">{ADMONITIONS[name]}</p>\n'
                    "<p>Mind the <strong>gap</strong> and <code>x</code>.</p>\n</div>\n")


def test_admonition_with_title_argument_and_class():
    html = render("```{admonition} Why *jit*?\n:class: tip\n\nIt compiles.\n```\n")
    assert html.startswith('<div class="admonition tip">\n<p class="admonition-title">Why <em>jit</em>?</p>\n')
    assert "<p>It compiles.</p>" in html and ":class:" not in html


def test_admonition_argument_is_its_first_line():
    html = render("```{warning} Arrays are immutable.\nUse `.at[]`.\n```\n")
    assert '<p class="admonition-title">Warning</p>' in html
    assert "<p>Arrays are immutable.\nUse <code>.at[]</code>.</p>" in html


def test_nested_admonitions_and_roles_inside():
    html = render("````{note}\nOuter {func}`jax.jit`.\n\n```{tip}\nInner.\n```\n````\n")
    assert html.count('<div class="admonition') == 2
    assert '<div class="admonition tip">' in html and '<code class="myst-role func">jax.jit</code>' in html
    assert "```" not in html


def test_dropdown_class_makes_a_closed_details():
    html = render(":::{note}\n:class: dropdown\nHidden until clicked.\n:::\n")
    assert html.startswith('<details class="admonition note dropdown"><summary class="admonition-title">Note</summary>')


# ------------------------------------------------------------------------------ math

def test_math_directive_is_display_math():
    html = render("```{math}\n:label: eq-sum\n\\sum_i x_i < 1\n```\n")
    assert html == '<div class="math block">\n\\[\\sum_i x_i &lt; 1\\]\n</div>\n'


def test_dollar_math_is_written_for_katex_as_the_math_role_is():
    html = render("Inline $a_1 * b_2$ here.\n\n$$\nx^2\n$$\n")
    assert html == "<p>Inline \\(a_1 * b_2\\) here.</p>\n<p>\\[\nx^2\n\\]</p>\n"
    assert "<em>" not in html  # underscores inside math are not emphasis


def test_labelled_display_math_shows_no_label():
    html = render("$$\nx\n$$ (eq-x)\n")
    assert html == "<p>\\[\nx\n\\]</p>\n" and "¶" not in html


def test_money_is_not_math():
    assert render("It costs $5 and $10.") == commonmark("It costs $5 and $10.")


# ---------------------------------------------------------------- other directives

@pytest.mark.parametrize("name", ["code-block", "code"])
def test_code_directive_is_a_fence(name):
    html = render(f"```{{{name}}} python\n:linenos:\n:emphasize-lines: 1\nprint('hi')\n```\n")
    assert html == render("```python\nprint('hi')\n```\n") and html.startswith('<div class="highlight">')


def test_unknown_directive_renders_its_body_in_a_div():
    html = render(":::{margin} Aside\nSome **bold** text.\n:::\n")
    assert html == ('<div class="directive margin">\n<p class="directive-title">Aside</p>\n'
                    "<p>Some <strong>bold</strong> text.</p>\n</div>\n")


def test_toctree_shows_nothing():
    assert render("```{toctree}\n:maxdepth: 2\n\nintro\n```\n") == ""


def test_colon_lines_that_name_no_directive_stay_commonmark():
    source = "::: not a directive\ntext\n:::\n"
    assert render(source) == commonmark(source)


# -------------------------------------------------------------- CommonMark unchanged

REAL_CELLS = [
    # cells as they are written in slides/*.md
    "## A demo cell",
    "One Markdown file becomes a live slideshow, an offline HTML deck and PDFs.",
    "![The build stages](images/example-stages.svg)",
    "- The first point is there at once",
    "Below the previous slide (`--`), for details you may skip.",
    "**Left:** text, lists, math such as an inline formula.\n\n- unicode works: λ, ∂, ≈, →",
    "<div class=\"jd-box\">raw <b>HTML</b> stays</div>\n\nand *text* after it",
    "A [link](https://jax.readthedocs.io) and `jnp.dot(a, b)` and a\nsoft break & an <span>inline</span> tag",
    "1. first\n2. second\n\n> quoted *words*\n\n    indented code\n",
]


@pytest.mark.parametrize("cell", REAL_CELLS)
def test_plain_cells_use_no_myst(cell):
    assert not has_myst(cell)  # how they render: tests/html/test_markdown.py


def _deck_bodies():
    decks = sorted((ROOT / "slides").glob("*.md"))
    return [pytest.param(path, id=path.name) for path in decks if path.name != "README.md"]


@pytest.mark.parametrize("path", _deck_bodies())
def test_no_deck_in_slides_uses_myst(path):
    text = path.read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
    assert not has_myst(body)


def test_the_sample_decks_exist():
    assert len(_deck_bodies()) >= 3


# --------------------------------------------------------------------------- has_myst

@pytest.mark.parametrize("source", [
    "Use {func}`jax.jit`.",
    "(label)=\n# Heading",
    "% comment\ntext",
    "+++\n",
    "```{note}\nx\n```",
    ":::{tip}\nx\n:::",
    "```{math}\nx\n```",
    "> - ```{warning}\n>   nested\n>   ```",
    "| a |\n|---|\n| {code}`x` |",
])
def test_has_myst_true(source):
    assert has_myst(source)


@pytest.mark.parametrize("source", [
    "# Plain",
    "Use `jax.jit` and {braces} and (parens)= inline.",
    "```python\nd = {'a': 1}\n```",
    "::: columns\ntext\n:::",
    "Math $x^2$ and $$y$$ stays plain.",
    "    {func}`indented code`",
    "`{func}` in code",
    "",
])
def test_has_myst_false(source):
    assert not has_myst(source)


# ------------------------------------------------------------------------ cell_view

def _code_cell(tags=(), **jupyter):
    cell = nbformat.v4.new_code_cell("x = 1", metadata={"tags": list(tags)})
    if jupyter:
        cell.metadata["jupyter"] = jupyter
    return cell


@pytest.mark.parametrize("tags, expected", [
    ((), CellView()),
    (("remove-cell",), CellView(removed=True)),
    (("remove_cell",), CellView(removed=True)),
    (("remove-input",), CellView(show_input=False)),
    (("remove-output",), CellView(show_output=False)),
    (("hide-input",), CellView(input_collapsed=True)),
    (("hide-output",), CellView(output_collapsed=True)),
    (("hide-cell",), CellView(input_collapsed=True, output_collapsed=True)),
    (("raises-exception",), CellView()),  # how a cell runs, not how it shows
    (("remove-input", "hide-output", "raises-exception", "slow"),
     CellView(show_input=False, output_collapsed=True)),
])
def test_cell_view_from_tags(tags, expected):
    assert cell_view(_code_cell(tags)) == expected
    assert cell_view({"metadata": {"tags": list(tags)}}) == expected


@pytest.mark.parametrize("jupyter, expected", [
    ({"source_hidden": True}, CellView(input_collapsed=True)),
    ({"outputs_hidden": True}, CellView(output_collapsed=True)),
    ({"source_hidden": False, "outputs_hidden": False}, CellView()),
])
def test_cell_view_from_jupyterlab_collapse(jupyter, expected):
    assert cell_view(_code_cell(**jupyter)) == expected


def test_cell_view_without_metadata_and_slide_visibility():
    assert cell_view({}) == CellView()
    assert cell_view(nbformat.v4.new_markdown_cell("x")) == CellView()
    view = cell_view(_code_cell(["hide-input", "remove-output"]))
    assert not view.input_on_slide and not view.output_on_slide
    assert not cell_view(_code_cell(["remove-cell"])).input_on_slide
    plain = cell_view(_code_cell())
    assert plain.input_on_slide and plain.output_on_slide


def test_cell_view_is_frozen():
    with pytest.raises(AttributeError):
        CellView().removed = True  # type: ignore[misc]


# ---------------------------------------------------------------------- live Markdown

LIVE_SAMPLE = """(jax-201-jit)=
# Just in time

% a comment
Use {func}`jax.jit` and {func}`~jax.numpy.dot`, see {doc}`aot`.

```{note}
A **bold** body with {math}`x_1`.
```

:::{admonition} Careful
:class: warning
Really *careful*.
:::

```{math}
a^2 + b^2 = c^2
```

$$
E = mc^2
$$ (eq-e)

```{code-block} python
print("hi")
```
"""


def test_live_markdown_has_no_myst_left():
    live = live_markdown(LIVE_SAMPLE)
    assert not has_myst(live)
    for raw in ("{func}", "{doc}", "{math}", "(jax-201-jit)=", "% a comment", "{note}", ":::", "(eq-e)",
                "{code-block}"):
        assert raw not in live


def test_live_markdown_keeps_the_markdown_body():
    live = live_markdown(LIVE_SAMPLE)
    assert live.startswith("# Just in time\n")
    assert "Use `jax.jit` and `dot`, see *aot*." in live
    assert ('<div class="admonition note">\n<p class="admonition-title">Note</p>\n\n'
            "A **bold** body with $x_1$.\n\n</div>") in live
    assert '<div class="admonition warning">\n<p class="admonition-title">Careful</p>\n\nReally *careful*.\n\n</div>' in live
    assert "$$\na^2 + b^2 = c^2\n$$" in live and "$$\nE = mc^2\n$$" in live
    assert '```python\nprint("hi")\n```' in live


def test_live_markdown_body_renders_as_markdown_inside_the_box():
    """A CommonMark renderer (as JupyterLab's is) renders the admonition's body as Markdown."""
    html = commonmark(live_markdown("```{tip}\nA **bold** tip.\n```\n"))
    assert html == ('<div class="admonition tip">\n<p class="admonition-title">Tip</p>\n'
                    "<p>A <strong>bold</strong> tip.</p>\n</div>\n")


@pytest.mark.parametrize("cell", REAL_CELLS + ["Math $x^2$ stays.", "```python\nx = {'a': 1}\n```\n"])
def test_live_markdown_leaves_plain_cells_unchanged(cell):
    assert live_markdown(cell) == cell


def test_live_markdown_in_containers_keeps_their_prefix():
    live = live_markdown("> Quote with {func}`jax.jit`\n> % hidden\n> more\n>\n> ```{note}\n> Inside.\n> ```\n")
    html = commonmark(live)
    assert html.startswith("<blockquote>\n<p>Quote with <code>jax.jit</code></p>\n<p>more</p>\n")
    assert '<div class="admonition note">' in html and "<p>Inside.</p>" in html
    assert html.rstrip().endswith("</blockquote>")


def test_live_markdown_roles_in_tables_and_code_spans():
    live = live_markdown("| fn | doc |\n|---|---|\n| {func}`jax.jit` | {ref}`x_y <x>` |\n\nKeep `{func}` text.\n")
    assert "| `jax.jit` | *x\\_y* |" in live
    assert "Keep `{func}` text." in live


def test_live_markdown_removed_lines_leave_no_stray_blank_lines():
    assert live_markdown("(x)=\n# H\n") == "# H\n"
    assert live_markdown("a\n% c\nb\n") == "a\n\nb\n"
    assert live_markdown("```{toctree}\nintro\n```\n") == ""


# ------------------------------------------------------------------------------- CSS

def test_css_styles_every_admonition_and_collapsed_parts():
    css = (ROOT / "themes/jaxdeck/static/myst.css").read_text(encoding="utf-8")
    for name in NAMED:
        assert re.search(rf"\.admonition\.{name}\b", css) or name == "note", name
    for selector in (".admonition-title", "details.jd-collapsed", "border-left"):
        assert selector in css


def test_live_markdown_dropdowns_are_details_with_markdown_bodies():
    live = live_markdown(":::{note}\n:class: dropdown\nA **hidden** note.\n:::\n\n```{dropdown} More\nExtra *text*.\n```\n")
    html = commonmark(live)
    assert html.startswith('<details class="admonition note dropdown"><summary class="admonition-title">Note</summary>\n'
                           "<p>A <strong>hidden</strong> note.</p>\n</details>\n")
    assert '<details class="directive dropdown"><summary>More</summary>\n<p>Extra <em>text</em>.</p>\n</details>' in html
    assert html.count("<details") == render(":::{note}\n:class: dropdown\nx\n:::\n\n```{dropdown} More\ny\n```\n").count("<details")
