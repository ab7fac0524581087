"""The build pipeline: deck -> notebook -> executed notebook -> HTML -> PDFs, one stage at a time.

Each artefact is made only when something it is made from changed (:mod:`jaxdeck.stamps`
keeps a record of input digests beside each one); ``force=True`` (``--force``) makes them all.
Execution goes through the execution cache (:mod:`jaxdeck.execute.cache`): a deck whose code
cells, kernel environment and ``demos`` version are unchanged reuses its stored outputs
and starts no kernel. ``cache=False`` (``--no-cache``) always executes and stores nothing;
``frozen=PATH`` (``--frozen``) takes outputs from an executed notebook built elsewhere.
Every executed notebook records where its outputs came from in
``metadata.jaxdeck_build.provenance`` (python, jax, jaxlib, numpy, backend, device_kind,
device_count, hostname, executed_at).

The heavy libraries (nbformat, jupytext, nbconvert, nbclient, Playwright) are imported
only when a stage runs, so a build with nothing to do stays quick.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from jaxdeck import stamps
from jaxdeck.atomic import write_text
from jaxdeck.decks import BUILD, Outputs
from jaxdeck.progress import Progress


@dataclass(frozen=True)
class StageSeconds:
    """Wall-clock seconds of each stage of one deck's build (``pdf`` is None when nothing was printed)."""

    convert: float = 0.0
    execute: float = 0.0
    export_html: float = 0.0
    pdf: float | None = None


@dataclass(frozen=True)
class Built(Outputs):
    """A deck's outputs and what this build did for them.

    ``done`` is the report's words; ``seconds`` the stages' times; ``cache`` and
    ``cells_executed`` come from the execution (None when the notebook was kept);
    ``printed`` is the PDF stage's record (None when nothing was printed).
    """

    done: str = "up to date"
    seconds: StageSeconds | None = None
    cache: str | None = None
    cells_executed: int | None = None
    printed: object | None = None


def summary(executed: int | None, html: bool, pdfs) -> str:
    """The report's words: ``up to date``, ``HTML``, ``HTML + PDF``, ``executed k cells, HTML + PDF``."""
    parts = [f"executed {executed} cell{'' if executed == 1 else 's'}"] if executed else []
    made = " + ".join(name for name, on in (("HTML", html), ("PDF", bool(pdfs))) if on)
    if made:
        parts.append(made)
    return ", ".join(parts) or "up to date"


def build_deck(deck: Path, root: Path = BUILD, shown: Progress | None = None,
               timeout: float | None = None, *, cache: bool = True, frozen: str | Path | None = None,
               printer=None, plan: stamps.Plan | None = None, sources: stamps.Sources | None = None) -> Built:
    """Make the artefacts ``plan`` names (without one: notebook, HTML, and the PDFs given a printer).

    Earlier artefacts stay until each is replaced, and each gets its record of inputs.
    With a ``printer`` (:class:`jaxdeck.pdf.printer.BackgroundPrinter`) the PDFs are printed.
    """
    import nbformat

    outputs = Outputs(deck, root)
    sources = sources or stamps.Sources(root)
    plan = plan or stamps.Plan(deck, outputs, pdfs=stamps.PDFS if printer is not None else ())
    name = deck.name
    clock = time.perf_counter()
    executed = None
    info: dict = {}
    t_convert = t_execute = clock
    if plan.notebook:
        from jaxdeck.execute import execute_cached
        from jaxdeck.read import deck_to_notebook

        if shown:
            shown.stage(name, "convert")
        nb = deck_to_notebook(deck, root)
        t_convert = time.perf_counter()
        if shown:
            shown.stage(name, "execute")
        executed = execute_cached(nb, deck, root, timeout=timeout, cache=cache, frozen=frozen,
                                  on_cell=(lambda k, n: shown.cell(name, k, n)) if shown else None)
        t_execute = time.perf_counter()
        info = executed.metadata.get("jaxdeck_build", {})
        write_text(outputs.notebook, nbformat.writes(executed))
        stamps.save(outputs.notebook, {**sources.notebook_inputs(deck), "execution": sources.execution(deck, frozen)},
                    machine=sources.machine)
    if executed is None and (plan.html or plan.pdfs):
        executed = nbformat.read(outputs.notebook, as_version=4)
    if plan.html:
        from jaxdeck.html.export import export_html, local_images

        if shown:
            shown.stage(name, "export html")
        export_html(executed, deck, outputs.html)
        notebook = stamps.load(outputs.notebook)
        stamps.save(outputs.html, sources.html_inputs(notebook and notebook["sha256"], deck, local_images(executed)))
    t_html = time.perf_counter()
    printed = None
    if plan.pdfs and printer is not None:
        if shown:
            shown.stage(name, "pdf")
        printed = printer.print_pdfs(executed, outputs.html, outputs, parts=plan.pdfs)
        html = stamps.load(outputs.html)
        for kind in plan.pdfs:
            if html is not None:
                stamps.save(getattr(outputs, kind), sources.pdf_inputs(kind, html, deck))
    t_pdf = time.perf_counter()
    seconds = StageSeconds(t_convert - clock, t_execute - t_convert, t_html - t_execute,
                           t_pdf - t_html if printer is not None and plan.pdfs else None)
    return Built(deck, root, summary(info.get("cells_executed"), plan.html, plan.pdfs if printed is not None else ()),
                 seconds=seconds, cache=info.get("cache"), cells_executed=info.get("cells_executed"), printed=printed)


def build(decks: list[Path], root: Path = BUILD, timeout: float | None = None, *, cache: bool = True,
          frozen: str | Path | None = None, pdf: bool = False, force: bool = False, reprint: bool = False,
          execution: bool = True, report=None) -> list[Built]:
    """Build every deck's out-of-date artefacts in turn (stopping at the first error, which names its deck and line).

    ``pdf=True`` prints the PDFs as well, in a browser that starts while the first deck runs;
    ``force=True`` rebuilds every artefact (execution still goes through the cache), ``reprint=True`` the PDFs;
    ``execution=False`` keeps executed notebooks whose deck is unchanged, wherever their
    outputs came from (see :func:`jaxdeck.stamps.plan`). ``report(built)`` is called for each
    deck as it is done; decks that are up to date show no progress.
    """
    sources = stamps.Sources(root)
    plans = [stamps.plan(deck, Outputs(deck, root), sources, pdf=pdf, force=force, reprint=reprint, rerun=not cache,
                         frozen=frozen, execution=execution) for deck in decks]
    todo = [p for p in plans if not p.fresh]
    if any(p.notebook for p in todo):
        # imported here, before the printer's and the exporter's threads start importing their own
        import jaxdeck.execute.cache  # noqa: F401
        import jaxdeck.execute.kernel  # noqa: F401
        import jaxdeck.read.source  # noqa: F401
        import jaxdeck.read.structure  # noqa: F401
    printer = None
    if any(p.pdfs for p in todo):
        from jaxdeck.pdf.printer import BackgroundPrinter

        printer = BackgroundPrinter()
    if any(p.html for p in todo):
        from jaxdeck.html.export import warm_up_exporter

        warm_up_exporter()
    results = []
    try:
        with Progress(len(todo)) if todo else contextlib.nullcontext() as shown:
            for p in plans:
                if p.fresh:
                    done = Built(p.deck, root)
                else:
                    done = build_deck(p.deck, root, shown, timeout, cache=cache, frozen=frozen, printer=printer,
                                      plan=p, sources=sources)
                    shown.advance()
                results.append(done)
                if report is not None:
                    report(done)
    finally:
        if printer is not None:
            printer.close()
    return results
