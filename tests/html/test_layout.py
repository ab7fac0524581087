"""The slide structure of an exported deck: sections, fragments, columns and notes, nested as reveal.js wants.

``jaxdeck.html.layout``'s preprocessors leave plain data per cell; the theme's templates write the
markup. These tests read that data, and the nesting of the HTML the exporter writes from it.
"""

from __future__ import annotations

from html.parser import HTMLParser

import nbformat

from jaxdeck.html.export import to_html
from jaxdeck.html.layout import GatherNotes, SlideNesting, StaticWidgets, StripMarkers, byline, layout, provenance_line
from jaxdeck.read import deck_to_notebook

DECK = ("# Title\n\nintro\n\nNote: first note\n\n---\n\n## Two\n\n. . .\n\nlater\n\n```python\nprint('x')\n```\n\n"
        "Note: second note\n\nNote: more of it\n\n--\n\n## Down\n\n|||\n\nleft\n\n|||\n\nright\n\nNote: third note\n")

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Skeleton(HTMLParser):
    """The deck's structure as a string: ``[slide N`` ... ``]`` for sections, ``(fragment``, ``(columns``,
    ``(column``, ``(notes`` ... ``)``, the text of headings and paragraphs, ``code`` for a code cell."""

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []  # what each open element closes with ("" when it is not structure)
        self.out: list[str] = []
        self.text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        closing = ""
        if tag == "section":
            number = attrs.get("data-jd-slide")
            self.out.append(f"[slide {number}" if number else "[")
            closing = "]"
        elif tag == "aside" and "notes" in classes:
            self.out.append("(notes")
            closing = ")"
        elif tag == "div" and {"fragment", "jd-columns", "jd-column"} & set(classes):
            self.out.append("(" + next(c for c in ("fragment", "jd-columns", "jd-column") if c in classes)
                            .replace("jd-", ""))
            closing = ")"
        elif tag == "div" and "jp-CodeCell" in classes:
            self.out.append("code")
        elif tag in ("p", "h1", "h2"):
            self.text = []
            closing = "text"
        self.stack.append(closing)

    def handle_endtag(self, tag):
        if tag in VOID or not self.stack:  # the page's own wrappers close after the slides
            return
        closing = self.stack.pop()
        if closing == "text":
            self.out.append(repr(" ".join("".join(self.text).split())))
            self.text = None
        elif closing:
            self.out.append(closing)

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


def skeleton(html: str) -> str:
    slides = html[html.index('<div class="slides">'):html.index("</body>")]
    parser = Skeleton()
    parser.feed(slides)
    return " ".join(parser.out).replace("( ", "(").replace("[ ", "[")


def test_exported_html_nests_slides_fragments_columns_and_notes(write_deck):
    html = to_html(deck_to_notebook(write_deck(DECK)))
    assert skeleton(html) == (
        "[[slide 1 'Title' 'intro' (notes 'first note' ) ] ] "
        "[[slide 2 'Two' (fragment 'later' code (notes 'second note' 'more of it' ) ) ] "
        "[slide 3 'Down' (columns (column 'left' ) (column 'right' (notes 'third note' ) ) ) ] ]"
    )


def test_pauses_close_at_the_next_pause_column_or_slide(write_deck):
    deck = ("# T\n\n|||\n\nleft\n\n. . .\n\nlater left\n\n|||\n\nright\n\n---\n\n## Next\n\n. . .\n\none\n\n"
            ". . .\n\ntwo\n\n|||\n\nthree\n")
    assert skeleton(to_html(deck_to_notebook(write_deck(deck)))) == (
        "[[slide 1 'T' (columns (column 'left' (fragment 'later left' ) ) (column 'right' ) ) ] ] "
        "[[slide 2 'Next' (fragment 'one' ) (fragment 'two' ) (columns (column 'three' ) ) ] ]"
    )


def test_preprocessors_leave_data_not_markup(write_deck):
    nb = layout(deck_to_notebook(write_deck(DECK)))
    data = [(c.metadata["jd"]["opens"], c.metadata["jd"]["role"], c.metadata["jd"]["closes"]) for c in nb.cells]
    assert data == [
        (["stack", "slide"], "cell", []),
        ([], "notes", ["slide", "stack"]),
        (["stack", "slide"], "cell", []),
        (["fragment"], "cell", []),
        ([], "cell", []),
        ([], "notes", []),
        ([], "hidden", ["fragment", "slide"]),  # its note went into the slide's first notes cell
        (["slide"], "cell", []),
        (["columns", "column"], "cell", ["column"]),
        (["column"], "cell", []),
        ([], "notes", ["column", "columns", "slide", "stack"]),
    ]
    assert [c.metadata["jd"]["slide"] for c in nb.cells] == [1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3]
    assert [c.metadata["jd"].get("title", False) for c in nb.cells] == [True] + [False] * 10
    assert not any("<" in str(c.metadata["jd"]) for c in nb.cells)


def test_markers_are_stripped_and_notes_gathered(write_deck):
    nb = layout(deck_to_notebook(write_deck(DECK)))
    sources = [c.source for c in nb.cells]
    assert sources[1] == "first note" and sources[2] == "## Two" and sources[3] == "later"
    assert sources[5] == "second note\n\nmore of it"
    assert sources[8] == "left" and sources[9] == "right"


def test_a_cell_left_empty_by_its_marker_is_hidden(write_deck):
    nb = deck_to_notebook(write_deck("# T\n\n---\n\n```python\n1\n```\n"))
    roles = [(c.cell_type, c.metadata["jd"]["role"]) for c in layout(nb).cells]
    assert ("markdown", "hidden") in roles and ("code", "cell") in roles


def test_the_preprocessors_are_nbconvert_preprocessors_and_work_on_a_copy(write_deck):
    from nbconvert.preprocessors import Preprocessor

    from jaxdeck.html.export import exporter

    registered = {type(p) for p in exporter()._preprocessors if getattr(p, "enabled", False)}
    for kind in (StripMarkers, StaticWidgets, GatherNotes, SlideNesting):
        assert issubclass(kind, Preprocessor) and kind in registered
    nb = deck_to_notebook(write_deck(DECK))
    to_html(nb)
    assert "jd" not in nb.cells[0].metadata and nb.cells[2].source.startswith("---")


def test_widget_state_and_views_are_dropped_for_their_fallback():
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"state": {}}
    nb.cells = [nbformat.v4.new_code_cell("w", outputs=[nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "abc"}, "text/plain": "Explorer"})])]
    out = layout(nb)
    assert "widgets" not in out.metadata and list(out.cells[0].outputs[0].data) == ["text/plain"]
    assert "widgets" in nb.metadata  # the caller's notebook is left alone


def test_byline_and_provenance_come_from_the_same_macros_as_the_deck():
    assert byline({"author": "A <b>", "date": "1 May", "title": "ignored"}) == (
        '<p class="jd-byline">A &lt;b&gt; · 1 May</p>')
    assert byline({}) == "" and provenance_line({}) == ""
    line = provenance_line({"backend": "gpu", "device_kind": "H100", "device_count": 2, "jax": "0.1",
                            "executed_at": "2026-11-20T10:00"})
    assert line == '<p class="jd-provenance">Outputs measured on H100 × 2 (gpu) · jax 0.1 · 2026-11-20</p>'
