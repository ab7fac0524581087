"""Stage 4: an exported HTML deck -> PDF slides and a PDF handout, printed by a real Chromium.

``build/pdf/NAME.pdf`` is reveal.js's own print view (``?print-pdf``) printed at
the deck's size (1280x720 px unless its header says otherwise): one page per slide, every fragment shown, outputs as in the HTML
deck (widgets as their static fallback, which the HTML export already keeps).
Nothing is cut silently: long code lines wrap (themes/jaxdeck/static/print.css)
and a slide taller or wider than its page is scaled down to fit (``jaxdeck check``
reports such slides, with how many pixels they overflow). A ``{.scrollable}`` slide is printed as
the talk first shows it, with a line saying it continues in the handout, which prints all of it
beneath the slide's notes (``themes/jaxdeck/scripts/print-scrolled.js``).

``build/pdf/NAME-handout.pdf`` is portrait, on A4 or Letter (the header's ``paper``): a title
page with the deck's metadata and the machine its outputs were produced on, then per slide
the slide exactly as it is printed in the slides PDF (the same laid-out page, shrunk: text
stays text) with its speaker notes (so a PDF text extractor reads them, in order). One slide
a page, its notes beneath, or (``handout_per_page: 2`` or ``3``, :mod:`jaxdeck.pdf.layout`)
two a page, each as wide as its share of the page allows with its notes beneath it, or three, each
with its notes beside it and, when longer, beneath it; a slide and its notes are kept on one page
where they fit, and no text on a slide prints under 6 pt (``scripts/handout-floor.js`` sets a slide's
smaller type up to it where the slide has room; a chart's SVG labels keep their size). A handout laid out by a run's flags has
a name of its own (``NAME-handout-2up-letter.pdf``). Page headers carry the deck title and page
number; each slide starts with its slide number.

``build/article/NAME.pdf`` (``build --article --pdf``) is the article (:mod:`jaxdeck.article`)
printed on the header's paper as its own print styles lay it out, with the handout's page header.

Chromium is shown each page from a private origin that serves the page's folder and no other file
(:func:`jaxdeck.pages.open_served`): a script in a deck reads no local file into a PDF.

The same browser page produces both deck files: the print view is laid out once,
printed as slides, then restyled as the handout and printed again. The scripts it runs
there are the theme's (``themes/jaxdeck/scripts/*.js``), the handout's HTML comes from
the macros of ``themes/jaxdeck/handout.html.j2``.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import jinja2
import nbformat

from jaxdeck.html import markdown
from jaxdeck.html.assets import THEMES
from jaxdeck.atomic import write_bytes
from jaxdeck.browser import about, add_style, fonts_ready, given_or_started, print_pdf, run_script
from jaxdeck.pages import open_served
from jaxdeck.decks import ARTICLE_PDF, Outputs
from jaxdeck.errors import DeckError
from jaxdeck.options import DeckOptions
from jaxdeck.pdf.layout import PAPERS, HandoutFlags, HandoutLayout, pdf_path
from jaxdeck.machines import pages_of, ranges, split_of
from jaxdeck.records import BuildRecord
from jaxdeck.html.fit_record import read_cuts
from jaxdeck.html.loads import at_copies
from jaxdeck.read.structure import notes_by_slide, slide_count

THEME = THEMES / "jaxdeck"
PRINT_CSS = THEME / "static" / "print.css"
HANDOUT_CSS = THEME / "static" / "handout.css"
HANDOUT_TEMPLATE = THEME / "handout.html.j2"

#: reveal.js reads query parameters as configuration: one page per slide, no margin,
#: all fragments on that one page, no notes on the slide pages
PRINT_QUERY = "?print-pdf&margin=0&pdfMaxPagesPerSlide=1&pdfSeparateFragments=false&showNotes=false"

#: the smallest type of a slide in the handout, in points: a slide's smaller text is set up to it where the slide has room
HANDOUT_FLOOR_PT = 6.2

#: the margin around the slide frame on screen (DeckOptions.reveal_config), kept on paper
SCREEN_MARGIN = DeckOptions().reveal_config()["margin"]

@dataclass(frozen=True)
class Printed:
    """What :func:`export_pdfs` printed: the files it wrote, and the seconds of each step
    (``slides`` and ``handout`` for the PDFs it printed, ``total`` for the whole call, page set-up included)."""

    paths: list[Path]
    seconds: dict[str, float]


def slide_size(nb: nbformat.NotebookNode) -> tuple[int, int]:
    return DeckOptions.of(nb).size



@contextlib.contextmanager
def print_view(browser, html: str | Path, width: int = DeckOptions.width, height: int = DeckOptions.height) -> Iterator[object]:
    """A page showing the deck in reveal.js's print view, laid out and fitted, ready to print."""
    html = Path(html)
    if not html.is_file():
        raise DeckError(html, None, "no HTML deck to print", "run `make slides` (python -m jaxdeck build) first")
    with open_served(browser, html, "print-ready.js", width, height, query=PRINT_QUERY, ready_s=20) as page:
        add_style(page, PRINT_CSS.read_text(encoding="utf-8"))
        fonts_ready(page)
        run_script(page, "print-scrolled.js", [width, height])  # a .scrollable slide: its first view, the rest in the handout
        run_script(page, "fit-pages.js", [width, height, SCREEN_MARGIN])
        run_script(page, "print-marks.js")  # the footer and logo on every page, not once
        yield page


def page_count(page) -> int:
    return len(page_slides(page))


def page_slides(page) -> list[int]:
    """The deck's slide number on each printed page (``data-jd-slide``; an auto-fit's
    continuation pages repeat their section's), 0 where a page names none."""
    return run_script(page, "page-slides.js")


def render_notes(texts: list[str], files: str | None = None) -> str:
    """Speaker notes (Markdown, written by the deck's author) as HTML, rendered as the slides
    render them (:func:`jaxdeck.html.markdown.render`): a table, code or a MyST role in a note
    looks the same in the speaker view and on paper; its pictures are the copies in the deck's
    folder of files beside the page (``files``, :attr:`jaxdeck.decks.Outputs.files`), as the slides'."""
    return at_copies("\n".join(markdown.render(text) for text in texts if text.strip()), files)


def title_metadata(nb: nbformat.NotebookNode, source: str, pages: int) -> list[tuple[str, str]]:
    options = DeckOptions.of(nb)
    rows = [(label, str(getattr(options, key))) for key, label in
            (("author", "Author"), ("date", "Date"), ("venue", "Venue")) if getattr(options, key)]
    rows.append(("Slides", str(pages)))
    rows.append(("Source", source))
    return rows


def provenance_rows(nb: nbformat.NotebookNode, slides: list[int] | None = None) -> list[tuple[str, str]]:
    """Where the outputs were produced: device, backend and versions, as far as recorded; first, for a
    ``--frozen`` build that made some outputs itself, which pages (``slides``: the deck's slide on each,
    :func:`page_slides`) show the kept machine's and which this build's."""
    build = BuildRecord.of(nb)
    found = build.provenance or {}
    machines = machine_rows(nb, slides)
    labels = {"device_kind": "Device", "backend": "Backend", "device_count": "Devices", "jax": "jax",
              "jaxlib": "jaxlib", "numpy": "numpy", "python": "Python", "demos": "demos",
              "hostname": "Host", "executed_at": "Executed at"}
    rows = [(label, str(found[key])) for key, label in labels.items() if found.get(key) not in (None, "")]
    if found.get("cpu_share"):
        rows.append(("CPU cores", "{} of {} (decks built side by side)".format(*found["cpu_share"])))
    rows += [(str(key), str(value)) for key, value in found.items()
             if key not in labels and value not in (None, "") and not isinstance(value, (dict, list))]
    if "python" not in found:
        version = (nb.metadata.get("language_info", {}) or {}).get("version")
        if version:
            rows.append(("Python (kernel)", str(version)))
    if "executed_at" not in found and build.executed_at:
        rows.append(("Executed at", str(build.executed_at)))
    if not rows:
        rows.append(("Outputs", "not recorded"))
    return machines + rows


def machine_rows(nb: nbformat.NotebookNode, slides: list[int] | None = None) -> list[tuple[str, str]]:
    """("Slides 1-8", the kept machine), ("Slides 9-14", this build's) for a frozen build whose outputs are
    partly this build's, by printed page (:func:`jaxdeck.machines.pages_of`); none for any other build."""
    split = split_of(nb)
    if split is None or split.own_machine is None:
        return []
    kept, own = pages_of(split.kept_slides, slides), pages_of(split.own_slides, slides)
    return [(f"Slide{'s' if len(pages) > 1 else ''} {ranges(pages)}", machine) for pages, machine in
            ((kept, f"{split.kept_machine} (kept: {Path(split.source).name})"), (own, f"{split.own_machine} (this build)"))
            if pages]


def _handout_macros():
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(THEME)), autoescape=True)  # notes: `| safe`
    return environment.get_template(HANDOUT_TEMPLATE.name).module


def header_template(title: str) -> str:
    """Chromium's page header for the handout: the title left, the page number right."""
    return str(_handout_macros().page_header(title))


def handout_parts(nb: nbformat.NotebookNode, slides: list[int], source: str) -> dict:
    """The handout's title page, per-page headings and notes, as HTML from the macros of handout.html.j2.

    ``slides`` is the deck's slide number on each page (:func:`page_slides`): a slide's notes go
    under its first page, so the continuation pages of an auto-fitted section do not repeat them.
    """
    options = DeckOptions.of(nb)
    title = options.title_for(source)
    notes = notes_by_slide(nb)
    macros = _handout_macros()
    pages = len(slides)
    front = macros.front(title, options.subtitle, title_metadata(nb, source, pages), provenance_rows(nb, slides), pages,
                         source)
    first = [number not in slides[:k] for k, number in enumerate(slides)]
    files = Outputs(Path(source)).files
    return {"front": str(front),
            "labels": [str(macros.slide_head(k, pages, title)) for k in range(1, pages + 1)],
            "notes": [str(macros.notes(render_notes(notes.get(number, []) if is_first else [], files)))
                      for number, is_first in zip(slides, first)]}


def print_handout_from_view(page, nb: nbformat.NotebookNode, source: str, flags: HandoutFlags | None = None) -> bytes:
    """The handout, printed from the same laid-out print view as the slides PDF, laid out as the
    header says (:class:`HandoutLayout`), or as ``flags`` say for this run."""
    options = DeckOptions.of(nb)
    layout = HandoutLayout.of(options, flags)
    add_style(page, HANDOUT_CSS.read_text(encoding="utf-8"))  # the script sizes slides to the frames it lays out
    run_script(page, "handout.js", {**handout_parts(nb, page_slides(page), source), "layout": layout.page()})
    run_script(page, "handout-floor.js", {"floorPt": HANDOUT_FLOOR_PT})
    return print_pdf(page, print_background=True, display_header_footer=True, prefer_css_page_size=False,
                     header_template=header_template(f"{options.title_for(source)} (handout)"),
                     footer_template="<span></span>", **layout.paper.print_options())


def print_article(browser, article: Path, nb: nbformat.NotebookNode, source: str) -> bytes:
    """The article (``jaxdeck.article``) on the header's paper, as its print styles lay it out, once its
    math is typeset; the title and page number in the header, as on the handout."""
    if not Path(article).is_file():
        raise DeckError(article, None, "no article to print", "build it with `jaxdeck build --article`")
    with open_served(browser, article, "article-ready.js", 1280, 720, ready_s=20) as page:
        fonts_ready(page)
        options = DeckOptions.of(nb)
        return print_pdf(page, print_background=True, display_header_footer=True, prefer_css_page_size=False,
                         header_template=header_template(options.title_for(source)),
                         footer_template="<span></span>", **PAPERS[options.paper].print_options())


def export_pdfs(nb: nbformat.NotebookNode, html: Path, outputs: Outputs, browser=None,
                parts: tuple[str, ...] = ("pdf", "handout"), flags: HandoutFlags | None = None) -> Printed:
    """Write ``outputs.pdf`` (slides, 16:9) and ``outputs.handout`` atomically; return what was printed.

    ``browser`` is an already started Playwright Browser (``jaxdeck.browser.chromium()``),
    shared by several decks; without one a browser is started for this call.
    ``parts`` names the PDFs to print (``"pdf"``, ``"handout"``, and :data:`ARTICLE_PDF` for
    ``outputs.article_pdf``, the article on the header's paper): a build reprints only those out of date.
    ``flags`` lay the handout out for this run over the header (``jaxdeck pdf --handout-per-page N --paper NAME``),
    into a file of its own (:func:`jaxdeck.pdf.layout.pdf_path`: ``NAME-handout-2up-letter.pdf``).
    The :class:`Printed` it returns holds the paths written and the seconds of each step.
    """
    width, height = slide_size(nb)
    clock = time.perf_counter()
    steps = {}
    printed = {}
    with given_or_started(browser) as started, about(outputs.deck):
        if ARTICLE_PDF in parts:
            mark = time.perf_counter()
            printed[ARTICLE_PDF] = print_article(started, outputs.article, nb, str(outputs.deck))
            steps["article"] = time.perf_counter() - mark
        if "pdf" in parts or "handout" in parts:
            with print_view(started, html, width, height) as page:
                pages = page_count(page)
                expected = slide_count(nb) + len(read_cuts(html))  # each cut of the auto-fit is one slide more
                if expected and pages != expected:
                    raise DeckError(outputs.deck, None, f"the HTML deck has {pages} slides but the notebook {expected}",
                                    "rebuild it with `make slides`")
                if "pdf" in parts:
                    mark = time.perf_counter()
                    printed["pdf"] = print_pdf(page, width=f"{width}px", height=f"{height}px", print_background=True,
                                               prefer_css_page_size=False,
                                               margin={"top": "0", "bottom": "0", "left": "0", "right": "0"})
                    steps["slides"] = time.perf_counter() - mark
                if "handout" in parts:
                    mark = time.perf_counter()
                    printed["handout"] = print_handout_from_view(page, nb, str(outputs.deck), flags)
                    steps["handout"] = time.perf_counter() - mark
    written = [write_bytes(pdf_path(outputs, kind, flags), data) for kind, data in printed.items()]
    steps["total"] = time.perf_counter() - clock
    return Printed(written, {k: round(v, 3) for k, v in steps.items()})
