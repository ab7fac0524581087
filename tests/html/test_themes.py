"""The dark theme (``theme: projector-dark``) and a deck's own theme file (``theme: NAME.css``).

The decks are copies of slides/example.md and slides/04-vmap.md (a timing chart drawn by
``demos``) with the theme in their header, built with the light decks' executed notebooks
(``--frozen``): the same outputs are read on both themes. Colours are read from a real
Chromium's computed styles and their WCAG contrast ratios computed from them.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import nbformat
import pytest

from support import ROOT, contrast, luminance, run_cli, with_theme
from jaxdeck.pages import open_deck
from jaxdeck.check.deck import browser_problems, check_deck

#: two decks built, printed and checked in Chromium
pytestmark = pytest.mark.heavy

SLIDES = ROOT / "slides"
DECKS = ("example", "04-vmap")

#: the slides in the two decks: (deck, h, v)
TITLE, CODE, CHART = ("example", 0, 0), ("example", 2, 0), ("04-vmap", 8, 0)

#: what a slide shows, as [role, colour, background] for each element with text (its own
#: background: the nearest ancestor's that is not transparent); the chart's SVG text and lines
COLOURS = """() => {
  const slide = document.querySelector('.reveal .slides section.present');
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return rgb(getComputedStyle(document.body).backgroundColor).slice(0, 3);
  };
  const role = (el) => el.closest('.highlight, .jp-InputArea-editor') ? 'code'
    : el.closest('.jd-byline, .jd-provenance, .slide-number') ? 'muted'
    : el.closest('.jp-OutputArea') ? 'output' : 'text';
  const shown = [...slide.querySelectorAll('*')].filter(el => el.offsetParent !== null && el.closest('svg') === null
    && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()));
  const texts = shown.map(el => [role(el), rgb(getComputedStyle(el).color).slice(0, 3), background(el), el.textContent.trim().slice(0, 40)]);
  const svg = slide.querySelector('.jp-OutputArea svg[role=img]');
  const chart = svg ? {
    text: [...svg.querySelectorAll('text')].map(t => rgb(getComputedStyle(t).fill)),
    lines: [...svg.querySelectorAll('line')].map(l => rgb(getComputedStyle(l).stroke)),
    bars: [...svg.querySelectorAll('rect')].map(r => rgb(getComputedStyle(r).fill)),
    background: background(svg),
  } : null;
  return {page: rgb(getComputedStyle(document.body).backgroundColor).slice(0, 3), texts, chart};
}"""


@pytest.fixture(scope="module")
def themed(built, tmp_path_factory):
    """theme -> {deck: (deck path, html, pdf folder)}: the light decks as built, and dark copies
    built with their executed notebooks, with PDFs."""
    root = tmp_path_factory.mktemp("themes")
    light = {name: built(SLIDES / f"{name}.md") for name in DECKS}
    frozen = root / "frozen"
    frozen.mkdir()
    slides = root / "slides"
    shutil.copytree(SLIDES / "images", slides / "images")
    for name, (outputs, _) in light.items():
        shutil.copy(outputs.notebook, frozen / f"{name}.ipynb")
        (slides / f"{name}.md").write_text(with_theme((SLIDES / f"{name}.md").read_text(encoding="utf-8"),
                                                      "projector-dark"), encoding="utf-8")
    out = root / "build"
    done = run_cli("build", "--pdf", "--frozen", str(frozen), "--out", str(out),
                   *(str(slides / f"{name}.md") for name in DECKS))
    assert done.returncode == 0, done.stdout + done.stderr
    return {"projector": {name: (SLIDES / f"{name}.md", outputs.html, outputs.notebook) for name, (outputs, _) in light.items()},
            "projector-dark": {name: (slides / f"{name}.md", out / "html" / f"{name}.html", out / "notebooks" / f"{name}.ipynb")
                               for name in DECKS}}


def colours_at(browser, html, h, v):
    with open_deck(browser, html) as (page, requests):
        page.evaluate(f"Reveal.slide({h}, {v})")
        page.wait_for_timeout(100)
        found = page.evaluate(COLOURS)
        assert requests == []
        return found


def test_the_dark_theme_is_loaded_after_projector_and_the_deck_checks_as_clean_as_the_light_one(themed, browser):
    for name in DECKS:
        deck, html, notebook = themed["projector-dark"][name]
        page = html.read_text(encoding="utf-8")
        assert page.index("assets/themes/projector.css") < page.index("assets/themes/projector-dark.css")
        nb = nbformat.read(notebook, as_version=4)
        assert browser_problems(deck, nb, html, browser) == []  # no overflow, no wide code, every image loaded
        light_deck, light_html, light_notebook = themed["projector"][name]
        light = check_deck(light_deck, nbformat.read(light_notebook, as_version=4), light_html, browser)
        dark = check_deck(deck, nb, html, browser)
        assert [(p.slide, p.kind) for p in dark] == [(p.slide, p.kind) for p in light]


SIZES = """() => [...document.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section'))
  .map(s => { Reveal.slide(...Object.values(Reveal.getIndices(s))); return [...s.querySelectorAll('h1, h2, p, pre, svg, table, li')]
    .map(e => { const r = e.getBoundingClientRect(); return [e.tagName, Math.round(r.width), Math.round(r.height)]; }); })"""


def test_every_slide_lays_out_at_the_same_sizes_on_both_themes(themed, browser):
    for name in DECKS:
        sizes = {}
        for theme in themed:
            with open_deck(browser, themed[theme][name][1]) as (page, _):
                sizes[theme] = page.evaluate(SIZES)
        assert sizes["projector-dark"] == sizes["projector"]


def test_the_dark_page_is_dark_with_light_text_and_the_light_page_the_reverse(themed, browser):
    for slide in (TITLE, CODE, CHART):
        name, h, v = slide
        dark = colours_at(browser, themed["projector-dark"][name][1], h, v)
        light = colours_at(browser, themed["projector"][name][1], h, v)
        assert luminance(dark["page"]) < 0.02 and luminance(light["page"]) > 0.9
        assert dark["texts"] and all(luminance(c) > 0.3 for _, c, _, _ in dark["texts"]), dark["texts"]
        assert all(luminance(c) < 0.2 for role, c, _, _ in light["texts"] if role != "code"), light["texts"]


def test_a_demos_chart_draws_in_the_themes_colours(themed, browser):
    """The same executed SVG: light text and lines on the dark page, dark ones on the light page."""
    name, h, v = CHART
    dark = colours_at(browser, themed["projector-dark"][name][1], h, v)["chart"]
    light = colours_at(browser, themed["projector"][name][1], h, v)["chart"]
    assert dark and light and dark["text"] and dark["lines"] and dark["bars"]
    assert luminance(dark["background"]) < 0.02 and luminance(light["background"]) > 0.9
    assert all(luminance(c) > 0.3 for c in dark["text"] + dark["lines"]), dark
    assert all(luminance(c) < 0.1 for c in light["text"] + light["lines"]), light
    assert all(contrast(c, dark["background"]) >= 4.5 for c in dark["text"])
    assert all(contrast(c, dark["background"]) >= 3 for c in dark["bars"])  # WCAG's 3:1 for graphics


def test_the_dark_themes_contrast_ratios_meet_wcag(themed, browser):
    """Body text at least 7:1 against what it is drawn on; code tokens, outputs and muted text 4.5:1."""
    need = {"text": 7.0, "code": 4.5, "muted": 4.5, "output": 4.5}
    ratios = {}
    for slide in (TITLE, CODE, CHART):
        name, h, v = slide
        for role, colour, background, text in colours_at(browser, themed["projector-dark"][name][1], h, v)["texts"]:
            ratio = contrast(colour, background)
            ratios.setdefault(role, []).append(ratio)
            assert ratio >= need[role], (slide, role, text, colour, background, ratio)
    assert set(ratios) >= {"text", "code", "muted", "output"}


def page_pixels(pdf, page: int, tmp_path) -> tuple[int, int, bytes]:
    """One PDF page as raw RGB (pdftoppm, 20 dpi)."""
    stem = tmp_path / f"{pdf.stem}-{page}"
    subprocess.run(["pdftoppm", "-r", "20", "-f", str(page), "-l", str(page), "-singlefile", str(pdf), str(stem)],
                   check=True)
    data = stem.with_suffix(".ppm").read_bytes()
    _, width, height, _, pixels = re.match(rb"(P6)\s+(\d+)\s+(\d+)\s+(\d+)\s(.*)", data, re.S).groups()
    return int(width), int(height), pixels


def test_the_slides_pdf_stays_dark_and_the_handout_prints_light(themed, tmp_path):
    pdf = themed["projector-dark"]["04-vmap"][1].parent.parent / "pdf"
    width, height, pixels = page_pixels(pdf / "04-vmap.pdf", 9, tmp_path)  # the chart slide
    assert luminance(pixels[0:3]) < 0.02
    text = subprocess.run(["pdftotext", "-f", "9", "-l", "9", str(pdf / "04-vmap.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "looped" in text and "jit vmap" in text
    # the handout: a title page, then slide 9's page; the page and the slide's frame on it are light
    width, height, pixels = page_pixels(pdf / "04-vmap-handout.pdf", 10, tmp_path)
    band = [pixels[3 * i: 3 * i + 3] for i in range(width * height // 10, width * height * 4 // 10)]  # the slide's picture
    assert sum(luminance(p) > 0.8 for p in band) > 0.7 * len(band), "the slide in the handout is not light"


OWN_DECK = """---
jupyter:
  jaxdeck:
    theme: {theme}
    title: Our colours
---

# Our colours

Read **this** on `ours.css`.

Note: the title.
"""


def test_a_theme_file_beside_the_deck_changes_the_variables(write_deck, tmp_path, browser):
    deck = write_deck(OWN_DECK.format(theme="ours.css"))
    (deck.parent / "ours.css").write_text(":root { --jd-bg: #fdf6e3; --jd-accent: #00695c; }\n", encoding="utf-8")
    done = run_cli("build", str(deck), "--out", str(tmp_path / "build"))
    assert done.returncode == 0, done.stderr
    html = tmp_path / "build" / "html" / "talk.html"
    assert (html.parent / "talk_files" / "ours.css").is_file()
    page = html.read_text(encoding="utf-8")
    assert page.index("assets/themes/projector.css") < page.index('href="talk_files/ours.css"')
    with open_deck(browser, html) as (page, requests):
        assert page.evaluate("getComputedStyle(document.querySelector('.reveal strong')).color") == "rgb(0, 105, 92)"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(253, 246, 227)"
        assert requests == []
    # an edit of the file rebuilds the HTML; nothing else changed runs nothing
    (deck.parent / "ours.css").write_text(":root { --jd-accent: #6a1b9a; }\n", encoding="utf-8")
    again = run_cli("build", str(deck), "--out", str(tmp_path / "build"))
    assert again.returncode == 0 and "HTML" in again.stdout and "executed" not in again.stdout, again.stdout
    assert "#6a1b9a" in (html.parent / "talk_files" / "ours.css").read_text(encoding="utf-8")


@pytest.mark.parametrize("theme, said, advice", [
    ("missing.css", "not found beside the deck", "put it in"),
    ("../outside.css", "is outside the deck's folder", "copy it into {folder} and write theme: outside.css"),
    ("{above}/outside.css", "is an absolute path", "copy it into {folder} and write theme: outside.css"),
])
def test_a_theme_file_that_is_not_beside_the_deck_is_one_line(write_deck, tmp_path, theme, said, advice):
    theme = theme.format(above=tmp_path)
    deck = write_deck(OWN_DECK.format(theme=theme))
    (deck.parent.parent / "outside.css").write_text(":root {}\n", encoding="utf-8")
    done = run_cli("build", str(deck), "--out", str(tmp_path / "build"))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(f"error: {deck}:4: theme file '{theme}' {said}"), lines[0]
    assert advice.format(folder=deck.parent) in lines[0], lines[0]


ON_OWN_BACKGROUND = """() => {
  const slide = [...document.querySelectorAll('.reveal .slides section')]
    .find(s => !s.querySelector('section') && s.hasAttribute('data-background-color'));
  Reveal.slide(...Object.values(Reveal.getIndices(slide)));
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number).slice(0, 3);
  return {background: rgb(getComputedStyle(Reveal.getSlideBackground(slide)).backgroundColor),
          texts: [...slide.querySelectorAll('h2, p')].map(e => rgb(getComputedStyle(e).color))};
}"""


def test_a_slide_with_a_light_background_of_its_own_keeps_dark_text_on_the_dark_theme(themed, browser):
    """example.md's `{background-color="#fdf3e1"}` slide: reveal.js marks it light; its text is projector's."""
    with open_deck(browser, themed["projector-dark"]["example"][1]) as (page, _):
        seen = page.evaluate(ON_OWN_BACKGROUND)
    assert luminance(seen["background"]) > 0.8 and seen["texts"], seen
    assert all(contrast(c, seen["background"]) >= 7 for c in seen["texts"]), seen


BACKED_DECK = """---
jupyter:
  jaxdeck:
    theme: {theme}
---

## Pictures

{{.on-light}}
![backed](images/drawing.svg)

![bare](images/drawing.svg)

Note: one backed, one not.
"""
DRAWING = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120"><path d="M10 60 H290" '
           'stroke="#000" stroke-width="4"/></svg>')
BACKINGS = """() => [...document.querySelectorAll('.reveal .slides img')].map(i => {
  const r = i.getBoundingClientRect(), s = getComputedStyle(i);
  return {alt: i.alt, box: [Math.round(r.width), Math.round(r.height)], background: (s.backgroundColor.match(/[\\d.]+/g) || []).map(Number),
          page: (getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g) || []).map(Number)};
})"""


def test_a_picture_marked_on_light_has_a_light_backing_on_the_dark_theme_and_the_same_size(write_deck, tmp_path, browser):
    from jaxdeck.html.export import export_html
    from jaxdeck.read import deck_to_notebook

    seen = {}
    for theme in ("projector-dark", "projector"):
        path = write_deck(BACKED_DECK.format(theme=theme), name=f"{theme}.md")
        (path.parent / "images").mkdir(exist_ok=True)
        (path.parent / "images" / "drawing.svg").write_text(DRAWING, encoding="utf-8")
        html = export_html(deck_to_notebook(path), path, tmp_path / "html" / f"{theme}.html", fit=False)
        with open_deck(browser, html) as (page, _):
            seen[theme] = {found["alt"]: found for found in page.evaluate(BACKINGS)}
    dark, light = seen["projector-dark"], seen["projector"]
    assert luminance(dark["backed"]["background"]) > 0.8, dark  # black on it: over 15:1
    assert contrast((0, 0, 0), dark["backed"]["background"]) > 15
    assert len(dark["bare"]["background"]) == 4 and dark["bare"]["background"][3] == 0  # no backing unasked
    assert light["backed"]["background"][:3] == light["backed"]["page"][:3]  # on the light theme: the page's own white
    assert [dark[a]["box"] for a in ("backed", "bare")] == [light[a]["box"] for a in ("backed", "bare")]
    assert dark["backed"]["box"] == dark["bare"]["box"]  # the backing takes no room


MARKED_DECK = """---
jupyter:
  jaxdeck:
    theme: projector
    footer: A footer as long as a venue and its date, at the foot of every slide
    logo: images/logo.svg
---

# Title

Note: the first.

---

## Next

Note: the upcoming one.
"""
LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40"><rect width="100" height="40" fill="#1f3a5f"/></svg>'
MARKS = """() => { const box = s => { const r = document.querySelector(s).getBoundingClientRect();
                                     return [r.left, r.top, r.right, r.bottom]; };
  return {footer: box('.reveal > .jd-footer'), logo: box('.reveal > .jd-logo'), window: [innerWidth, innerHeight]}; }"""


def test_the_speaker_views_panes_show_the_logo_beside_the_footer_not_over_it(write_deck, tmp_path, browser):
    """reveal.js's speaker view (S) shows the deck in two small frames, the current slide and the
    upcoming one (no arrows there): the header's logo and footer are laid out in each frame's pixels."""
    from jaxdeck.html.export import export_html
    from jaxdeck.read import deck_to_notebook

    path = write_deck(MARKED_DECK)
    (path.parent / "images").mkdir()
    (path.parent / "images" / "logo.svg").write_text(LOGO, encoding="utf-8")
    html = export_html(deck_to_notebook(path), path, tmp_path / "html" / "talk.html", fit=False)
    seen = {}
    with open_deck(browser, html) as (page, _):
        with page.expect_popup() as opened:
            page.keyboard.press("s")
        speaker = opened.value
        try:
            for size in ((1100, 700), (1600, 900)):
                speaker.set_viewport_size({"width": size[0], "height": size[1]})
                speaker.wait_for_selector("#upcoming-slide iframe", state="attached")
                for pane in ("current", "upcoming"):
                    frame = speaker.query_selector(f"#{pane}-slide iframe").content_frame()
                    frame.wait_for_function("window.Reveal && Reveal.isReady() && document.body.classList.contains('jd-ready')")
                    width = speaker.evaluate(f"document.querySelector('#{pane}-slide iframe').clientWidth")
                    frame.wait_for_function(f"innerWidth === {width}")  # laid out at the pane's size
                    seen[pane, size] = frame.evaluate(MARKS)
        finally:
            speaker.close()
    for (pane, size), found in seen.items():
        footer, logo = found["footer"], found["logo"]
        assert footer[2] - footer[0] > 50 and logo[2] - logo[0] > 0, (pane, size, found)  # both still there
        assert not (footer[0] < logo[2] and logo[0] < footer[2] and footer[1] < logo[3] and logo[1] < footer[3]), \
            (pane, size, found)
    assert seen["upcoming", (1100, 700)]["window"][0] < 500  # the pane is small: what the marks must fit


ERROR_DECK = """---
jupyter:
  jaxdeck:
    theme: projector-dark
---

## Tracers are not values

```python tags=["raises-exception"]
@jax.jit
def relu_if(x):
    if x > 0:
        return x
    return 0.0

relu_if(1.0)
```

Note: Python control flow on a traced value fails under jit.
"""
#: the author's error, as jax raised it
ERROR_VALUE = ("Attempted boolean conversion of traced array with shape bool[].\nThe error occurred while tracing "
               "the function relu_if at /tmp/ipykernel_22521/4164118409.py:1 for jit. This concrete value was not "
               "available in Python because it depends on the value of the argument x.\n"
               "See https://docs.jax.dev/en/latest/101/errors.html#jax.errors.TracerBoolConversionError")
#: the rows the error output's first block is laid out in, each as the text it shows
ERROR_ROWS = """() => {
  const pre = document.querySelector('.reveal .slides .jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"] > pre');
  const rows = [], range = document.createRange();
  let top = null;
  const text = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let node = text.nextNode(); node; node = text.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getClientRects()[0];
      if (!r || node.data[i] === '\\n') { top = null; continue; }
      if (top === null || Math.abs(r.top - top) > 2) { rows.push(''); top = r.top; }
      rows[rows.length - 1] += node.data[i];
    }
  }
  return rows;
}"""


def test_a_long_error_message_wraps_between_words_on_the_slide_and_on_paper(write_deck, tmp_path, browser):
    """JupyterLab's output style breaks a line at any letter (word-break: break-all): an error's
    message, which is prose, wraps at its spaces instead, on screen and in the print view."""
    from jaxdeck.html.export import export_html
    from jaxdeck.pdf.export import print_view
    from jaxdeck.read import deck_to_notebook

    path = write_deck(ERROR_DECK)
    nb = deck_to_notebook(path)
    [cell] = [c for c in nb.cells if c.cell_type == "code"]
    cell.outputs = [nbformat.v4.new_output("error", ename="TracerBoolConversionError", evalue=ERROR_VALUE,
                                           traceback=[f"TracerBoolConversionError: {ERROR_VALUE}"])]
    html = export_html(nb, path, tmp_path / "html" / "talk.html", fit=False)
    words = set(f"TracerBoolConversionError: {ERROR_VALUE}".split())
    with open_deck(browser, html) as (page, _):
        screen = page.evaluate(ERROR_ROWS)
    with print_view(browser, html) as page:
        paper = page.evaluate(ERROR_ROWS)
    for rows in (screen, paper):
        assert len(rows) > 3, rows  # the message's long line wraps
        cut = [row for row in rows if row.split()[0] not in words or row.split()[-1] not in words]
        assert cut == [], rows  # every row starts and ends with a whole word
