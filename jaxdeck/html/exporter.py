"""nbconvert's HTML exporter, less the pass that costs a deck half its export time.

``HTMLExporter.from_notebook_node`` renders the template, then parses the whole page again with
BeautifulSoup's pure-Python parser to give every cell input and output a ``tabindex`` and every
image without one a stock alt text, and writes it out again: 0.6 of the 1.0 s a 46-slide deck's
export takes, on every prose edit the preview rebuilds. A slide deck wants neither (a tab stop
per cell walks the keyboard through slides that are not on show; the stock text describes
nothing), so :class:`DeckExporter` renders the template with the same filters and stops there.
"""

from __future__ import annotations

from typing import Any

from nbconvert import HTMLExporter
from nbconvert.exporters.templateexporter import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter


class DeckExporter(HTMLExporter):
    """An :class:`~nbconvert.HTMLExporter` whose output is the template's, not re-parsed."""

    def from_notebook_node(self, nb, resources: dict[str, Any] | None = None, **kw: Any):
        # the filters HTMLExporter.from_notebook_node registers before rendering, as it does
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name", None))
        self.register_filter("highlight_code",
                             self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        return TemplateExporter.from_notebook_node(self, nb, resources, **kw)
