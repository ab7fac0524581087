"""nbconvert preprocessors that turn a deck notebook's slide types into data for the theme's templates.

They run on nbconvert's own copy of the notebook, in this order:

- :class:`SplitBreaks` cuts a MyST cell (kept whole in the notebook, so the round trip stays
  lossless) at the slide breaks recorded in ``metadata.jaxdeck.breaks``, one cell per piece with
  the piece's slide type, and records every cell's index in the notebook (``jd.cell``);
- :class:`StripMarkers` takes the marker lines (``---``, ``--``, ``. . .``, ``|||``) and the
  ``Note:`` prefix out of the markdown sources;
- :class:`StaticWidgets` keeps only the static fallback of widget outputs (an offline deck
  has no widget JavaScript) and drops the notebook's widget state;
- :class:`BookTags` applies Jupyter Book tags (:func:`jaxdeck.html.myst.cell_view`): a removed
  cell is hidden, an input or output part is ``"shown"``, ``"collapsed"`` or ``"removed"``
  (only shown parts are drawn on slides); it records markdown cells' remote images' copies
  beside the page (``images``: url -> relative path);
- :class:`GatherNotes` puts all the notes of a slide into its first notes cell (reveal.js
  reads only the first ``<aside class="notes">`` of a slide);
- :class:`SlideNesting` says, per cell, which structures open before it and which close after
  it, innermost first (see :data:`KINDS`), and the slide attributes of its headings
  (``## Title {.smaller background-color="#123"}``, :func:`section_of`) on the cell that opens
  the slide, as ``section``.

Each writes plain data into ``cell.metadata.jd`` (never markup): ``role`` (``"cell"``, ``"notes"``
or ``"hidden"``), ``slide`` (its slide number), ``opens`` and ``closes`` (lists of kinds), and
``title`` on the cell the title slide's byline follows, ``section`` (``classes`` and reveal.js
``data`` attributes of the slide's ``<section>``) on the cell that opens a slide, ``cell``,
``input``, ``output`` and ``images`` as above. ``themes/jaxdeck/markup.html.j2`` turns
that data into reveal.js markup; ``index.html.j2`` calls its macros around each cell.
"""

from __future__ import annotations

import copy
import functools
import html
from pathlib import Path

import jinja2
import nbformat
from nbconvert.preprocessors import CoalesceStreamsPreprocessor, Preprocessor

from jaxdeck.html.markdown import heading_attributes
from jaxdeck.html.outputs import SlideOutputs
from jaxdeck.html.myst import cell_view
from jaxdeck.options import DeckOptions
from jaxdeck.read.structure import CONTINUE, FRAGMENT, NOTE_PREFIX, NOTES, SKIP, SLIDE, SUBSLIDE, slide_pieces
from jaxdeck import markers
from jaxdeck.records import cell_info, set_cell_info

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

#: the structures a cell can open, outermost first: a horizontal slide (``stack``, reveal.js's
#: outer ``<section>``), a slide in it (``slide``, the inner ``<section data-jd-slide>``), a row of
#: columns, one column, a fragment
STACK, VERTICAL, COLUMNS, COLUMN, PAUSE = KINDS = ("stack", "slide", "columns", "column", "fragment")

#: what the template shows of a cell: its content, its content as speaker notes, or nothing
SHOWN, NOTES_ROLE, HIDDEN = "cell", "notes", "hidden"

#: what the template draws of a code cell's input or outputs (only shown parts are on slides)
PART_SHOWN, PART_COLLAPSED, PART_REMOVED = "shown", "collapsed", "removed"

#: where a remote image's cached copy goes, relative to the HTML
REMOTE_IMAGES = "images/remote"

#: slide attributes (``{key=value}`` on a slide's heading) that become reveal.js's ``data-KEY`` on its section
SECTION_DATA = ("background-color", "background-image", "background-size", "background-position",
                "background-repeat", "background-opacity", "background-gradient", "transition", "visibility")

#: the template file (beside index.html.j2) whose macros write the markup
MARKUP_TEMPLATE = "markup.html.j2"


def _jd(cell) -> dict:
    return cell.metadata.setdefault("jd", {"role": SHOWN, "slide": cell_info(cell).get("slide", 1),
                                           "opens": [], "closes": []})


def section_of(attributes: dict) -> dict:
    """A heading's slide attributes as the data of its slide's ``<section>``: its classes
    (``.smaller``, ``.scrollable``, ...) and reveal.js's ``data-*`` attributes (:data:`SECTION_DATA`)."""
    classes = str(attributes.get("class", "")).split()
    data = {key: str(value) for key, value in attributes.items() if key in SECTION_DATA}
    return {"classes": classes, "data": data} if classes or data else {}


def slide_images(cell) -> list[str]:
    """The local images a markdown cell's headings give their slide as its background."""
    if cell.cell_type != "markdown":
        return []
    found = heading_attributes(cell.source).get("background-image")
    return [str(found)] if found else []


def split_breaks(cell) -> list:
    """A cell as one cell per slide piece (:func:`jaxdeck.read.structure.slide_pieces`): a MyST
    cell with recorded breaks becomes several, each with its piece's ``jaxdeck`` info and slide
    type; any other cell comes back alone, unchanged."""
    info = cell_info(cell)
    if not info.get("breaks"):
        return [cell]
    kept = {key: info[key] for key in ("images",) if key in info}
    pieces = []
    for number, (piece_info, text) in enumerate(slide_pieces(cell)):
        piece = copy.deepcopy(cell)
        piece.source = text
        set_cell_info(piece, {**{k: v for k, v in piece_info.items() if k not in ("breaks", "offset")}, **kept})
        piece.metadata.pop("jd", None)
        if "slideshow" in piece.metadata:
            piece.metadata["slideshow"] = dict(piece.metadata["slideshow"] or {},
                                               slide_type=piece_info.get("slide_type", CONTINUE))
        if number:
            piece["id"] = f"{str(cell.get('id') or 'cell')[:56]}-{number}"
        pieces.append(piece)
    return pieces


def _part(shown: bool, collapsed: bool) -> str:
    return PART_REMOVED if not shown else PART_COLLAPSED if collapsed else PART_SHOWN


def book_tags(cell) -> None:
    """Jupyter Book tags into ``jd``: role, input and output parts; remote images of markdown."""
    view, jd = cell_view(cell), _jd(cell)
    if view.removed:
        jd["role"] = HIDDEN
    jd["input"] = _part(view.show_input, view.input_collapsed)
    jd["output"] = _part(view.show_output, view.output_collapsed)
    if cell.cell_type == "code" and not view.input_on_slide and not (view.output_on_slide and cell.get("outputs")):
        jd["role"] = HIDDEN  # nothing of it is drawn on a slide
    if cell.cell_type == "markdown":
        images = cell_info(cell).get("images") or {}
        jd["images"] = {url: f"{REMOTE_IMAGES}/{Path(local).name}" for url, local in images.items() if local}
        jd["offline"] = sorted(url for url, local in images.items() if not local)  # shown as alt text


def strip_marker(cell) -> None:
    """Remove the marker line or ``Note:`` prefix a markdown cell starts with; hide it when nothing is left."""
    if cell.cell_type != "markdown":
        return
    cell.source = markers.strip(cell, notes=cell_info(cell).get("slide_type") == NOTES)
    if not cell.source.strip():
        _jd(cell)["role"] = HIDDEN


def static_outputs(cell) -> None:
    """Widgets have no JavaScript in an offline deck: keep their static fallback only."""
    for output in cell.get("outputs", []):
        data = output.get("data")
        if data and WIDGET_VIEW in data and len(data) > 1:
            del data[WIDGET_VIEW]


class SplitBreaks(Preprocessor):
    """MyST cells cut at their recorded slide breaks; every cell's notebook index in ``jd.cell``."""

    def preprocess(self, nb, resources):
        cells = []
        for index, cell in enumerate(nb.cells):
            for piece in split_breaks(cell):
                _jd(piece)["cell"] = index
                cells.append(piece)
        nb.cells = cells
        return nb, resources


class BookTags(Preprocessor):
    """Jupyter Book tags applied (:func:`book_tags`)."""

    def preprocess_cell(self, cell, resources, index):
        book_tags(cell)
        return cell, resources


class StripMarkers(Preprocessor):
    """Marker lines and ``Note:`` prefixes out of the markdown sources."""

    def preprocess_cell(self, cell, resources, index):
        strip_marker(cell)
        return cell, resources


class StaticWidgets(Preprocessor):
    """Widget outputs reduced to their static fallback, and no widget state for the page to load."""

    def preprocess(self, nb, resources):
        nb.metadata.pop("widgets", None)
        for cell in nb.cells:
            static_outputs(cell)
        return nb, resources


class GatherNotes(Preprocessor):
    """One notes cell per slide, holding all of that slide's notes in order; the others are skipped."""

    def preprocess(self, nb, resources):
        first = {}
        for cell in nb.cells:
            info = cell_info(cell)
            if info.get("slide_type") != NOTES:
                continue
            slide = info.get("slide")
            if slide in first:
                first[slide].source += "\n\n" + cell.source
                set_cell_info(cell, dict(info, slide_type=SKIP))
            else:
                first[slide] = cell
        return nb, resources


class SlideNesting(Preprocessor):
    """Per cell: what it shows (``role``) and the structures that open before it and close after it."""

    def preprocess(self, nb, resources):
        stack: list[str] = []  # the structures open so far, outermost first
        previous: dict | None = None  # the data of the cell before: what closes goes after it
        first: dict | None = None  # the data of the cell that opens the first slide (the title's)
        opener: dict | None = None  # the data of the cell that opened the current slide

        def close_to(depth: int) -> None:
            while len(stack) > depth:
                previous["closes"].append(stack.pop())

        def close_through(kind: str) -> None:
            if kind in stack:
                close_to(stack.index(kind))

        for index, cell in enumerate(nb.cells):
            info = cell_info(cell)
            kind = info.get("slide_type", CONTINUE)
            jd = _jd(cell)
            if kind == NOTES:
                jd["role"] = NOTES_ROLE
            elif kind == SKIP:
                jd["role"] = HIDDEN

            def open_(structure: str) -> None:
                jd["opens"].append(structure)
                stack.append(structure)

            if kind == SLIDE or (first is None and kind != SKIP):  # leading skipped cells open nothing
                close_to(0)
                open_(STACK)
                open_(VERTICAL)
                first, opener = first or jd, jd
            elif kind == SUBSLIDE:
                close_through(VERTICAL)
                open_(VERTICAL)
                opener = jd
            if cell.cell_type == "markdown" and jd["role"] == SHOWN and opener is not None:
                section = section_of(heading_attributes(cell.source))
                if section:
                    held = opener.setdefault("section", {"classes": [], "data": {}})
                    held["classes"] += [c for c in section["classes"] if c not in held["classes"]]
                    held["data"].update(section["data"])
            if info.get("column_start"):
                close_through(PAUSE)
                close_through(COLUMN)
                if COLUMNS not in stack:
                    open_(COLUMNS)
                open_(COLUMN)
            if kind == FRAGMENT:
                close_through(PAUSE)
                open_(PAUSE)
            previous = jd
        if previous is not None:
            close_to(0)
        if first is not None:
            first["title"] = True
        return nb, resources


#: the preprocessors an export runs, in order
#: (consecutive streams merged first, as JupyterLab merges them live: a fit names outputs by their number in both)
PREPROCESSORS = (CoalesceStreamsPreprocessor, SplitBreaks, StripMarkers, BookTags, StaticWidgets, GatherNotes,
                 SlideNesting, SlideOutputs)


def layout(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` with the data the templates read (what an export's preprocessors make of it)."""
    nb, resources = copy.deepcopy(nb), {}
    for kind in PREPROCESSORS:
        nb, resources = kind(enabled=True)(nb, resources)
    return nb


# The title slide's byline and provenance line as HTML, from the same macros the deck's template
# uses: the live slideshow (jaxdeck.live.contents) shows them on its title slide too.

@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    from jaxdeck.html.assets import THEMES

    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(THEMES / "jaxdeck")))
    environment.filters["escape_html"] = lambda text: html.escape(str(text))  # as nbconvert's filter
    return environment


def _markup():
    """The macros of markup.html.j2 (reloaded when the file changes: a live server sees theme edits)."""
    return _environment().get_template(MARKUP_TEMPLATE).module


def byline(options: dict) -> str:
    """Subtitle, author, venue and date under the title slide's heading (HTML)."""
    return str(_markup().byline(DeckOptions.of(options).byline()))


def deck_marks(footer: str | None, logo: str | None) -> str:
    """The deck's footer and logo (HTML; ``logo`` a URL from the page that shows them)."""
    return str(_markup().deck_marks(footer, logo))


def provenance_line(provenance: dict) -> str:
    """Where the outputs in this deck were measured, shown small on the title slide (HTML)."""
    return str(_markup().provenance(provenance or {}))
