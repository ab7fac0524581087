"""MyST Markdown (Jupyter Book conventions) for every output: static HTML, PDFs and the live talk.

A deck may come from a MyST tutorial notebook. Its Markdown cells then use roles
(``{func}`jax.jit```), targets (``(label)=``), comments (``% ...``), block breaks (``+++``),
directives as backtick or colon fences (``{note}``, ``{warning}``, ``{math}``,
``{code-block}``...) and dollar math; its cells carry Jupyter Book tags
(``remove-cell``, ``hide-input``, ``raises-exception``...). This module is the one place
that knows those conventions:

- :func:`render` turns a cell's Markdown into HTML for the static deck and the handout;
- :func:`live_markdown` rewrites it into what JupyterLab's own Markdown renderer shows
  (CommonMark, raw HTML and ``$`` math) for the live slideshow;
- :func:`has_myst` tells whether a cell needs either of them at all;
- :func:`cell_view` reads the tags into a :class:`CellView`.

Parsing is markdown-it-py's CommonMark with the MyST plugins of mdit-py-plugins; nothing
here scans raw text with regular expressions beyond formatting one token's own text.
"""

from jaxdeck.html.myst.html import has_myst, render
from jaxdeck.html.myst.live import live_markdown
from jaxdeck.html.myst.syntax import _MD, ADMONITIONS  # noqa: F401  (_MD: the parser auto-fit splits blocks with)
from jaxdeck.html.myst.tags import CellView, cell_view, collapsed_html

__all__ = ["ADMONITIONS", "CellView", "cell_view", "collapsed_html", "has_myst", "live_markdown", "render"]
