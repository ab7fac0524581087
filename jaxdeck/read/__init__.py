"""Stage 1, read: a Markdown deck -> a slideshow notebook (jupytext reads it, markers become slides).

``source`` checks the file (its header: ``header``; its code fences: ``fences``; the pictures it
shows: ``pictures``), reads it with jupytext in the format it is written in (jupytext Markdown,
MyST...) and records how to write it back; ``images`` caches remote images in the
build folder; ``structure`` turns the markers (or headings) into slide types.
"""

from __future__ import annotations

from pathlib import Path


def deck_to_notebook(path: str | Path, build: str | Path | None = None, strict: bool = False):
    """The deck at ``path`` as a notebook whose cells carry RISE slideshow metadata, and what reading it
    learnt in its build record (:func:`read_deck`, then :func:`jaxdeck.records.write_build`)."""
    from jaxdeck.records import write_build

    nb, facts = read_deck(path, build, strict)
    write_build(nb, facts)
    return nb


def read_deck(path: str | Path, build: str | Path | None = None, strict: bool = False):
    """The deck at ``path`` as a notebook whose cells carry RISE slideshow metadata, and what reading it
    learnt for the build record (:class:`jaxdeck.records.ReadFacts`), written by whoever takes it.

    ``build``: the build folder whose ``images/`` caches the deck's remote images (``build/``);
    ``strict``: a warning (a remote image that cannot be fetched) is an error. Every error and
    warning the deck has is raised at once (:mod:`jaxdeck.read.problems`).
    """
    from jaxdeck.read.problems import Problems
    from jaxdeck.read.source import read_notebook
    from jaxdeck.read.structure import derive
    from jaxdeck.records import ReadFacts

    problems = Problems(Path(path), strict)  # every problem of the deck, said together before anything runs
    nb, lines, facts = read_notebook(path, build, strict, problems)
    warnings: list = []
    nb, derived = derive(nb, lines, path, problems.errors, warnings, facts.images)
    for warning in warnings:
        problems.warn(warning)
    problems.raise_any()
    return nb, facts.merged(derived).merged(ReadFacts(warnings=problems.warning_lines() or None))
