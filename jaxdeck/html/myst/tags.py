"""Jupyter Book cell tags (remove-cell, hide-input, raises-exception...) and jaxdeck's ``check`` read into what a view shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jaxdeck.claims import is_check


_REMOVE_CELL = {"remove-cell", "remove_cell"}
_REMOVE_INPUT = {"remove-input", "remove_input"}
_REMOVE_OUTPUT = {"remove-output", "remove_output"}
_HIDE_INPUT = {"hide-input", "hide_input"}
_HIDE_OUTPUT = {"hide-output", "hide_output"}
_HIDE_CELL = {"hide-cell", "hide_cell"}


@dataclass(frozen=True)
class CellView:
    """How a cell shows, from its Jupyter Book tags.

    ``removed``: shown nowhere (the cell still executes); a claim check is always removed. ``show_input``/``show_output``:
    false under ``remove-input``/``remove-output``. ``input_collapsed``/``output_collapsed``
    (``hide-input``/``hide-output``, or JupyterLab's ``jupyter.source_hidden`` /
    ``outputs_hidden``): in HTML behind a closed ``<details>``, on slides and in PDFs not
    shown.
    """

    removed: bool = False
    show_input: bool = True
    show_output: bool = True
    input_collapsed: bool = False
    output_collapsed: bool = False

    @property
    def input_on_slide(self) -> bool:
        """Whether the input is drawn on a slide or a PDF page."""
        return not self.removed and self.show_input and not self.input_collapsed

    @property
    def output_on_slide(self) -> bool:
        """Whether the outputs are drawn on a slide or a PDF page."""
        return not self.removed and self.show_output and not self.output_collapsed


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def cell_view(cell: Any) -> CellView:
    """The :class:`CellView` of a notebook cell (an nbformat node or a plain dict)."""
    metadata = _get(cell, "metadata") or {}
    tags = _get(metadata, "tags") or []
    if isinstance(tags, str):
        tags = [tags]
    tags = {str(tag).strip().lower() for tag in tags}
    jupyter = _get(metadata, "jupyter") or {}
    hide_cell = bool(tags & _HIDE_CELL)
    return CellView(
        removed=bool(tags & _REMOVE_CELL) or is_check(cell),
        show_input=not tags & _REMOVE_INPUT,
        show_output=not tags & _REMOVE_OUTPUT,
        input_collapsed=hide_cell or bool(tags & _HIDE_INPUT) or bool(_get(jupyter, "source_hidden")),
        output_collapsed=hide_cell or bool(tags & _HIDE_OUTPUT) or bool(_get(jupyter, "outputs_hidden")),
    )
