"""Stage 1: a Markdown deck -> a slideshow notebook (read with jupytext, structure derived)."""

from __future__ import annotations

from pathlib import Path

import nbformat

from .source import read_notebook
from .structure import derive


def deck_to_notebook(path: str | Path) -> nbformat.NotebookNode:
    """The deck at ``path`` as a notebook whose cells carry RISE slideshow metadata."""
    nb, lines = read_notebook(path)
    return derive(nb, lines, path)
