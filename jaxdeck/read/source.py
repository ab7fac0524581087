"""Stage 1a: read a Markdown deck with jupytext into a notebook, checking it first.

Everything a user can get wrong in the file itself (encoding, an empty file, an
unclosed fence, a broken YAML header or fence metadata, a header key with a typo or a
header closed by a near miss of '---', a missing image) is reported here as a DeckError
naming the file and line, before any kernel starts. What only might be a mistake (a cell
tag or a class the deck format does not know, a header key nothing reads) is a warning
with a did-you-mean, an error with ``strict``.

The file is read in the format it is written in, and the notebook records how to write
it back byte for byte (:mod:`jaxdeck.read.formats`).
"""

from __future__ import annotations

import ast
import re
from difflib import get_close_matches
from pathlib import Path

import nbformat
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin

from jaxdeck.decks import BUILD
from jaxdeck.errors import DeckError, display_path
from jaxdeck.markers import CLASSES, NOTE_PREFIX, TAGS, is_marker
from jaxdeck.options import CHOICES, KEPT_KEYS, READ_KEYS, TYPES, DeckOptions
from jaxdeck.places import is_theme_file, known_themes
from jaxdeck.read.contained import MISSING, REASONS, Refused, check, check_raw_html, check_stylesheet, named
from jaxdeck.read.formats import (HeaderLimit, HeaderLoader, bom_of, file_format, header_line_count, jupytext_yaml,
                                  jupytext_config, load_header, read_in_format, write_back)
from jaxdeck.read.foreign import fenced_divs, image_attributes
from jaxdeck.read.problems import Problems
from jaxdeck.read.structure import is_myst, trailing_attributes
from jaxdeck.records import OPTIONS_KEY, update_build
from jaxdeck.tokens import parsed

_markdown = MarkdownIt("commonmark")
# every link and image as written, file: ones too (markdown-it leaves those as text by default,
# while a notebook's renderer may show them as a broken image): the checks below judge them
_markdown.validateLink = lambda url: True


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


def raise_header_error(path: Path, err: yaml.YAMLError, text: str | None = None):
    """The header's YAML error as a DeckError at its line: in the header's body (the file's second line
    on), or, given the deck's ``text``, in whatever part of it was read as YAML (jupytext reads the whole
    deck when it looks for MyST front matter)."""
    mark = getattr(err, "problem_mark", None)
    line = mark.line + 2 if mark is not None else 1
    if text is not None:
        parsed = (getattr(mark, "buffer", None) or "").rstrip("\0")
        start = text.find(parsed) if parsed else -1
        line = text.count("\n", 0, start) + mark.line + 1 if start >= 0 else 1
    problem = getattr(err, "problem", None) or "invalid YAML"
    if isinstance(err, HeaderLimit):
        raise DeckError(path, line, f"the YAML header is refused: {problem}",
                        "write the deck's options plainly (see slides/README.md)") from None
    raise DeckError(path, line, f"invalid YAML in the header: {problem}",
                    "fix the header's YAML (indent with spaces, close brackets and quotes)") from None


#: a line that closes a header nearly as ``---`` does (``...`` too, which YAML allows and jupytext does not):
#: a typo that would merge the title slide into the header
_NEAR_CLOSING = re.compile(r"^(-{4,}|-{1,2}|\*{3,}|_{3,}|(- ){2,}-|[\u2013\u2014]+|\.{2,}|\u2026)\s*$")


def _check_closing(path: Path, text: str, count: int) -> None:
    """A header opened with '---' and closed by a near miss ('----', '--', '***') is an error at that line:
    read on, it would take the title slide, its notes and the next slide into one."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return
    for index in range(1, count or len(lines)):
        if not _NEAR_CLOSING.match(lines[index]):
            continue
        try:
            above = load_header("\n".join(lines[1:index]))
        except yaml.YAMLError:
            above = None
        if isinstance(above, dict) and above:
            raise DeckError(path, index + 1, f"the YAML header is closed by '{lines[index].strip()}'",
                            "close it with a line '---' (three dashes)")
        return


def _close(word: str, known) -> str | None:
    """The known word ``word`` is most likely a typo of (difflib), None when none is close."""
    known = sorted(known)
    lowered = {k.lower(): k for k in known}
    found = get_close_matches(word.lower(), list(lowered), n=1)
    return lowered[found[0]] if found else None


def _entries(node, offset: int) -> dict[str, tuple[int, object]]:
    """A composed YAML mapping's keys: their line in the file and their value's node."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {key.value: (key.start_mark.line + offset, value) for key, value in node.value
            if isinstance(key, yaml.ScalarNode)}


def check_header(path: Path, text: str, problems: Problems | None = None) -> list[DeckError]:
    """Reject a YAML header that does not parse, is closed by a near miss of '---', holds unknown deck
    options or a key close to one jaxdeck or jupytext reads (``jaxdek:``); returns the warnings: keys
    under ``jupyter:`` (a MyST header's root) that nothing reads, a deck option outside ``jaxdeck:``.

    A key that is not close to one of :data:`jaxdeck.options.READ_KEYS` is a warning, not an error:
    a notebook keeps whatever metadata the tools that wrote it put there, written back as it was
    (:data:`jaxdeck.options.KEPT_KEYS` are those Jupyter's tools and MyST write, never warned of).

    With ``problems`` each key's error is kept there and the other keys are read on; without,
    the first one is raised."""
    own = problems if problems is not None else Problems(path)
    warnings = _header_problems(path, text, own)
    if problems is None:
        own.raise_any()
    return warnings


def _header_problems(path: Path, text: str, problems: Problems) -> list[DeckError]:
    """The header's warnings; its errors go to ``problems`` (a header that is not YAML is raised)."""
    count = header_line_count(text)
    _check_closing(path, text, count)
    if text.startswith("---\n") and count == 0 and "\njupyter:" in text.split("\n\n")[0]:
        raise DeckError(path, 1, "the YAML header is never closed", "end it with a line '---'")
    if not count:
        return []
    lines = text.split("\n")[1: count - 1]
    body = "\n".join(lines)
    offset = 2  # the file's line of the body's first line
    whole = True
    try:
        header = load_header(body) or {}
    except HeaderLimit as err:
        raise_header_error(path, err)
    except yaml.YAMLError as err:
        block = jupytext_yaml(body)
        if block is None:
            return []  # text between '---' lines that jupytext keeps as a raw cell, never read as YAML
        try:
            header = load_header(block) or {}
        except yaml.YAMLError:
            raise_header_error(path, err)
        if block != body:
            whole = False
            offset += next(i for i, line in enumerate(lines) if re.match(r"^jupyter\s*:\s*$", line))
        body = block
    if not isinstance(header, dict) and jupytext_yaml(body) is None:
        return []  # plain text between '---' lines: jupytext keeps it as a raw cell
    if not isinstance(header, dict):
        raise DeckError(path, 2, "the YAML header must be a mapping", "write 'jupyter:' then the deck options")
    root = _entries(yaml.compose(body, Loader=HeaderLoader), offset)
    jupyter = _entries(root["jupyter"][1], offset) if "jupyter" in root else {}
    myst = file_format(path, text)["format_name"] == "myst"
    warnings: list[DeckError] = []
    if myst:  # the whole front matter is the notebook's metadata, the `jupyter:` namespace merged in
        spaces = [("in the header", {k: v for k, v in root.items() if k != "jupyter"}), ("under 'jupyter:'", jupyter)]
    else:
        spaces = [("under 'jupyter:'", jupyter)]
        for key, (line, _) in root.items() if whole else ():
            with problems.gathered():
                if key in (OPTIONS_KEY, "rise"):
                    raise DeckError(path, line, f"'{key}:' at the header's root is not read",
                                    "indent it under a line 'jupyter:' (see slides/README.md, Header)")
                known = key == "jupyter" or key in READ_KEYS or key in KEPT_KEYS  # MyST's, Pandoc's: jupytext's text
                close = None if known else _close(key, ("jupyter", OPTIONS_KEY, "rise"))
                if close:
                    raise DeckError(path, line, f"unknown key '{key}' at the header's root, so jupytext keeps it as text",
                                    f"did you mean '{close}'?")
    for where, entries in spaces:
        for key, (line, _) in entries.items():
            with problems.gathered():
                if key in TYPES and where == "under 'jupyter:'":  # a notebook's title, never shown (MyST's is its own)
                    warnings.append(DeckError(path, line, f"'{key}' {where} is not read as a deck option, so it "
                                              "does nothing", f"move it under '{OPTIONS_KEY}:' (slides/README.md, Header)"))
                    continue
                if key in READ_KEYS or key in KEPT_KEYS:
                    continue
                close = _close(key, READ_KEYS)
                if close:
                    raise DeckError(path, line, f"unknown key '{key}' {where}, so what it holds is not read",
                                    f"did you mean '{close}'?")
                warnings.append(DeckError(path, line, f"key '{key}' {where} is not one jaxdeck, jupytext or Jupyter "
                                          "reads, so it does nothing",
                                          f"deck options go under '{OPTIONS_KEY}:' (slides/README.md, Header)"))
    for where, entries in spaces:
        if OPTIONS_KEY in entries:
            line, node = entries[OPTIONS_KEY]
            given = header.get(OPTIONS_KEY) if where == "in the header" else header["jupyter"].get(OPTIONS_KEY)
            _check_options(path, line, given, _entries(node, offset), problems)
    return warnings


def _check_options(path: Path, line: int, options, lines: dict[str, tuple[int, object]],
                   problems: Problems) -> None:
    """The deck options under ``jaxdeck:``: known keys, each of its type and range (each option's error
    goes to ``problems``)."""
    if options is None:
        return
    if not isinstance(options, dict):
        problems.error(DeckError(path, line, "'jaxdeck' must be a mapping of deck options",
                                 f"use keys among: {', '.join(sorted(TYPES))}"))
        return
    for key, value in options.items():
        with problems.gathered():
            _check_option(path, line, key, value, lines)


def _check_option(path: Path, line: int, key, value, lines: dict[str, tuple[int, object]]) -> None:
    """One deck option: a known key, of its type and range; a DeckError at its line."""
    at = lines.get(key if isinstance(key, str) else str(key), (line, None))[0]
    if key not in TYPES:
        close = _close(str(key), TYPES)
        raise DeckError(path, at, f"unknown deck option '{key}'",
                        f"did you mean '{close}'?" if close else f"use one of: {', '.join(sorted(TYPES))}")
    if key in CHOICES and (isinstance(value, bool) or value not in CHOICES[key]):
        choices = CHOICES[key]
        raise DeckError(path, at, f"deck option '{key}' must be {_either(choices)}, not {value!r}",
                        f"write {_either([f'{key}: {c}' for c in choices], quote=True)}")
    if not isinstance(value, TYPES[key]):
        raise DeckError(path, at, f"deck option '{key}' has the wrong type ({type(value).__name__})",
                        "see slides/README.md for the deck options")
    if key in ("duration", "words_per_minute", "max_output_mb", "max_code_lines") and (isinstance(value, bool) or value <= 0):
        raise DeckError(path, at, f"deck option '{key}' must be a positive number, not {value!r}",
                        "see slides/README.md for what it means")
    if key == "theme" and is_theme_file(value):
        theme_file(path, at, value)
    elif key == "theme" and value not in known_themes():
        raise DeckError(path, at, f"unknown theme '{value}'", f"use one of: {', '.join(known_themes())}")


def _either(values, quote: bool = False) -> str:
    """``a, b or c`` (each in quotes with ``quote``)."""
    said = [f"'{v}'" if quote else str(v) for v in values]
    return ", ".join(said[:-1]) + " or " + said[-1] if len(said) > 1 else said[0]


def theme_file(path: Path, line: int, name: str) -> None:
    """A deck's theme file must be a CSS file in the deck's folder, and so must every file its
    ``url()``s load (they are copied beside the HTML): :mod:`jaxdeck.read.contained`."""
    try:
        sheet = named(path.parent, name)
    except Refused as refused:
        why = "" if refused.why == MISSING else f" ({REASONS[refused.why]})"
        raise DeckError(path, line, f"theme file '{name}' not found beside the deck{why}",
                        f"put it in {path.parent} (a CSS file overriding projector's --jd-* variables), "
                        f"or use one of: {', '.join(known_themes())}") from None
    check_stylesheet(path, sheet)


def _line_of(text: str, needle: str, limit: int) -> int:
    for number, line in enumerate(text.split("\n")[:limit], start=1):
        if line.strip().startswith(needle):
            return number
    return 1



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
    opening = next((i for i, text in enumerate(lines[markdown:], markdown) if _FENCE_START.match(text)
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
    for token in parsed(_markdown, body):
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
        for token in parsed(_markdown, cell.source):
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


def check_images(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int],
                 build: Path | None = None, strict: bool = False,
                 warnings: list[str] | None = None, problems: Problems | None = None) -> dict[str, str]:
    """Every image a markdown cell shows must exist next to the deck (decks present offline).

    A remote image is fetched once into ``BUILD/images/`` (see :mod:`jaxdeck.read.images`);
    returns ``{url: cached file}`` for them; one it refuses to fetch is a DeckError. One that
    cannot be fetched for want of a network (and no cached copy) maps to ``""``: the deck shows its alt text, and a line naming file:line and how to
    vendor it goes to ``warnings``; with ``strict`` it is a DeckError instead. A notebook written
    for the web (a Colab badge at its top) still builds offline. With ``problems``, every picture's
    problem is kept there (the warnings too) and the others are checked on.
    """
    own = problems if problems is not None else Problems(path, strict)
    remote = _images(path, nb, cell_lines, build, own)
    if problems is None:
        own.raise_any()
        if warnings is not None:
            warnings.extend(own.warning_lines())
    return remote


def _images(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int], build: Path | None,
            problems: Problems) -> dict[str, str]:
    """:func:`check_images`, each problem kept in ``problems``."""
    from jaxdeck.read.images import FetchError, fetch

    remote: dict[str, str] = {}
    for cell, line in zip(nb.cells, cell_lines):
        if cell.cell_type != "markdown":
            continue
        tokens = parsed(_markdown, cell.source)
        with problems.gathered():
            check_raw_html(path, line, tokens)  # what its raw HTML loads: files inside the deck's folder too
        for token in tokens:
            depth = 0  # inside a link: an image there is a badge, decoration
            for child in token.children or []:
                depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
                if child.type != "image":
                    continue
                src = str(child.attrs.get("src", ""))
                where = line + (token.map[0] if token.map else 0)
                if src.startswith(("http://", "https://", "//")):
                    if src not in remote:
                        try:
                            remote[src] = str(fetch(src, BUILD if build is None else build))
                        except FetchError as err:
                            hint = (f"download it next to the deck (e.g. to {path.parent / 'images' / err.name}) "
                                    "and link the local file")
                            failed = f"image '{src}' cannot be fetched ({err})"
                            remote[src] = ""
                            if not err.offline:  # refused (a private address, not an image): always an error
                                problems.error(DeckError(path, where, failed, hint))
                                continue
                            shown = "a badge, it shows as its link's text" if depth else "it shows as its alt text"
                            problems.warn(DeckError(path, where, f"{failed}, so {shown}", hint))
                    continue
                if src.startswith("data:"):
                    continue
                with problems.gathered():
                    check_local_image(path, where, src)
    return remote


def check_local_image(path: Path, where: int, src: str) -> None:
    """A DeckError unless ``src`` is a file inside the deck's folder or its project (a relative path;
    the file a browser loads for ``my%20pic.png``): the rule of :mod:`jaxdeck.read.contained`."""
    check(path, where, src, project=True)


def check_slide_images(path: Path, text: str, nb: nbformat.NotebookNode, cell_lines: list[int],
                       problems: Problems | None = None) -> None:
    """The header's ``logo`` and each slide's ``background-image`` (``## Title {background-image=...}``)
    are local files inside the deck's folder, as the images a slide shows are; a web URL is refused
    (neither is fetched: copy it beside the deck). Each problem goes to ``problems`` when given."""
    own = problems if problems is not None else Problems(path)
    shown: list[tuple[int, str]] = []
    logo = DeckOptions.of(nb).logo
    if logo:
        shown.append((_line_of(text, "logo:", header_line_count(text)), logo))
    for cell, line in zip(nb.cells, cell_lines):
        if cell.cell_type != "markdown":
            continue
        tokens = parsed(_markdown, cell.source)
        for token, inline in zip(tokens, tokens[1:]):
            found = trailing_attributes(inline.content) if token.type == "heading_open" else None
            if found and found[1].get("background-image"):
                shown.append((line + (token.map[0] if token.map else 0), str(found[1]["background-image"])))
    for where, src in shown:
        if src.startswith(("http://", "https://", "//")):
            own.error(DeckError(path, where, f"image '{src}' is a web URL; a logo or slide background is not fetched",
                                f"download it next to the deck (e.g. into {path.parent / 'images'}) and link the local file"))
            continue
        with own.gathered():
            check_local_image(path, where, src)
    if problems is None:
        own.raise_any()


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
                close = _close(str(tag), TAGS)
                found.append(DeckError(path, line, f"unknown cell tag '{tag}', which does nothing",
                                       f"did you mean '{close}'?" if close else
                                       "use a tag slides/README.md lists (Demo cells, MyST) or remove it"))
        if cell.cell_type != "markdown":
            continue
        for offset, name in written_classes(cell.source):
            if name not in CLASSES:
                close = _close(name, CLASSES)
                found.append(DeckError(path, line + offset, f"unknown class '{name}', which does nothing",
                                       f"did you mean '{close}'?" if close else
                                       "use a class slides/README.md lists (Attributes) or remove it"))
    return found


_FENCE_START = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


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
            while back > 1 and back > line - 12 and not _FENCE_START.match(all_lines[back - 1]):
                back -= 1
            if _FENCE_START.match(all_lines[back - 1]) and "{code-cell}" in all_lines[back - 1]:
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
    nb = read_in_format(path, text, config)
    try:
        nb = derive(nb, cell_lines(text, nb), path)
    except DeckError:
        pass  # the build reports it; here the cells as jupytext reads them
    again = write_back(nb, path).removeprefix(bom_of(path))  # as the text was read: a BOM is kept apart
    if again == text:
        return None
    ours, theirs = text.split("\n"), again.split("\n")
    for number, (mine, written) in enumerate(zip(ours, theirs), start=1):
        if mine != written:
            return number, written, mine
    number = min(len(ours), len(theirs))
    return number, (theirs[number - 1] if number <= len(theirs) else ""), ""


def read_notebook(path: str | Path, build: str | Path | None = None, strict: bool = False,
                  problems: Problems | None = None) -> tuple[nbformat.NotebookNode, list[int]]:
    """The jupytext notebook of a deck and the source line of each cell, or a DeckError.

    ``build`` is the build folder whose ``images/`` caches remote images (``build/`` by default);
    ``strict`` (or the header's ``strict: true``) makes a warning, such as a remote image that
    cannot be fetched or an unknown cell tag, an error. Warnings are kept in the build record (``warnings``).
    Every problem found is raised at once (:mod:`jaxdeck.read.problems`); with ``problems`` they are
    left there instead, for the next stage of the reader to add its own.
    """
    path = Path(path)
    own = problems if problems is not None else Problems(path, strict)
    try:
        nb, lines = _read(path, build, own)
    except DeckError as stopped:  # nothing further can be read: said with what was found before it
        own.raise_any(stopped)
        raise
    if problems is None:
        own.raise_any()
    if own.warnings:
        update_build(nb, warnings=own.warning_lines())
    return nb, lines


def _read(path: Path, build: str | Path | None, problems: Problems) -> tuple[nbformat.NotebookNode, list[int]]:
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
        nb = read_in_format(path, text, config)
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
    images = _images(path, nb, lines, Path(build) if build is not None else None, problems)
    if images:
        update_build(nb, images=images)
    return nb, lines
