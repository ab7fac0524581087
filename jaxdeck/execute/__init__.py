"""Stage 2, execute: a slideshow notebook -> the executed notebook, from a kernel or the cache.

``kernel`` runs the cells (``cells``: which, and for how long) in a real Jupyter kernel (nbclient)
started as ``spec`` says; ``cache`` stores and reuses outputs keyed by the code cells and the
kernel's environment; ``fingerprint`` learns that environment and the provenance recorded with
every executed notebook; ``measure`` records what a run measured. Other stages use the names of
this module only (``__all__``): a build and the preview run a deck through :func:`run_deck`, so
both look up and fill the same cache with the same key and provenance.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxdeck.decks import BUILD
from jaxdeck.records import BuildRecord, ExecFacts

#: the names other stages import from here, each with the module that defines it (imported on first use)
_HOMES = {
    "Kernel": "kernel", "deck_timeout": "cells", "runnable": "cells", "is_listing": "cells",
    "import_kernel_libraries": "spec", "kernel_env": "spec", "pools_env": "spec", "own_folders": "spec",
    "code_cells": "cache", "cell_identity": "cache", "cell_record": "cache", "entry_of": "cache", "graft": "cache",
    "usable_cpus": "measure", "cell_durations": "measure", "frozen_line": "frozen",
}
__all__ = ["Run", "run_deck", "execute_cached", *_HOMES]


@dataclass
class Run:
    """An executed notebook, and the kernel that ran it when the caller asked to keep it (else None:
    the outputs came from the cache or the frozen notebook, or the kernel was closed), and what the run
    learnt of the deck (``learnt``), which whoever takes it writes into the notebook's build record
    (:func:`jaxdeck.records.write_build`)."""

    notebook: Any
    kernel: Any = None
    learnt: ExecFacts | None = None


def run_deck(nb, deck: Path, root: Path = BUILD, *, timeout: float | None = None, on_cell=None,
             cache: bool = True, lookup: bool = True, frozen: str | Path | None = None, cpus=None,
             keep_kernel: bool = False, on_start=None) -> Run:
    """The executed notebook, its build record not yet written (``Run.learnt``): from the cache, or from a real kernel run (on the CPUs ``cpus``, when decks
    are built side by side; the share goes into the provenance); with ``frozen``, the outputs kept in that
    executed notebook on the code cells that still match it, the others this way (:mod:`jaxdeck.execute.frozen`).

    ``cache``: use the execution cache at all; ``lookup``: reuse an entry (False runs afresh and
    still stores the run); ``keep_kernel``: a kernel run leaves its kernel running in ``Run.kernel``;
    ``on_start(kernel)``: told of the kernel before it runs a cell.
    """
    from jaxdeck.execute import fingerprint
    from jaxdeck.execute.cache import ExecutionCache, cache_key
    from jaxdeck.execute.kernel import run_fresh
    from jaxdeck.execute.limits import cap_outputs

    if frozen is not None:  # kept outputs while the code matches, this build's (a run as below) from there on
        from jaxdeck.execute.frozen import take_frozen

        ran: list[Run] = []

        def own():
            ran.append(run_deck(nb, deck, root, timeout=timeout, on_cell=on_cell, cache=cache, lookup=lookup,
                                cpus=cpus, keep_kernel=keep_kernel, on_start=on_start))
            return ran[0].notebook, ran[0].learnt

        try:
            taken, learnt = take_frozen(nb, frozen, deck, own)
        except BaseException:
            if ran and ran[0].kernel is not None:
                ran[0].kernel.close()
            raise
        return Run(taken, ran[0].kernel if ran else None, learnt)
    store = ExecutionCache(root) if cache else None
    env = fingerprint.known_environment(root)
    if env is None and store is not None and lookup and store.has_entries():
        env = fingerprint.environment(root)  # an entry may match: learn the environment before running anything
    if store is not None and lookup and env is not None:
        _key, hit, learnt = store.lookup(nb, env)
        if hit is not None:
            return Run(hit, None, learnt.merged(ExecFacts(warnings=errors_listed(hit, deck))))
    pending = fingerprint.Pending(root) if env is None else None  # overlaps the kernel's run
    executed, kernel, measured = run_fresh(nb, deck, timeout=timeout, on_cell=on_cell, cpus=cpus,
                                           on_start=on_start, caches=root / "cache")
    try:
        cap_outputs(executed)  # before the cache, the HTML and the live view see them
        env = env if env is not None else pending.result()
        provenance = fingerprint.provenance(env, measured.executed_at)
        # the kernel's own account wins over the probe's: a deck that simulated 8 CPU devices ran on 8
        provenance.update(kernel.devices or {})
        if measured.cpu_share:
            provenance["cpu_share"] = measured.cpu_share
        key = cache_key(nb, env) if store is not None and "error" not in env else None
        learnt = measured.merged(ExecFacts(provenance=provenance, cache="miss" if store is not None else "off",
                                           cache_key=key))
        if key:
            store.put(key, executed, deck=str(deck), facts=learnt)
    except BaseException:
        kernel.close()
        raise
    if not keep_kernel:
        kernel.close()
        kernel = None
    return Run(executed, kernel, learnt.merged(ExecFacts(warnings=errors_listed(executed, deck))))


def errors_listed(nb, deck: Path) -> list | None:
    """The build record's warnings with ``nb``'s cells' unexpected errors (not tagged ``raises-exception``)
    added when the deck allows errors (``allow_errors``; None: none to add), else the first of them as
    the DeckError a run would have raised (a cached run made while errors were allowed)."""
    from jaxdeck import claims
    from jaxdeck.errors import DeckError
    from jaxdeck.execute import where
    from jaxdeck.options import DeckOptions
    from jaxdeck.records import cell_info

    found, checks = [], []
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        if cell.cell_type != "code" or error is None or "raises-exception" in tags:
            continue
        info = cell_info(cell)
        message = (claims.failure(None, error.get("ename"), error.get("evalue")) if claims.is_check(cell)
                   else f"{error.get('ename')}: {error.get('evalue')}")
        traceback = where.traceback_text(error)
        line, raised = info.get("line"), where.raised_at(traceback, cell.get("execution_count"))
        found.append(DeckError(deck, line + raised if line and raised else line, message, slide=info.get("slide"),
                               details=traceback))
        checks.append(claims.is_check(cell))
    if found and not DeckOptions.of(nb).allow_errors:
        raise DeckError(found[0].path, found[0].line, found[0].message,
                        "fix the cell, or tag it raises-exception if the error is the point", slide=found[0].slide,
                        details=found[0].details)
    if not found:
        return None
    listed = [f"{e.location()}: {e.message.splitlines()[0]}; "
              + ("a check, shown nowhere (allow_errors)" if check else "the slide shows it (allow_errors)")
              for e, check in zip(found, checks)]
    return list(dict.fromkeys((BuildRecord.of(nb).warnings or []) + listed))


def execute_cached(nb, deck: Path, root: Path = BUILD, *, timeout: float | None = None,
                   on_cell=None, cache: bool = True, frozen: str | Path | None = None, cpus=None, on_start=None):
    """:func:`run_deck`'s notebook, its build record written (the kernel closed after the run)."""
    from jaxdeck.records import write_build

    run = run_deck(nb, deck, root, timeout=timeout, on_cell=on_cell, cache=cache, frozen=frozen, cpus=cpus,
                   on_start=on_start)
    write_build(run.notebook, run.learnt)
    return run.notebook


def __getattr__(name: str):
    """The kernel, cache and measure names of ``__all__``, each imported from its module on first use
    (nbclient and nbformat are slow to import, and a `make` with nothing to do needs neither)."""
    import importlib

    if name not in _HOMES:
        raise AttributeError(f"module 'jaxdeck.execute' has no attribute {name!r}")
    return getattr(importlib.import_module(f"jaxdeck.execute.{_HOMES[name]}"), name)
