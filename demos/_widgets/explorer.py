"""What every explorer shares: one output carrying the live widget and its static rendering."""

from __future__ import annotations

import os
from typing import Callable

from .._display import Displayable


def static_from_environment() -> bool:
    """``DEMOS_STATIC_WIDGETS=1`` (or ``true``, ``yes``): send only the static part, as an export would."""
    return os.environ.get("DEMOS_STATIC_WIDGETS", "").lower() in ("1", "true", "yes")


#: asked at display time whether to send only the static part; :mod:`demos.widgets` points it at its
#: ``STATIC``, so that setting ``demos.widgets.STATIC`` takes effect without this module reading that one
static_only: Callable[[], bool] = static_from_environment


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
        data = {"text/plain": self._text(), "text/html": self._html()}
        if not static_only():
            view = self.widget()._repr_mimebundle_()
            data.update({k: v for k, v in view.items() if k != "text/plain"})
        return data


def error_text(err: BaseException) -> str:
    """A failed measurement or call as one line for the slide: ``'ValueError: first line'``."""
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
