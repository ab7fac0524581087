"""Quarto's and Pandoc's spellings that this deck format does not read, each an error at its line.

A deck written for Quarto carries its fenced divs (``::: {.columns}``, ``::: {.notes}``) and
attributes after a picture (``![t](x.svg){width=40%}``). Neither means anything here: a div's
``:::`` lines and a picture's braces would show on the slide as text, and the div's columns or
notes would be lost. So each is said at its line with this format's own spelling (``|||``,
``Note:``, ``{.on-light}`` on the line before a picture, an ``<img>`` for a size).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs.parse import ParseError
from mdit_py_plugins.attrs.parse import parse as parse_attributes
from mdit_py_plugins.colon_fence import colon_fence_plugin

from jaxdeck.errors import DeckError
from jaxdeck.markers import COLUMN_MARKER, NOTE_PREFIX
from jaxdeck.read.yaml_header import header_line_count
from jaxdeck.tokens import parsed

#: CommonMark with Pandoc's fenced divs as blocks of their own (markdown-it-py's colon fence)
_divs = MarkdownIt("commonmark").use(colon_fence_plugin)
#: CommonMark, every link and image as written (the picture checks judge them)
_markdown = MarkdownIt("commonmark")
_markdown.validateLink = lambda url: True

_SEE = "see slides/README.md, Slides"
#: a class in a div's braces (``.column``)
_CLASS = re.compile(r"(?<![\w-])\.([\w-]+)")
#: attributes in braces as Pandoc writes them, values unquoted (``{width=40%}``, ``{.on-light}``)
_PANDOC_BRACES = re.compile(r"^\{\s*(?:[.#][\w-]+|[\w-]+=\S+)(?:\s+(?:[.#][\w-]+|[\w-]+=\S+))*\s*\}")


def _div_hint(info: str) -> str:
    """What to write instead of a div whose opening line says ``info`` (``{.column width="50%"}``)."""
    classes = set(_CLASS.findall(info))
    if classes & {"columns", "column"}:
        return (f"this deck format writes columns with '{COLUMN_MARKER}' alone on a line, blank lines around it, "
                f"before each column, and no ':::' lines ({_SEE})")
    if classes & {"notes", "note"}:
        return (f"this deck format writes speaker notes as a paragraph starting '{NOTE_PREFIX}', after the "
                f"slide's content, and no ':::' lines ({_SEE})")
    return (f"write the content without the ':::' lines: columns are '{COLUMN_MARKER}', speaker notes a "
            f"paragraph starting '{NOTE_PREFIX}' ({_SEE})")


def _div_openings(text: str, first: int) -> list[tuple[int, str, str]]:
    """(line, its text, info) of each fenced div in ``text`` (whose first line is ``first``), the nested ones too."""
    found = []
    lines = text.split("\n")
    for token in parsed(_divs, text):
        if token.type != "colon_fence" or token.map is None:
            continue
        found.append((first + token.map[0], lines[token.map[0]].strip(), token.info.strip()))
        found += _div_openings(token.content, first + token.map[0] + 1)
    return found


def fenced_divs(path: Path, text: str) -> list[DeckError]:
    """Each Pandoc fenced div (``::: {.notes}``) of a Markdown deck, outside code fences, at its opening
    line. (jupytext takes a ``:::`` line for Pandoc Markdown, which it cannot read without pandoc.)"""
    offset = header_line_count(text)
    body = "\n".join(text.split("\n")[offset:])
    return [DeckError(path, line, f"'{written}' is a Pandoc/Quarto fenced div, which this deck format does not "
                      "read: its ':::' lines would show on the slide", _div_hint(info))
            for line, written, info in _div_openings(body, offset + 1)]


def _braces_after(text: str) -> tuple[str, dict] | None:
    """The attribute block ``text`` starts with (``{width=40%}``, spaces before it too) and its attributes,
    None when none."""
    text = text.lstrip(" \t")
    if not text.startswith("{"):
        return None
    try:
        end, attrs = parse_attributes(text)
    except ParseError:
        pandoc = _PANDOC_BRACES.match(text)
        if not pandoc:
            return None
        words = pandoc.group(0)[1:-1].split()
        attrs = dict(word.split("=", 1) for word in words if "=" in word)
        classes = [word[1:] for word in words if word.startswith(".")]
        if classes:
            attrs["class"] = " ".join(classes)
        return pandoc.group(0), attrs
    return text[: end + 1], attrs


def image_attributes(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int]) -> list[DeckError]:
    """Each picture followed by attributes in braces (``![t](x.svg){.on-light}``), at its line: the braces
    would show beside the picture as text."""
    found: list[DeckError] = []
    for cell, line in zip(nb.cells, cell_lines):
        if cell.cell_type != "markdown":
            continue
        for inline in parsed(_markdown, cell.source):
            if inline.type != "inline" or not inline.map:
                continue
            at = line + inline.map[0]
            children = inline.children or []
            for child, after in zip(children, children[1:] + [None]):
                at += child.type in ("softbreak", "hardbreak")
                braces = _braces_after(after.content) if child.type == "image" and after is not None \
                    and after.type == "text" else None
                if braces is None:
                    continue
                written, attrs = braces
                src = str(child.attrs.get("src", ""))
                found.append(DeckError(path, at, f"'{written}' after the picture '{src}' is not read by this deck "
                                       "format: it shows beside the picture as text", _attributes_hint(attrs, src)))
    return found


def _attributes_hint(attrs: dict, src: str) -> str:
    """What to write instead of attributes after a picture: a class on the line before, a size as HTML."""
    says = []
    classes = str(attrs.get("class", "")).split()
    if classes:
        says.append(f"write {{{' '.join('.' + name for name in classes)}}} alone on the line before the picture")
    sizes = {key: value for key, value in attrs.items() if key in ("width", "height")}
    if sizes:
        size = " ".join(f'{key}="{value}"' for key, value in sizes.items())
        says.append(f'size it as HTML, <img src="{src}" alt="..." {size}>')
    if not says:
        says.append("remove the braces (slides/README.md, Attributes, lists what the format reads)")
    return "; ".join(says)
