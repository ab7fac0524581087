"""What the static deck shows of outputs this user's builds cannot vouch for: nothing in them runs.

The rule (slides/README.md, "Raw HTML and outputs"): outputs show as built when this user's build
made them, or took them from a cache entry or a ``--frozen`` notebook its own builds signed
(:mod:`jaxdeck.trust`); any other's are sanitised, on the static deck as in the live slideshow,
where JupyterLab sanitises them. Here that is nbconvert's :class:`SanitizeHTML` (bleach) on the
code cells' outputs, never on the deck's own Markdown: HTML keeps its formatting, tables and
drawings (inline SVG shapes and text, their styles) and loses what runs or reaches out of it
(scripts with their text, style sheets, frames, forms, event handlers, ``javascript:`` links) and
what it would load from elsewhere: a picture keeps only a ``data:`` source, a style no ``url()``
(the build's Chromium, and every browser that later opens the deck, would fetch them; the output
has no files of its own), while a link the audience may click keeps its http(s) address;
JavaScript, widget views, Markdown (its text instead, as JupyterLab shows an untrusted one) and
other rich types go; text, LaTeX and pictures stay (an SVG file shows as a picture, where its
scripts never run). An output's metadata keeps only what the templates draw a picture by, each of
its own type (:func:`clean_metadata`): the lab template writes a width into an attribute, and a
width that is text could carry an event handler in with it.
"""

from __future__ import annotations

import copy
import math
import threading

import nbformat
import tinycss2
from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, ALLOWED_SVG_PROPERTIES, CSSSanitizer
from bleach.html5lib_shim import Filter
from bleach.sanitizer import BleachSanitizerFilter, Cleaner
from nbconvert.preprocessors.sanitize import SanitizeHTML

#: output types shown as they are (the template shows an SVG file as an <img>, where it cannot run)
SAFE_OUTPUTS = {"metadata", "text/plain", "text/latex", "application/json",
                "image/png", "image/jpeg", "image/gif", "image/svg+xml"}
#: output types shown sanitised (everything else goes)
SANITISED_OUTPUTS = {"text/html"}

#: HTML that formats: text, lists, tables, pictures
TEXT_TAGS = {"a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "col", "colgroup",
             "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3",
             "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
             "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
             "time", "tr", "u", "ul", "var", "wbr"}
#: SVG that draws (charts as rich reprs write them inline): shapes, text, groups; nothing that links or animates
DRAWING_TAGS = {"svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
                "title", "desc"}
#: elements whose content is not text to show: dropped with it, before the sanitiser sees the rest
UNSEEN = {"script", "style", "template", "noscript", "noembed", "iframe", "object", "applet", "frameset"}

#: attributes any kept element may have (``data-*`` and ``aria-*`` as well)
COMMON = {"class", "style", "title", "lang", "dir", "role"}
#: and those of particular elements
ATTRIBUTES = {
    "a": {"href", "rel", "target"}, "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align", "valign"}, "th": {"colspan", "rowspan", "align", "valign", "scope"},
    "col": {"span", "width"}, "colgroup": {"span", "width"}, "ol": {"start", "type", "reversed"},
    "li": {"value"}, "details": {"open"}, "time": {"datetime"},
}
#: what SVG shapes and text are drawn with
DRAWING = {"xmlns", "viewBox", "preserveAspectRatio", "width", "height", "x", "y", "x1", "y1", "x2", "y2",
           "cx", "cy", "r", "rx", "ry", "dx", "dy", "d", "points", "transform", "fill", "fill-opacity",
           "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap", "stroke-linejoin", "stroke-opacity",
           "opacity", "font-size", "font-family", "font-weight", "text-anchor", "dominant-baseline"}
#: URL schemes a link or a picture may have (a picture only a data: URL, :func:`_allowed`; a link not that)
PROTOCOLS = {"http", "https", "mailto", "data"}
#: CSS functions that load what they name, as ``url()`` does
LOADING = {"url", "src", "image", "image-set", "-webkit-image-set", "cross-fade", "-webkit-cross-fade"}
#: inline styles kept: bleach's, SVG's, and those of boxes and flex rows rich reprs lay tables out with
STYLES = ALLOWED_CSS_PROPERTIES | ALLOWED_SVG_PROPERTIES | {
    "background", "box-sizing", "max-width", "min-width", "max-height", "min-height", "margin", "margin-top",
    "margin-right", "margin-bottom", "margin-left", "padding", "padding-top", "padding-right", "padding-bottom",
    "padding-left", "border", "border-top", "border-right", "border-bottom", "border-left", "border-width",
    "border-style", "border-radius", "overflow-x", "overflow-y", "overflow-wrap", "word-break", "text-overflow",
    "text-decoration-color", "text-transform", "opacity", "flex", "flex-wrap", "flex-direction", "gap",
    "align-items", "justify-content", "font-variant-numeric", "list-style-type"}


#: an output's own keys, as nbformat's schema has them (any other, ``svg_filename`` say, a template might draw)
OUTPUT_KEYS = {"output_type", "data", "metadata", "execution_count", "name", "text", "ename", "evalue", "traceback"}
#: output metadata kept, each with the test its value must pass, at the top level or under a kept output type
#: (``{"image/png": {"width": 300}}``); nothing else (``filenames`` would name a picture anywhere)
METADATA = {
    "width": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0,
    "height": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0,
    "needs_background": lambda v: v in ("light", "dark"),
    "isolated": lambda v: isinstance(v, bool),
    "unconfined": lambda v: isinstance(v, bool),
}


def _known(metadata) -> dict:
    return {key: value for key, value in metadata.items() if key in METADATA and METADATA[key](value)}


def clean_metadata(metadata, shown) -> dict:
    """An output's ``metadata`` with only the keys of :data:`METADATA` whose values are of their type, at the
    top level or under one of the output types ``shown`` (those the output keeps)."""
    if not isinstance(metadata, dict):
        return {}
    kept = _known(metadata)
    for mime in shown:
        inner = metadata.get(mime)
        if isinstance(inner, dict) and _known(inner):
            kept[mime] = _known(inner)
    return kept


def _allowed(tag: str, name: str, value: str) -> bool:
    if name in COMMON or name.startswith(("data-", "aria-")):
        return True
    if tag == "a" and name == "href":
        return not value.strip().lower().startswith("data:")
    if tag == "img" and name == "src":
        return value.strip().lower().startswith("data:")
    return name in ATTRIBUTES.get(tag, ()) or (tag in DRAWING_TAGS and name in DRAWING)


class _DropUnseen(Filter):
    """The elements of :data:`UNSEEN`, with all they hold."""

    def __iter__(self):
        inside = 0
        for token in super().__iter__():
            if token.get("name") in UNSEEN and token["type"] in ("StartTag", "EndTag", "EmptyTag"):
                inside += {"StartTag": 1, "EndTag": -1}.get(token["type"], 0)
                inside = max(inside, 0)
                continue
            if not inside:
                yield token


def _loads(tokens) -> bool:
    """Whether CSS ``tokens`` name something to load: a ``url()``, or a function of :data:`LOADING`."""
    for token in tokens or ():
        if token.type == "url" or (token.type == "function" and token.lower_name in LOADING):
            return True
        if _loads(getattr(token, "arguments", None) or getattr(token, "content", None)):
            return True
    return False


class _LoadingNothing(CSSSanitizer):
    """bleach's style sanitiser, less every declaration that would load something (:func:`_loads`)."""

    def sanitize_css(self, style: str) -> str:
        cleaned = super().sanitize_css(style)
        kept = [d for d in tinycss2.parse_declaration_list(cleaned, skip_whitespace=True, skip_comments=True)
                if d.type == "declaration" and not _loads(d.value)]
        return " ".join(f"{d.name}: {tinycss2.serialize(d.value).strip()}{' !important' if d.important else ''};"
                        for d in kept)


_CSS = _LoadingNothing(allowed_css_properties=STYLES)
_local = threading.local()  # a bleach Cleaner is not to be shared between threads (decks build side by side)


def _parsing() -> Cleaner:
    """bleach's parser, walker and serializer, told of the unseen elements so that they reach
    :class:`_DropUnseen` as elements (and not as text)."""
    if not hasattr(_local, "cleaner"):
        _local.cleaner = Cleaner(tags=TEXT_TAGS | DRAWING_TAGS | UNSEEN, strip=True)
    return _local.cleaner


def clean(html: str) -> str:
    """``html`` with nothing that runs: what :data:`UNSEEN` holds gone, then bleach with the lists above."""
    if not html:
        return ""
    parsing = _parsing()
    stream = _DropUnseen(source=parsing.walker(parsing.parser.parseFragment(html)))
    return parsing.serializer.render(BleachSanitizerFilter(
        source=stream, allowed_tags=TEXT_TAGS | DRAWING_TAGS, attributes=_allowed, strip_disallowed_tags=True,
        strip_html_comments=True, css_sanitizer=_CSS, allowed_protocols=PROTOCOLS))


class UntrustedOutputs(SanitizeHTML):
    """nbconvert's sanitiser on code cells' outputs only (the deck's Markdown is its author's)."""

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code":
            cell.outputs = self.sanitize_code_outputs(cell.get("outputs", []))
            for output in cell.outputs:
                for key in set(output) - OUTPUT_KEYS:
                    del output[key]
                if "metadata" in output:
                    output["metadata"] = nbformat.from_dict(clean_metadata(output["metadata"], output.get("data", {})))
        return cell, resources

    def sanitize_html_tags(self, html_str):
        return clean(html_str)


def sanitised(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose outputs show nothing that runs (its widgets' state goes too)."""
    nb = copy.deepcopy(nb)
    nb, _ = UntrustedOutputs(safe_output_keys=SAFE_OUTPUTS, sanitized_output_types=SANITISED_OUTPUTS).preprocess(nb, {})
    nb.metadata.pop("widgets", None)
    return nb
