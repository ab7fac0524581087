"""What the stages hand each other, and what the build says of a deck when they are done.

read -> :class:`Read` -> execute -> :class:`Execution` -> keep (or, its notebook up to date, load) ->
:class:`Executed` -> shown files -> :class:`Shown` -> html -> :class:`Page`, and article -> :class:`Article`; the page -> single file
(:class:`jaxdeck.html.single.Inlined`) and, with the executed notebook, print
(:class:`jaxdeck.pdf.export.Printed`). A deck's :class:`Built` gathers the report's words, each stage's
seconds and what the execution did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jaxdeck.decks import Outputs
from jaxdeck.records import BuildRecord, ExecFacts, ReadFacts


@dataclass(frozen=True)
class Read:
    """The read stage's: the deck as a notebook, every cell with its slide type and line, nothing run, and
    what reading it learnt (``learnt``, :class:`jaxdeck.records.ReadFacts`), which the runner writes into it."""

    notebook: Any
    learnt: ReadFacts | None = None


@dataclass(frozen=True)
class Execution:
    """The execute stage's: the executed notebook, not yet written, and what the run learnt
    (``learnt``, :class:`jaxdeck.records.ExecFacts`), which the runner writes into it."""

    notebook: Any
    learnt: ExecFacts | None = None


@dataclass(frozen=True)
class Executed:
    """The executed notebook, as this build ran it or as an earlier build left it.

    ``record`` is the build record of this build's run (None: the notebook was up to date and read back,
    sanitised unless this user's build signed it); ``frozen`` the line on which outputs a ``--frozen``
    build kept (None when it kept none or ran nothing); ``written`` the notebook's text as written.
    """

    notebook: Any
    record: BuildRecord | None = None
    frozen: str | None = None
    written: str | None = None


@dataclass(frozen=True)
class Shown:
    """The executed notebook and the files its slides show (:class:`jaxdeck.html.shown.ShownFiles`),
    worked out once for the page, the article and their input records."""

    notebook: Any
    files: Any


@dataclass(frozen=True)
class Page:
    """The HTML deck written, and what its record keeps of the fit (None for a deck with slide markers)."""

    path: Path
    images: tuple[str, ...]
    fit: dict | None


@dataclass(frozen=True)
class Article:
    """The article written, and the deck's files it shows."""

    path: Path
    images: tuple[str, ...]


@dataclass(frozen=True)
class Stamp:
    """An artefact a stage wrote, what it was made from (its input record's ``inputs``), and what else the
    record keeps (the HTML's fit, the executed notebook's machine)."""

    artefact: Path
    inputs: dict
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class StageSeconds:
    """Wall-clock seconds of each stage of one deck's build (``pdf`` is None when nothing was printed).

    ``convert`` is the read stage; ``execute`` the run and the executed notebook's writing;
    ``export_html`` the page, the self-contained file and the article (and reading back an up-to-date notebook).
    """

    convert: float = 0.0
    execute: float = 0.0
    export_html: float = 0.0
    pdf: float | None = None


@dataclass(frozen=True)
class Built(Outputs):
    """A deck's outputs and what this build did for them.

    ``done`` is the report's words; ``seconds`` the stages' times; ``cache`` and
    ``cells_executed`` come from the execution (None when the notebook was kept);
    ``printed`` is the PDF stage's record (None when nothing was printed); ``frozen`` the line that says
    which outputs a ``--frozen`` build kept and which it made (None when it executed nothing).
    """

    done: str = "up to date"
    seconds: StageSeconds | None = None
    cache: str | None = None
    cells_executed: int | None = None
    printed: object | None = None
    warnings: tuple[str, ...] = ()
    frozen: str | None = None


def summary(executed: int | None, html: bool, pdfs, single: bool = False, article: bool = False) -> str:
    """The report's words: ``up to date``, ``HTML``, ``HTML + PDF``, ``executed k cells, HTML + PDF``
    (``+ single file`` when the self-contained file was made, ``+ article`` when the article was)."""
    parts = [f"executed {executed} cell{'' if executed == 1 else 's'}"] if executed else []
    made = " + ".join(name for name, on in (("HTML", html), ("single file", single), ("article", article),
                                             ("PDF", bool(pdfs))) if on)
    if made:
        parts.append(made)
    return ", ".join(parts) or "up to date"
