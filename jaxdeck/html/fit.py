"""Auto-fit for decks without slide markers: each section becomes as many slides as it needs.

A tutorial notebook without ``---``/``--`` gets one slide per ``#``/``##`` heading (sub-slide
per ``###``) from :mod:`jaxdeck.read.structure`, so a whole section lands on one slide and
overflows it. :func:`fit` cuts such a deck where the laid-out page says a slide runs out of
room:

1. MyST cells are cut at their recorded slide breaks, then every markdown cell is exploded into one cell per top-level Markdown block (a list, a
   table, a fence, a blockquote, an HTML block or a directive stays whole), so that a cut
   can fall between paragraphs; code cells are never split;
2. the candidate is rendered and measured in the browser (``render`` and ``measure`` are
   injected, :func:`fit_in_browser` builds them from Chromium and ``fit.js``); on every slide
   whose cells reach below the room it has, a new sub-slide starts at the first piece that
   does not fit, headed by the section's heading and " (continued)";
3. that repeats until nothing overflows or ``max_rounds`` renders were made.

Only the copy the HTML export renders is cut: the source file and the executed notebook
stay as they are, so the round trip to the source stays lossless. A deck with markers
(``metadata.jaxdeck_build.marker_mode``) is the presenter's own layout and is never re-split.
Continuation slides keep the section's ``metadata.jaxdeck.slide`` number, so ``jaxdeck
check`` and the speaker notes still point at the section's line in the source.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import nbformat

from jaxdeck.html import myst
from jaxdeck.html.assets import THEMES
from jaxdeck.html.layout import cell_info, split_breaks
from jaxdeck.html.myst import cell_view
from jaxdeck.read.structure import CONTINUE, NOTES, SKIP, SLIDE, SUBSLIDE

#: the browser side of ``measure``, beside the theme's other page scripts
FIT_JS = THEMES / "jaxdeck" / "scripts" / "fit.js"

#: what a continuation slide's heading adds to the section's heading text
CONTINUED = " (continued)"

#: a bottom this far past the room is sub-pixel rounding, not overflow (check reports from 2 px)
TOLERANCE_PX = 1.0

#: top-level blocks that render nothing: they travel with the block after them
_INVISIBLE = frozenset({"myst_target", "myst_line_comment", "myst_block_break"})


# ------------------------------------------------------------------------------ records

@dataclass(frozen=True)
class CellBox:
    """Where one notebook cell lies on its slide, in slide pixels from the slide's top."""

    cell: int
    top: float
    bottom: float


@dataclass(frozen=True)
class SlideFill:
    """One reveal.js slide as laid out: its place in ``Reveal.getSlides()``, the height its
    content may use, and the cells shown on it."""

    index: int
    available: float
    cells: tuple[CellBox, ...]

    @property
    def overflows(self) -> bool:
        return any(box.bottom > self.available + TOLERANCE_PX for box in self.cells)


@dataclass(frozen=True)
class _Block:
    """A run of lines of a markdown cell that renders on its own (one top-level block)."""

    start: int
    end: int
    kind: str


Render = Callable[[nbformat.NotebookNode], Any]
Measure = Callable[[Any], Sequence[SlideFill]]


# ------------------------------------------------------------------------- the parser

@functools.lru_cache(maxsize=4096)
def _parse(source: str) -> tuple[list[_Block], list[int], tuple[int, str] | None]:
    """Top-level blocks, lines that belong to none (link reference definitions), and the
    heading (level, text) when the first visible block is one."""
    tokens = myst._MD.parse(source)  # the deck's own parser: blocks split as they render
    blocks: list[_Block] = []
    heading = None
    for index, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        kind = token.type
        blocks.append(_Block(token.map[0], token.map[1], kind))
        if kind == "heading_open" and not any(b.kind not in _INVISIBLE for b in blocks[:-1]):
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            heading = (int(token.tag[1:]), inline.content.strip() if inline is not None else "")
    lines = source.split("\n")
    covered = set()
    for block in blocks:
        covered.update(range(block.start, block.end))
    loose = [n for n, text in enumerate(lines) if n not in covered and text.strip()]
    return blocks, loose, heading


def _heading(cell) -> tuple[int, str] | None:
    """The heading a markdown cell starts with (level, text), if it does."""
    if cell.cell_type != "markdown":
        return None
    return _parse(cell.source)[2]


def _only_heading(cell) -> bool:
    """A markdown cell that shows a heading and nothing else (it belongs with what follows)."""
    if _heading(cell) is None:
        return False
    return sum(1 for b in _parse(cell.source)[0] if b.kind not in _INVISIBLE) == 1


def _leads_in(cell) -> bool:
    """A heading alone, or a paragraph that ends with a colon: it introduces what follows, and a
    cut never leaves it last on a slide."""
    if _only_heading(cell):
        return True
    if cell.cell_type != "markdown":
        return False
    blocks = [b for b in _parse(cell.source)[0] if b.kind not in _INVISIBLE]
    return len(blocks) == 1 and blocks[0].kind == "paragraph_open" and cell.source.rstrip().endswith(":")


# ---------------------------------------------------------------------- cell helpers

def _kind(cell) -> str:
    return cell_info(cell).get("slide_type", CONTINUE)


def _set_kind(cell, kind: str) -> None:
    """The effective slide type in both places the readers look (layout: jaxdeck, RISE: slideshow)."""
    cell.metadata.setdefault("jaxdeck", {})["slide_type"] = kind
    if "slideshow" in cell.metadata:
        cell.metadata["slideshow"] = dict(cell.metadata["slideshow"] or {}, slide_type=kind)


def is_piece(cell) -> bool:
    """Whether a cell is shown on a slide as content a cut may fall before."""
    return (cell.cell_type in ("markdown", "code") and bool(cell.source.strip()) and not cell_view(cell).removed
            and _kind(cell) not in (NOTES, SKIP) and not cell_info(cell).get("in_columns"))


def marker_less(nb: nbformat.NotebookNode) -> bool:
    """A deck read without ``---``/``--`` markers: its slides are the headings', and may be cut."""
    build = nb.metadata.get("jaxdeck_build") or {}
    if "marker_mode" not in build or build["marker_mode"]:
        return False
    return not any(cell_info(c).get("marker") in ("---", "--") for c in nb.cells)


# --------------------------------------------------------------------------- explode

def _spans(cell) -> list[tuple[int, int]]:
    """Line ranges (start, end) of the pieces of a markdown cell: one per visible top-level
    block, invisible blocks (targets, comments, ``+++``) and a leading marker line joined to
    the block after them."""
    blocks, _loose, _heading_ = _parse(cell.source)
    lines = cell.source.split("\n")
    marker = cell_info(cell).get("marker")
    starts: list[int] = []
    carry = False
    for number, block in enumerate(blocks):
        text = "\n".join(lines[block.start:block.end]).strip()
        joins_next = block.kind in _INVISIBLE or (number == 0 and marker is not None and text == marker)
        if not carry:
            starts.append(block.start)
        carry = joins_next
    if not starts:
        return [(0, len(lines))]
    starts[0] = 0
    return [(s, starts[i + 1] if i + 1 < len(starts) else len(lines)) for i, s in enumerate(starts)]


def explode(cell) -> list:
    """One markdown cell as one cell per top-level block, rendering as the whole cell did.

    Trailing blank lines go (a block never needs them); link reference definitions, which
    render nothing, are repeated in every piece so that each piece's links still resolve.
    The first piece keeps the cell's slide type, the others continue its slide.
    """
    if cell.cell_type != "markdown" or not is_piece(cell):
        return [cell]
    spans = _spans(cell)
    if len(spans) < 2:
        return [cell]
    lines = cell.source.split("\n")
    loose = set(_parse(cell.source)[1])
    references = [lines[n] for n in sorted(loose)]
    pieces = []
    for number, (start, end) in enumerate(spans):
        chunk = [text for n, text in enumerate(lines[start:end], start) if n not in loose]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        if references:
            chunk += [""] + references
        piece = nbformat.v4.new_markdown_cell("\n".join(chunk))
        piece.metadata = copy.deepcopy(cell.metadata)
        piece.metadata.pop("lines_to_next_cell", None)
        info = piece.metadata.setdefault("jaxdeck", {})
        if "line" in info:
            info["line"] = info["line"] + start
        if number:
            for key in ("marker", "column_start"):
                info.pop(key, None)
            _set_kind(piece, CONTINUE)
        piece["id"] = cell.get("id")
        pieces.append(piece)
    return pieces


def _unique_ids(nb: nbformat.NotebookNode) -> None:
    """Every cell a distinct id: the browser side finds cells by it (``id="cell-id=…"``)."""
    nb.nbformat, nb.nbformat_minor = 4, max(5, int(nb.get("nbformat_minor", 5)))
    used: set[str] = set()
    for index, cell in enumerate(nb.cells):
        base = str(cell.get("id") or f"cell-{index:03d}")[:56]
        name, count = base, 0
        while name in used:
            count += 1
            name = f"{base}-{count}"
        used.add(name)
        cell["id"] = name


# ---------------------------------------------------------------------------- cuts

def _slide_start(nb: nbformat.NotebookNode, index: int) -> int:
    """The cell that starts the slide ``index`` is on."""
    while index > 0 and _kind(nb.cells[index]) not in (SLIDE, SUBSLIDE):
        index -= 1
    return index


def _section_heading(cell) -> tuple[int, str] | None:
    """The heading a continuation of the slide ``cell`` starts repeats (level, text)."""
    continues = cell_info(cell).get("continues")
    if continues:
        return int(continues["level"]), str(continues["title"])
    return _heading(cell)


def plan_cuts(nb: nbformat.NotebookNode, fills: Iterable[SlideFill]) -> list[int]:
    """The cells before which a new sub-slide starts, from how each slide was laid out.

    On an overflowing slide the cut falls at the first piece whose bottom is below the room;
    further cuts on the same slide follow from the same measurement, each piece shifted up by
    what the earlier cut moved away (the next round measures again, so an estimate that is
    off is corrected there). A heading or a lead-in ending with a colon left last on a slide
    moves with what it introduces. A piece
    taller than the slide stays on a slide of its own (after its heading): with nothing else
    to cut, the round plans nothing and fitting ends.
    """
    cuts: list[int] = []
    for fill in fills:
        if not fill.overflows:
            continue
        boxes = sorted((b for b in fill.cells if 0 <= b.cell < len(nb.cells)), key=lambda b: b.cell)
        if not boxes:
            continue
        start = _slide_start(nb, boxes[0].cell)
        headed = _only_heading(nb.cells[start]) and boxes[0].cell == start
        # where content begins on this slide: under its heading, else at its first cell
        content_top = boxes[1].top if headed and len(boxes) > 1 else boxes[0].top
        shift = 0.0
        current: list[CellBox] = []  # what the slide being filled holds so far
        for box in boxes:
            fits = box.bottom - shift <= fill.available + TOLERANCE_PX
            if fits or not is_piece(nb.cells[box.cell]):
                current.append(box)
                continue
            content = [b.cell for b in current if is_piece(nb.cells[b.cell]) and not _only_heading(nb.cells[b.cell])]
            if content:  # else the piece is alone under its heading: too tall for any slide, it stays
                at = len(current)
                while at > 1 and _leads_in(nb.cells[current[at - 1].cell]) and content[0] < current[at - 1].cell:
                    at -= 1
                moved = current[at:]
                cut = moved[0] if moved else box
                cuts.append(cut.cell)
                shift = cut.top - content_top
                current = moved
            current.append(box)
    return sorted(set(cuts))


def apply_cuts(nb: nbformat.NotebookNode, cuts: Iterable[int]) -> int:
    """Start a sub-slide at each cut, headed by the section's heading + " (continued)"; how many."""
    done = 0
    for at in sorted(set(cuts), reverse=True):
        if at <= 0 or at >= len(nb.cells):
            continue
        start = _slide_start(nb, at)
        if start == at:
            continue
        cell = nb.cells[at]
        cell.metadata.setdefault("jaxdeck", {})["cut"] = True  # for :func:`cuts_of`
        head = _section_heading(nb.cells[start]) if _only_heading(nb.cells[start]) else None
        if head is None:
            _set_kind(cell, SUBSLIDE)
        else:
            level, title = head
            heading = nbformat.v4.new_markdown_cell(f"{'#' * level} {title}{CONTINUED}")
            info = {"slide_type": SUBSLIDE, "continues": {"level": level, "title": title}}
            for key in ("line", "slide"):
                if key in cell_info(cell):
                    info[key] = cell_info(cell)[key]
            heading.metadata["jaxdeck"] = info
            if "slideshow" in cell.metadata:
                heading.metadata["slideshow"] = {"slide_type": SUBSLIDE}
            heading["id"] = f"{str(cell.get('id') or f'cell-{at:03d}')[:50]}-cont"
            nb.cells.insert(at, heading)
        done += 1
    if done:
        _unique_ids(nb)
    return done


# ------------------------------------------------------------------------ the record

@dataclass(frozen=True)
class Cut:
    """One cut a fit made, for the live view to make the same (:mod:`jaxdeck.live.pieces`).

    The cut falls before the cell of the unfitted deck whose ``metadata.jaxdeck.line`` is
    ``line`` (a markdown cell's first line, a code cell's fence) or inside a markdown cell at
    that source line; ``text`` is that line of the cell's source (a cut whose text no longer
    matches is stale and skipped); ``heading`` is the continued heading shown above it, if any.
    """

    line: int
    text: str
    heading: str | None = None


def cuts_of(fitted: nbformat.NotebookNode) -> list[Cut]:
    """The cuts :func:`apply_cuts` made in a fitted deck, in order."""
    found = []
    for index, cell in enumerate(fitted.cells):
        info = cell_info(cell)
        if not info.get("cut") or "line" not in info:
            continue
        before = cell_info(fitted.cells[index - 1]) if index else {}
        continues = before.get("continues")
        heading = f"{'#' * int(continues['level'])} {continues['title']}{CONTINUED}" if continues else None
        found.append(Cut(int(info["line"]), cell.source.split("\n")[0], heading))
    return found


def cuts_path(html: str | Path) -> Path:
    """Where the fit of ``build/html/NAME.html`` keeps its cuts: ``build/html/NAME.cuts.json``."""
    return Path(html).with_suffix(".cuts.json")


def write_cuts(html: str | Path, cuts: Sequence[Cut]) -> None:
    """Keep a fit's cuts beside its HTML (:func:`cuts_path`); none: no file."""
    from jaxdeck.atomic import write_text

    path = cuts_path(html)
    if not cuts:
        path.unlink(missing_ok=True)
        return
    write_text(path, json.dumps({"cuts": [asdict(cut) for cut in cuts]}, indent=1) + "\n")


def read_cuts(html: str | Path) -> list[Cut]:
    """The cuts :func:`write_cuts` kept for ``html``; none when the file is missing or not ours."""
    try:
        found = json.loads(cuts_path(html).read_text(encoding="utf-8"))["cuts"]
        return [Cut(int(c["line"]), str(c["text"]), c.get("heading")) for c in found]
    except (OSError, ValueError, KeyError, TypeError):
        return []


# ------------------------------------------------------------------------------- fit

def fit(nb: nbformat.NotebookNode, render: Render, measure: Measure, *, max_rounds: int = 3) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose slides fit: exploded into blocks and cut where the measured
    layout overflows (see the module docstring). ``nb`` itself is left as it is; a deck with
    slide markers comes back as an unchanged copy, without a render."""
    fitted = copy.deepcopy(nb)
    if not marker_less(fitted):
        return fitted
    fitted.cells = [block for cell in fitted.cells for piece in split_breaks(cell) for block in explode(piece)]
    _unique_ids(fitted)
    for _ in range(max_rounds):
        fills = measure(render(fitted))
        if not apply_cuts(fitted, plan_cuts(fitted, fills)):
            break
    return fitted


# --------------------------------------------------------------------------- browser

def fills_from_page(found: Sequence[dict], ids: dict[str, int]) -> list[SlideFill]:
    """fit.js's answer as records: a cell element names its index (``data-jd-cell``) or its id."""
    fills = []
    for slide in found:
        boxes = []
        for cell in slide["cells"]:
            index = cell.get("cell")
            if index is None:
                index = ids.get(cell.get("id") or "")
            if index is not None:
                boxes.append(CellBox(int(index), float(cell["top"]), float(cell["bottom"])))
        fills.append(SlideFill(int(slide["index"]), float(slide["available"]), tuple(boxes)))
    return fills


def measure_page(browser, html: str | Path, size: tuple[int, int], ids: dict[str, int]) -> list[SlideFill]:
    """Every slide of an HTML deck as laid out in Chromium at the deck's size (fit.js)."""
    from jaxdeck.browser import open_deck

    width, height = size
    with open_deck(browser, html, width=width, height=height) as (page, _requests):
        page.evaluate("document.fonts.ready.then(() => true)")
        found = page.evaluate(FIT_JS.read_text(encoding="utf-8"))
    return fills_from_page(found, ids)


def cell_ids(nb: nbformat.NotebookNode) -> dict[str, int]:
    """Cell id -> index, to read back cells the page names by id."""
    return {str(c.get("id")): i for i, c in enumerate(nb.cells) if c.get("id")}


def fit_in_browser(nb: nbformat.NotebookNode, export_to_html: Callable[[nbformat.NotebookNode], str | Path],
                   browser, size: tuple[int, int], *, max_rounds: int = 3) -> nbformat.NotebookNode:
    """:func:`fit` with the deck's own exporter as ``render`` and Chromium as ``measure``.

    ``export_to_html(nb)`` writes an HTML deck (assets beside it) and returns its path;
    ``size`` is the deck's (width, height). Raises when the page names no cells at all:
    without per-cell markup nothing could be measured, and silently fitting nothing would hide it.
    """
    rendered: dict[str, dict[str, int]] = {}

    def render(candidate: nbformat.NotebookNode):
        rendered["ids"] = cell_ids(candidate)
        return export_to_html(candidate)

    def measure(html) -> list[SlideFill]:
        fills = measure_page(browser, html, size, rendered["ids"])
        if fills and not any(f.cells for f in fills):
            raise RuntimeError(f"{html}: no cell elements found (fit.js looks for data-jd-cell or "
                               "id=\"cell-id=…\" on each cell's wrapper)")
        return fills

    return fit(nb, render, measure, max_rounds=max_rounds)
