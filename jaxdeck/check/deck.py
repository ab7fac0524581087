"""`jaxdeck check`: lint a built deck in a real browser, slide by slide.

The exported HTML deck is opened in headless Chromium at the deck's size
(1280x720 unless the header says otherwise). Every slide is shown with all its
fragments visible and measured; together with the executed notebook this reports:

- ``overflow``: content beyond the slide frame (how many pixels, down or right);
- ``code-width``: code lines wider than their frame (cut or scrolled on stage);
- ``notes``: slides without speaker notes (the handout would be empty there);
- ``budget``: code cells slower than the deck's budget (2 s, or ``budget_s`` in the
  header), unless tagged ``slow``;
- ``image``: images that failed to load.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import nbformat

from jaxdeck.browser import chromium, open_deck
from jaxdeck.errors import DeckError, display_path
from jaxdeck.read.source import round_trip_difference
from jaxdeck.read.structure import SLIDE, SUBSLIDE, notes_by_slide, slide_count

DEFAULT_BUDGET_S = 2.0
SLOW_TAG = "slow"
#: overflow smaller than this (sub-pixel rounding, borders) is not worth a report
TOLERANCE_PX = 2

KINDS = ("overflow", "code-width", "notes", "budget", "image")

#: every fragment shown, as the audience sees a slide at its end; no chrome in the way
SHOW_ALL_CSS = """
.reveal .slides section .fragment { opacity: 1 !important; visibility: inherit !important; transform: none !important; }
"""

SLIDES_JS = """() => Reveal.getSlides().map(s => {
  const i = Reveal.getIndices(s);
  return [parseInt(s.getAttribute('data-jd-slide') || '0'), i.h, i.v || 0];
})"""

MEASURE_JS = """([h, v, width, height]) => {
  Reveal.slide(h, v);
  const section = Reveal.getCurrentSlide();
  const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const scale = Reveal.getScale() || 1;
  const x = r => (r - frame.left) / scale, y = r => (r - frame.top) / scale;
  let bottom = 0, right = 0;
  const inPre = el => !!el.closest('pre');
  for (const el of [section, ...section.querySelectorAll('*')]) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || el.closest('aside.notes')) continue;
    if (el.ownerSVGElement) continue;  // an SVG's inner shapes are clipped by the SVG itself
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // what an ancestor clips (overflow hidden/auto/scroll, e.g. KaTeX's glyphs) is not on the slide
    let b = r.bottom, rt = r.right;
    for (let a = el.parentElement; a && a !== section.parentElement; a = a.parentElement) {
      const o = getComputedStyle(a);
      const ar = a.getBoundingClientRect();
      if (o.overflowY !== 'visible') b = Math.min(b, ar.bottom);
      if (o.overflowX !== 'visible') rt = Math.min(rt, ar.right);
    }
    bottom = Math.max(bottom, y(b));
    if (!inPre(el)) right = Math.max(right, x(rt));
  }
  const code = [];
  for (const pre of section.querySelectorAll('pre')) {
    if (pre.closest('aside.notes')) continue;
    const r = pre.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const left = x(r.left);
    const visible = Math.min(pre.clientWidth, width - left);
    const wider = pre.scrollWidth - visible;
    if (wider > 0) {
      const lines = pre.innerText.split('\\n');
      const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
      const chars = pre.scrollWidth > 0 ? longest.length * visible / pre.scrollWidth : longest.length;
      const over = lines.filter(l => l.length > chars + 0.5).length;
      code.push([Math.round(wider), over, longest.trim().slice(0, 40)]);
    }
  }
  return {bottom: Math.round(bottom - height), right: Math.round(right - width), code: code};
}"""

IMAGES_JS = """() => [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => {
  const s = i.closest('section[data-jd-slide]');
  return [s ? parseInt(s.getAttribute('data-jd-slide')) : 0, i.getAttribute('src') || ''];
})"""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one slide of a deck."""

    slide: int | None
    kind: str
    message: str
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = display_path(self.path) if self.path else ""
        if where and self.line is not None:
            where += f":{self.line}"
        if self.slide:
            where += f" (slide {self.slide})" if where else f"slide {self.slide}"
        return f"{where}: {self.kind}: {self.message}" if where else f"{self.kind}: {self.message}"


def slide_lines(nb: nbformat.NotebookNode) -> dict[int, int]:
    """The source line where each slide starts."""
    lines: dict[int, int] = {}
    for cell in nb.cells:
        info = cell.metadata.get("jaxdeck", {})
        if "slide" in info and (info.get("slide_type") in (SLIDE, SUBSLIDE) or info["slide"] not in lines):
            lines.setdefault(info["slide"], info.get("line"))
    return lines


def budget_of(nb: nbformat.NotebookNode) -> float:
    return float((nb.metadata.get("jaxdeck", {}) or {}).get("budget_s", DEFAULT_BUDGET_S))


def notebook_problems(deck: Path, nb: nbformat.NotebookNode) -> list[Problem]:
    """What the executed notebook alone tells: missing notes, cells over their time budget."""
    problems = []
    lines = slide_lines(nb)
    notes = notes_by_slide(nb)
    for number in range(1, slide_count(nb) + 1):
        if not any(text.strip() for text in notes.get(number, [])):
            problems.append(Problem(number, "notes", "no speaker notes; add a paragraph starting with 'Note:'",
                                    str(deck), lines.get(number)))
    difference = round_trip_difference(deck)
    if difference is not None:
        line, written, found = difference
        problems.append(Problem(1, "round-trip", f"jupytext writes line {line} as {written!r}, not {found!r}, "
                                "so live edits would rewrite it; write it jupytext's way", str(deck), line))
    budget = budget_of(nb)
    for cell in nb.cells:
        info = cell.metadata.get("jaxdeck", {})
        duration = info.get("duration_s")
        if cell.cell_type != "code" or duration is None or SLOW_TAG in cell.metadata.get("tags", []):
            continue
        if duration > budget:
            problems.append(Problem(info.get("slide"), "budget",
                                    f"cell took {duration:.2f} s, over the {budget:g} s budget; "
                                    f"make it faster or tag it '{SLOW_TAG}'", str(deck), info.get("line")))
    return problems


def browser_problems(deck: Path, nb: nbformat.NotebookNode, html: Path, browser) -> list[Problem]:
    """What the deck looks like in Chromium: overflow, wide code, broken images."""
    options = nb.metadata.get("jaxdeck", {}) or {}
    width, height = int(options.get("width", 1280)), int(options.get("height", 720))
    lines = slide_lines(nb)
    problems = []
    failed: list[str] = []
    with open_deck(browser, html, width=width, height=height) as (page, _requests):
        page.on("requestfailed", lambda r: failed.append(r.url))
        page.add_style_tag(content=SHOW_ALL_CSS)
        page.evaluate("document.fonts.ready.then(() => true)")
        for number, h, v in page.evaluate(SLIDES_JS):
            found = page.evaluate(MEASURE_JS, [h, v, width, height])
            where = dict(path=str(deck), line=lines.get(number))
            over = [(found["bottom"], "below"), (found["right"], "to the right of")]
            spill = [f"{px} px {side}" for px, side in over if px > TOLERANCE_PX]
            if spill:
                problems.append(Problem(number, "overflow", f"content overflows the {width}x{height} slide frame by "
                                        f"{' and '.join(spill)} it; split the slide or shorten it", **where))
            for px, count, text in found["code"]:
                if px > TOLERANCE_PX:
                    problems.append(Problem(number, "code-width", f"{max(count, 1)} code line(s) wider than the frame "
                                            f"by {px} px (e.g. '{text}'); break the line or shorten it", **where))
        for number, src in page.evaluate(IMAGES_JS):
            problems.append(Problem(number or None, "image", f"image '{src}' failed to load; check its path "
                                    "(relative to the deck)", str(deck), lines.get(number)))
    return problems


@contextlib.contextmanager
def _browser(browser=None):
    if browser is not None:
        yield browser
        return
    with chromium() as started:
        yield started


def check_deck(deck: Path, nb: nbformat.NotebookNode, html: Path, browser=None) -> list[Problem]:
    """Every problem of a built deck, in slide order (an empty list when it is fine)."""
    deck, html = Path(deck), Path(html)
    if not html.is_file():
        raise DeckError(html, None, "no HTML deck to check", "run `make slides` (python -m jaxdeck build) first")
    with _browser(browser) as started:
        problems = browser_problems(deck, nb, html, started)
    problems += notebook_problems(deck, nb)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(problems, key=lambda p: (p.slide or 0, order.get(p.kind, 99), p.line or 0))
