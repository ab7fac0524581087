"""The build pipeline: deck -> notebook -> executed notebook -> HTML -> PDFs, one stage at a time.

Each artefact is made only when something it is made from changed (:mod:`jaxdeck.stamps`
keeps a record of input digests beside each one); ``force=True`` (``--force``) makes them all.
Execution goes through the execution cache (:mod:`jaxdeck.execute.cache`): a deck whose code
cells, kernel environment and ``demos`` version are unchanged reuses its stored outputs
and starts no kernel. ``cache=False`` (``--no-cache``) always executes and stores nothing;
``frozen=PATH`` (``--frozen``) keeps the outputs of a notebook built elsewhere (:mod:`jaxdeck.execute.frozen`).
Every executed notebook records where its outputs came from in
``metadata.jaxdeck_build.provenance`` (python, jax, jaxlib, numpy, backend, device_kind,
device_count, hostname, executed_at).

The heavy libraries (nbformat, jupytext, nbconvert, nbclient, Playwright) are imported
only when a stage runs, so a build with nothing to do stays quick.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from jaxdeck import atomic, stamps, trust
from jaxdeck.atomic import write_text
from jaxdeck.decks import ARTICLE_PDF, BUILD, Outputs
from jaxdeck.errors import DeckError, DecksFailed, display_path
from jaxdeck.places import own_build_folder
from jaxdeck.pdf.layout import HandoutFlags, pdf_path
from jaxdeck.progress import Progress
from jaxdeck.records import OPTIONS_KEY, BuildRecord


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


def kept(err: DeckError, where: Path) -> DeckError:
    """``err``, its details (a traceback, a stuck kernel's stacks) written to ``where`` and named in its hint."""
    if not err.details:
        return err
    write_text(where, err.details.rstrip() + "\n")
    hint = (err.hint + "; " if err.hint else "") + f"{err.details_are} is in {display_path(where)}"
    return DeckError(err.path, err.line, err.message, hint, slide=err.slide, details=err.details,
                     details_are=err.details_are)


def build_deck(deck: Path, root: Path = BUILD, shown: Progress | None = None,
               timeout: float | None = None, *, cache: bool = True, frozen: str | Path | None = None,
               printer=None, plan: stamps.Plan | None = None, sources: stamps.Sources | None = None,
               cpus: frozenset[int] | None = None, strict: bool = False, allow_errors: bool = False,
               flags: HandoutFlags | None = None, on_start=None) -> Built:
    """Make the artefacts ``plan`` names (without one: notebook, HTML, and the PDFs given a printer).

    Earlier artefacts stay until each is replaced, and each gets its record of inputs.
    With a ``printer`` (:class:`jaxdeck.pdf.printer.BackgroundPrinter`) the PDFs are printed.
    ``cpus`` is the deck's share of the machine when decks are built side by side; with
    ``strict`` a warning of the reader (an image it cannot fetch) is an error; with
    ``allow_errors`` a cell's error is shown on its slide and listed as a warning; ``flags`` lay
    the handout out for this run (``jaxdeck pdf --handout-per-page N --paper NAME``); ``on_start(kernel)`` is
    called when a kernel starts to run the deck (not when its outputs come from the cache).
    """
    import nbformat

    outputs = Outputs(deck, root)
    sources = sources or stamps.Sources(root)
    plan = plan or stamps.Plan(deck, outputs, pdfs=stamps.PDFS if printer is not None else ())
    name = deck.name
    clock = time.perf_counter()
    executed = frozen_said = None
    record = BuildRecord()
    t_convert = t_execute = clock
    if plan.notebook:
        from jaxdeck.execute import execute_cached, frozen_line
        from jaxdeck.read import deck_to_notebook

        if shown:
            shown.stage(name, "convert")
        nb = deck_to_notebook(deck, root, strict)
        if allow_errors:  # as the header's `allow_errors: true` says it
            nb.metadata.setdefault(OPTIONS_KEY, {})["allow_errors"] = True
        t_convert = time.perf_counter()
        if shown:
            shown.stage(name, "execute")
        try:
            executed = execute_cached(nb, deck, root, timeout=timeout, cache=cache, frozen=frozen, cpus=cpus,
                                      on_cell=(lambda k, n: shown.cell(name, k, n)) if shown else None,
                                      on_start=on_start)
        except DeckError as err:
            raise kept(err, outputs.errors) from None
        outputs.errors.unlink(missing_ok=True)  # a failure's record lasts until the deck runs
        t_execute = time.perf_counter()
        record, frozen_said = BuildRecord.of(executed), frozen_line(executed, deck)
        written = nbformat.writes(executed)
        write_text(outputs.notebook, written)
        # outputs made here, or kept from a notebook this user's builds signed: shown as built, live too
        if not record.frozen_cells or trust.signed_file(record.frozen_from):
            trust.sign(executed, written=written)
        made = sources.execution(deck, frozen, own=record.own_provenance is not None)  # part made here, or all
        stamps.save(outputs.notebook, {**sources.notebook_inputs(deck), "execution": made}, machine=sources.machine)
    if executed is None and (plan.html or plan.pdfs or plan.article):
        from jaxdeck.execute.shape import read_executed

        executed = read_executed(outputs.notebook, f"build it again: jaxdeck build --force {deck}")
        if not trust.signed(executed):  # not as this user's build wrote it: shown sanitised, as live
            from jaxdeck.untrusted import sanitised

            executed = sanitised(executed)
    files = None  # the files the deck shows: worked out once, for the page, the article and their stamps
    if plan.html or plan.article:
        from jaxdeck.html.shown import ShownFiles

        files = ShownFiles.of(executed, deck)
    if plan.html:
        from jaxdeck.html.export import export_html, fit_record

        if shown:
            shown.stage(name, "export html")
        export_html(executed, deck, outputs.html, shown=files)
        notebook = stamps.load(outputs.notebook)
        stamps.save(outputs.html, sources.html_inputs(notebook and notebook["sha256"], deck, files.local),
                    fit=fit_record(executed, outputs.html))
    if plan.single:
        from jaxdeck.html.single import write_single

        if shown:
            shown.stage(name, "single file")
        made = write_single(outputs.html, outputs.single, deck)
        html = stamps.load(outputs.html)
        if html is not None:
            stamps.save(outputs.single, sources.single_inputs(html, outputs.html.parent, made.files))
    if plan.article:
        from jaxdeck.article.export import export_article

        if shown:
            shown.stage(name, "article")
        export_article(executed, deck, outputs.article, shown=files)
        notebook = stamps.load(outputs.notebook)
        stamps.save(outputs.article, sources.article_inputs(notebook and notebook["sha256"], deck, files.local))
    t_html = time.perf_counter()
    printed = None
    if plan.pdfs and printer is not None:
        if shown:
            shown.stage(name, "pdf")
        printed = printer.print_pdfs(executed, outputs.html, outputs, parts=plan.pdfs, flags=flags)
        html = stamps.load(outputs.html)
        for kind in plan.pdfs:
            if kind == ARTICLE_PDF:
                article = stamps.load(outputs.article)
                if article is not None:
                    stamps.save(outputs.article_pdf, sources.article_pdf_inputs(article))
            elif html is not None:
                stamps.save(pdf_path(outputs, kind, flags), sources.pdf_inputs(kind, html, deck, flags))
    t_pdf = time.perf_counter()
    seconds = StageSeconds(t_convert - clock, t_execute - t_convert, t_html - t_execute,
                           t_pdf - t_html if printer is not None and plan.pdfs else None)
    return Built(deck, root, summary(record.cells_executed, plan.html, plan.pdfs if printed is not None else (),
                                     plan.single, plan.article),
                 seconds=seconds, cache=record.cache, cells_executed=record.cells_executed, printed=printed,
                 warnings=tuple(record.warnings or ()), frozen=frozen_said)


def default_jobs(decks: int, backend: str | None = None) -> int:
    """How many decks to build at once: one per core, no more than memory holds kernels for, no more than ``decks``.

    A deck's kernel (JAX, its compiled programs, the deck's arrays) peaks near 1 GiB here,
    so each job asks for :data:`JOB_MEMORY` of available memory. On a GPU or TPU (``backend``,
    as the last build's environment probe found it, or any accelerator device node before
    the first) one deck at a time: decks side by side would share the accelerator, and each
    would time its demos on a busy device.
    """
    if decks <= 1 or backend not in (None, "cpu"):
        return 1  # one deck (a prose edit's rebuild) needs no count of cores or memory
    from jaxdeck.execute import usable_cpus

    cores = len(usable_cpus())
    try:
        import psutil

        memory = max(1, int(psutil.virtual_memory().available // JOB_MEMORY))
    except Exception:
        memory = cores
    return max(1, min(cores, memory, decks))


def cpu_shares(jobs: int) -> list[frozenset[int]]:
    """This process's CPUs dealt into ``jobs`` disjoint shares of equal size (one CPU each at the least).

    With more jobs than CPUs the shares repeat, so decks then do share cores. Where the OS
    sets no affinity (not Linux) the shares are empty: every kernel may use every core.
    """
    from jaxdeck.execute import usable_cpus

    if not hasattr(os, "sched_setaffinity"):
        return [frozenset()] * jobs
    cpus = usable_cpus()
    per = max(1, len(cpus) // jobs)
    return [frozenset(cpus[(k * per) % len(cpus):(k * per) % len(cpus) + per]) for k in range(jobs)]


#: available memory each concurrent deck asks for (its kernel and the build's share)
JOB_MEMORY = 3 * 2**30


def build(decks: list[Path], root: Path = BUILD, timeout: float | None = None, *, cache: bool = True,
          frozen: str | Path | None = None, pdf: bool = False, force: bool = False, reprint: bool = False,
          execution: bool = True, report=None, jobs: int | None = None, strict: bool = False,
          allow_errors: bool = False, single: bool = False, article: bool = False,
          flags: HandoutFlags | None = None) -> list[Built]:
    """Build every deck's out-of-date artefacts, ``jobs`` decks at a time (default :func:`default_jobs`).

    ``pdf=True`` prints the PDFs as well, in one browser that starts while the first decks run
    and prints for all of them; ``force=True`` rebuilds every artefact (execution still goes
    through the cache), ``reprint=True`` the PDFs; ``execution=False`` keeps executed notebooks
    whose deck is unchanged, wherever their outputs came from (see :func:`jaxdeck.stamps.plan`).
    ``single=True`` (``--self-contained``) also makes ``single/NAME.html``, the deck in one file
    (:mod:`jaxdeck.html.single`); ``article=True`` (``--article``) ``article/NAME.html``, the talk as a
    readable page (:mod:`jaxdeck.article`), and with ``pdf`` its PDF. ``strict=True`` makes the reader's warnings errors (:func:`jaxdeck.read.deck_to_notebook`).
    ``flags`` lay the handouts out for this run, over their headers (:class:`jaxdeck.pdf.layout.HandoutFlags`).
    ``report(built)`` is called for each deck in the order given, as soon as it and every deck
    before it are done; decks that are up to date show no progress.

    Decks side by side each run their kernel on a share of the CPUs of its own
    (:func:`cpu_shares`), so no deck's timings are taken while another deck's cells compete for
    the same cores; the share is recorded with the outputs (the title slide says "1 of 2 CPU
    cores"). A deck that fails with a DeckError (its own mistake) does not stop the others:
    every deck that can be built is, then the failure is raised (several: :class:`DecksFailed`,
    each one's line). A bug or a stop signal starts no further deck; those running finish.
    """
    # a build folder another user could change under this one (a planted link) is refused before anything is
    # written, and one that cannot be written fails here, not after the kernels ran
    own_build_folder(root)
    atomic.sweep(root)  # what an interrupted earlier build was writing
    sources = stamps.Sources(root)
    plans = [stamps.plan(deck, Outputs(deck, root), sources, pdf=pdf, force=force, reprint=reprint, rerun=not cache,
                         frozen=frozen, execution=execution, single=single, article=article, flags=flags)
             for deck in decks]
    todo = [p for p in plans if not p.fresh]
    if jobs is None:
        from jaxdeck.execute.fingerprint import accelerator_nodes, known_environment

        known = (known_environment(root) or {}).get("backend")
        jobs = default_jobs(len(todo), known or ("accelerator" if accelerator_nodes() else None))
    jobs = max(1, min(jobs, len(todo) or 1))
    if any(p.notebook for p in todo):
        # imported here, before the printer's, the exporter's and the decks' threads start importing their own
        import nbformat  # noqa: F401

        import jaxdeck.execute.cache  # noqa: F401
        import jaxdeck.read.source  # noqa: F401
        import jaxdeck.read.structure  # noqa: F401
        from jaxdeck.execute import execute_cached, frozen_line  # noqa: F401
        from jaxdeck.execute import import_kernel_libraries
        from jaxdeck.read import deck_to_notebook  # noqa: F401

        import_kernel_libraries()
    printer = None
    if any(p.pdfs for p in todo):
        from jaxdeck.pdf.printer import BackgroundPrinter

        printer = BackgroundPrinter()
    warm_up = None
    if any(p.html for p in todo):
        from jaxdeck.html.export import export_html, exporter, warm_up_exporter  # noqa: F401
        from jaxdeck.html.kept import keep

        keep(exporter(), root)  # the templates and code an earlier build compiled and highlighted, not done again
        # the templates compile in the background while the first kernel runs; a build whose outputs all come
        # from the cache (a prose edit) has nothing to wait for, and its one export compiles them itself
        once = threading.Lock()

        def warm_up(_kernel=None) -> None:
            if once.acquire(blocking=False):
                warm_up_exporter()
    if any(p.article for p in todo):
        import jaxdeck.article.export  # noqa: F401  (here, before the decks' threads import it)
    shares: queue.Queue = queue.Queue()
    for share in cpu_shares(jobs):
        shares.put(share)
    try:
        with Progress(len(todo)) if todo else contextlib.nullcontext() as shown:
            def one(p: stamps.Plan) -> Built:
                if p.fresh:
                    return Built(p.deck, root)
                share = shares.get() if jobs > 1 else None
                try:
                    done = build_deck(p.deck, root, shown, timeout, cache=cache, frozen=frozen, printer=printer,
                                      plan=p, sources=sources, cpus=share, strict=strict,
                                      allow_errors=allow_errors, flags=flags, on_start=warm_up)
                finally:
                    if share is not None:
                        shares.put(share)
                shown.advance(p.deck.name)
                return done

            if jobs == 1:
                results, failures = [], []
                for p in plans:
                    try:
                        results.append(one(p))
                    except DeckError as err:  # the next decks are built all the same
                        failures.append(err)
                        continue
                    if report is not None:
                        report(results[-1])
                failed(failures, len(plans))
                return results
            return _in_parallel(plans, one, jobs, report)
    finally:
        if printer is not None:
            printer.close()


def failed(failures: list[Exception], total: int) -> None:
    """Raise the build's failures, once every deck that could be built was: one as it is, several together."""
    if len(failures) == 1 or any(not isinstance(f, DeckError) for f in failures):
        raise failures[0]
    if failures:
        raise DecksFailed(failures, total)


def _in_parallel(plans: list, one, jobs: int, report) -> list[Built]:
    """``one(plan)`` for every plan on ``jobs`` threads; reports and results in plan order (see :func:`build`)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor, wait

    from jaxdeck.stopping import end_children, is_driver, result

    stopped = threading.Event()

    def guarded(p):
        if stopped.is_set():
            return None  # not started: the build was stopped, or a bug broke a deck
        try:
            return one(p)
        except DeckError:  # a deck's own mistake: the other decks go on
            raise
        except BaseException:
            stopped.set()
            raise

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="jaxdeck-deck")
    futures = [pool.submit(guarded, p) for p in plans]
    results: list[Built] = []
    failures: list[Exception] = []
    try:
        for future in futures:
            try:
                done = result(future)
            except Exception as err:  # a deck's error: the other decks are built all the same
                failures.append(err)
                continue
            if done is not None:
                results.append(done)
                if report is not None:
                    report(done)
    except BaseException:  # a stop signal: no deck may outlive the command
        stopped.set()
        while wait(futures, timeout=0.5).not_done:
            end_children(spare=is_driver)  # a kernel started after the signal's own clean-up
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    failed(failures, len(plans))
    return results
