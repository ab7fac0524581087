"""A deck's code fences, checked before jupytext reads them: each closed (and not left open so that the
Markdown after it would run), its metadata what jupytext reads, and a listing whose language is a near
miss of the kernel's (```` ```pyhton ````) said to be one."""

from __future__ import annotations

import ast
import re
from difflib import get_close_matches
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt

from jaxdeck.errors import DeckError
from jaxdeck.markers import NOTE_PREFIX, is_marker
from jaxdeck.read.problems import Problems
from jaxdeck.read.structure import is_myst
from jaxdeck.read.yaml_header import header_line_count
from jaxdeck.tokens import parsed

#: the reader's CommonMark: every link and image as written, file: ones too (markdown-it leaves those as
#: text by default, while a notebook's renderer may show them as a broken image): the checks judge them
MARKDOWN = MarkdownIt("commonmark")
MARKDOWN.validateLink = lambda url: True
#: a line that opens a code fence
FENCE_START = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _left_open(token, line: int) -> str | None:
    """What shows that a fence at ``line`` was left unclosed: its code holds a slide marker or a ``Note:``
    line and, below it, the opening of the next fence (``` ```python ```), which Markdown cannot close it
    with; so it runs on to that fence's closing line and the Markdown between is run as code."""
    try:
        ast.parse(token.content)
        return None  # code that reads as Python (a fence inside a string): as written
    except (SyntaxError, ValueError):
        pass  # the Markdown in it, or an IPython magic: the lines tell
    lines = token.content.split("\n")
    markdown = next((i for i, text in enumerate(lines) if is_marker(text) or text.startswith(NOTE_PREFIX)), None)
    if markdown is None:
        return None
    opening = next((i for i, text in enumerate(lines[markdown:], markdown) if FENCE_START.match(text)
                    and text.lstrip()[0] == token.markup[0] and text.strip().lstrip(token.markup[0])), None)
    if opening is None:
        return None
    return (f"code fence '{token.markup}' is left unclosed: it runs on past '{lines[markdown].strip()}' at line "
            f"{line + 1 + markdown} and takes the fence at line {line + 1 + opening} for code, so that Markdown "
            "would run as code")


def check_fences(path: Path, text: str, problems: Problems | None = None) -> None:
    """Reject an unclosed code fence and fence metadata that jupytext cannot read (each kept in
    ``problems`` when given, else the first raised)."""
    own = problems if problems is not None else Problems(path)
    offset = header_line_count(text)
    lines = text.split("\n")
    body = "\n".join(lines[offset:])
    for token in parsed(MARKDOWN, body):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        closing = lines[offset + end - 1].strip() if end - start > 1 else ""
        fence = token.markup
        if not (closing.startswith(fence[0] * len(fence)) and set(closing) == {fence[0]}):
            own.error(DeckError(path, offset + start + 1, f"code fence '{fence}' is never closed",
                                f"add a line '{fence}' after the code"))
            continue
        info = token.info.strip()
        language, _, meta = info.partition(" ")
        meta = meta.strip()
        left_open = _left_open(token, offset + start + 1)
        if left_open:
            own.error(DeckError(path, offset + start + 1, left_open,
                                f"add a line '{fence}' where its code ends, before the Markdown"))
            continue
        if meta and language in ("python", "python3", "ipython", "ipython3"):
            with own.gathered():
                _check_fence_metadata(path, offset + start + 1, meta)
    if problems is None:
        own.raise_any()


#: Pygments' lexers for Python: a fence named by one of their names (``py``, ``ipython3``) is Python
_PYTHON_LEXERS = ("PythonLexer", "Python2Lexer", "IPythonLexer", "IPython3Lexer")


def kernel_language(nb: nbformat.NotebookNode) -> str:
    """The language the deck's code cells are in: its kernel's (``python`` unless the header says)."""
    spec = nb.metadata.get("kernelspec") or {}
    info = nb.metadata.get("language_info") or {}
    return str(spec.get("language") or info.get("name") or "python")


def _names_the_language(name: str, language: str) -> bool:
    """Whether a fence's language ``name`` means the kernel's ``language``: one of its other names
    (Pygments' aliases: ``py``, ``ipython``, ``Python``) or a typo of it (``pyhton``; difflib), and not
    the name of another language (``cython``)."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = find_lexer_class_by_name(name).__name__
    except ClassNotFound:
        lexer = None
    if language.lower() == "python" and lexer in _PYTHON_LEXERS:
        return True
    if lexer is not None:
        return name.lower() == language.lower()
    return bool(get_close_matches(name.lower(), [language.lower()], n=1, cutoff=0.75))


def check_fence_languages(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int], problems: Problems) -> None:
    """A fence left in a markdown cell is a listing, shown and never run; one whose language is an alias
    or a near miss of the kernel's (```` ```pyhton ````, ```` ```py ````, ```` ```{python} ````) was
    surely meant to run: a warning at its line that names the spelling that runs. A MyST notebook's
    code cells are ``{code-cell}`` fences, and its ```` ```python ```` fences listings: not checked."""
    if is_myst(nb):
        return
    language = kernel_language(nb)
    for cell, line in zip(nb.cells, cell_lines):
        if cell.cell_type != "markdown":
            continue
        for token in parsed(MARKDOWN, cell.source):
            if token.type != "fence" or token.map is None or not token.info.strip():
                continue
            written = token.info.strip().split()[0]
            name = written.removeprefix("{").removesuffix("}")
            if not name or written == language or not _names_the_language(name, language):
                continue
            fence = token.markup
            problems.warn(DeckError(path, line + token.map[0],
                                    f"code fence '{fence}{written}' is shown as a listing and never runs",
                                    f"write '{fence}{language}' to run it, or name another language "
                                    f"(e.g. '{fence}text') for a listing"))


def _check_fence_metadata(path: Path, line: int, meta: str) -> None:
    """Fence attributes are jupytext metadata: ``key=value`` with JSON values."""
    from jupytext.cell_metadata import text_to_metadata

    try:
        _, parsed = text_to_metadata(meta, allow_title=False)
    except Exception as err:  # jupytext raises several types for malformed metadata
        raise DeckError(path, line, f"cannot read the code fence's metadata '{meta}': {err}",
                        'write key=value pairs with JSON values, e.g. tags=["slow"] timeout=120') from None
    if "incorrectly_encoded_metadata" in parsed:
        raise DeckError(path, line, f"cannot read the code fence's metadata '{parsed['incorrectly_encoded_metadata']}'",
                        'write key=value pairs with JSON values, e.g. tags=["slow"] timeout=120')
