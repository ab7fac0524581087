"""Stage 4: an exported HTML deck -> PDF slides and a PDF handout, printed by a real Chromium.

``build/pdf/NAME.pdf`` is reveal.js's own print view (``?print-pdf``) printed at
1280x720 px: one page per slide, every fragment shown, outputs as in the HTML
deck (widgets as their static fallback, which the HTML export already keeps).
Nothing is cut silently: long code lines wrap (themes/jaxdeck/static/print.css)
and a slide taller or wider than its page is scaled down to fit (``jaxdeck check``
reports such slides, with how many pixels they overflow).

``build/pdf/NAME-handout.pdf`` is A4 portrait: a title page with the deck's
metadata and the machine its outputs were produced on, then per slide the slide
exactly as it is printed in the slides PDF (the same laid-out page, shrunk to the
paper's width: text stays text), followed by its speaker notes (so a PDF text
extractor reads them, in order). Page headers carry the deck title and page number;
each slide's page starts with its slide number.

The same browser page produces both files: the print view is laid out once,
printed as slides, then restyled as the handout and printed again.
"""

from __future__ import annotations

import contextlib
import html as html_lib
import time
from pathlib import Path
from typing import Iterator

import jinja2
import nbformat
from markdown_it import MarkdownIt

from jaxdeck.html.assets import THEMES
from jaxdeck.atomic import write_bytes
from jaxdeck.browser import chromium
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError
from jaxdeck.read.structure import notes_by_slide, slide_count

THEME = THEMES / "jaxdeck"
PRINT_CSS = THEME / "static" / "print.css"
HANDOUT_CSS = THEME / "static" / "handout.css"
HANDOUT_TEMPLATE = THEME / "handout.html.j2"

#: reveal.js reads query parameters as configuration: one page per slide, no margin,
#: all fragments on that one page, no notes on the slide pages
PRINT_QUERY = "?print-pdf&margin=0&pdfMaxPagesPerSlide=1&pdfSeparateFragments=false&showNotes=false"

#: the margin around the slide frame on screen (export.reveal_config), kept on paper
SCREEN_MARGIN = 0.04

_notes_markdown = MarkdownIt("commonmark")

#: shrink every printed slide whose content is larger than its page (never clip it)
FIT_PAGES_JS = """
([width, height, margin]) => {
  // as on screen: the slide frame sits inside a margin of `margin` (reveal's default 0.04);
  // content larger than the frame is scaled down until it fits (never clipped)
  const base = 1 / (1 + margin);
  const scaled = [];
  document.querySelectorAll('.reveal .slides .pdf-page > section').forEach((section, index) => {
    // zoom, not transform: print fragmentation follows layout, and a transformed slide
    // taller than its page would still be cut at the page's edge
    section.style.removeProperty('zoom');
    const h = Math.max(section.scrollHeight, section.offsetHeight);
    const w = Math.max(section.scrollWidth, section.offsetWidth);
    const fit = Math.min(1, height / h, width / w);
    const s = base * fit;
    section.style.setProperty('zoom', s.toFixed(4));
    section.style.setProperty('left', ((width - width * s) / 2 / s).toFixed(2) + 'px', 'important');
    section.style.setProperty('top', ((height * (1 - base) / 2) / s).toFixed(2) + 'px', 'important');
    if (fit < 0.999) scaled.push([index + 1, fit]);
  });
  return scaled;
}
""".strip()

PRINT_READY_JS = """() => window.Reveal && document.querySelectorAll('.reveal .slides .pdf-page').length > 0
      && !document.querySelector('.loading-scroll-mode')
"""


def slide_size(nb: nbformat.NotebookNode) -> tuple[int, int]:
    options = nb.metadata.get("jaxdeck", {}) or {}
    return int(options.get("width", 1280)), int(options.get("height", 720))


@contextlib.contextmanager
def _browser(browser=None) -> Iterator[object]:
    if browser is not None:
        yield browser
        return
    with chromium() as started:
        yield started


@contextlib.contextmanager
def print_view(browser, html: str | Path, width: int = 1280, height: int = 720) -> Iterator[object]:
    """A page showing the deck in reveal.js's print view, laid out and fitted, ready to print."""
    html = Path(html)
    if not html.is_file():
        raise DeckError(html, None, "no HTML deck to print", "run `make slides` (python -m jaxdeck build) first")
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(html.resolve().as_uri() + PRINT_QUERY, wait_until="load")
        page.wait_for_function(PRINT_READY_JS, timeout=20000)
        page.add_style_tag(content=PRINT_CSS.read_text(encoding="utf-8"))
        page.evaluate("document.fonts.ready.then(() => true)")
        page.evaluate(FIT_PAGES_JS, [width, height, SCREEN_MARGIN])
        yield page
    finally:
        page.close()


def page_count(page) -> int:
    return page.evaluate("document.querySelectorAll('.reveal .slides .pdf-page').length")


def render_notes(texts: list[str]) -> str:
    """Speaker notes (Markdown, written by the deck's author) as HTML."""
    return "\n".join(_notes_markdown.render(text) for text in texts if text.strip())


def title_metadata(nb: nbformat.NotebookNode, source: str) -> list[tuple[str, str]]:
    options = nb.metadata.get("jaxdeck", {}) or {}
    rows = [(label, str(options[key])) for key, label in
            (("author", "Author"), ("date", "Date"), ("venue", "Venue")) if options.get(key)]
    rows.append(("Slides", str(slide_count(nb))))
    rows.append(("Source", source))
    return rows


def provenance_rows(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """Where the outputs were produced: device, backend and versions, as far as recorded."""
    build = nb.metadata.get("jaxdeck_build", {}) or {}
    found = build.get("provenance", {}) or {}
    labels = {"device_kind": "Device", "backend": "Backend", "device_count": "Devices", "jax": "jax",
              "jaxlib": "jaxlib", "numpy": "numpy", "python": "Python", "demos": "demos",
              "hostname": "Host", "executed_at": "Executed at"}
    rows = [(label, str(found[key])) for key, label in labels.items() if found.get(key) not in (None, "")]
    rows += [(str(key), str(value)) for key, value in found.items()
             if key not in labels and value not in (None, "") and not isinstance(value, (dict, list))]
    if "python" not in found:
        version = (nb.metadata.get("language_info", {}) or {}).get("version")
        if version:
            rows.append(("Python (kernel)", str(version)))
    if "executed_at" not in found and build.get("executed_at"):
        rows.append(("Executed at", str(build["executed_at"])))
    if not rows:
        rows.append(("Outputs", "not recorded"))
    return rows


def header_template(title: str) -> str:
    style = "font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 8px; color: #555; width: 100%; margin: 0 16mm;"
    return (f'<div style="{style} display: flex; justify-content: space-between;">'
            f'<span>{html_lib.escape(title)}</span>'
            '<span>page <span class="pageNumber"></span> / <span class="totalPages"></span></span></div>')


#: turn the laid-out print view into the handout: a title page first, then per slide
#: a heading, the slide itself (live text, vector) shrunk to the paper's width, its notes
HANDOUT_JS = """
({front, labels, notes}) => {
  document.documentElement.classList.add('jd-handout');
  const pages = [...document.querySelectorAll('.reveal .slides .pdf-page')];
  pages.forEach((page, i) => {
    const head = document.createElement('div');
    head.className = 'jd-slide-head';
    head.innerHTML = labels[i] || '';
    const body = document.createElement('div');
    body.className = 'jd-notes';
    body.innerHTML = notes[i] || '<p class="jd-no-notes">(no notes for this slide)</p>';
    const frame = document.createElement('div');
    frame.className = 'jd-frame';
    page.parentNode.insertBefore(head, page);
    page.parentNode.insertBefore(frame, page);
    frame.appendChild(page);
    frame.parentNode.insertBefore(body, frame.nextSibling);
    head.classList.add('jd-break');
  });
  const title = document.createElement('div');
  title.className = 'jd-title-page';
  title.innerHTML = front;
  document.querySelector('.reveal .slides').prepend(title);
  return pages.length;
}
""".strip()


def handout_parts(nb: nbformat.NotebookNode, pages: int, source: str) -> dict:
    """The handout's title page, per-slide headings and rendered notes (HTML strings)."""
    options = nb.metadata.get("jaxdeck", {}) or {}
    title = options.get("title") or Path(source).stem
    notes = notes_by_slide(nb)
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(THEME)), autoescape=False)
    front = environment.get_template(HANDOUT_TEMPLATE.name).render(
        title=title, options=options, metadata=title_metadata(nb, source), provenance=provenance_rows(nb),
        count=pages, source=source)
    escaped = html_lib.escape(title)
    labels = [f"<span><strong>Slide {k}</strong> / {pages}</span><span>{escaped}</span>" for k in range(1, pages + 1)]
    return {"front": front, "labels": labels, "notes": [render_notes(notes.get(k, [])) for k in range(1, pages + 1)]}


def print_handout_from_view(page, nb: nbformat.NotebookNode, source: str) -> bytes:
    """The A4 handout, printed from the same laid-out print view as the slides PDF."""
    options = nb.metadata.get("jaxdeck", {}) or {}
    title = options.get("title") or Path(source).stem
    page.evaluate(HANDOUT_JS, handout_parts(nb, page_count(page), source))
    page.add_style_tag(content=HANDOUT_CSS.read_text(encoding="utf-8"))
    return page.pdf(format="A4", print_background=True, display_header_footer=True, prefer_css_page_size=False,
                    header_template=header_template(f"{title} (handout)"), footer_template="<span></span>",
                    margin={"top": "18mm", "bottom": "14mm", "left": "16mm", "right": "16mm"})


def export_pdfs(nb: nbformat.NotebookNode, html: Path, outputs: Outputs, browser=None,
                timings: dict | None = None, parts: tuple[str, ...] = ("pdf", "handout")) -> list[Path]:
    """Write ``outputs.pdf`` (slides, 16:9) and ``outputs.handout`` (A4) atomically; return the paths written.

    ``browser`` is an already started Playwright Browser (``jaxdeck.browser.chromium()``),
    shared by several decks; without one a browser is started for this call.
    ``parts`` names the PDFs to print (``"pdf"``, ``"handout"``): a build reprints only those out of date.
    ``timings``, when given, receives the seconds of each step (slides, handout, total).
    """
    width, height = slide_size(nb)
    clock = time.perf_counter()
    steps = {}
    printed = {}
    with _browser(browser) as started:
        with print_view(started, html, width, height) as page:
            pages = page_count(page)
            expected = slide_count(nb)
            if expected and pages != expected:
                raise DeckError(outputs.deck, None, f"the HTML deck has {pages} slides but the notebook {expected}",
                                "rebuild it with `make slides`")
            if "pdf" in parts:
                mark = time.perf_counter()
                printed["pdf"] = page.pdf(width=f"{width}px", height=f"{height}px", print_background=True,
                                          prefer_css_page_size=False,
                                          margin={"top": "0", "bottom": "0", "left": "0", "right": "0"})
                steps["slides"] = time.perf_counter() - mark
            if "handout" in parts:
                mark = time.perf_counter()
                printed["handout"] = print_handout_from_view(page, nb, str(outputs.deck))
                steps["handout"] = time.perf_counter() - mark
    written = [write_bytes(getattr(outputs, kind), data) for kind, data in printed.items()]
    steps["total"] = time.perf_counter() - clock
    if timings is not None:
        timings.update({k: round(v, 3) for k, v in steps.items()})
    return written
