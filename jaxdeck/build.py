"""The build: decks -> notebook -> executed notebook -> HTML -> PDFs, several decks at once.

Each deck goes through the stages its plan names (:mod:`jaxdeck.stages`): an artefact is made only when
something it is made from changed (:mod:`jaxdeck.stamps` keeps a record of input digests beside each
one); ``force`` (``--force``) makes them all. Execution goes through the execution cache
(:mod:`jaxdeck.execute.cache`): a deck whose code cells, kernel environment and ``demos`` version are
unchanged reuses its stored outputs and starts no kernel. Without ``cache`` (``--no-cache``) every deck
executes and nothing is stored; ``frozen`` (``--frozen``) keeps the outputs of a notebook built elsewhere
(:mod:`jaxdeck.execute.frozen`). Every executed notebook records where its outputs came from in
``metadata.jaxdeck_build.provenance`` (python, jax, jaxlib, numpy, backend, device_kind,
device_count, hostname, executed_at).

The heavy libraries (nbformat, jupytext, nbconvert, nbclient, Playwright) are imported
only when a stage runs, so a build with nothing to do stays quick.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import queue
import threading
from pathlib import Path

from jaxdeck import atomic, stamps
from jaxdeck.decks import BUILD, Outputs
from jaxdeck.errors import DeckError, DecksFailed
from jaxdeck.places import own_build_folder
from jaxdeck.progress import Progress
from jaxdeck.stages.job import Job, Shared
from jaxdeck.stages.options import BuildOptions
from jaxdeck.stages.plan import Plan, plan
from jaxdeck.stages.records import Built, StageSeconds, summary
from jaxdeck.stages.runner import build_deck, run

__all__ = ["BuildOptions", "Built", "StageSeconds", "build", "build_deck", "cpu_shares", "default_jobs", "summary"]


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


def build(decks: list[Path], root: Path = BUILD, options: BuildOptions | None = None, *, report=None,
          **keywords) -> list[Built]:
    """Build every deck's out-of-date artefacts, ``options.jobs`` decks at a time (default :func:`default_jobs`).

    ``options`` (or its fields as ``keywords``, over it: ``build(decks, root, pdf=True)``) say what to
    make (:class:`jaxdeck.stages.options.BuildOptions`): with ``pdf`` the PDFs are printed in one browser
    that starts while the first decks run and prints for all of them; ``execution=False`` keeps executed
    notebooks whose deck is unchanged, wherever their outputs came from (see :func:`jaxdeck.stages.plan.plan`).
    ``report(built)`` is called for each deck in the order given, as soon as it and every deck
    before it are done; decks that are up to date show no progress.

    Decks side by side each run their kernel on a share of the CPUs of its own
    (:func:`cpu_shares`), so no deck's timings are taken while another deck's cells compete for
    the same cores; the share is recorded with the outputs (the title slide says "1 of 2 CPU
    cores"). A deck that fails with a DeckError (its own mistake) does not stop the others:
    every deck that can be built is, then the failure is raised (several: :class:`DecksFailed`,
    each one's line). A bug or a stop signal starts no further deck; those running finish.
    """
    options = dataclasses.replace(options or BuildOptions(), **keywords)
    # a build folder another user could change under this one (a planted link) is refused before anything is
    # written, and one that cannot be written fails here, not after the kernels ran
    own_build_folder(root)
    atomic.sweep(root)  # what an interrupted earlier build was writing
    sources = stamps.Sources(root)
    plans = [plan(deck, Outputs(deck, root), sources, options) for deck in decks]
    todo = [p for p in plans if not p.fresh]
    jobs = options.jobs
    if jobs is None:
        from jaxdeck.execute.fingerprint import accelerator_nodes, known_environment

        known = (known_environment(root) or {}).get("backend")
        jobs = default_jobs(len(todo), known or ("accelerator" if accelerator_nodes() else None))
    jobs = max(1, min(jobs, len(todo) or 1))
    shared = prepared(todo, root, sources)
    shares: queue.Queue = queue.Queue()
    for share in cpu_shares(jobs):
        shares.put(share)
    try:
        with Progress(len(todo)) if todo else contextlib.nullcontext() as shown:
            each = dataclasses.replace(shared, progress=shown)

            def one(p: Plan) -> Built:
                if p.fresh:
                    return Built(p.deck, root)
                share = shares.get() if jobs > 1 else None
                try:
                    done = run(Job(p.deck, p.outputs, options, p, each, share))
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
        if shared.printer is not None:
            shared.printer.close()


def prepared(todo: list[Plan], root: Path, sources: stamps.Sources) -> Shared:
    """What the decks of this build share, its stages' libraries imported before the decks' threads start:
    the printer when a deck prints, the templates compiling in the background while the first kernel runs."""
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
    return Shared(sources, printer=printer, on_start=warm_up)


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
