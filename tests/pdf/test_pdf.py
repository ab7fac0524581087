"""PDF export in a real Chromium, checked by opening the PDFs with poppler's tools."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from support import DECKS, NOTEBOOKS, ROOT, deck_id
from jaxdeck.build import build_deck
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError
from jaxdeck.html.fit_record import CONTINUED, read_cuts
from jaxdeck.pdf.export import Printed, export_pdfs, print_handout_from_view, print_view
from jaxdeck.read.structure import notes_by_slide, slide_count

FIXTURES = ROOT / "tests" / "fixtures"


def pdf_pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def page_size_pt(path: Path) -> tuple[float, float]:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    match = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", info, re.M)
    return float(match.group(1)), float(match.group(2))


def pdf_text(path: Path, first: int | None = None, last: int | None = None) -> str:
    pages = (["-f", str(first)] if first else []) + (["-l", str(last)] if last else [])
    return subprocess.run(["pdftotext", "-layout", *pages, str(path), "-"], capture_output=True,
                          text=True, check=True).stdout


def normal(text: str) -> str:
    """Words only, one space apart, no space before punctuation (layout and line wrapping removed)."""
    text = " ".join(text.split())
    return re.sub(r" ([,.;:!?)\]])", r"\1", text).replace("( ", "(")


def note_text(note: str) -> str:
    """The words of a Markdown note as the handout prints them (markup rendered away, math as written)."""
    import html

    rendered = MarkdownIt("commonmark").render(note)
    rendered = re.sub(r"</(p|li|h\d|pre|blockquote)>", " ", rendered)
    return normal(html.unescape(re.sub(r"<[^>]+>", "", rendered)))


def first_page_ink(path: Path, tmp_path: Path) -> float:
    """Share of the first page's pixels (rendered by pdftoppm) that are not background."""
    out = tmp_path / f"{path.stem}-page"
    subprocess.run(["pdftoppm", "-r", "30", "-f", "1", "-l", "1", "-singlefile", "-gray", str(path), str(out)],
                   check=True)
    data = (tmp_path / f"{path.stem}-page.pgm").read_bytes()
    # binary PGM: "P5\nW H\nMAX\n" then one byte per pixel
    fields = data.split(maxsplit=4)
    width, height = int(fields[1]), int(fields[2])
    pixels = fields[4][-width * height:]
    background = max(set(pixels[:: max(1, len(pixels) // 5000)]), key=pixels.count)
    return sum(1 for p in pixels if abs(p - background) > 40) / len(pixels)


def assert_pdfs(nb, outputs: Outputs, tmp_path: Path) -> None:
    slides = slide_count(nb)
    assert pdf_pages(outputs.pdf) == slides
    width, height = page_size_pt(outputs.pdf)
    assert abs(width / height - 16 / 9) < 0.01  # 1280x720 px = 960x540 pt
    assert abs(width - 960) < 1
    assert page_size_pt(outputs.handout) == pytest.approx((595.9, 842.9), abs=1.5)  # A4 portrait
    assert pdf_pages(outputs.handout) >= slides + 1  # title page, then one page (or more) per slide
    text = normal(pdf_text(outputs.handout))
    position = 0
    for number, notes in sorted(notes_by_slide(nb).items()):
        for note in notes:
            words = note_text(note)
            probe = words[:60].rsplit(" ", 1)[0] if len(words) > 60 else words
            if not probe:
                continue
            found = text.find(probe, position)
            assert found >= 0, f"slide {number}'s notes missing or out of order in the handout: {probe!r}"
            position = found + len(probe)
    assert first_page_ink(outputs.pdf, tmp_path) > 0.002
    assert first_page_ink(outputs.handout, tmp_path) > 0.002


@pytest.fixture(scope="module")
def small(tmp_path_factory, browser):
    root = tmp_path_factory.mktemp("pdf-build")
    outputs = build_deck(FIXTURES / "pdf_small.md", root)
    nb = nbformat.read(outputs.notebook, as_version=4)
    printed = export_pdfs(nb, outputs.html, outputs, browser=browser)
    return nb, outputs, printed


@pytest.mark.heavy
def test_export_writes_both_pdfs(small, tmp_path):
    nb, outputs, printed = small
    assert isinstance(printed, Printed) and printed.paths == [outputs.pdf, outputs.handout]
    assert set(printed.seconds) == {"slides", "handout", "total"}
    assert all(seconds >= 0 for seconds in printed.seconds.values())
    assert printed.seconds["total"] >= printed.seconds["slides"] + printed.seconds["handout"] - 0.002
    assert slide_count(nb) == 4
    assert_pdfs(nb, outputs, tmp_path)


def test_slides_pdf_shows_every_fragment_and_output(small):
    nb, outputs, _ = small
    second = normal(pdf_text(outputs.pdf, 2, 2))
    assert "one point" in second and "a fragment shown later" in second  # the fragment is on the same page
    assert "result is 45" in normal(pdf_text(outputs.pdf, 3, 3))  # the cell's output is printed
    assert "Alpha note" not in normal(pdf_text(outputs.pdf))  # notes stay off the slides


def test_handout_has_title_page_headers_and_notes_in_order(small):
    nb, outputs, _ = small
    title_page = normal(pdf_text(outputs.handout, 1, 1))
    for expected in ("PDF fixture deck", "Test Author", "1 May 2024", "Test Venue", "Python", "3."):
        assert expected in title_page
    text = normal(pdf_text(outputs.handout))
    order = [text.find(word) for word in ("Alpha note", "Bravo note", "Charlie note", "Delta note", "Echo note")]
    assert -1 not in order and order == sorted(order)
    for number in range(1, 5):
        page = normal(pdf_text(outputs.handout, number + 1, number + 1))
        assert f"Slide {number} / 4" in page and "PDF fixture deck" in page


@pytest.mark.heavy
def test_overflowing_slide_is_scaled_not_cut(tmp_path, browser):
    outputs = build_deck(FIXTURES / "overflow.md", tmp_path)
    nb = nbformat.read(outputs.notebook, as_version=4)
    export_pdfs(nb, outputs.html, outputs, browser=browser)
    assert pdf_pages(outputs.pdf) == 3
    page = normal(pdf_text(outputs.pdf, 2, 2))
    assert "line 1 " in page + " " and "line 20" in page


def test_failed_export_keeps_previous_pdfs(small, browser):
    nb, outputs, _ = small
    before = outputs.pdf.read_bytes()
    broken = outputs.html.with_name("missing.html")
    with pytest.raises(DeckError, match="no HTML deck to print") as caught:
        export_pdfs(nb, broken, outputs, browser=browser)
    assert caught.value.path == str(broken) and "make slides" in str(caught.value)
    assert outputs.pdf.read_bytes() == before


@pytest.mark.heavy
def test_only_the_parts_asked_for_are_printed(small, browser):
    nb, outputs, _ = small
    before = outputs.pdf.read_bytes()
    printed = export_pdfs(nb, outputs.html, outputs, browser=browser, parts=("handout",))
    assert printed.paths == [outputs.handout] and set(printed.seconds) == {"handout", "total"}
    assert outputs.pdf.read_bytes() == before


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_deck_pdfs(deck, built, browser, tmp_path):
    outputs, nb = built(deck)
    export_pdfs(nb, outputs.html, outputs, browser=browser)
    assert_pdfs(nb, outputs, tmp_path)


@pytest.mark.heavy
@pytest.mark.parametrize("deck", [p for p in NOTEBOOKS if p.stem in ("myst_jit_basics", "md_control_flow")],
                         ids=lambda p: p.stem)
def test_an_auto_fitted_tutorial_prints_a_page_per_fitted_slide(deck, built_notebooks, browser):
    outputs, nb = built_notebooks(deck)
    cuts = read_cuts(outputs.html)
    assert cuts, "the fixture needs its sections cut to fit"
    export_pdfs(nb, outputs.html, outputs, browser=browser)
    pages = slide_count(nb) + len(cuts)
    assert pdf_pages(outputs.pdf) == pages == Path(outputs.html).read_text(encoding="utf-8").count("data-jd-slide=")
    assert normal(pdf_text(outputs.pdf)).count(CONTINUED.strip()) == sum(1 for c in cuts if c.heading)
    handout = normal(pdf_text(outputs.handout))
    assert f"Slides {pages}" in normal(pdf_text(outputs.handout, 1, 1)) and f"Slide {pages} / {pages}" in handout


MARKUP_NOTES = """---
jupyter:
  jaxdeck:
    title: Notes with markup
---

# Notes with markup

A slide whose notes hold a table and code.

Note: Timings as measured, with {func}`jax.jit` doing the work (a shell fence stays Markdown, a python one is a cell):

| step | time |
| --- | --- |
| trace | 40 ms |
| run | 2 ms |

```shell
pip install --upgrade jax
```

---

## The end

Note: Plain words.
"""


@pytest.mark.heavy
def test_a_notes_table_and_code_render_alike_on_the_slide_and_in_the_handout(write_deck, tmp_path, browser):
    deck = write_deck(MARKUP_NOTES)
    outputs = build_deck(deck, tmp_path / "build")
    nb = nbformat.read(outputs.notebook, as_version=4)
    aside = Path(outputs.html).read_text(encoding="utf-8").split('<aside class="notes">')[1].split("</aside>")[0]
    assert "<table>" in aside and "<td>trace</td>" in aside and '<div class="highlight">' in aside
    assert '<code class="myst-role func">jax.jit</code>' in aside
    with print_view(browser, outputs.html) as page:
        print_handout_from_view(page, nb, str(deck))
        notes = page.evaluate("[...document.querySelectorAll('.jd-notes')].map(n => n.innerHTML)")
    assert "<table>" in notes[0] and "<td>trace</td>" in notes[0] and '<div class="highlight">' in notes[0]
    assert '<code class="myst-role func">jax.jit</code>' in notes[0]
    export_pdfs(nb, outputs.html, outputs, browser=browser, parts=("handout",))
    page = normal(pdf_text(outputs.handout, 2, 2))
    assert "step time trace 40 ms run 2 ms" in page and "pip install --upgrade jax" in page
    assert "with jax.jit doing the work" in page
    assert "|" not in page and "```" not in page and "{func}" not in page
