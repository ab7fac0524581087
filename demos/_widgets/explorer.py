"""What every explorer shares: one output carrying the live widget and its static rendering."""

from __future__ import annotations

from .._display import Displayable


class _Explorer(Displayable):
    """Shared display plumbing: static text/html always, the widget view when live."""

    _widget = None

    def widget(self):
        """The ipywidgets view (built on first use)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def _repr_mimebundle_(self, include=None, exclude=None):
        from .. import widgets  # read at display time, so setting demos.widgets.STATIC takes effect

        data = {"text/plain": self._text(), "text/html": self._html()}
        if not widgets.STATIC:
            view = self.widget()._repr_mimebundle_()
            data.update({k: v for k, v in view.items() if k != "text/plain"})
        return data


def error_text(err: BaseException) -> str:
    """A failed measurement or call as one line for the slide: ``'ValueError: first line'``."""
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
