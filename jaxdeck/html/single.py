"""The self-contained deck: the built page and every file it loads in one HTML file.

Made from ``build/html/NAME.html`` and the files beside it (``assets/``, ``images/``), as
Quarto's ``embed-resources`` makes its single file, so the deck presents from a folder of its
own with no network: stylesheets become ``<style>`` elements whose ``url(...)``s (KaTeX's fonts
among them, relative to the stylesheet that names them) are ``data:`` URIs, scripts are
inlined, and images, icons, media and reveal.js's ``data-src`` and ``data-background-*``
attributes become ``data:`` URIs. Nothing is listed by name: whatever the page references is
inlined, so a plugin or theme added to the template comes along.

A script that loads files by URL at run time (a plugin's stylesheet, its images) no longer
knows its folder once inlined; the files under its folder that its text names travel in the
page as ``data:`` URIs, and ``themes/jaxdeck/single/files.js`` serves them to it.

The page is read with :mod:`jaxdeck.read.loads` (the standard library's HTML parser) and CSS
with tinycss2 (which nbconvert brings for bleach's CSS sanitiser). Only files inside the page's
folder are inlined, by the rule of :mod:`jaxdeck.read.contained` (a symbolic link that leads out
of it counts as outside): a reference that names anything else, or a file that is not there, is a
one-line error naming the deck and the reference.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from jaxdeck.atomic import write_text
from jaxdeck.errors import DeckError, display_path
from jaxdeck.read.loads import Relinker, start_tag
from jaxdeck.places import THEMES
from jaxdeck.read.contained import MISSING, NOT_FILES, OUTSIDE, REASONS, REMOTE, Refused, located, named

#: the template and script that serve run-time files (themes/jaxdeck/single/)
SINGLE = THEMES / "jaxdeck" / "single"

#: script attributes that mean nothing, or the wrong thing, on an inline script
NOT_INLINE = {"src", "defer", "async", "integrity", "crossorigin", "referrerpolicy"}
#: types browsers know; mimetypes' table depends on the system
TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf", ".svg": "image/svg+xml",
         ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".json": "application/json",
         ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
         ".ico": "image/x-icon", ".html": "text/html", ".mp4": "video/mp4", ".webm": "video/webm"}
#: where an inlined script or stylesheet would end its element early
SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)
STYLE_END = re.compile(r"</(style)", re.IGNORECASE)


@dataclass(frozen=True)
class Inlined:
    """The self-contained page, and every file it was made from (paths relative to the page's folder)."""

    html: str
    files: tuple[str, ...]


#: why a reference is refused: it names a file on the web
WEB = "web"


@dataclass
class Files:
    """The files beside a page, read once each and turned into ``data:`` URIs."""

    folder: Path
    read: dict[Path, bytes] = field(default_factory=dict)

    def resolve(self, url: str, base: Path) -> Path | None:
        """The file ``url`` names relative to the folder ``base`` (inside :attr:`folder`); None when it
        names no file (data:, #id); :class:`Refused` unless it is a file inside :attr:`folder`."""
        url = url.strip()
        if not url or url.lower().startswith(NOT_FILES):
            return None
        if url.lower().startswith(REMOTE):
            raise Refused(url, WEB)
        return named(self.folder, url, Path(os.path.relpath(base, self.folder)).as_posix()).path

    def bytes_of(self, path: Path) -> bytes:
        if path not in self.read:
            self.read[path] = path.read_bytes()
        return self.read[path]

    def data_uri(self, url: str, base: Path) -> str:
        """``url`` as a ``data:`` URI of the file it names (stylesheets with their own references inlined)."""
        path = self.resolve(url, base)
        if path is None:
            return url
        return self.file_uri(path, urlsplit(url.strip()).fragment)

    def file_uri(self, path: Path, fragment: str = "") -> str:
        """The file ``path`` as a ``data:`` URI (a stylesheet with its own references inlined)."""
        if path.suffix.lower() == ".css":
            body = self.stylesheet(path).encode("utf-8")
        else:
            body = self.bytes_of(path)
        kind = TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return f"data:{kind};base64,{base64.b64encode(body).decode('ascii')}" + (f"#{fragment}" if fragment else "")

    def stylesheet(self, path: Path, seen: tuple[Path, ...] = ()) -> str:
        """A CSS file's text with its ``url(...)``s and ``@import``s inlined, relative to the file."""
        if path in seen:  # a stylesheet that imports itself
            return ""
        text = self.bytes_of(path).decode("utf-8-sig", errors="replace")
        return self.css(text, path.parent, (*seen, path))

    def css(self, text: str, base: Path, seen: tuple[Path, ...] = ()) -> str:
        """CSS text with every file it references as a ``data:`` URI (relative to ``base``)."""
        lowered = text.lower()
        if "url(" not in lowered and "@import" not in lowered:
            return text
        import tinycss2

        tokens = tinycss2.parse_component_value_list(text, skip_comments=False)
        self._css_tokens(tokens, base, seen)
        return tinycss2.serialize(tokens)

    def _css_uri(self, url: str, base: Path, seen: tuple[Path, ...]) -> str:
        path = self.resolve(url, base)
        if path is not None and path.suffix.lower() == ".css":
            body = self.stylesheet(path, seen).encode("utf-8")
            return f"data:text/css;base64,{base64.b64encode(body).decode('ascii')}"
        return self.data_uri(url, base)

    def _css_tokens(self, tokens: list, base: Path, seen: tuple[Path, ...]) -> None:
        """Inline the files ``tokens`` reference. An ``@font-face`` none of whose files is there stays
        as it is: a face left out on purpose (an icon set's brands, which the build does not copy),
        whose files a browser asks for only when text uses it; one with some of its files is inlined."""
        from tinycss2 import ast

        previous = None
        for index, token in enumerate(tokens):
            if isinstance(token, ast.URLToken):
                uri = self._css_uri(token.value, base, seen)
                tokens[index] = ast.URLToken(token.source_line, token.source_column, uri, f'url("{uri}")')
            elif isinstance(token, ast.FunctionBlock) and token.lower_name == "url":
                for k, argument in enumerate(token.arguments):
                    if isinstance(argument, ast.StringToken):
                        uri = self._css_uri(argument.value, base, seen)
                        token.arguments[k] = ast.StringToken(argument.source_line, argument.source_column, uri,
                                                             f'"{uri}"')
            elif isinstance(token, ast.StringToken) and _is_import(previous):
                uri = self._css_uri(token.value, base, seen)
                tokens[index] = ast.StringToken(token.source_line, token.source_column, uri, f'"{uri}"')
            elif isinstance(token, ast.CurlyBracketsBlock) and _is_font_face(tokens, index):
                if any(self._there(url, base) for url in _urls(token.content)):
                    _woff2_only(token.content)
                    self._css_tokens(token.content, base, seen)
            elif hasattr(token, "content") and isinstance(token.content, list):
                self._css_tokens(token.content, base, seen)
            elif isinstance(token, ast.FunctionBlock):
                self._css_tokens(token.arguments, base, seen)
            if getattr(token, "type", None) not in ("whitespace", "comment"):
                previous = token

    def inside(self, path: Path) -> bool:
        """Whether ``path`` (a file found in a script's folder) is a file inside :attr:`folder` once resolved."""
        try:
            located(self.folder, Path(os.path.relpath(path, self.folder)).as_posix())
        except Refused:
            return False
        return True

    def _there(self, url: str, base: Path) -> bool:
        try:
            self.resolve(url, base)
        except Refused:
            return False
        return True

    def relative(self) -> tuple[str, ...]:
        """Every file read, relative to the page's folder."""
        return tuple(sorted(Path(os.path.relpath(p, self.folder)).as_posix() for p in self.read))


def _urls(tokens: list):
    """The URLs that ``url(...)``s among ``tokens`` name, at any depth."""
    from tinycss2 import ast

    for token in tokens:
        if isinstance(token, ast.URLToken):
            yield token.value
        elif isinstance(token, ast.FunctionBlock) and token.lower_name == "url":
            yield from (a.value for a in token.arguments if isinstance(a, ast.StringToken))
        elif isinstance(token, ast.FunctionBlock):
            yield from _urls(token.arguments)
        elif isinstance(getattr(token, "content", None), list):
            yield from _urls(token.content)


def _is_import(token) -> bool:
    return getattr(token, "type", None) == "at-keyword" and token.lower_value == "import"


def _is_font_face(tokens: list, index: int) -> bool:
    """Whether the ``{}`` block at ``tokens[index]`` is an ``@font-face`` rule's."""
    for token in reversed(tokens[:index]):
        if getattr(token, "type", None) in ("whitespace", "comment"):
            continue
        return getattr(token, "type", None) == "at-keyword" and token.lower_value == "font-face"
    return False


def _woff2_only(declarations: list) -> None:
    """When an ``@font-face`` offers a WOFF2 font, its ``src`` is that font alone: every browser
    that runs reveal.js reads WOFF2, and the other formats (and an older ``src`` the WOFF2 one
    overrides, an icon set's EOT for old Internet Explorers) would more than double the file."""
    from tinycss2 import ast

    def literal(token, *values) -> bool:
        return isinstance(token, ast.LiteralToken) and token.value in values

    def woff2(candidate: list) -> bool:
        return any(isinstance(t, ast.FunctionBlock) and t.lower_name == "format"
                   and any(isinstance(a, ast.StringToken) and a.value.lower() == "woff2" for a in t.arguments)
                   for t in candidate)

    spans, chosen = [], None  # each src declaration: (start, colon, end past its ';')
    for start, token in enumerate(declarations):
        if not (getattr(token, "type", None) == "ident" and token.lower_value == "src"):
            continue
        colon = next((k for k in range(start + 1, len(declarations))
                      if getattr(declarations[k], "type", None) not in ("whitespace", "comment")), None)
        if colon is None or not literal(declarations[colon], ":"):
            continue
        end = next((k for k in range(colon + 1, len(declarations)) if literal(declarations[k], ";")), len(declarations))
        candidates, current = [], []
        for value in declarations[colon + 1:end]:
            if literal(value, ","):
                candidates.append(current)
                current = []
            else:
                current.append(value)
        candidates.append(current)
        spans.append((start, colon, min(end + 1, len(declarations))))
        chosen = next(([*c] for c in candidates if woff2(c)), chosen)
    if chosen is None:
        return
    _, colon, end = spans[-1]  # the last src wins: it becomes the WOFF2 font, the earlier ones go
    declarations[colon + 1:end - 1 if literal(declarations[end - 1], ";") else end] = chosen
    for start, _, end in reversed(spans[:-1]):
        del declarations[start:end]


class Rewriter(Relinker):
    """Re-emits a page as it was read, with each reference to a file replaced by the file itself:
    stylesheets as ``<style>``, scripts inline, everything else as ``data:`` URIs."""

    def __init__(self, files: Files):
        super().__init__(lambda load: files.data_uri(load.url, files.folder))
        self.files = files
        self.folder = files.folder
        self.scripts: list[Path] = []  # the scripts inlined, for the files they load at run time
        self.served_at: int | None = None  # where in ``out`` the run-time files go: before the first script

    def css(self, text: str, what: str) -> str:
        return self.files.css(text, self.folder)

    def start(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> str:
        values = dict(attrs)
        if tag == "script" and self.served_at is None:
            self.served_at = len(self.out)
            self.out.append("")
        if tag == "link" and "stylesheet" in (values.get("rel") or "").lower().split() and values.get("href"):
            path = self.files.resolve(values["href"], self.folder)
            if path is not None:
                kept = [(k, v) for k, v in attrs if k in ("id", "media", "title", "class")]
                css = STYLE_END.sub(r"<\\/\1", self.files.stylesheet(path))
                return f"{start_tag('style', kept)}\n{css}\n</style>"
        if tag == "script" and values.get("src"):
            path = self.files.resolve(values["src"], self.folder)
            if path is not None:
                self.scripts.append(path)
                code = self.files.bytes_of(path).decode("utf-8-sig", errors="replace")
                kept = [(k, v) for k, v in attrs if k not in NOT_INLINE]
                return start_tag("script", kept) + SCRIPT_END.sub(r"<\\/\1", code)
        return super().start(tag, attrs, closed)

    def handle_endtag(self, tag):
        if tag == "head" and self.served_at is None:
            self.served_at = len(self.out)
            self.out.append("")
        super().handle_endtag(tag)


def run_time_files(files: Files, scripts: list[Path]) -> dict[str, str]:
    """The files under each inlined script's folder that its text names (a plugin's ``menu.css``,
    ``img/sponge.png``), as ``data:`` URIs keyed by their path relative to the page."""
    served: dict[str, str] = {}
    for script in scripts:
        text = files.bytes_of(script).decode("utf-8", errors="replace")
        for path in sorted(script.parent.rglob("*")):
            if not path.is_file() or path == script or path.suffix.lower() in (".map", ".ts", ".md"):
                continue
            name = path.relative_to(script.parent).as_posix()
            if name not in text or not files.inside(path):
                continue
            key = Path(os.path.relpath(path, files.folder)).as_posix()
            served.setdefault(key, files.file_uri(path))
    return served


def self_contained(page: Path, deck: Path | None = None) -> Inlined:
    """The page ``page`` with every file it loads inlined; a DeckError naming ``deck`` and the
    reference when one names no file inside the page's folder."""
    page = Path(page)
    files = Files(page.parent.resolve())
    rewriter = Rewriter(files)
    try:
        rewriter.feed(page.read_text(encoding="utf-8"))
        rewriter.close()
        served = run_time_files(files, rewriter.scripts)
    except Refused as refused:
        raise refusal(refused, deck or page, files.folder) from None
    out = rewriter.out
    if served and rewriter.served_at is not None:
        out[rewriter.served_at] = serving(served)
    return Inlined("".join(out), files.relative())


def refusal(refused: Refused, deck: Path, folder: Path) -> DeckError:
    """The one-line error for a reference the self-contained file does not inline."""
    said = f"the self-contained file cannot inline {refused.written}"
    if refused.why == WEB:
        return DeckError(deck, None, f"{said}: it is remote", "use a local copy of it, so that the deck presents offline")
    if refused.why == MISSING:
        return DeckError(deck, None, f"{said}: {display_path(refused.path)} is missing",
                         f"rebuild the deck's HTML (`jaxdeck build --force {display_path(deck)}`) or remove the reference")
    reason = f"it is outside the deck's files ({display_path(folder)})" if refused.why == OUTSIDE else REASONS[refused.why]
    return DeckError(deck, None, f"{said}: {reason}",
                     "name only files inside the deck's folder, by paths relative to it (copy the file there)")


def serving(served: dict[str, str]) -> str:
    """The markup that carries ``served`` and the script that serves it (``themes/jaxdeck/single/``)."""
    import jinja2

    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(SINGLE), autoescape=False,
                                     keep_trailing_newline=True)
    files_json = json.dumps(served, sort_keys=True).replace("</", "<\\/")
    script = SCRIPT_END.sub(r"<\\/\1", (SINGLE / "files.js").read_text(encoding="utf-8"))
    return environment.get_template("files.html.j2").render(files_json=files_json, script=script)


def write_single(page: Path, out: Path, deck: Path | None = None) -> Inlined:
    """Write the self-contained deck of ``page`` to ``out`` atomically."""
    made = self_contained(page, deck)
    write_text(out, made.html)
    return made
