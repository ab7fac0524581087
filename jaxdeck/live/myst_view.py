"""MyST notebooks in the live talk: Markdown JupyterLab can render, Jupyter Book tags as JupyterLab's own settings.

Both change only the served notebook: what they change is stashed in cell metadata and put
back on save, so the file changes only where the presenter edited it (an edit to a rewritten
cell is merged into the original MyST text).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import nbformat

from jaxdeck.html.myst import cell_view, has_myst, live_markdown
from jaxdeck.live import stash
from jaxdeck.records import update_cell_info


MYST_KEY = "myst_source"


def show_myst(nb: nbformat.NotebookNode) -> None:
    """Show MyST Markdown cells as JupyterLab can render them (:func:`jaxdeck.html.myst.live_markdown`).

    The cell's own text is kept in ``metadata.jaxdeck`` so that :func:`restore_myst` writes it back;
    run after :func:`hide_markers`, so the text kept is the one RISE would otherwise show.
    """
    for cell in nb.cells:
        if cell.cell_type != "markdown" or not has_myst(cell.source):
            continue
        shown = live_markdown(cell.source)
        if shown != cell.source:
            update_cell_info(cell, **{MYST_KEY: cell.source})
            cell.source = shown


def _hunks(base: Sequence, other: Sequence) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _overlap(a: tuple, b: tuple) -> bool:
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] == b[0]  # two insertions at the same place
    return a[0] < b[1] and b[0] < a[1]


def _apply(base: Sequence, start: int, end: int, hunks: list[tuple], source: Sequence) -> list:
    out: list = []
    at = start
    for i1, i2, _, j1, j2 in sorted(hunks, key=lambda h: (h[0], h[1])):
        out.extend(base[at:i1])
        out.extend(source[j1:j2])
        at = i2
    out.extend(base[at:end])
    return out


def merge(base: Sequence, ours: Sequence, theirs: Sequence, by_char: bool = False) -> list:
    """Three-way merge: ``ours`` (the file's text) and ``theirs`` (the presenter's) both made from
    ``base`` (the live rendering of the file's text). Where both changed the same lines, those
    lines are merged again character by character, and ``theirs`` wins what still clashes."""
    changes = [(i1, i2, "ours", j1, j2) for i1, i2, j1, j2 in _hunks(base, ours)]
    changes += [(i1, i2, "theirs", j1, j2) for i1, i2, j1, j2 in _hunks(base, theirs)]
    changes.sort(key=lambda h: (h[0], h[1]))
    groups: list[list[tuple]] = []
    for hunk in changes:
        if groups and any(_overlap(hunk, other) for other in groups[-1]):
            groups[-1].append(hunk)
        else:
            groups.append([hunk])
    out: list = []
    at = 0
    for group in groups:
        start, end = min(h[0] for h in group), max(h[1] for h in group)
        out.extend(base[at:start])
        mine = _apply(base, start, end, [h for h in group if h[2] == "ours"], ours)
        yours = _apply(base, start, end, [h for h in group if h[2] == "theirs"], theirs)
        if all(h[2] == "ours" for h in group):
            out.extend(mine)
        elif all(h[2] == "theirs" for h in group) or by_char:
            out.extend(yours)
        else:
            merged = "".join(merge("".join(base[start:end]), "".join(mine), "".join(yours), by_char=True))
            out.extend(merged.splitlines(keepends=True))
        at = end
    out.extend(base[at:])
    return out


def restore_myst(nb: dict) -> None:
    """Put back the MyST text :func:`show_myst` replaced (on the JSON model a save receives).

    A cell the presenter did not touch gets its own text back; an edited one gets the
    presenter's changes applied to its own text (a line they rewrote keeps their version)."""
    for cell in nb.get("cells", []):
        original = stash.take(cell, MYST_KEY)
        if original is None:
            continue
        put_back(cell, original, live_markdown(original))


def put_back(cell: dict, original: str, shown: str) -> None:
    """Give a cell served as ``shown`` its ``original`` text back, with the presenter's edits (if any) applied."""
    source = stash.text(cell)
    cell["source"] = original if source == shown else "".join(
        merge(shown.splitlines(keepends=True), original.splitlines(keepends=True), source.splitlines(keepends=True)))


#: what :func:`show_tags` changed in a cell: ``metadata.jaxdeck[TAGS_KEY]`` = {key: value before or None}
TAGS_KEY = "live_tags"
_SHOWN_SLIDE_TYPES = ("slide", "subslide")


def _set(cell, key: str, path: tuple[str, ...], value) -> None:
    """Set ``metadata[path...] = value``, recording the value before under ``key``."""
    saved = update_cell_info(cell).setdefault(TAGS_KEY, {})
    holder = cell.metadata
    for name in path[:-1]:
        holder = holder.setdefault(name, {})
    if key not in saved:
        saved[key] = holder.get(path[-1])
    holder[path[-1]] = value


def show_tags(nb: nbformat.NotebookNode) -> None:
    """Jupyter Book tags in the live view: ``remove-cell`` cells are RISE ``skip`` (a slide they
    opened opens at the next cell shown), ``remove-input``/``hide-input`` code shows its output only
    (``jupyter.source_hidden``), ``remove-output``/``hide-output`` hides outputs (``outputs_hidden``).
    What was there before is recorded, for :func:`restore_tags`."""
    carry = None  # the slide type of a removed cell that opened a slide
    for cell in nb.cells:
        view = cell_view(cell)
        slideshow = cell.metadata.get("slideshow") or {}
        if view.removed:
            if slideshow.get("slide_type") in _SHOWN_SLIDE_TYPES and carry is None:
                carry = slideshow["slide_type"]
            _set(cell, "slide_type", ("slideshow", "slide_type"), "skip")
            continue
        if carry is not None:
            if slideshow.get("slide_type") in (None, "-", "fragment"):
                _set(cell, "slide_type", ("slideshow", "slide_type"), carry)
            carry = None
        if cell.cell_type != "code":
            continue
        if not view.show_input or view.input_collapsed:
            _set(cell, "source_hidden", ("jupyter", "source_hidden"), True)
        if not view.show_output or view.output_collapsed:
            _set(cell, "outputs_hidden", ("jupyter", "outputs_hidden"), True)


def restore_tags(nb: dict) -> None:
    """Undo :func:`show_tags` (on the JSON model a save receives)."""
    paths = {"slide_type": ("slideshow", "slide_type"), "source_hidden": ("jupyter", "source_hidden"),
             "outputs_hidden": ("jupyter", "outputs_hidden")}
    for cell in nb.get("cells", []):
        metadata = cell.get("metadata", {})
        for key, before in (stash.take(cell, TAGS_KEY) or {}).items():
            parent, name = paths[key]
            holder = metadata.get(parent)
            if not isinstance(holder, dict):
                continue
            if before is None:
                holder.pop(name, None)
                if not holder:
                    metadata.pop(parent)
            else:
                holder[name] = before


#: notebook metadata the live view adds and a save drops
