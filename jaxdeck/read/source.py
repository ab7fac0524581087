"""Stage 1a: read a Markdown deck with jupytext into a notebook, checking it first.

Everything a user can get wrong in the file itself (encoding, an empty file, an
unclosed fence, a broken YAML header or fence metadata, a header key with a typo or a
header closed by a near miss of '---', a missing image) is reported as a DeckError naming
the file and line, before any kernel starts: the header by :mod:`jaxdeck.read.header`, the code
fences by :mod:`jaxdeck.read.fences`, the pictures by :mod:`jaxdeck.read.pictures`, the rest here. What only might be a mistake (a cell
tag or a class the deck format does not know, a header key nothing reads) is a warning
with a did-you-mean, an error with ``strict``.

The file is read in the format it is written in, and the notebook records how to write
it back byte for byte (:mod:`jaxdeck.read.formats`).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin

from jaxdeck.errors import DeckError, display_path
from jaxdeck.markers import CLASSES, TAGS
from jaxdeck.options import DeckOptions
from jaxdeck.read.fences import FENCE_START, check_fence_languages, check_fences
from jaxdeck.read.formats import bom_of, file_format, jupytext_config, read_in_format, write_back
from jaxdeck.read.foreign import fenced_divs, image_attributes
from jaxdeck.read.header import check_header, raise_header_error
from jaxdeck.read.pictures import check_slide_images, remote_images
from jaxdeck.read.problems import Problems, closest
from jaxdeck.read.structure import trailing_attributes
from jaxdeck.read.yaml_header import header_line_count
from jaxdeck.records import ReadFacts


def read_text(path: Path) -> str:
    """The deck's text (without a BOM: :data:`jaxdeck.read.formats.BOM`), or a DeckError for a missing,
    empty or non-UTF-8 file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DeckError(path, None, "no such deck", "give the path of a Markdown file in slides/") from None
    except IsADirectoryError:
        raise DeckError(path, None, "is a directory", "give the path of a Markdown file") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:  # its positions are in the bytes after a BOM: err.object
        line = err.object[: err.start].count(b"\n") + 1
        raise DeckError(path, line, f"not UTF-8 text (byte 0x{err.object[err.start]:02x})",
                        "save the file as UTF-8") from None
    if not text.strip():
        # Jupyter's copy of a file it saves in place, gone once the save is done (it keeps the old times)
        backup = path.with_name(f".~{path.name}")
        if backup.is_file() and backup.stat().st_size > 0:
            raise DeckError(path, 1, f"the deck is empty; its last good copy is {display_path(backup)}, "
                            "left by a save in Jupyter that was cut short",
                            f"copy it back: cp {display_path(backup)} {display_path(path)}")
        raise DeckError(path, 1, "the deck is empty",
                        "start it with a title slide, e.g. '# My talk' (see slides/README.md)")
    return text


def _attribute_lines(state) -> None:
    """Keep each attribute line (``{.incremental}`` alone before a block) with its line, before
    markdown-it's ``attr`` rule moves its attributes onto the block and drops it."""
    state.env.setdefault("attribute_lines", []).extend(
        (token.map[0], token.attrs) for token in state.tokens if token.type == "attrs_block" and token.map)


#: Markdown with the attributes a deck writes (Quarto's spellings, as the HTML stage reads them)
_attributes = MarkdownIt("commonmark")
attrs_plugin(_attributes, spans=True, after=())
attrs_block_plugin(_attributes)
_attributes.core.ruler.before("attr", "attribute_lines", _attribute_lines)


def written_classes(source: str) -> list[tuple[int, str]]:
    """Each class a cell's Markdown writes in braces, with its line's index in the cell: a heading's
    (``## Title {.smaller}``), an attribute line's (``{.incremental}``), a span's (``[w]{.fragment}``)."""
    env: dict = {}
    tokens = _attributes.parse(source, env)
    found = [(line, attrs.get("class", "")) for line, attrs in env.get("attribute_lines", [])]
    for token, inline in zip(tokens, tokens[1:]):
        if inline.type != "inline" or not inline.map:
            continue
        heading = trailing_attributes(inline.content) if token.type == "heading_open" else None
        if heading:
            found.append((inline.map[0], heading[1].get("class", "")))
        line = inline.map[0]
        for child in inline.children or []:
            line += child.type in ("softbreak", "hardbreak")
            if child.type == "span_open":
                found.append((line, child.attrs.get("class", "")))
    return sorted((line, name) for line, classes in found for name in str(classes).split())


def check_vocabulary(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int]) -> list[DeckError]:
    """A cell tag or a class in braces that the deck format does not know (:data:`jaxdeck.markers.TAGS`,
    :data:`jaxdeck.markers.CLASSES`), each with a did-you-mean: it would do nothing, so the cell or
    slide would show as if it were not there (``tags=["chek"]`` shows the assertion)."""
    found: list[DeckError] = []
    for cell, line in zip(nb.cells, cell_lines):
        tags = cell.metadata.get("tags") or []
        for tag in [tags] if isinstance(tags, str) else tags if isinstance(tags, list) else []:
            if str(tag) not in TAGS:
                close = closest(str(tag), TAGS)
                found.append(DeckError(path, line, f"unknown cell tag '{tag}', which does nothing",
                                       f"did you mean '{close}'?" if close else
                                       "use a tag slides/README.md lists (Demo cells, MyST) or remove it"))
        if cell.cell_type != "markdown":
            continue
        for offset, name in written_classes(cell.source):
            if name not in CLASSES:
                close = closest(name, CLASSES)
                found.append(DeckError(path, line + offset, f"unknown class '{name}', which does nothing",
                                       f"did you mean '{close}'?" if close else
                                       "use a class slides/README.md lists (Attributes) or remove it"))
    return found


def cell_lines(text: str, nb: nbformat.NotebookNode) -> list[int]:
    """The 1-based line where each cell's source starts in ``text`` (for error messages)."""
    result: list[int] = []
    position = header_line_count(text)
    position = len("\n".join(text.split("\n")[:position]))
    all_lines = text.split("\n")
    for cell in nb.cells:
        source = cell.source
        probe = source if source else ""
        index = text.find(probe, position) if probe else -1
        if index < 0 and source:
            index = text.find(source.split("\n")[0], position)
        if index < 0:
            index = position
        line = text.count("\n", 0, index) + 1
        if cell.cell_type == "code":
            line = max(1, line - 1)  # point at the fence, where the cell starts
            # a MyST cell's options (`:tags: [...]` and a blank line) come between fence and code
            back = line
            while back > 1 and back > line - 12 and not FENCE_START.match(all_lines[back - 1]):
                back -= 1
            if FENCE_START.match(all_lines[back - 1]) and "{code-cell}" in all_lines[back - 1]:
                line = back
        result.append(line)
        position = index + len(source)
    return result


def round_trip_difference(path: str | Path) -> tuple[int, str, str] | None:
    """Where jupytext would write the deck differently: (line, what it writes, what is there).

    A deck must read back byte for byte (edits saved live go through jupytext); a header
    jupytext formats differently (key order, long or non-ASCII values) breaks that. The
    notebook checked is the one the build and the live talk use: split into slides by
    :func:`jaxdeck.read.structure.derive`, written back by :func:`write_back`.
    """
    from jaxdeck.read.structure import derive

    path = Path(path)
    text = read_text(path)
    config = jupytext_config(path)
    nb, fmt = read_in_format(path, text, config)
    try:
        nb, _ = derive(nb, cell_lines(text, nb), path)
    except DeckError:
        pass  # the build reports it; here the cells as jupytext reads them
    again = write_back(nb, path, fmt).removeprefix(bom_of(path))  # as the text was read: a BOM is kept apart
    if again == text:
        return None
    ours, theirs = text.split("\n"), again.split("\n")
    for number, (mine, written) in enumerate(zip(ours, theirs), start=1):
        if mine != written:
            return number, written, mine
    number = min(len(ours), len(theirs))
    return number, (theirs[number - 1] if number <= len(theirs) else ""), ""


def read_notebook(path: str | Path, build: str | Path | None = None, strict: bool = False,
                  problems: Problems | None = None) -> tuple[nbformat.NotebookNode, list[int], ReadFacts]:
    """The jupytext notebook of a deck, the source line of each cell and what reading it learnt (its format,
    remote images and warnings, for the build record), or a DeckError.

    ``build`` is the build folder whose ``images/`` caches remote images (``build/`` by default);
    ``strict`` (or the header's ``strict: true``) makes a warning, such as a remote image that
    cannot be fetched or an unknown cell tag, an error. Warnings are the facts' ``warnings``.
    Every problem found is raised at once (:mod:`jaxdeck.read.problems`); with ``problems`` they are
    left there instead, for the next stage of the reader to add its own.
    """
    path = Path(path)
    own = problems if problems is not None else Problems(path, strict)
    try:
        nb, lines, facts = _read(path, build, own)
    except DeckError as stopped:  # nothing further can be read: said with what was found before it
        own.raise_any(stopped)
        raise
    if problems is None:
        own.raise_any()
    return nb, lines, ReadFacts(warnings=own.warning_lines() or None).merged(facts)


def _read(path: Path, build: str | Path | None, problems: Problems) -> tuple[nbformat.NotebookNode, list[int],
                                                                            ReadFacts]:
    """:func:`read_notebook`: every problem it can step over goes to ``problems``; one it cannot is raised."""
    text = read_text(path)
    unread = check_header(path, text, problems)
    check_fences(path, text, problems)
    try:
        markdown = file_format(path, text)["format_name"] == "markdown"
    except yaml.YAMLError:
        markdown = False  # a header that is not YAML: said below, where jupytext reads it
    for problem in fenced_divs(path, text) if markdown else []:
        problems.error(problem)
    config = jupytext_config(path)
    try:
        # Records the write-back filters in the notebook itself, so that plain
        # `jupytext --to md` gives a deck back byte for byte, config or not.
        nb, fmt = read_in_format(path, text, config)
    except yaml.YAMLError as err:
        raise_header_error(path, err, text)
    except Exception as err:
        reason = " ".join(str(err).split())  # one line, as every DeckError
        where = re.search(r"\bat line (\d+)", reason)  # a MyST cell's options name their fence's line
        raise DeckError(path, int(where.group(1)) if where else 1, f"jupytext cannot read the deck: {reason}",
                        "check the header and the code fences") from None
    if not nb.cells:
        raise DeckError(path, 1, "the deck has no slides", "add a title slide, e.g. '# My talk'")
    lines = cell_lines(text, nb)
    problems.strict = problems.strict or DeckOptions.of(nb).strict
    for problem in unread + check_vocabulary(path, nb, lines):
        problems.warn(problem)
    check_fence_languages(path, nb, lines, problems)
    check_slide_images(path, text, nb, lines, problems)
    for problem in image_attributes(path, nb, lines):
        problems.error(problem)
    images = remote_images(path, nb, lines, Path(build) if build is not None else None, problems)
    return nb, lines, ReadFacts(format=fmt, images=images or None)
