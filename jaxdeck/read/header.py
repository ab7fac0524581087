"""A deck's YAML header, checked before jupytext reads it: YAML that parses (within limits), closed by
``---`` and not by a near miss, its keys where jupytext and jaxdeck read them (a typo's did-you-mean),
each deck option of its type and range, a theme file inside the deck's folder."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

import yaml

from jaxdeck.errors import DeckError
from jaxdeck.options import CHOICES, KEPT_KEYS, READ_KEYS, TYPES
from jaxdeck.places import is_theme_file, known_themes
from jaxdeck.read.contained import MISSING, REASONS, Refused, file_part, named
from jaxdeck.read.formats import file_format
from jaxdeck.read.loads import check_stylesheet
from jaxdeck.read.problems import Problems, closest
from jaxdeck.read.yaml_header import HeaderLimit, HeaderLoader, header_line_count, jupytext_yaml, load_header
from jaxdeck.records import OPTIONS_KEY


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
                    _quoted(err) or "fix the header's YAML (indent with spaces, close brackets and quotes)") from None


#: a line ``key: value`` of a YAML block (a list item's too), its value not yet quoted
_KEY_VALUE = re.compile(r"^\s*(?:-\s+)?([^\s:#'\"\[{][^:#]*?):\s+([^'\"\s].*)$")  # matched on a stripped line


def _quoted(err: yaml.YAMLError) -> str | None:
    """For a value with ``: `` in it (``title: JAX: the good parts``, which YAML reads as a second mapping),
    the line as it should be written: its value in double quotes, checked to read back as it was."""
    mark = getattr(err, "problem_mark", None)
    if getattr(err, "problem", None) != "mapping values are not allowed here" or not getattr(mark, "buffer", None):
        return None
    lines = mark.buffer.rstrip("\0").split("\n")
    found = _KEY_VALUE.match(lines[mark.line].rstrip()) if mark.line < len(lines) else None
    if found is None:
        return None
    key, value = found.groups()
    if ": " not in value or " #" in value:
        return None  # the colon is not in this value (an indented line below another), or a comment follows it
    written = f"{key}: {json.dumps(value, ensure_ascii=False)}"
    try:
        if yaml.safe_load(written) != {key: value}:
            return None
    except yaml.YAMLError:
        return None
    return f"a value with ': ' in it needs quotes: write {written}"


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
                close = None if known else closest(key, ("jupyter", OPTIONS_KEY, "rise"))
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
                close = closest(key, READ_KEYS)
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
        close = closest(str(key), TYPES)
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
        if refused.why == MISSING:
            raise DeckError(path, line, f"theme file '{name}' not found beside the deck",
                            f"put it in {path.parent} (a CSS file overriding projector's --jd-* variables), "
                            f"or use one of: {', '.join(known_themes())}") from None
        base = PurePosixPath(file_part(name)).name or "theme.css"
        said = REASONS[refused.why].removeprefix("it ")  # is outside the deck's folder, is an absolute path, ...
        raise DeckError(path, line, f"theme file '{name}' {said}: a deck's theme file is a CSS file in its folder, "
                                    "copied beside the HTML",
                        f"copy it into {path.parent} and write theme: {base}") from None
    check_stylesheet(path, sheet)
