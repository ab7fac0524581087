"""`jaxdeck check`'s ``ink``: a picture whose lines do not stand out from the slide, measured on the
slide as a real Chromium shows it (jaxdeck.check.ink), and the theme's light backing that cures it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jaxdeck.pages import open_deck
from jaxdeck.check.deck import browser_problems
from jaxdeck.html.export import export_html
from jaxdeck.read import deck_to_notebook

#: starts a browser
pytestmark = pytest.mark.heavy

#: a line drawing as a diagram tool writes one: black strokes and labels, no ground of its own
DRAWING = """<svg xmlns="http://www.w3.org/2000/svg" width="480" height="240" viewBox="0 0 480 240">
  <g fill="none" stroke="{ink}" stroke-width="4">
    <rect x="20" y="40" width="160" height="90" rx="8"/><rect x="300" y="40" width="160" height="90" rx="8"/>
    <path d="M180 85 H296 M280 72 L296 85 L280 98"/><path d="M40 200 C120 150 200 230 440 170"/>
  </g>
  <g fill="{ink}" font-family="DejaVu Sans" font-size="26"><text x="45" y="95">trace</text><text x="320" y="95">compile</text></g>
</svg>
"""

DECK = """---
jupyter:
  jaxdeck:
    theme: {theme}
---

# Pictures

Note: the title.

---

## Black on nothing

![the pipeline](images/dark-ink.svg)

Note: a drawing in black.

---

## A plot saved transparent

![a plot](images/plot.png)

Note: matplotlib with transparent=True.

---

## The same, backed

{{.on-light}}
![the pipeline](images/dark-ink.svg)

Note: the backing.

---

## A slide backed whole {{.on-light}}

![a plot](images/plot.png)

Note: the backing, by the heading.

---

## Light on nothing

![the pipeline in white](images/light-ink.svg)

Note: a drawing in white.
"""


def transparent_plot() -> bytes:
    """A small matplotlib line plot in its default black axes and labels, saved with a transparent ground."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4, 2.5), dpi=100)
    axes = figure.add_subplot()
    axes.plot([0, 1, 2, 3], [0, 1, 0.5, 2], color="black", linewidth=2)
    axes.set_xlabel("step")
    axes.set_ylabel("loss")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", transparent=True)
    return buffer.getvalue()


def line_of(path: Path, text: str) -> int:
    """The deck's first line that is ``text`` (1-based): where a picture is named."""
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


def deck(write_deck, tmp_path: Path, theme: str) -> tuple[Path, object, Path]:
    path = write_deck(DECK.format(theme=theme))
    images = path.parent / "images"
    images.mkdir()
    (images / "dark-ink.svg").write_text(DRAWING.format(ink="#000000"), encoding="utf-8")
    (images / "light-ink.svg").write_text(DRAWING.format(ink="#ffffff"), encoding="utf-8")
    (images / "plot.png").write_bytes(transparent_plot())
    nb = deck_to_notebook(path)
    return path, nb, export_html(nb, path, tmp_path / "html" / "talk.html", fit=False)


def test_dark_ink_on_the_dark_theme_is_reported_at_its_slide_with_the_cure(browser, write_deck, tmp_path):
    path, nb, html = deck(write_deck, tmp_path, "projector-dark")
    problems = [p for p in browser_problems(path, nb, html, browser) if p.kind == "ink"]
    lines = [line_of(path, "![the pipeline](images/dark-ink.svg)"), line_of(path, "![a plot](images/plot.png)")]
    assert [(p.slide, p.line) for p in problems] == [(2, lines[0]), (3, lines[1])], [str(p) for p in problems]
    drawing, plot = problems
    assert "picture 'images/dark-ink.svg'" in drawing.message and "picture 'images/plot.png'" in plot.message
    for problem in problems:
        assert "under 3:1 against the slide's #111418" in problem.message, problem.message
        assert "{.on-light} alone on the line before it" in problem.message
        share = int(problem.message.split("': ")[1].split("%")[0])
        assert share > 90, problem.message  # black on #111418 is about 1.1:1 everywhere
        assert str(problem).startswith(f"{path}:{problem.line} (slide {problem.slide}): ink: ")


def test_on_the_light_theme_the_white_drawing_is_the_faint_one(browser, write_deck, tmp_path):
    path, nb, html = deck(write_deck, tmp_path, "projector")
    problems = [p for p in browser_problems(path, nb, html, browser) if p.kind == "ink"]
    assert [(p.slide, p.line) for p in problems] == [(6, line_of(path, "![the pipeline in white](images/light-ink.svg)"))], \
        [str(p) for p in problems]
    assert "images/light-ink.svg" in problems[0].message and "#ffffff" in problems[0].message


OUTPUT_DECK = """---
jupyter:
  jaxdeck:
    theme: projector-dark
---

## A plot a cell draws

```python
plot()
```

Note: the cell's picture.
"""


@pytest.mark.parametrize("tagged", [False, True], ids=["bare", "tagged"])
def test_a_code_cells_faint_picture_is_reported_at_the_cell_and_its_tag_backs_it(browser, write_deck, tmp_path, tagged):
    import base64

    import nbformat

    from jaxdeck.records import cell_info

    path = write_deck(OUTPUT_DECK)
    nb = deck_to_notebook(path)
    [cell] = [c for c in nb.cells if c.cell_type == "code"]
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "image/png": base64.b64encode(transparent_plot()).decode(), "text/plain": "<Figure>"})]
    if tagged:
        cell.metadata["tags"] = ["on-light"]
    html = export_html(nb, path, tmp_path / "html" / "talk.html", fit=False)
    problems = [p for p in browser_problems(path, nb, html, browser) if p.kind == "ink"]
    if tagged:
        assert problems == [], [str(p) for p in problems]
        with open_deck(browser, html) as (page, _):
            backing = page.evaluate("getComputedStyle(document.querySelector('.jp-OutputArea img')).backgroundColor")
        assert backing == "rgb(238, 240, 243)", backing  # the dark theme's --jd-picture-backing
        return
    assert [(p.slide, p.line) for p in problems] == [(1, cell_info(cell)["line"])], [str(p) for p in problems]
    assert "picture 'a picture drawn by a code cell'" in problems[0].message
    assert "tag the code cell 'on-light'" in problems[0].message


LOGO_DECK = """---
jupyter:
  jaxdeck:
    theme: projector-dark
    footer: "JAX seminar: week 3"
    logo: {logo}
---

# Pytrees and `jax.grad`

Note: the title.

---

## Next

Note: the next.
"""
#: a logo drawn bold in white, as a light version of one is
LIGHT_LOGO = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><g fill="#ffffff">'
              '<rect x="2" y="4" width="32" height="32" rx="6"/><text x="42" y="31" font-family="DejaVu Sans" '
              'font-weight="bold" font-size="28">JAX</text></g></svg>')


#: a badge: white letters on a dark box of its own (slides/images/example-logo.svg)
BADGE_LOGO = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 48" width="120" height="48">'
              '<rect x="1" y="1" width="118" height="46" rx="8" fill="#1f3a5f"/><text x="60" y="32" font-size="22" '
              'font-weight="bold" fill="#ffffff" text-anchor="middle" font-family="DejaVu Sans">jaxdeck</text></svg>')


@pytest.mark.parametrize("written", ["../figures/loss_curve.png", "../figures/logo-light.svg", "../figures/badge.svg"],
                         ids=["dark-ink", "light-ink", "badge"])
def test_the_header_logo_in_dark_ink_on_the_dark_theme_is_reported_once_at_its_line(browser, write_deck, tmp_path, written):
    """The author's logo: a plot of the project's (../figures/loss_curve.png), black on a transparent
    ground, in the corner of every slide of the dark theme; a light logo and a badge read there."""
    (tmp_path / ".git").mkdir()  # the deck's project, whose figures/ a deck may name
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "loss_curve.png").write_bytes(transparent_plot())
    (tmp_path / "figures" / "logo-light.svg").write_text(LIGHT_LOGO, encoding="utf-8")
    (tmp_path / "figures" / "badge.svg").write_text(BADGE_LOGO, encoding="utf-8")
    path = write_deck(LOGO_DECK.format(logo=written))
    nb = deck_to_notebook(path)
    html = export_html(nb, path, tmp_path / "html" / "talk.html", fit=False)
    problems = [p for p in browser_problems(path, nb, html, browser) if p.kind == "ink"]
    if not written.endswith("loss_curve.png"):
        assert problems == [], [str(p) for p in problems]
        return
    assert [(p.slide, p.line) for p in problems] == [(1, 6)], [str(p) for p in problems]  # the header's logo: line
    said = problems[0].message
    assert said.startswith("logo '../figures/loss_curve.png': ") and "against the slide's #111418" in said, said
    assert "light, bold colours" in said and "light ground of its own" in said, said


PROJECT_PICTURE_DECK = """---
jupyter:
  jaxdeck:
    theme: projector-dark
---

# Title

Note: the title.

---

## The loss curve (saved earlier)

Text above it.

![Loss curve](../figures/loss_curve.png)

Note: This is the figure I made earlier with matplotlib.
"""


def test_a_faint_picture_is_named_as_the_deck_writes_it_at_its_own_line(browser, write_deck, tmp_path):
    """A picture of the deck's project (``../figures/``) is copied beside the page as ``_up_/figures/``:
    the report names it as written, at the line that names it, not at its slide's ``---``."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "loss_curve.png").write_bytes(transparent_plot())
    path = write_deck(PROJECT_PICTURE_DECK)
    nb = deck_to_notebook(path)
    html = export_html(nb, path, tmp_path / "html" / "talk.html", fit=False)
    problems = [p for p in browser_problems(path, nb, html, browser) if p.kind == "ink"]
    assert [(p.slide, p.line) for p in problems] == [(2, line_of(path, "![Loss curve](../figures/loss_curve.png)"))], [str(p) for p in problems]
    assert problems[0].message.startswith("picture '../figures/loss_curve.png': "), problems[0].message
