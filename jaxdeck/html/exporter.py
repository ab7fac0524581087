"""nbconvert's HTML exporter, less the passes that cost a deck's export time and change nothing.

``HTMLExporter.from_notebook_node`` renders the template, then parses the whole page again with
BeautifulSoup's pure-Python parser to give every cell input and output a ``tabindex`` and every
image without one a stock alt text, and writes it out again: 0.6 of the 1.0 s a 46-slide deck's
export takes, on every prose edit the preview rebuilds. A slide deck wants neither (a tab stop
per cell walks the keyboard through slides that are not on show; the stock text describes
nothing), so :class:`DeckExporter` renders the template with the same filters and stops there.

Two more costs of every export, the page unchanged:

- nbconvert validates the whole notebook after each of the ~20 preprocessors; its own
  ``optimistic_validation`` validates once, after the last (a third of a deck's export);
- its highlighter reaches IPython's lexers through ``IPython.lib.lexers``, which imports all of
  IPython; :class:`Highlight` takes the same classes from ``ipython_pygments_lexers``, the
  package IPython itself re-exports them from, and uses the HTML an earlier build made of the
  same code (:mod:`jaxdeck.html.kept`).
"""

from __future__ import annotations

from html import escape
from typing import Any

from nbconvert import HTMLExporter
from nbconvert.exporters.templateexporter import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from traitlets import default

#: the pygments lexer names nbconvert highlights with IPython's lexers -> their class names
IPYTHON_LEXERS = {"ipython3": "IPython3Lexer", "ipython2": "IPythonLexer"}


def ipython_lexer(language: str):
    """A new IPython lexer for ``language`` (``ipython3``, ``ipython2``) from its own package, None for another
    language or where that package is missing (nbconvert then finds the lexer its own way)."""
    name = IPYTHON_LEXERS.get(language)
    if name is None:
        return None
    try:
        import ipython_pygments_lexers
    except ImportError:
        return None
    return getattr(ipython_pygments_lexers, name)()


class Highlight(Highlight2HTML):
    """nbconvert's ``highlight_code`` filter with IPython's lexers taken without importing IPython."""

    def __call__(self, source, language=None, metadata=None):
        language = language or self.pygments_lexer
        kept = getattr(self.parent, "kept_highlights", None)
        if kept is None or (metadata and "magics_language" in metadata):
            return self.highlight(source, language, metadata)
        return kept.highlighted(language, dict(self.extra_formatter_options), source,
                                lambda: self.highlight(source, language, metadata))

    def highlight(self, source, language: str, metadata=None) -> str:
        lexer = None if metadata and "magics_language" in metadata else ipython_lexer(language)
        if lexer is None:  # a cell magic's language, another language: as nbconvert does it
            return super().__call__(source, language, metadata)
        from pygments import highlight
        from pygments.formatters import HtmlFormatter

        formatter = HtmlFormatter(cssclass=escape(f" highlight hl-{language}"), **self.extra_formatter_options)
        return highlight(source or " ", lexer, formatter)


class DeckExporter(HTMLExporter):
    """An :class:`~nbconvert.HTMLExporter` whose output is the template's, not re-parsed.

    ``kept_highlights``: the code an earlier build highlighted (:class:`jaxdeck.html.kept.KeptHighlights`,
    which a build gives it), saved after each export; None: every cell is highlighted."""

    kept_highlights = None

    @default("optimistic_validation")
    def _validate_once(self) -> bool:
        return True

    def from_notebook_node(self, nb, resources: dict[str, Any] | None = None, **kw: Any):
        # the filters HTMLExporter.from_notebook_node registers before rendering, as it does
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name", None))
        self.register_filter("highlight_code",
                             self.filters.get("highlight_code", Highlight(pygments_lexer=lexer, parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        made = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        if self.kept_highlights is not None:
            self.kept_highlights.save()
        return made
