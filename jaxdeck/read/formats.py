"""How a deck file is written: its jupytext format, and the filters that give it back byte for byte.

A file is read in the format it is written in (:func:`file_format`: the header's
``format_name``, else jupytext's own guess), so a MyST notebook or a jupytext Markdown
notebook with a ``jupytext:``/``kernelspec:`` header is a deck too. The notebook records
how to write it back (:func:`write_format`, :func:`write_back`): a plain deck with the
repository's jupytext configuration; a file whose header holds more than the deck options
with a notebook metadata filter that keeps exactly the header's keys.
"""

from __future__ import annotations

import codecs
import datetime
import functools
import json
import re
import tomllib
from pathlib import Path

import jupytext
import nbformat
import yaml
from jupytext.config import (JupytextConfiguration, JupytextConfigurationError, find_jupytext_configuration_file,
                             load_jupytext_configuration_file)
from jupytext.formats import guess_format, read_format_from_metadata
from jupytext.metadata_filter import metadata_filter_as_dict

from jaxdeck.errors import DeckError
from jaxdeck.read.yaml_header import (HeaderLoader, dates_as_written, header_line_count, header_mapping,
                                      header_tree, load_header, written_dates)
from jaxdeck.records import BuildRecord

#: The jupytext settings decks are written with; `jupytext.toml` at the
#: repository root holds the same values (a test keeps them equal).
DEFAULT_JUPYTEXT_CONFIG = {
    "notebook_metadata_filter": "jaxdeck,rise,-all",
}
#: cell metadata keys jupytext keeps for its own layout (blank lines, markers), never the deck's own
JUPYTEXT_CELL_KEYS = ("skipline", "noskipline", "cell_marker", "lines_to_next_cell", "lines_to_end_of_cell_marker")
#: cell metadata written back when a deck sets none itself
NO_CELL_METADATA = "-all"
#: the byte order mark some editors write first in a UTF-8 file (Notepad, "UTF-8 with BOM"): no part
#: of the deck's text (read without it, a title would not be a heading), and written back where it was
BOM = codecs.BOM_UTF8.decode("utf-8")


def bom_of(path: Path) -> str:
    """:data:`BOM` when the file at ``path`` starts with one, else "" (also when it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return BOM if handle.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8 else ""
    except OSError:
        return ""


def jupytext_config(deck: Path) -> JupytextConfiguration:
    """The repository's jupytext configuration for ``deck`` (our defaults when there is none)."""
    found = find_jupytext_configuration_file(str(deck.parent.resolve()))
    if found:
        try:
            config = load_jupytext_configuration_file(found)
        except Exception as err:  # broken TOML, a value of the wrong type, bytes that are not UTF-8
            raise config_error(found, err) from None
        if config is not None:
            return config
    return JupytextConfiguration(**DEFAULT_JUPYTEXT_CONFIG)


#: what a broken jupytext configuration file's one line says to do
CONFIG_HINT = "fix it as https://jupytext.readthedocs.io/en/latest/config.html says, or remove it"


def config_error(found: str, err: Exception) -> DeckError:
    """jupytext's complaint about its configuration file ``found`` (its traceback: a TOML error's
    message, a trait's type error, a decoding error) as one line naming the file and its line."""
    cause = err.__context__ if isinstance(err, JupytextConfigurationError) else err
    if isinstance(cause, UnicodeDecodeError):
        return DeckError(found, None, f"the jupytext configuration is not UTF-8 text (byte {cause.object[cause.start]:#04x} "
                         f"at offset {cause.start})", CONFIG_HINT)
    message = str(err).split(" is incorrect: ", 1)[-1]
    try:
        lines = Path(found).read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        lines = []
    line = None
    if isinstance(cause, tomllib.TOMLDecodeError):
        at = re.search(r"\(at line (\d+), column \d+\)|\(at end of document\)", message)
        if at:
            line = int(at.group(1)) if at.group(1) else len(lines) - (lines[-1:] == [""]) or None
            message = message[:at.start()]
    trait = re.match(r"The '(\w+)' trait of a JupytextConfiguration instance (.*)", message)
    if trait:  # the key's value is of the wrong type: the line that sets it
        message = f"'{trait.group(1)}' {trait.group(2)}"
        line = next((n for n, text in enumerate(lines, 1) if re.match(rf"\s*{trait.group(1)}\s*=", text)), None)
    message = " ".join(message.split()).rstrip(".")
    return DeckError(found, line, f"the jupytext configuration does not read: {message}", CONFIG_HINT)


def cell_metadata_filter(nb: nbformat.NotebookNode) -> str:
    """jupytext's filter that writes back exactly the cell metadata keys the deck wrote."""
    keys: list[str] = []
    for cell in nb.cells:
        for key in cell.metadata:
            if key not in JUPYTEXT_CELL_KEYS and key not in keys:
                keys.append(key)
    return ",".join(keys + [NO_CELL_METADATA])


#: the jupytext format of a deck written in plain jupytext Markdown with at most deck options in its header
PLAIN = "md"


def file_format(path: Path, text: str) -> dict:
    """The jupytext format ``text`` is written in: the header's ``format_name``, else jupytext's guess.

    A ``:::`` line makes jupytext guess Pandoc Markdown; in a deck that is a MyST colon
    fence or a div, so without a header saying ``pandoc`` the file is read as Markdown.
    """
    ext = path.suffix or ".md"
    return {"extension": ext, "format_name": _format_name(text, ext)}


@functools.lru_cache(maxsize=4)
def _format_name(text: str, ext: str) -> str:
    """The format name of :func:`file_format`, worked out once for a text (a read asks three times, 10 ms each)."""
    name = read_format_from_metadata(text, ext)
    if not name:
        name, _ = guess_format(text, ext)
        if name == "pandoc":
            name = "markdown"
    return name or "markdown"


def header_metadata_keys(text: str, format_name: str) -> tuple[list[str], list[str]]:
    """The notebook metadata keys the file's header holds, and the keys of its ``jupytext`` block.

    In jupytext Markdown the notebook metadata is the header's ``jupyter:`` mapping (other
    root keys become a raw cell that goes back as written); in MyST it is the whole front
    matter (the ``jupyter:`` namespace merged in).
    """
    header = header_mapping(text)
    jupyter = header.get("jupyter") if isinstance(header.get("jupyter"), dict) else {}
    if format_name == "myst":
        meta = {k: v for k, v in header.items() if k != "jupyter"}
        meta.update(jupyter)
    else:
        meta = jupyter
    block = meta.get("jupytext")
    return list(meta), (list(block) if isinstance(block, dict) else [])


def _kept(notebook_filter) -> list[str]:
    """The keys a ``a,b,-all`` notebook metadata filter keeps."""
    parsed = metadata_filter_as_dict(notebook_filter) or {}
    additional = parsed.get("additional", [])
    return list(additional) if isinstance(additional, list) else []


def _format_and_filters(path: Path, text: str, nb: nbformat.NotebookNode,
                        config: JupytextConfiguration) -> str | dict:
    """Record in ``nb`` what writes it back byte for byte; returns the format to write it with.

    A plain deck records jupytext's filters in ``metadata.jupytext`` as it always did and is
    written as ``md`` (the repository's configuration then drops the notebook metadata
    jaxdeck adds). A file whose header holds more (``jupytext:``, ``kernelspec:``...) gets
    a notebook metadata filter keeping exactly the header's keys (``jupytext.<key>`` for
    each key of its ``jupytext`` block, so the filters themselves are never written), and
    is written with that filter as a format option: jupytext lets the configuration's
    filter win over the notebook's own, but not over the format's.
    """
    fmt = file_format(path, text)
    repository_filter = config.notebook_metadata_filter or DEFAULT_JUPYTEXT_CONFIG["notebook_metadata_filter"]
    keep = _kept(repository_filter)
    keys, block = header_metadata_keys(text, fmt["format_name"])
    meta = nb.metadata.setdefault("jupytext", {})
    cells = cell_metadata_filter(nb)
    if fmt["format_name"] == "markdown" and set(keys) <= set(keep):
        meta.setdefault("notebook_metadata_filter", repository_filter)
        meta["cell_metadata_filter"] = cells
        return path.suffix.lstrip(".") or PLAIN
    entries = keep + [k for k in keys if k not in keep and k != "jupytext"] + [f"jupytext.{k}" for k in block]
    notebook_filter = ",".join(entries + ["-all"])
    # a filter the header itself sets stays as written (it is part of the header);
    # the format below carries jaxdeck's, which jupytext then uses instead
    if "notebook_metadata_filter" not in block:
        meta["notebook_metadata_filter"] = notebook_filter
    if "cell_metadata_filter" not in block:
        meta["cell_metadata_filter"] = cells
    return {**fmt, "notebook_metadata_filter": notebook_filter, "cell_metadata_filter": cells}


def write_format(nb: nbformat.NotebookNode) -> str | dict:
    """The jupytext format (with its write-back options) that gives the notebook's file back."""
    return BuildRecord.of(nb).format or PLAIN


_VERSION_LINE = re.compile(r"^(\s*)jupytext_version:.*$")


def write_back(nb: nbformat.NotebookNode, path: str | Path, fmt: dict | None = None) -> str:
    """The file's text as jupytext writes the notebook back: its format, the repository's configuration.

    jupytext stamps the header with its own version; the version the file was written
    with is kept instead, and so is a :data:`BOM` the file starts with, so that a save changes
    only what was edited.
    """
    path = Path(path)
    fmt = fmt or write_format(nb)  # given: read just now, the notebook carries no build record yet
    text = jupytext.writes(nb, fmt=fmt, config=jupytext_config(path))
    version = ((nb.metadata.get("jupytext") or {}).get("text_representation") or {}).get("jupytext_version")
    count = header_line_count(text)
    if version and count:
        lines = text.split("\n")
        for index in range(1, count - 1):
            match = _VERSION_LINE.match(lines[index])
            if match:
                value = yaml.safe_dump({"jupytext_version": version}, default_flow_style=False).strip()
                lines[index] = match.group(1) + value
                text = "\n".join(lines)
                break
    return bom_of(path) + _header_as_written(text, path, fmt)


_HEADER_ENTRY = re.compile(r"^(\s*[^\s#][^:]*):\s+(\S.*)$")


def _scalar(value: str) -> tuple | None:
    """A header value as PyYAML reads it and its text as written (without quotes), None unless a scalar."""
    try:
        loaded = load_header(value)
        node = yaml.compose(value, Loader=HeaderLoader)
    except yaml.YAMLError:
        return None
    return (loaded, node.value) if isinstance(node, yaml.ScalarNode) else None


def _same_entry(mine: str, written: str) -> bool:
    """Two header lines that give one key the same value, spelled another way (quotes, a date)."""
    ours, theirs = _HEADER_ENTRY.match(mine), _HEADER_ENTRY.match(written)
    if not ours or not theirs or ours.group(1) != theirs.group(1):
        return False
    a, b = _scalar(ours.group(2)), _scalar(theirs.group(2))
    if a is None or b is None:
        return False
    if type(a[0]) is type(b[0]) and a[0] == b[0]:
        return True
    return isinstance(a[0], datetime.date) and b[0] == a[1]  # the date the notebook keeps as text


def _header_read(header: str, fmt: str | dict) -> tuple:
    """What jupytext reads from a header alone: the notebook metadata (a date as its ISO text, as
    the notebook keeps it) and the cells (a root that is not YAML is a raw cell)."""
    nb = jupytext.reads(header + "\n", fmt=fmt)
    metadata = json.loads(json.dumps(nb.metadata, default=str))
    return metadata, [(cell.cell_type, cell.source) for cell in nb.cells]


def _same_header(ours: list[str], theirs: list[str], fmt: str | dict) -> bool:
    """Whether jupytext reads the same from two headers (their keys in any order, spelled any way)."""
    if ours == theirs:
        return True
    try:
        return _header_read("\n".join(ours), fmt) == _header_read("\n".join(theirs), fmt)
    except Exception:  # noqa: BLE001 - a header jupytext cannot read is not the same
        return False


def _header_as_written(text: str, path: Path, fmt: str | dict = PLAIN) -> str:
    """``text`` with the file's own header when jupytext reads the same from both (keys in the
    author's order, values spelled the author's way); else with each header line that says what
    the file's own line says in the file's spelling: a value quoted another way (``"x"``, ``'x'``)
    or a date (which the notebook keeps as text, so jupytext would quote it) is written back as it
    is in the file."""
    count = header_line_count(text)
    try:
        current = path.read_text(encoding="utf-8-sig") if count else ""  # the text, without a BOM
    except (OSError, UnicodeDecodeError):
        return text
    written = header_line_count(current)
    lines, mine = text.split("\n"), current.split("\n")
    if written and _same_header(lines[:count], mine[:written], fmt):
        return "\n".join(mine[:written] + lines[count:])
    if written != count:
        return text
    for index in range(1, count - 1):
        if lines[index] != mine[index] and _same_entry(mine[index], lines[index]):
            lines[index] = mine[index]
    return "\n".join(lines)


def read_in_format(path: Path, text: str, config: JupytextConfiguration) -> tuple[nbformat.NotebookNode, dict | None]:
    """jupytext's notebook of ``text``, read in the file's own format, and the format to write it back in
    (None: plain jupytext Markdown), for the build record's ``format``."""
    fmt = file_format(path, text)
    given = (path.suffix.lstrip(".") or PLAIN) if fmt["format_name"] == "markdown" else dict(fmt)
    if fmt["format_name"] == "markdown" and guess_format(text, fmt["extension"])[0] == "pandoc":
        given = dict(fmt)  # a ':::' line: read as the Markdown it is (the reader says each div), not as Pandoc's
    nb = jupytext.reads(text, fmt=given, config=config)
    tree = header_tree(text)
    dates = {(p[1:] if p[:1] == ("jupyter",) else p): date for p, date in written_dates(tree).items()}
    dates_as_written(nb.metadata, dates)
    written = _format_and_filters(path, text, nb, config)
    return nb, written if isinstance(written, dict) else None
