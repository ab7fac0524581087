"""The article (jaxdeck.article): every deck's talk as a readable page, read in a real Chromium,
built through the CLI, kept when up to date, printed to A4."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from support import DECKS, NOTEBOOKS, ROOT, deck_id, run_cli
from jaxdeck import stamps
from jaxdeck.build import build_deck
from jaxdeck.stages.plan import Plan
from jaxdeck.claims import is_check
from jaxdeck.decks import Outputs
from jaxdeck.html import markdown
from jaxdeck.html.assets import NODE_MODULES, THEMES
from jaxdeck.html.myst import cell_view
from jaxdeck.markers import NOTES, SKIP
from jaxdeck.read.structure import notes_by_slide, slide_pieces

EXAMPLE = ROOT / "slides" / "example.md"
#: a tutorial without slide markers: its slides are its sections
TUTORIAL = next(p for p in NOTEBOOKS if p.stem == "myst_jit_basics")

#: the article as Chromium parses it, before any script runs: headings, sections and their notes, the contents
STRUCTURE = """(notes) => {
  const text = el => el.textContent.replace(/\\s+/g, ' ').trim();
  const rendered = notes.map(html => { const div = document.createElement('div'); div.innerHTML = html; return text(div); });
  return {
    headings: [...document.querySelectorAll('main h1, main h2, main h3, main h4, main h5, main h6')].map(text),
    sections: Object.fromEntries([...document.querySelectorAll('main section.jd-section')].map(
      s => [s.dataset.jdSlide, [...s.querySelectorAll('.jd-notes')].map(text).join(' ')])),
    ids: [...document.querySelectorAll('main section[id]')].map(s => s.id),
    contents: [...document.querySelectorAll('nav.jd-contents a')].map(a => a.getAttribute('href')),
    body: text(document.body),
    notes: rendered,
  };
}"""

def first_headings(nb) -> dict[int, str]:
    """Each slide's first heading (plain text) in the Markdown it shows, read from the notebook."""
    found: dict[int, str] = {}
    for cell in nb.cells:
        if cell.cell_type != "markdown" or cell_view(cell).removed:
            continue
        for info, text in slide_pieces(cell):
            if info.get("slide_type") in (NOTES, SKIP) or info.get("slide") in found:
                continue
            tokens = markdown.PARSER.parse(text)  # the decks' Markdown, heading attributes and all
            for opening, inline in zip(tokens, tokens[1:]):
                if opening.type == "heading_open":
                    found[info["slide"]] = " ".join(markdown.PARSER.renderer.renderInlineAsText(
                        inline.children, markdown.PARSER.options, {}).split())
                    break
    return found


def article_of(deck: Path, nb_path: Path, root: Path) -> Outputs:
    """The article of ``deck`` built by its build step into ``root``, from an executed notebook built before."""
    outputs = Outputs(deck, root)
    outputs.notebook.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(nb_path, outputs.notebook)
    built = build_deck(deck, root, plan=Plan(deck, outputs, notebook=False, html=False, article=True))
    assert built.done == "article"
    return outputs


def read_article(browser, path: Path, notes: list[str]) -> dict:
    """What :data:`STRUCTURE` finds in the article at ``path``, scripts off (math as written)."""
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(path.resolve().as_uri())
        return page.evaluate(STRUCTURE, [markdown.render(note) for note in notes])
    finally:
        context.close()


def check_article(nb, found: dict) -> None:
    """Each slide's title is a heading, each note is prose in its slide's section, no check cell shows."""
    missing = {slide: title for slide, title in first_headings(nb).items() if title not in found["headings"]}
    assert not missing, f"slide titles that are not headings of the article: {missing}"
    notes = notes_by_slide(nb)
    rendered = iter(found["notes"])
    for slide, texts in notes.items():
        prose = found["sections"].get(str(slide), "")
        for text in texts:
            expected = next(rendered)
            assert expected and expected in prose, f"slide {slide}: the note {text[:60]!r} is not under its slide"
    assert set(found["contents"]) <= {f"#{anchor}" for anchor in found["ids"]}, "a contents link leads nowhere"
    assert len(found["contents"]) >= sum(1 for slide in first_headings(nb) if slide > 1) - 1
    for cell in nb.cells:
        if is_check(cell):
            code = " ".join(cell.source.split())
            assert code not in found["body"], f"a claim check shows in the article: {code[:60]!r}"


def all_notes(nb) -> list[str]:
    return [text for texts in notes_by_slide(nb).values() for text in texts]


@pytest.fixture(scope="module")
def article_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("articles")


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=[deck_id(d) for d in DECKS])
def test_every_deck_has_an_article_with_its_titles_notes_and_no_checks(deck, built, browser, article_root):
    outputs, nb = built(deck)
    article = article_of(deck, outputs.notebook, article_root).article
    assert (article.parent / "assets" / "katex" / "dist" / "katex.min.js").is_file()
    found = read_article(browser, article, all_notes(nb))
    check_article(nb, found)
    assert len(found["sections"]) > 1


@pytest.mark.heavy
def test_a_tutorial_without_slide_markers_has_its_sections_as_headings(built_notebooks, browser, tmp_path):
    outputs, nb = built_notebooks(TUTORIAL)
    article = article_of(TUTORIAL, outputs.notebook, tmp_path).article
    found = read_article(browser, article, all_notes(nb))
    check_article(nb, found)
    assert len(found["contents"]) >= 3, "the tutorial's sections are its contents"


@pytest.mark.heavy
def test_article_reads_offline_and_typesets_its_math(built, browser, tmp_path):
    outputs, nb = built(EXAMPLE)
    article = article_of(EXAMPLE, outputs.notebook, tmp_path).article
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:", "about:")) else None)
    try:
        page.goto(article.resolve().as_uri(), wait_until="load")
        page.wait_for_selector("body.jd-ready", timeout=15000)
        typeset = page.evaluate("document.querySelectorAll('main .katex').length")
        errors = page.evaluate("document.querySelectorAll('main .katex-error').length")
        raw = page.evaluate("document.querySelector('main').innerText.includes('\\\\nabla')")
        broken = page.evaluate("[...document.images].filter(i => !i.complete || !i.naturalWidth).map(i => i.src)")
    finally:
        page.close()
    assert requests == [], f"the article asked the network for {requests}"
    assert typeset >= 2 and errors == 0 and not raw, "example.md's math is not typeset by KaTeX"
    assert broken == [], f"pictures that did not load: {broken}"


#: the code's font size and the output text set larger than it, as Chromium renders them (a zoom
#: included): text outputs and an HTML output's elements with text of their own; a chart's SVG labels
#: are drawn to its picture's scale, and left out
OUTPUT_SIZES = """() => {
  const rendered = e => parseFloat(getComputedStyle(e).fontSize) * (e.currentCSSZoom || 1);
  const code = Math.max(0, ...[...document.querySelectorAll('main .jp-InputArea-editor pre')].map(rendered));
  const larger = [...document.querySelectorAll('main .jp-OutputArea-output, main .jp-OutputArea-output *')]
    .filter(e => !(e instanceof SVGElement) && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
    .filter(e => rendered(e) > code + 0.01)
    .map(e => `${e.tagName.toLowerCase()} at ${rendered(e).toFixed(1)}px: ${e.textContent.trim().slice(0, 40)}`);
  return {code, larger};
}"""


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=[deck_id(d) for d in DECKS])
def test_no_output_is_set_larger_than_the_code(deck, built, browser, tmp_path):
    """On screen and printed: the demos' displays are sized for the slides (18 px tables), the article's code is not."""
    outputs, _ = built(deck)
    article = article_of(deck, outputs.notebook, tmp_path).article
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(article.resolve().as_uri(), wait_until="load")
        page.wait_for_selector("body.jd-ready", timeout=15000)
        found = {}
        for media in ("screen", "print"):
            page.emulate_media(media=media)
            found[media] = page.evaluate(OUTPUT_SIZES)
    finally:
        page.close()
    assert found["screen"]["code"] > found["print"]["code"] > 0, found
    assert {media: sizes["larger"] for media, sizes in found.items() if sizes["larger"]} == {}


@pytest.fixture(scope="module")
def cli_root(built, tmp_path_factory):
    """A build folder for the CLI, with the executed notebook of example.md to take outputs from."""
    outputs, _ = built(EXAMPLE)
    return tmp_path_factory.mktemp("cli"), outputs.notebook


@pytest.mark.heavy
def test_cli_writes_the_article_and_keeps_it_while_up_to_date(cli_root):
    root, frozen = cli_root
    args = ("build", str(EXAMPLE), "--article", "--frozen", str(frozen), "--out", str(root))
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert "article" in first.stdout
    article = Outputs(EXAMPLE, root).article
    assert article.is_file() and not Outputs(EXAMPLE, root).article_pdf.exists()
    written = article.read_bytes(), article.stat().st_mtime_ns

    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().endswith("up to date"), again.stdout
    assert (article.read_bytes(), article.stat().st_mtime_ns) == written, "an up-to-date article was written again"

    picture = article.parent / "example_files" / "images" / "example-stages.svg"
    picture.unlink()
    mended = run_cli(*args)
    assert mended.returncode == 0 and mended.stdout.strip().endswith("article"), mended.stdout + mended.stderr
    assert picture.is_file(), "a picture gone from beside the article is copied again"


@pytest.mark.heavy
def test_cli_pdf_prints_the_article(cli_root):
    root, frozen = cli_root
    done = run_cli("build", str(EXAMPLE), "--article", "--pdf", "--frozen", str(frozen), "--out", str(root))
    assert done.returncode == 0, done.stderr
    printed = Outputs(EXAMPLE, root).article_pdf
    assert printed.is_file()
    text = " ".join(subprocess.run(["pdftotext", str(printed), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "Tables and math" in text, "a slide title is missing from the article's PDF"
    assert "Math is typeset by KaTeX from local files." in text, "a speaker note is missing from the article's PDF"
    info = subprocess.run(["pdfinfo", str(printed)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Page size:.*\(A4\)", info, re.M), "the article is not printed on A4"


def test_article_styles_shape_the_article_only(tmp_path):
    themes = tmp_path / "themes"
    shutil.copytree(THEMES, themes)

    def digests():
        sources = stamps.Sources(tmp_path / "build", themes=themes, node_modules=NODE_MODULES)
        return sources.look, sources.article_look

    look, article = digests()
    with open(themes / "jaxdeck" / "static" / "article.css", "a") as handle:
        handle.write("\n/* edited */\n")
    assert digests()[0] == look and digests()[1] != article, "the article's styles are not the deck's look"
    look, article = digests()
    with open(themes / "jaxdeck" / "index.html.j2", "a") as handle:
        handle.write("\n{# edited #}\n")
    assert digests()[0] != look and digests()[1] != article, "the article extends the deck's template"


@pytest.mark.heavy
def test_the_article_pdf_prints_a_one_line_provenance_whole(tmp_path):
    from jaxdeck.build import build

    (outputs,) = build([ROOT / "tests" / "fixtures" / "article_provenance.md"], tmp_path / "build", pdf=True,
                       article=True, jobs=1)
    text = " ".join(subprocess.run(["pdftotext", str(outputs.article_pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "compile: jit cached." in text and "every word of this line is on paper, to its last words." in text
    assert "…" not in text  # the line the slide cuts with an ellipsis (its whole text on hover) is whole on paper
    boxes = subprocess.run(["pdftotext", "-bbox", str(outputs.article_pdf), "-"], capture_output=True, text=True,
                           check=True).stdout
    page_width = float(re.search(r'<page width="([\d.]+)"', boxes).group(1))
    last = float(re.search(r'<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">words\.</word>',
                           boxes).group(1))
    assert last <= page_width - 15 / 25.4 * 72  # inside the right margin, not drawn past the cut
