"""MyST Markdown as HTML, for the static deck, the PDFs and the handout: the one engine of
:mod:`jaxdeck.html.markdown`, which carries this package's syntax."""

from __future__ import annotations

from jaxdeck.html.markdown import PARSER, render
from jaxdeck.html.myst.syntax import _MYST_TOKENS, _directive_name, _walk

__all__ = ["has_myst", "render"]


def has_myst(markdown: str) -> bool:
    """Whether ``markdown`` uses a MyST construct: a role, target, ``%`` comment, ``+++``
    break or directive (backtick or colon fence). Dollar math alone does not count, since
    plain decks write it too and KaTeX renders it either way."""
    for token in _walk(PARSER.parse(markdown)):
        if token.type in _MYST_TOKENS:
            return True
        if token.type == "fence" and _directive_name(token.info) is not None:
            return True
    return False
