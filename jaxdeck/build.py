"""The build pipeline: deck -> notebook -> executed notebook -> HTML, one stage at a time.

Execution goes through the execution cache (:mod:`jaxdeck.cache`): a deck whose code
cells, kernel environment and ``demos`` version are unchanged reuses its stored outputs
and starts no kernel. ``cache=False`` (``--no-cache``) always executes and stores nothing;
``frozen=PATH`` (``--frozen``) takes outputs from an executed notebook built elsewhere.
Every executed notebook records where its outputs came from in
``metadata.jaxdeck_build.provenance`` (python, jax, jaxlib, numpy, backend, device_kind,
device_count, hostname, executed_at).
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat

from . import fingerprint
from .atomic import write_text
from .cache import ExecutionCache, cache_key, reuse_outputs
from .convert import deck_to_notebook
from .decks import BUILD, Outputs
from .execute import execute
from .export import export_html, warm_up_exporter
from .progress import Progress


def execute_cached(nb: nbformat.NotebookNode, deck: Path, root: Path = BUILD, *, timeout: float | None = None,
                   on_cell=None, cache: bool = True, frozen: str | Path | None = None) -> nbformat.NotebookNode:
    """The executed notebook: from frozen outputs, from the cache, or from a real kernel run."""
    if frozen is not None:
        return reuse_outputs(nb, frozen, deck)
    store = ExecutionCache(root) if cache else None
    env = fingerprint.known_environment(root)
    if env is None and store is not None and store.has_entries():
        env = fingerprint.environment(root)  # an entry may match: learn the environment before running anything
    if store is not None and env is not None:
        key, hit = store.lookup(nb, env)
        if hit is not None:
            return hit
    pending = fingerprint.Pending(root) if env is None else None  # overlaps the kernel's run
    executed = execute(nb, deck, timeout=timeout, on_cell=on_cell)
    env = env if env is not None else pending.result()
    info = executed.metadata.setdefault("jaxdeck_build", {})
    info["provenance"] = fingerprint.provenance(env, info.get("executed_at"))
    info["cache"] = "miss" if store is not None else "off"
    if store is not None and "error" not in env:
        key = cache_key(nb, env)
        info["cache_key"] = key
        store.put(key, executed, deck=str(deck))
    return executed


def build_deck(deck: Path, root: Path = BUILD, shown: Progress | None = None,
               timeout: float | None = None, *, cache: bool = True, frozen: str | Path | None = None,
               stats: dict | None = None, printer=None) -> Outputs:
    """Build one deck's executed notebook and HTML; earlier artefacts stay until each is replaced.

    With a ``printer`` (:class:`jaxdeck.printer.BackgroundPrinter`) the PDFs are printed too.
    ``stats``, when given, receives the seconds of each stage (convert, execute, export_html, pdf).
    """
    outputs = Outputs(deck, root)
    name = deck.name
    clock = time.perf_counter()
    if shown:
        shown.stage(name, "convert")
    nb = deck_to_notebook(deck)
    t_convert = time.perf_counter()
    if shown:
        shown.stage(name, "execute")
    executed = execute_cached(nb, deck, root, timeout=timeout, cache=cache, frozen=frozen,
                              on_cell=(lambda k, n: shown.cell(name, k, n)) if shown else None)
    t_execute = time.perf_counter()
    if shown:
        shown.stage(name, "export html")
    write_text(outputs.notebook, nbformat.writes(executed))
    export_html(executed, deck, outputs.html)
    t_html = time.perf_counter()
    if printer is not None:
        if shown:
            shown.stage(name, "pdf")
        printer.print_pdfs(executed, outputs.html, outputs)
    t_pdf = time.perf_counter()
    if stats is not None:
        stats.update({"convert": t_convert - clock, "execute": t_execute - t_convert, "export_html": t_html - t_execute,
                      "pdf": t_pdf - t_html if printer is not None else None,
                      "cache": executed.metadata.get("jaxdeck_build", {}).get("cache"),
                      "cells_executed": executed.metadata.get("jaxdeck_build", {}).get("cells_executed")})
    return outputs


def build(decks: list[Path], root: Path = BUILD, timeout: float | None = None, *, cache: bool = True,
          frozen: str | Path | None = None, pdf: bool = False) -> list[Outputs]:
    """Build every deck in turn (stopping at the first error, which names its deck and line).

    ``pdf=True`` prints the PDFs as well, in a browser that starts while the first deck runs.
    """
    results = []
    printer = None
    if pdf:
        from .printer import BackgroundPrinter

        printer = BackgroundPrinter()
    warm_up_exporter()
    try:
        with Progress(len(decks)) as shown:
            for deck in decks:
                results.append(build_deck(deck, root, shown, timeout, cache=cache, frozen=frozen, printer=printer))
                shown.say(f"built {deck} -> {results[-1].html}")
                shown.advance()
    finally:
        if printer is not None:
            printer.close()
    return results
