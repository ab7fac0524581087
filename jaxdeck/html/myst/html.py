"""MyST Markdown as HTML, for the static deck, the PDFs and the handout."""

from __future__ import annotations

from jaxdeck.html.myst.syntax import _MD, _MYST_TOKENS, _directive_name, _walk


def render(markdown: str) -> str:
    """A Markdown cell (CommonMark + MyST) as HTML for the static deck and the handout.

    Roles show as code (Python objects, unknown roles) or emphasised text (references);
    targets, ``%`` comments and ``+++`` breaks show nothing; admonitions become
    ``<div class="admonition NAME">`` boxes with a title; ``{math}`` and dollar math become
    ``\\(...\\)`` / ``\\[...\\]`` for KaTeX. Plain CommonMark renders as markdown-it's
    CommonMark does (with GFM tables and strikethrough); raw HTML passes through.
    """
    return _MD.render(markdown)


def has_myst(markdown: str) -> bool:
    """Whether ``markdown`` uses a MyST construct: a role, target, ``%`` comment, ``+++``
    break or directive (backtick or colon fence). Dollar math alone does not count, since
    plain decks write it too and KaTeX renders it either way."""
    for token in _walk(_MD.parse(markdown)):
        if token.type in _MYST_TOKENS:
            return True
        if token.type == "fence" and _directive_name(token.info) is not None:
            return True
    return False
