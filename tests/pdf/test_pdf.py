"""PDF export in a real Chromium, checked by opening the PDFs with poppler's tools."""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from support import DECKS, NOTEBOOKS, ROOT, deck_id, run_cli
from jaxdeck.build import build, build_deck
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError, display_path
from jaxdeck.html.fit_record import CONTINUED, read_cuts
from jaxdeck.pdf.export import Printed, export_pdfs, print_handout_from_view, print_view
from jaxdeck.pdf.layout import HandoutFlags, pdf_path
from jaxdeck.read.source import read_notebook
from jaxdeck.read.structure import notes_by_slide, slide_count

FIXTURES = ROOT / "tests" / "fixtures"


def pdf_pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def page_size_pt(path: Path) -> tuple[float, float]:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    match = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", info, re.M)
    return float(match.group(1)), float(match.group(2))


def pdf_text(path: Path, first: int | None = None, last: int | None = None, raw: bool = False) -> str:
    """The text of pages ``first`` to ``last``, as laid out on them or (``raw``) in the order the PDF holds it:
    notes beside a slide share its lines on the page, so their sentences are read whole only in that order."""
    pages = (["-f", str(first)] if first else []) + (["-l", str(last)] if last else [])
    return subprocess.run(["pdftotext", "-raw" if raw else "-layout", *pages, str(path), "-"], capture_output=True,
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


#: DejaVu's ascent and descent, in ems: the height of a word's box as poppler gives it, over its font size
BOX_PER_EM = 1.164


def words(path: Path, page: int) -> list[tuple[str, float, float, float]]:
    """Each word of page ``page``: its text, its font size in points (its box's height, poppler's
    ``-bbox``, over :data:`BOX_PER_EM`), and the top and bottom of its box in points from the page's top."""
    import html

    found = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(path), "-"],
                           capture_output=True, text=True, check=True).stdout
    return [(html.unescape(text), (float(y2) - float(y1)) / BOX_PER_EM, float(y1), float(y2)) for y1, y2, text in
            re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', found)]


def smallest_pt(path: Path, first: int = 1, last: int | None = None) -> float:
    """The smallest font size, in points, of any word on pages ``first`` to ``last``."""
    last = last or pdf_pages(path)
    return min(size for page in range(first, last + 1) for text, size, _, _ in words(path, page)
               if text.strip("\u200b"))  # a zero-width space is no glyph to read


#: the handout's paper sizes, in points as pdfinfo gives them (Chromium's A4 is 8.28 x 11.71 in)
PAPER_PT = {"a4": (595.9, 842.9), "letter": (612.0, 792.0)}


def pages_and_paper(path: Path) -> tuple[int, str | tuple[float, float]]:
    """A PDF's page count and paper (a name of PAPER_PT, else its size in points)."""
    size = page_size_pt(path)
    paper = next((name for name, pt in PAPER_PT.items() if size == pytest.approx(pt, abs=1.5)), size)
    return pdf_pages(path), paper


def assert_notes_in_order(nb, handout: Path, raw: bool = False) -> None:
    """Every slide's notes are in the handout's text, in the deck's order."""
    text = normal(pdf_text(handout, raw=raw))
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


def assert_pdfs(nb, outputs: Outputs, tmp_path: Path) -> None:
    slides = slide_count(nb)
    assert pdf_pages(outputs.pdf) == slides
    width, height = page_size_pt(outputs.pdf)
    assert abs(width / height - 16 / 9) < 0.01  # 1280x720 px = 960x540 pt
    assert abs(width - 960) < 1
    assert page_size_pt(outputs.handout) == pytest.approx(PAPER_PT["a4"], abs=1.5)  # A4 portrait
    assert pdf_pages(outputs.handout) >= slides + 1  # title page, then one page (or more) per slide
    assert_notes_in_order(nb, outputs.handout)
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


# several slides a page, and the paper (the header's handout_per_page and paper, or jaxdeck pdf's flags)

#: the small deck's notes, by slide
SMALL_NOTES = {1: ("Alpha note",), 2: ("Bravo note", "Charlie note"), 3: ("Delta note",), 4: ("Echo note",)}


@pytest.mark.heavy
@pytest.mark.parametrize("per_page", [1, 2, 3])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_handout_puts_that_many_slides_with_their_notes_on_each_page_of_that_paper(small, browser, tmp_path,
                                                                                       per_page, paper):
    nb, outputs, _ = small
    flags = HandoutFlags(per_page, paper)
    done = export_pdfs(nb, outputs.html, Outputs(outputs.deck, tmp_path), browser=browser, parts=("handout",),
                       flags=flags)
    (handout,) = done.paths
    assert handout == tmp_path / "pdf" / f"pdf_small-handout-{per_page}up-{paper}.pdf"  # a name of its own
    assert pages_and_paper(handout) == (1 + math.ceil(4 / per_page), paper)  # the title page, then 4 slides
    assert "PDF fixture deck" in normal(pdf_text(handout, 1, 1))  # the title page as ever
    for number, notes in SMALL_NOTES.items():  # each slide on its page, its notes with it
        at = 2 + (number - 1) // per_page
        page = normal(pdf_text(handout, at, at, raw=True))
        assert f"Slide {number} / 4" in page and all(note in page for note in notes), (number, page)
    assert_notes_in_order(nb, handout, raw=True)


def empty_below(path: Path, page: int, tmp_path: Path, margins_mm: tuple[float, float] = (18, 14)) -> float:
    """Share of the page's height inside its margins (top, bottom) under its last ink (pdftoppm, gray)."""
    out = tmp_path / f"{path.stem}-{page}"
    subprocess.run(["pdftoppm", "-r", "30", "-f", str(page), "-l", str(page), "-singlefile", "-gray", str(path),
                    str(out)], check=True)
    fields = out.with_suffix(".pgm").read_bytes().split(maxsplit=4)
    width, height = int(fields[1]), int(fields[2])
    pixels = fields[4][-width * height:]
    paper_mm = page_size_pt(path)[1] / 72 * 25.4
    top, bottom = (round(height * mm / paper_mm) for mm in (margins_mm[0], paper_mm - margins_mm[1]))
    inked = [y for y in range(top, bottom) if min(pixels[y * width:(y + 1) * width]) < 200]
    return 1 - (max(inked) - top) / (bottom - top)


@pytest.mark.heavy
@pytest.mark.parametrize("per_page", [2, 3])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_several_slides_a_page_fill_the_page_with_large_slides_and_nothing_under_6pt(small, browser, tmp_path,
                                                                                      per_page, paper):
    nb, outputs, _ = small
    done = export_pdfs(nb, outputs.html, Outputs(outputs.deck, tmp_path), browser=browser, parts=("handout",),
                       flags=HandoutFlags(per_page, paper))
    (handout,) = done.paths
    assert smallest_pt(handout) >= 6  # the slides' footer, number and provenance, the page header: all readable
    # each slide as wide as 3/4 of the page inside its margins or more: its title's size against the slides PDF's
    size = {path: next(pt for text, pt, _, _ in words(path, at) if text == "Second") for path, at in
            ((outputs.pdf, 2), (handout, 2))}
    content_pt = page_size_pt(handout)[0] - 32 / 25.4 * 72
    assert size[handout] / size[outputs.pdf] * 960 >= 0.75 * content_pt
    assert empty_below(handout, 2, tmp_path) < 0.2  # a full page of slides leaves little of it empty


@pytest.mark.heavy
@pytest.mark.parametrize("per_page", [1, 3])
def test_a_slides_small_type_is_set_to_6pt_in_the_handout_and_kept_on_the_slide(tmp_path, browser, per_page):
    outputs = build_deck(FIXTURES / "pdf_small_type.md", tmp_path / "build")
    nb = nbformat.read(outputs.notebook, as_version=4)
    done = export_pdfs(nb, outputs.html, outputs, browser=browser, flags=HandoutFlags(per_page, "a4"))
    footnote = "a footnote set in twelve pixel type, read in the handout too"
    pages = {outputs.pdf: 2, done.paths[1]: 2 + 1 // per_page}  # slide 2, after the handout's title page
    # the output's last word ("too')" in the code above it)
    sizes = {path: [pt for text, pt, _, _ in words(path, page) if text == "too"] for path, page in pages.items()}
    assert sizes[outputs.pdf] == [pytest.approx(12 * 0.75 / (1 + 0.04), abs=0.3)]  # the slide as the talk shows it
    assert footnote in normal(pdf_text(done.paths[1])) and smallest_pt(done.paths[1]) >= 6


LONG_NOTES = """---
jupyter:
  jaxdeck:
    handout_per_page: 3
    paper: letter
    title: Long notes
---

# Long notes

A slide whose notes run longer than a page.

Note: {long}

---

## An error

```python tags=["raises-exception"]
def deeper(n):
    if n == 0:
        raise ValueError("the innermost call refuses")
    return deeper(n - 1)

deeper(25)
```

Note: The traceback is in the handout.

---

## Last

Note: The last note.
"""


@pytest.mark.heavy
def test_with_three_a_page_a_note_longer_than_a_page_continues_and_a_full_traceback_stays(write_deck, tmp_path):
    long = " ".join(f"Sentence {k} of the long note runs on about the slide." for k in range(1, 121))
    deck = write_deck(LONG_NOTES.format(long=long))
    (outputs,) = build([deck], tmp_path / "build", pdf=True, jobs=1)
    assert pages_and_paper(outputs.handout)[1] == "letter"
    text = normal(pdf_text(outputs.handout, raw=True))
    positions = [text.find(f"Sentence {k} of the long note") for k in range(1, 121)]
    assert -1 not in positions and positions == sorted(positions)  # none lost, in order, over the page's end
    assert "Full traceback" in text and text.count("deeper(n - 1)") >= 10  # as the handout prints them a slide a page
    pages = [normal(pdf_text(outputs.handout, k, k, raw=True)) for k in range(1, pdf_pages(outputs.handout) + 1)]
    assert "Sentence 1 of" in pages[1] and "Sentence 120 of" not in pages[1]  # the long note goes on over a page
    assert "Slide 3 / 3" in pages[-1] and "The last note." in pages[-1]


#: the small deck's header, laid out two a page on Letter
HEADER_LAYOUT = """---
jupyter:
  jaxdeck:
    handout_per_page: 2
    paper: letter
    title: PDF fixture deck
---
"""


@pytest.mark.heavy
def test_the_flags_lay_the_handout_out_for_one_run_over_the_header_into_a_file_of_its_own(write_deck, tmp_path):
    body = (FIXTURES / "pdf_small.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    deck = write_deck(HEADER_LAYOUT + body)
    root = tmp_path / "build"
    (outputs,) = build([deck], root, pdf=True, jobs=1, article=True)
    assert pages_and_paper(outputs.handout) == (3, "letter")  # the header's 2 a page
    assert pages_and_paper(outputs.article_pdf)[1] == "letter"  # the article on the header's paper too
    slides, headers = outputs.pdf.read_bytes(), outputs.handout.read_bytes()

    done = run_cli("pdf", str(deck), "--out", str(root), "--handout-per-page", "1", "--paper", "a4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    own = pdf_path(outputs, "handout", HandoutFlags(1, "a4"))
    assert own.name == "talk-handout-1up-a4.pdf" and pages_and_paper(own) == (5, "a4")
    assert outputs.handout.read_bytes() == headers  # the header's handout stays as it was
    assert outputs.pdf.read_bytes() == slides  # the slides PDF, 16:9, is not printed again
    assert page_size_pt(outputs.pdf) == pytest.approx((960, 540), abs=1)
    made = own.read_bytes()

    (again,) = build([deck], root, pdf=True, article=True)  # the next run without flags: nothing to print
    assert again.printed is None or again.printed.paths == []
    assert own.read_bytes() == made and outputs.handout.read_bytes() == headers
    done = run_cli("pdf", str(deck), "--out", str(root), "--paper", "letter", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert pages_and_paper(root / "pdf" / "talk-handout-letter.pdf") == (3, "letter") and own.read_bytes() == made


@pytest.mark.parametrize("flag, value, said", [
    ("--handout-per-page", "4", "argument --handout-per-page: invalid choice: 4 (choose from 1, 2, 3)"),
    ("--handout-per-page", "two", "argument --handout-per-page: invalid int value: 'two'"),
    ("--paper", "a3", "argument --paper: invalid choice: 'a3' (choose from 'a4', 'letter')"),
])
def test_a_bad_flag_is_refused_naming_the_flag(tmp_path, flag, value, said):
    done = run_cli("pdf", "--out", str(tmp_path / "build"), flag, value, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.splitlines()[-1].endswith(said), done.stderr
    assert not (tmp_path / "build").exists()


BAD_LAYOUT = [
    ("handout_per_page: 4", "deck option 'handout_per_page' must be 1, 2 or 3, not 4; "
                            "write 'handout_per_page: 1', 'handout_per_page: 2' or 'handout_per_page: 3'"),
    ("handout_per_page: true", "deck option 'handout_per_page' must be 1, 2 or 3, not True; "
                               "write 'handout_per_page: 1', 'handout_per_page: 2' or 'handout_per_page: 3'"),
    ("handout_per_page: '2'", "deck option 'handout_per_page' must be 1, 2 or 3, not '2'; "
                              "write 'handout_per_page: 1', 'handout_per_page: 2' or 'handout_per_page: 3'"),
    ("paper: a3", "deck option 'paper' must be a4 or letter, not 'a3'; write 'paper: a4' or 'paper: letter'"),
    ("paper: A4", "deck option 'paper' must be a4 or letter, not 'A4'; write 'paper: a4' or 'paper: letter'"),
]


def layout_header(line: str) -> str:
    return f"---\njupyter:\n  jaxdeck:\n    {line}\n---\n\n# Talk\n\nNote: said.\n"


@pytest.mark.parametrize("line, said", BAD_LAYOUT, ids=[line for line, _ in BAD_LAYOUT])
def test_a_bad_layout_in_the_header_is_an_error_at_its_line_with_what_to_write(write_deck, line, said):
    deck = write_deck(layout_header(line))
    with pytest.raises(DeckError) as caught:
        read_notebook(deck)
    assert str(caught.value) == f"{display_path(deck)}:4: {said}"


@pytest.mark.heavy
def test_a_bad_layout_in_the_header_stops_jaxdeck_pdf_in_one_line(tmp_path):
    (tmp_path / "talk.md").write_text(layout_header("paper: a3"), encoding="utf-8")
    done = run_cli("pdf", "talk.md", "--out", str(tmp_path / "build"), cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.strip() == f"error: talk.md:4: {BAD_LAYOUT[3][1]}", done.stderr


@pytest.mark.heavy
def test_a_scrollable_slide_prints_its_first_view_and_the_handout_all_of_it_readable(tmp_path):
    (outputs,) = build([FIXTURES / "pdf_scrollable.md"], tmp_path / "build", pdf=True, jobs=1)
    lines = [f"step {k:02d} loss" for k in range(80)]
    slide = normal(pdf_text(outputs.pdf, 2, 2))
    assert "step 00 loss" in slide and "step 79 loss" not in slide  # as the talk first shows it, not shrunk
    assert "continued in the handout" in slide
    assert smallest_pt(outputs.pdf, 2, 2) >= 6
    footer = min(top for text, _, top, _ in words(outputs.pdf, 2) if text == "Scrollable")
    assert all(bottom <= footer for text, _, _, bottom in words(outputs.pdf, 2) if text == "step")  # nothing over the footer

    handout = normal(pdf_text(outputs.handout, raw=True))
    note = handout.find("the whole log is in the handout.")
    positions = [handout.find(line, note) for line in lines]
    assert note >= 0 and -1 not in positions and positions == sorted(positions)  # whole, in order, beneath the note
    assert smallest_pt(outputs.handout) >= 6


@pytest.mark.heavy
def test_three_a_page_a_slide_with_a_page_of_output_starts_where_the_page_has_room(tmp_path):
    deck = FIXTURES / "pdf_scrollable.md"
    done = run_cli("pdf", str(deck), "--out", str(tmp_path / "build"), "--handout-per-page", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    handout = tmp_path / "build" / "pdf" / "pdf_scrollable-handout-3up.pdf"
    page = normal(pdf_text(handout, 2, 2, raw=True))
    assert "Slide 1 / 3" in page and "Slide 2 / 3" in page and "step 00 loss" in page  # not alone on a page of its own
    assert "step 79 loss" in normal(pdf_text(handout, raw=True))
