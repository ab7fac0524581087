"""Stage 1, read: a Markdown deck -> a slideshow notebook (jupytext reads it, markers become slides).

``source`` checks the file (its header: ``header``; its code fences: ``fences``; the pictures it
shows: ``pictures``), reads it with jupytext in the format it is written in (jupytext Markdown,
MyST...) and records how to write it back; ``images`` caches remote images in the
build folder; ``structure`` turns the markers (or headings) into slide types.
"""

from __future__ import annotations

from pathlib import Path


def deck_to_notebook(path: str | Path, build: str | Path | None = None, strict: bool = False):
    """The deck at ``path`` as a notebook whose cells carry RISE slideshow metadata.

    ``build``: the build folder whose ``images/`` caches the deck's remote images (``build/``);
    ``strict``: a warning (a remote image that cannot be fetched) is an error. Every error and
    warning the deck has is raised at once (:mod:`jaxdeck.read.problems`).
    """
    from jaxdeck.read.problems import Problems
    from jaxdeck.read.source import read_notebook
    from jaxdeck.read.structure import derive

    problems = Problems(Path(path), strict)  # every problem of the deck, said together before anything runs
    nb, lines = read_notebook(path, build, strict, problems)
    warnings: list = []
    nb = derive(nb, lines, path, problems.errors, warnings)
    for warning in warnings:
        problems.warn(warning)
    if problems.warnings:
        from jaxdeck.records import update_build
        update_build(nb, warnings=problems.warning_lines())
    problems.raise_any()
    return nb
