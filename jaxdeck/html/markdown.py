"""The one Markdown engine of every output: slides, MyST cells, speaker notes and the handout.

:data:`PARSER` is markdown-it-py's CommonMark with GFM tables, strikethrough and task lists,
definition lists, dollar math and MyST's syntax (roles, targets, comments, ``+++`` breaks and
directives, rendered by :mod:`jaxdeck.html.myst`). nbconvert gets :func:`render` as its
``markdown2html`` filter (:func:`jaxdeck.html.export.exporter`) and the handout renders its
notes with it, so a table or a role in a note looks the same on a slide, in the speaker view
and on paper.

Where nbconvert's own Markdown filter (mistune) and markdown-it disagree only in markup, the
output is nbconvert's, so decks keep the HTML they had, but for math: fenced code is highlighted by Pygments as
``<div class="highlight">`` (the classes the theme's CSS styles), table cells are indented,
struck text is ``<del>`` and a raw HTML block is followed by a blank line. Headings carry no
anchor links.

Dollar math follows Pandoc's rule (an opening ``$`` has a non-space right after it, a closing
``$`` a non-space right before it and no digit after it), so ``costs $0 and $0`` is money. The
parser alone decides what is math: it writes ``\\(...\\)`` and ``\\[...\\]`` (as MyST's
``{math}`` does) and KaTeX's auto-render in the browser looks for those delimiters only, never
for a ``$`` in the text.

Attributes, as Quarto's reveal.js decks write them, come from mdit-py-plugins' attrs plugins and
change nothing where they are not written: ``[text]{.fragment .highlight-red}`` is a
``<span>`` with those classes, a line ``{.fragment .fade-up}`` or ``{.incremental}`` alone before
a block gives the block its attributes (an incremental list's items become fragments), and
``## Title {.smaller background-color="#123"}`` gives the heading's slide its attributes
(:func:`heading_attributes`; the layout puts them on the slide's ``<section>``), never shown in
the heading. Text that only looks like attributes (``{.smaller`` with no brace) stays text.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.rules_core import StateCore
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from jaxdeck.read.structure import trailing_attributes
from jaxdeck.tokens import parsed


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer | None:
    """Pygments' lexer for a fence's language, None for none or one Pygments does not know."""
    if not language:
        return None
    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return None


def _fence(self: RendererHTML, tokens: Sequence[Token], idx: int, options, env) -> str:
    """Fenced code in a language Pygments knows, highlighted as nbconvert highlights it;
    any other fence as CommonMark writes it."""
    token = tokens[idx]
    words = token.info.split(maxsplit=1)
    lexer = _lexer(words[0] if words else "")
    if lexer is None:
        return RendererHTML.fence(self, tokens, idx, options, env)
    return highlight(token.content, lexer, HtmlFormatter())


def _tex(token: Token, display: bool) -> str:
    """Math as the TeX its author wrote between ``\\(...\\)`` or ``\\[...\\]``, the only delimiters
    KaTeX's auto-render looks for: a ``$`` the parser left as text is never typeset in the browser."""
    left, right = ("\\[", "\\]") if display else ("\\(", "\\)")
    return f"{left}{html.escape(token.content, quote=False)}{right}"


def _math_inline(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    """``$x$`` inline; ``$$x$$`` inside a paragraph is display math, as KaTeX typeset it before."""
    return _tex(tokens[idx], display=tokens[idx].markup == "$$")


def _math_display(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    """Display math as a paragraph of ``\\[...\\]`` (a label, ``$$x$$ (eq1)``, shows nothing)."""
    return f"<p>{_tex(tokens[idx], display=True)}</p>\n"


def _cell_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options, env) -> str:
    """A table cell one level in under its row (nbconvert's layout)."""
    return "  " + self.renderToken(tokens, idx, options, env)


def _html_block(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    """Raw HTML as written, then a blank line (nbconvert's layout)."""
    return tokens[idx].content.rstrip("\n") + "\n\n"


def _image(self: RendererHTML, tokens: Sequence[Token], idx: int, options, env) -> str:
    """An image; one the build could not fetch (``env["offline"]``) as its alt text, so that a
    notebook written for the web (a Colab badge in a link) reads right offline."""
    token = tokens[idx]
    src = str(token.attrs.get("src", ""))
    if src not in (env or {}).get("offline", ()):
        return RendererHTML.image(self, tokens, idx, options, env)
    alt = self.renderInlineAsText(token.children or [], options, env)
    return (f'<span class="jd-offline-image" title="{html.escape(src)} (not fetched: no network at build time)">'
            f"{html.escape(alt or src)}</span>")


#: where a heading's slide attributes are kept (``heading_open.meta``)
SLIDE_ATTRS = "slide_attrs"
#: the class of a list whose items step in one by one (Quarto's), and the one that keeps a list whole
INCREMENTAL, NONINCREMENTAL = "incremental", "nonincremental"


def _attached_lines(state: StateCore) -> None:
    """A block's source lines include the attribute lines above it (auto-fit keeps them together)."""
    tokens = state.tokens
    for index, token in enumerate(tokens[:-1]):
        after = tokens[index + 1]
        if token.type == "attrs_block" and after.nesting >= 0 and token.map and after.map:
            after.map = [min(token.map[0], after.map[0]), after.map[1]]


def _heading_attributes(state: StateCore) -> None:
    """``## Title {.smaller}``: the attributes go to ``heading_open.meta`` and out of the heading's text."""
    tokens = state.tokens
    for index, token in enumerate(tokens[:-1]):
        inline = tokens[index + 1]
        if token.type != "heading_open" or inline.type != "inline" or not inline.children:
            continue
        last = inline.children[-1]
        found = trailing_attributes(last.content) if last.type == "text" else None
        if found is None:
            continue
        last.content, attrs = found
        token.meta[SLIDE_ATTRS] = {k: v for k, v in attrs.items() if not k.lower().startswith("on")}
        whole = trailing_attributes(inline.content)
        if whole is not None:
            inline.content = whole[0]


def _incremental(state: StateCore) -> None:
    """A list with the ``incremental`` class, or any list when the deck says ``incremental: true``
    (``env``) but one with the ``nonincremental`` class and the lists inside it: each of its own
    items is a fragment."""
    tokens, every = state.tokens, bool((state.env or {}).get(INCREMENTAL))
    whole_until = -1  # the index of the closing token of the nonincremental list we are in
    for index, token in enumerate(tokens):
        if token.type not in ("bullet_list_open", "ordered_list_open") or index < whole_until:
            continue
        classes = str(token.attrs.get("class", "")).split()
        if NONINCREMENTAL in classes:
            whole_until = _closing(tokens, index)
            continue
        if INCREMENTAL not in classes:
            if not every:
                continue
            token.attrs["class"] = " ".join([*classes, INCREMENTAL])  # as if written {.incremental}
        depth = 0
        for item in tokens[index + 1:]:
            depth += item.nesting
            if depth < 0:
                break
            if item.type == "list_item_open" and depth == 1:
                classes = str(item.attrs.get("class", "")).split()
                item.attrs["class"] = " ".join([*classes, "fragment"] if "fragment" not in classes else classes)


def _closing(tokens, index: int) -> int:
    """The index of the token that closes ``tokens[index]``."""
    depth = 0
    for at in range(index, len(tokens)):
        depth += tokens[at].nesting
        if depth == 0:
            return at
    return len(tokens)


def heading_attributes(text: str) -> dict:
    """The slide attributes of the first heading of a cell's Markdown that has some (``{}`` if none)."""
    for token in parsed(PARSER, text):
        if token.type == "heading_open" and token.meta.get(SLIDE_ATTRS):
            return dict(token.meta[SLIDE_ATTRS])
    return {}


def has_list(source: str) -> bool:
    """Whether a cell's Markdown holds a list (which a deck's ``incremental: true`` steps in)."""
    return any(token.type in ("bullet_list_open", "ordered_list_open") for token in parsed(PARSER, source))


def uses_attributes(source: str) -> bool:
    """Whether a cell's Markdown writes attributes (a span's, a block's or a heading's)."""
    lines = source.split("\n")
    for token in parsed(PARSER, source):
        if token.meta.get(SLIDE_ATTRS) or any(child.type == "span_open" for child in token.children or []):
            return True
        if token.attrs and token.map and lines[token.map[0]].lstrip().startswith("{"):
            return True
    return False


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.use(tasklists_plugin).use(deflist_plugin)
    # Pandoc's rule: `$5 and $10` and `$0 extra and $0` are money, not math (no space inside the
    # dollars, no digit after the closing one)
    dollarmath_plugin(md, allow_digits=False, allow_space=False, double_inline=True)
    # Quarto's spellings: [text]{.fragment} spans and {.incremental} lines before a block; attributes
    # after other inline elements (a link, an image, code) are left as the text they were
    attrs_plugin(md, spans=True, after=())
    attrs_block_plugin(md)
    md.core.ruler.before("attr", "attr_lines", _attached_lines)
    md.core.ruler.after("inline", "heading_attrs", _heading_attributes)
    md.core.ruler.push("incremental", _incremental)
    rules = {"fence": _fence, "math_inline": _math_inline, "math_inline_double": _math_inline,
             "math_block": _math_display, "math_block_label": _math_display, "html_block": _html_block,
             "th_open": _cell_open, "td_open": _cell_open, "image": _image,
             "s_open": lambda self, tokens, idx, options, env: "<del>",
             "s_close": lambda self, tokens, idx, options, env: "</del>"}
    for token_type, rule in rules.items():
        md.add_render_rule(token_type, rule)
    return md


#: the parser every Markdown view shares (auto-fit splits cells into the blocks it parses)
PARSER = _make_parser()


def render(text: str, offline: Sequence[str] | None = None, incremental: bool = False) -> str:
    """Markdown (CommonMark, GFM tables, MyST) as the HTML every output shows.

    MyST roles show as code (Python objects, unknown roles) or emphasised text (references);
    targets, ``%`` comments and ``+++`` breaks show nothing; admonitions become
    ``<div class="admonition NAME">`` boxes with a title; ``{math}`` becomes ``\\(...\\)`` /
    ``\\[...\\]``, and so does dollar math, for KaTeX. Raw HTML passes through.
    An image whose URL is in ``offline`` (the build could not fetch it) shows as its alt text.
    ``incremental`` (the deck's option, for the slides' own cells) makes every list step in.
    """
    env = {"offline": frozenset(offline or ()), INCREMENTAL: incremental} if offline or incremental else None
    return PARSER.render(text, env)


# MyST goes on last: jaxdeck.html.myst renders through PARSER, so its modules import this one
from jaxdeck.html.myst.syntax import myst_plugin  # noqa: E402

myst_plugin(PARSER)
