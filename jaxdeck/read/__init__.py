"""Stage 1, read: a Markdown deck -> a slideshow notebook (jupytext reads it, markers become slides).

``source`` checks the file and reads it with jupytext; ``markers`` is the one codec for the
slide markers (split, strip, restore) that the build, the HTML and the live talk share;
``structure`` turns the markers into slide types.
"""

from __future__ import annotations

from pathlib import Path


def deck_to_notebook(path: str | Path):
    """The deck at ``path`` as a notebook whose cells carry RISE slideshow metadata."""
    from jaxdeck.read.source import read_notebook
    from jaxdeck.read.structure import derive

    nb, lines = read_notebook(path)
    return derive(nb, lines, path)
