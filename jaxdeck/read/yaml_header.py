"""A deck's YAML header as PyYAML reads it: where it ends, its YAML within the limits a deck's options
need (no aliases, no deep nesting, a few KB), the part jupytext reads when all of it is not YAML, and
its dates as written. The reader's checks (:mod:`jaxdeck.read.header`) and the format's records
(:mod:`jaxdeck.read.formats`) read it alike."""

from __future__ import annotations

import datetime
import re

import yaml


def header_line_count(text: str) -> int:
    """Number of lines taken by a leading YAML header (0 when there is none)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            return index + 1
    return 0


#: a deck's header holds a few options: more than this is not a header written by hand
MAX_HEADER_BYTES = 64 * 1024
#: mappings and lists nested deeper than this are no deck options (and PyYAML composes them recursively)
MAX_HEADER_DEPTH = 32


class HeaderLimit(yaml.composer.ComposerError):
    """A header beyond what a deck's options need (aliases, deep nesting, size)."""


class HeaderLoader(yaml.SafeLoader):
    """PyYAML's safe loader with a deck header's limits.

    No aliases: a header never needs them, and a few hundred bytes of nested aliases expand to
    gigabytes ("billion laughs"). Nesting at most MAX_HEADER_DEPTH deep: PyYAML composes a node
    by recursion, so twenty thousand nested brackets end in a RecursionError, not a YAML error.
    """

    #: what the loaded text is, in its errors; how deep it may nest (a subclass for another small file sets both)
    what = "a deck header"
    most_depth = MAX_HEADER_DEPTH

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise HeaderLimit(None, None, f"aliases (*name) are not allowed in {self.what}",
                                              self.peek_event().start_mark)
        self.depth += 1
        try:
            if self.depth > self.most_depth:
                raise HeaderLimit(None, None, f"it nests deeper than {self.most_depth} levels",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def load_header(body: str):
    """The header's YAML, within :class:`HeaderLoader`'s limits (a ``yaml.YAMLError`` beyond them)."""
    if len(body.encode("utf-8")) > MAX_HEADER_BYTES:
        raise HeaderLimit(None, None, f"it holds {len(body.encode('utf-8')) // 1024} KB, more than the "
                          f"{MAX_HEADER_BYTES // 1024} KB a deck's options take", None)
    return yaml.load(body, Loader=HeaderLoader)  # noqa: S506 - a SafeLoader with limits


def jupytext_yaml(body: str) -> str | None:
    """What of a header jupytext reads as YAML when all of it is not: in a Markdown file, the
    ``jupyter:`` block (the root keys beside it become a raw cell, kept as written); None when
    there is none and the header is not MyST's front matter (``jupytext:`` or ``kernelspec:``
    at its root), so all of it is a raw cell: text that merely looks like YAML."""
    from jupytext.header import _JUPYTER_RE, _LEFTSPACE_RE

    lines = body.split("\n")
    if any(re.match(r"^(jupytext|kernelspec)\s*:", line) for line in lines):
        return body  # MyST front matter: jupytext reads all of it
    block: list[str] = []
    inside = False
    for line in lines:  # jupytext's own rule (jupytext.header.header_to_metadata_and_cell)
        if _JUPYTER_RE.match(line):
            inside = True
        elif line and not _LEFTSPACE_RE.match(line):
            inside = False
        if inside:
            block.append(line)
    return "\n".join(block) if block else None


def header_mapping(text: str) -> dict:
    """The header's YAML as a mapping ({} when there is none or it is no mapping): all of it, or the
    ``jupyter:`` block jupytext reads when all of it is not YAML."""
    count = header_line_count(text)
    if not count:
        return {}
    body = "\n".join(text.split("\n")[1: count - 1])
    try:
        header = load_header(body) or {}
    except yaml.YAMLError:
        try:  # jupytext reads only the `jupyter:` block of a header whose root is not YAML
            header = load_header(jupytext_yaml(body) or "") or {}
        except yaml.YAMLError:
            return {}
    return header if isinstance(header, dict) else {}


def header_tree(text: str) -> yaml.Node | None:
    """The header's YAML as PyYAML composes it (its nodes know their lines): all of it, or the
    ``jupyter:`` block jupytext reads when all of it is not YAML; None without a YAML header."""
    count = header_line_count(text)
    if not count:
        return None
    body = "\n".join(text.split("\n")[1: count - 1])
    for candidate in (body, jupytext_yaml(body)):
        if candidate is None:
            return None
        try:
            load_header(candidate)  # within the header's limits, before composing
            return yaml.compose(candidate, Loader=HeaderLoader)
        except yaml.YAMLError:
            continue
    return None


_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def written_dates(node: yaml.Node | None, path: tuple = ()) -> dict[tuple, str]:
    """Key path -> each YAML date of a composed header, as its text is written (``2026-11-22``)."""
    found: dict[tuple, str] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                found.update(written_dates(value, path + (key.value,)))
    elif isinstance(node, yaml.ScalarNode) and node.tag == _TIMESTAMP:
        found[path] = node.value
    return found


def dates_as_written(value, written: dict[tuple, str], path: tuple = ()):
    """``value`` with every date in it (PyYAML reads ``2026-11-22`` as one) the text the header
    gives it: notebook metadata is JSON, and a date shows as its author wrote it."""
    if isinstance(value, dict):
        for key in list(value):
            value[key] = dates_as_written(value[key], written, path + (str(key),))
    elif isinstance(value, list):
        value[:] = [dates_as_written(item, written, path) for item in value]
    elif isinstance(value, datetime.date):
        return written.get(path, value.isoformat())
    return value
