"""What a piece of HTML or CSS loads, each file it names checked by the rule of :mod:`jaxdeck.read.contained`.

A page loads a file through an element's ``src``, ``srcset`` or ``poster``, reveal.js's lazy and
background media, a stylesheet's or icon's ``href``, and the ``url()``s and ``@import``s of CSS
(``style`` attributes, ``<style>`` elements); an ``<a href>`` is a link, not a load. One walker,
:class:`Relinker`, re-emits markup as it was read (the standard library's HTML parser, tinycss2
for CSS) with each of those references passed through a function: the read stage lists them to
check them (:func:`loads`, :func:`check_raw_html`, :func:`check_stylesheet`), the HTML stage points
a deck's own at its copies beside the page (:func:`jaxdeck.html.loads.at_copies`), and the
self-contained file inlines them (:mod:`jaxdeck.html.single`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from jaxdeck.read.contained import NOT_FILES, Named, Refused, check, named, names_a_file, refusal

#: attributes that load the file they name, on any element (reveal.js's lazy and background media among them)
LOADED = {"src", "poster", "data-src", "data-background-image", "data-background-video", "data-preview-image"}
#: attributes that load the file they name on these elements only (an <a href> is a link, not a load)
LOADED_ON = {"href": {"image", "use", "feimage"}, "xlink:href": {"image", "use", "feimage"}, "data": {"object"}}
#: <link rel> values whose href the browser loads
LOADED_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "mask-icon", "preload", "prefetch", "manifest"}


#: what markup that loads a file must contain (markup without it, most of a deck's, is not parsed)
MAYBE_LOADS = re.compile(r"(?i)[\s/](?:src|srcset|poster|data|data-src|data-background[\w-]*|data-preview-image|href|"
                         r"xlink:href)\s*=|url\s*\(|@import")


@dataclass(frozen=True)
class Load:
    """A reference that loads a file: the URL as written, its line in the markup (from 1), and
    how the markup names it (``<img src>``, ``url()``), for messages."""

    url: str
    line: int
    what: str


def css_urls(text: str) -> list[tuple[str, int]]:
    """Every ``url()`` and ``@import`` of CSS ``text``, with its line in it (from 1)."""
    found: list[tuple[str, int]] = []
    map_css(text, lambda url, line: found.append((url, line)) or url)
    return found


def map_css(text: str, link: Callable[[str, int], str]) -> str:
    """CSS ``text`` with each ``url()`` and ``@import`` replaced by ``link(url, line)``; the text
    as it was when nothing changed."""
    lowered = text.lower()
    if "url(" not in lowered and "@import" not in lowered:
        return text
    import tinycss2
    from tinycss2 import ast

    changed = False

    def walk(tokens: list) -> None:
        nonlocal changed
        previous = None
        for index, token in enumerate(tokens):
            new = None
            if isinstance(token, ast.URLToken):
                uri = link(token.value, token.source_line)
                new = ast.URLToken(token.source_line, token.source_column, uri, f"url({_css_url(uri)})")
            elif isinstance(token, ast.FunctionBlock) and token.lower_name == "url":
                for k, argument in enumerate(token.arguments):
                    if isinstance(argument, ast.StringToken):
                        uri = link(argument.value, argument.source_line)
                        if uri != argument.value:
                            changed = True
                            token.arguments[k] = ast.StringToken(argument.source_line, argument.source_column, uri,
                                                                 f'"{_css_string(uri)}"')
            elif isinstance(token, ast.StringToken) and getattr(previous, "type", None) == "at-keyword" \
                    and previous.lower_value == "import":
                uri = link(token.value, token.source_line)
                new = ast.StringToken(token.source_line, token.source_column, uri, f'"{_css_string(uri)}"')
            elif isinstance(token, ast.FunctionBlock):
                walk(token.arguments)
            elif isinstance(getattr(token, "content", None), list):
                walk(token.content)
            if new is not None and new.value != token.value:
                tokens[index], changed = new, True
            if getattr(token, "type", None) not in ("whitespace", "comment"):
                previous = token

    tokens = tinycss2.parse_component_value_list(text, skip_comments=False)
    walk(tokens)
    return tinycss2.serialize(tokens) if changed else text


def _css_string(value: str) -> str:
    """``value`` to write between double quotes in CSS."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")


def _css_url(value: str) -> str:
    """``value`` to write in an unquoted ``url()``, as it was written."""
    return re.sub(r"""([()\s'"\\])""", r"\\\1", value)


def _background_file(value: str) -> bool:
    """Whether reveal.js's ``data-background`` names a file (it may be a colour or a gradient instead)."""
    value = value.strip()
    if not value or value.lower().startswith(NOT_FILES) or "(" in value or value.startswith("#"):
        return False
    return bool(Path(urlsplit(value).path).suffix)


class Relinker(HTMLParser):
    """Re-emits markup as it was read, each reference that loads a file replaced by ``link(Load)``."""

    def __init__(self, link: Callable[[Load], str]):
        super().__init__(convert_charrefs=False)
        self.link = link
        self.out: list[str] = []
        self.style = False  # inside a <style> element

    def linked(self, url: str, what: str, line: int | None = None) -> str:
        return self.link(Load(url, self.getpos()[0] if line is None else line, what))

    def css(self, text: str, what: str) -> str:
        """CSS text (a ``style`` attribute, a ``<style>`` element's) with its references linked."""
        first = self.getpos()[0]
        return map_css(text, lambda url, line: self.linked(url, what, first + line - 1))

    # tags

    def handle_starttag(self, tag, attrs):
        self.out.append(self.start(tag, attrs, closed=False))

    def handle_startendtag(self, tag, attrs):
        self.out.append(self.start(tag, attrs, closed=True))

    def start(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> str:
        """A start tag as it was written, or rewritten with its references linked."""
        if tag == "style":
            self.style = True
        values = dict(attrs)
        changed = [(k, self.value(tag, k, v, values)) for k, v in attrs]
        return self.get_starttag_text() if changed == attrs else start_tag(tag, changed, closed)

    def value(self, tag: str, name: str, value: str | None, values: dict) -> str | None:
        if value is None:
            return value
        what = f"<{tag} {name}>"
        if name == "style":
            return self.css(value, f"<{tag} style> url()")
        if name in LOADED or tag in LOADED_ON.get(name, ()):
            if name == "data-background-video":
                return ",".join(self.linked(part, what) for part in value.split(","))
            return self.linked(value, what)
        if name == "data-background" and _background_file(value):
            return self.linked(value, what)
        if name == "srcset":
            return ", ".join(" ".join([self.linked(url, what), *rest])
                             for url, *rest in (c.split() for c in value.split(",") if c.strip()))
        if tag == "link" and name == "href" and LOADED_RELS & set((values.get("rel") or "").lower().split()):
            return self.linked(value, what)
        return value

    def handle_endtag(self, tag):
        if tag == "style":
            self.style = False
        self.out.append(f"</{tag}>")

    # everything else as it was

    def handle_data(self, data):
        self.out.append(self.css(data, "<style> url()") if self.style else data)

    def handle_entityref(self, name):
        self.out.append(f"&{name};")

    def handle_charref(self, name):
        self.out.append(f"&#{name};")

    def handle_comment(self, data):
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl):
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data):
        self.out.append(f"<?{data}>")

    def unknown_decl(self, data):
        self.out.append(f"<![{data}]>")


def start_tag(tag: str, attrs: list[tuple[str, str | None]], closed: bool = False) -> str:
    rendered = "".join(f" {k}" if v is None else f' {k}="{escape(v, quote=True)}"' for k, v in attrs)
    return f"<{tag}{rendered}{' /' if closed else ''}>"


def relinked(markup: str, link: Callable[[Load], str]) -> str:
    """``markup`` with each reference that loads a file replaced by ``link(load)``."""
    relinker = Relinker(link)
    relinker.feed(markup)
    relinker.close()
    return "".join(relinker.out)


def loads(markup: str) -> list[Load]:
    """The references in ``markup`` that load a file, in order."""
    found: list[Load] = []
    if MAYBE_LOADS.search(markup):
        relinked(markup, lambda load: found.append(load) or load.url)
    return found


def check_markup(deck: Path, line: int, markup: str) -> list[Named]:
    """The files the raw HTML ``markup`` (written at ``deck``:``line``) loads, each checked:
    ``src``, ``srcset``, ``poster``, reveal.js's ``data-*`` media, a stylesheet's or icon's
    ``href``, and the ``url()``s of ``style`` attributes and ``<style>`` elements."""
    return [check(deck, line + load.line - 1, load.url, load.what, project=True)
            for load in loads(markup) if names_a_file(load.url)]


def check_raw_html(deck: Path, line: int, tokens: list) -> list[Named]:
    """The files the raw HTML of a markdown cell loads (markdown-it's ``tokens`` of a cell that starts
    at ``deck``:``line``), each checked at its own line: HTML blocks and inline tags alike."""
    found: list[Named] = []
    for token in tokens:
        first = line + (token.map[0] if token.map else 0)
        if token.type == "html_block":
            found += check_markup(deck, first, token.content)
        at = 0
        for child in token.children or []:
            if child.type == "html_inline":
                at = max(at, token.content.find(child.content, at))
                found += check_markup(deck, first + token.content.count("\n", 0, at), child.content)
    return found


def check_stylesheet(deck: Path, sheet: Named, seen: tuple[str, ...] = ()) -> list[Named]:
    """The files a stylesheet of the deck (its theme file) loads through its ``url()``s and
    ``@import``s, each checked at the sheet's own file and line, read relative to the sheet."""
    found: list[Named] = []
    within = posixpath.dirname(sheet.relative)
    text = sheet.path.read_text(encoding="utf-8-sig", errors="replace")
    for url, line in css_urls(text):
        if not names_a_file(url):
            continue
        try:
            file = named(deck.parent, url, within)
        except Refused as refused:
            raise refusal(deck.parent / sheet.relative, line, "url()", refused, deck.parent) from None
        found.append(file)
        if file.path.suffix.lower() == ".css" and file.relative not in (*seen, sheet.relative):
            found += check_stylesheet(deck, file, (*seen, sheet.relative))
    return found
