"""`jaxdeck check`: lint a built deck in a real browser, slide by slide.

The exported HTML deck is opened in headless Chromium at the deck's size
(1280x720 unless the header says otherwise). Every slide is shown with all its
fragments visible and measured (by the theme's ``scripts/check-*.js``, ``scripts/slide-overflow.js`` and ``static/check.css``); together
with the executed notebook this reports (each kind registered in :data:`CHECKS`):

- ``overflow``: content beyond the slide frame (how many pixels, down or right, and whether the
  code, an output or the text runs over; never on a ``{.scrollable}`` slide, which scrolls), measured
  by :mod:`jaxdeck.check.measure` as ``rehearse`` measures the live slide;
- ``code-width``: lines wider than their frame that cannot wrap (an output's, a listing's; a code
  cell's long line wraps under a continuation mark instead);
- ``notes``: slides without speaker notes (the handout would be empty there), but those whose
  heading says they need none (``## Questions? {.no-notes}``);
- ``round-trip``: lines jupytext would write another way (a live edit would rewrite them);
- ``code-length``: shown code cells longer than the deck's line limit (14, or ``max_code_lines``
  in the header): at the theme's size a room reads about that many; in a document without slide
  markers only when its header sets the limit (the auto-fit splits long code there);
- ``budget``: code cells slower than the deck's budget (2 s, or ``budget_s`` in the
  header), unless tagged ``slow`` or ``setup``;
- ``image``: images that failed to load;
- ``ink``: a picture whose ink does not stand out from the slide (black lines on a transparent
  ground, on the dark theme): measured on the slide as shown, by :mod:`jaxdeck.check.ink`; the
  header's ``logo`` too, over every slide (reported once, at its line in the header).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import nbformat
import yaml

from jaxdeck.check.budget import SETUP_TAG, SLOW_TAG, busy_words, held_to_budget, judged_seconds  # noqa: F401 (re-exported)
from jaxdeck.browser import about, add_style, fonts_ready, given_or_started, run_script
from jaxdeck.pages import open_deck
from jaxdeck.check.ink import faint_logo, faint_pictures
from jaxdeck.check.measure import TOLERANCE_PX, measure_slide, overflow_said, wide_said  # noqa: F401 (TOLERANCE_PX: re-exported)
from jaxdeck.errors import DeckError, display_path
from jaxdeck.html.assets import THEMES
from jaxdeck.html.markdown import PARSER
from jaxdeck.html.myst.tags import cell_view
from jaxdeck.markers import NO_NOTES, NOTE_PREFIX
from jaxdeck.options import DeckOptions
from jaxdeck.records import OPTIONS_KEY, BuildRecord, cell_info
from jaxdeck.tokens import parsed
from jaxdeck.read.contained import copied_url
from jaxdeck.read.source import round_trip_difference
from jaxdeck.read.structure import SLIDE, SUBSLIDE, notes_by_slide, slide_count, slides_with_class


@dataclass(frozen=True)
class Check:
    """One kind of problem ``check`` looks for; ``where``: measured in the browser or read from the notebook."""

    kind: str
    where: str
    what: str


#: every check, in the order a slide's problems are reported
CHECKS = {c.kind: c for c in (
    Check("overflow", "browser", "content beyond the slide frame (how many pixels, down or right)"),
    Check("code-width", "browser", "lines wider than their frame that cannot wrap (an output's, a listing's)"),
    Check("notes", "notebook", "slides without speaker notes (the handout would be empty there)"),
    Check("round-trip", "notebook", "lines jupytext writes another way (a live edit would rewrite them)"),
    Check("code-length", "notebook", "shown code cells longer than the deck's line limit (max_code_lines, 14)"),
    Check("budget", "notebook", "code cells slower than the deck's budget, unless tagged slow or setup"),
    Check("image", "browser", "images that failed to load"),
    Check("ink", "browser", "pictures whose ink does not contrast with the slide (WCAG ratio under 3:1)"),
)}
KINDS = tuple(CHECKS)

#: every fragment shown, as the audience sees a slide at its end; no chrome in the way
SHOW_ALL_CSS = THEMES / "jaxdeck" / "static" / "check.css"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one slide of a deck."""

    slide: int | None
    kind: str
    message: str
    path: str | None = None
    line: int | None = None

    def __post_init__(self):
        if self.kind not in CHECKS:
            raise ValueError(f"{self.kind!r} is not a registered check (jaxdeck.check.deck.CHECKS)")

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
        info = cell_info(cell)
        if "slide" in info and (info.get("slide_type") in (SLIDE, SUBSLIDE) or info["slide"] not in lines):
            lines.setdefault(info["slide"], info.get("line"))
    return lines


def cell_line(nb: nbformat.NotebookNode, index: int) -> int | None:
    """The source line of the notebook's cell ``index`` (None: not known)."""
    return cell_info(nb.cells[index]).get("line") if 0 <= index < len(nb.cells) else None


def header_line(deck: Path, key: str) -> int | None:
    """The line of ``key`` in a Markdown deck's YAML header (under any mapping; None: not there)."""
    try:
        text = deck.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        return None
    from jaxdeck.read.yaml_header import header_line_count

    count = header_line_count(text)  # the header's lines, its two rules included
    if not count:
        return None
    try:
        node = yaml.compose("\n".join(text.split("\n")[1:count - 1]))
    except yaml.YAMLError:
        return None
    mappings = [node]
    while mappings:
        mapping = mappings.pop(0)
        if not isinstance(mapping, yaml.MappingNode):
            continue
        for name, value in mapping.value:
            if name.value == key:
                return name.start_mark.line + 2  # the header's text starts on the deck's second line
            mappings.append(value)
    return None


def written_pictures(nb: nbformat.NotebookNode) -> dict[tuple[int, str], tuple[str, int | None]]:
    """Each picture the slides' Markdown names, keyed by its slide and the name of its copy on the page
    (``_up_/figures/plot.png`` for ``../figures/plot.png``): the name as the deck writes it, and its line."""
    found = {}
    for cell in nb.cells:
        info = cell_info(cell)
        if cell.cell_type != "markdown" or "slide" not in info:
            continue
        start = info.get("line")
        for token in parsed(PARSER, cell.source):
            for child in token.children or []:
                if child.type == "image" and token.map:
                    src = str(child.attrs.get("src", ""))
                    line = start + token.map[0] if start is not None else None
                    found.setdefault((info["slide"], copied_url(src)), (src, line))
    return found


def budget_of(nb: nbformat.NotebookNode) -> float:
    return float(DeckOptions.of(nb).budget_s)


def missing_notes(deck: Path, nb: nbformat.NotebookNode, lines: dict[int, int]) -> list[Problem]:
    if BuildRecord.of(nb).marker_mode is False:
        return []  # a document without slide markers (a tutorial): its 'Note:' paragraphs are prose
    notes, needs_none = notes_by_slide(nb), slides_with_class(nb, NO_NOTES)  # `## Questions? {.no-notes}`
    asked = (f"no speaker notes; add a paragraph starting with '{NOTE_PREFIX}' "
             f"(or, on a slide that needs none, write {{.{NO_NOTES}}} after its heading)")
    return [Problem(number, "notes", asked, str(deck), lines.get(number))
            for number in range(1, slide_count(nb) + 1)
            if number not in needs_none and not any(text.strip() for text in notes.get(number, []))]


def round_trip(deck: Path, nb: nbformat.NotebookNode, lines: dict[int, int]) -> list[Problem]:
    difference = round_trip_difference(deck)
    if difference is None:
        return []
    line, written, found = difference
    starts = [number for number, at in lines.items() if at is not None and at <= line]
    return [Problem(max(starts, default=1), "round-trip", f"jupytext writes line {line} as {written!r}, not {found!r}, "
                    "so live edits would rewrite it; write it jupytext's way", str(deck), line)]


def over_budget(deck: Path, nb: nbformat.NotebookNode, lines: dict[int, int]) -> list[Problem]:
    budget = budget_of(nb)
    share = BuildRecord.of(nb).cpu_share
    how = (f" (measured on {share[0]} of {share[1]} CPU cores, beside other decks: `jaxdeck build --jobs 1 "
           f"--no-cache {deck}` measures it on all of them)") if share else ""
    problems = []
    for cell in nb.cells:
        info = cell_info(cell)
        duration = info.get("duration_s")
        if cell.cell_type != "code" or duration is None or not held_to_budget(cell.metadata.get("tags", [])):
            continue
        load = (info.get("others_share"), info.get("cpu_s"), info.get("waited_s"))
        if judged_seconds(duration, *load) > budget:
            busy = busy_words(duration, *load)
            problems.append(Problem(info.get("slide"), "budget",
                                    f"cell took {duration:.2f} s{busy}, over the {budget:g} s budget{how}; "
                                    f"make it faster or tag it '{SLOW_TAG}'", str(deck), info.get("line")))
    return problems


def too_long(deck: Path, nb: nbformat.NotebookNode, lines: dict[int, int]) -> list[Problem]:
    limit = DeckOptions.of(nb).max_code_lines
    if BuildRecord.of(nb).marker_mode is False and "max_code_lines" not in nb.metadata.get(OPTIONS_KEY, {}):
        return []  # a document without slide markers: the auto-fit splits its long code at statements
    problems = []
    for cell in nb.cells:
        if cell.cell_type != "code" or not cell_view(cell).input_on_slide:
            continue
        count = len(cell.source.rstrip().splitlines())
        if count > limit:
            info = cell_info(cell)
            problems.append(Problem(info.get("slide"), "code-length",
                                    f"a code cell of {count} lines, over the deck's {limit}; split the slide, or move "
                                    "setup into a cell tagged 'remove-cell' and helpers into a module "
                                    "(max_code_lines in the header sets the limit)", str(deck), info.get("line")))
    return problems


#: the checks read from the executed notebook alone
NOTEBOOK_CHECKS = (missing_notes, round_trip, too_long, over_budget)


def notebook_problems(deck: Path, nb: nbformat.NotebookNode) -> list[Problem]:
    """What the executed notebook alone tells: missing notes, lines jupytext rewrites, code too long, cells over budget."""
    lines = slide_lines(nb)
    return [problem for found in NOTEBOOK_CHECKS for problem in found(deck, nb, lines)]


def browser_problems(deck: Path, nb: nbformat.NotebookNode, html: Path, browser) -> list[Problem]:
    """What the deck looks like in Chromium: overflow, wide code, broken images, faint pictures."""
    width, height = DeckOptions.of(nb).size
    lines = slide_lines(nb)
    problems = []
    logo, logo_said = DeckOptions.of(nb).logo, False
    pictures = written_pictures(nb)
    with open_deck(browser, html, width=width, height=height) as (page, _requests):
        add_style(page, SHOW_ALL_CSS.read_text(encoding="utf-8"))
        fonts_ready(page)
        for number, h, v in run_script(page, "check-slides.js"):
            found = measure_slide(page, (h, v))  # the measure rehearse takes of the live slide, too
            where = dict(path=str(deck), line=lines.get(number))
            said = overflow_said(found)
            if said:  # at the line of the cell whose content runs over, when the page says which
                over = cell_line(nb, found.cell) if found.cell is not None else None
                problems.append(Problem(number, "overflow", said, str(deck), over or lines.get(number)))
            for px, count, text, kind in found.wide:
                problems.append(Problem(number, "code-width", wide_said(px, count, text, kind), **where))
            for faint in faint_pictures(page, files=f"{html.stem}_files/"):
                line = cell_line(nb, faint.cell) if faint.cell is not None else None
                written = pictures.get((number, faint.name))
                if written is not None:  # a slide's picture: named and placed as the deck writes it
                    faint, line = replace(faint, name=written[0]), written[1]
                problems.append(Problem(number, "ink", faint.said(), str(deck), line or lines.get(number)))
            if logo and not logo_said:  # the one logo over every slide: said once, where it first fades
                faint = faint_logo(page, logo)
                if faint is not None:
                    logo_said = True
                    problems.append(Problem(number, "ink", faint.said(), str(deck), header_line(deck, "logo")))
        for number, src in run_script(page, "check-images.js"):
            problems.append(Problem(number or None, "image", f"image '{src}' failed to load; check its path "
                                    "(relative to the deck)", str(deck), lines.get(number)))
    return problems


def check_deck(deck: Path, nb: nbformat.NotebookNode, html: Path, browser=None) -> list[Problem]:
    """Every problem of a built deck, in slide order (an empty list when it is fine)."""
    deck, html = Path(deck), Path(html)
    if not html.is_file():
        raise DeckError(html, None, "no HTML deck to check", "run `make slides` (python -m jaxdeck build) first")
    with given_or_started(browser) as started, about(deck):
        problems = browser_problems(deck, nb, html, started)
    problems += notebook_problems(deck, nb)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(problems, key=lambda p: (p.slide or 0, order.get(p.kind, 99), p.line or 0))
