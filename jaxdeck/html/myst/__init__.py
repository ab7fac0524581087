"""MyST Markdown (Jupyter Book conventions) for every output: static HTML, PDFs and the live talk.

A deck may come from a MyST tutorial notebook. Its Markdown cells then use roles
(``{func}`jax.jit```), targets (``(label)=``), comments (``% ...``), block breaks (``+++``),
directives as backtick or colon fences (``{note}``, ``{warning}``, ``{math}``,
``{code-block}``...) and dollar math; its cells carry Jupyter Book tags
(``remove-cell``, ``hide-input``, ``raises-exception``...). This module is the one place
that knows those conventions:

- :func:`render` turns a cell's Markdown into HTML for the static deck and the handout
  (:func:`jaxdeck.html.markdown.render`: every Markdown cell and note renders with it);
- :func:`live_markdown` rewrites it into what JupyterLab's own Markdown renderer shows
  (CommonMark, raw HTML and ``$`` math) for the live slideshow;
- :func:`has_myst` tells whether a cell needs either of them at all;
- :func:`cell_view` reads the tags into a :class:`CellView`.

Parsing is the one parser of :mod:`jaxdeck.html.markdown`, which ``syntax.myst_plugin`` gives the
MyST plugins of mdit-py-plugins and their rendering; nothing here scans raw text with regular
expressions beyond formatting one token's own text.
"""

from jaxdeck.html.myst.html import has_myst, render
from jaxdeck.html.myst.live import live_markdown
from jaxdeck.html.markdown import PARSER as _MD  # noqa: F401  (the parser auto-fit splits blocks with)
from jaxdeck.html.myst.syntax import ADMONITIONS
from jaxdeck.html.myst.tags import CellView, cell_view

__all__ = ["ADMONITIONS", "CellView", "cell_view", "has_myst", "live_markdown", "render"]
