"""One deck's build, timed per stage against its floor, then rebuilt after a prose and a code edit.

On a copy of the deck (see :mod:`jaxdeck.bench.edits`):

- the cold build per stage (convert, execute, export HTML, PDF) with an empty cache, as
  `make` runs it in one process: the environment probe and the browser's launch overlap the kernel;
- its floor: kernel start + the sum of the cells' execution times + one browser print
  (launch Chromium, open the HTML deck, ``page.pdf``);
- warm rebuilds after prose edits (must execute no cell) and after a code edit;
- the stock pipeline on the same deck (:mod:`jaxdeck.bench.stock`);
- the kernel's peak resident memory.

Targets: a prose rebuild <= 10 % of the cold build, cold <= 1.3x floor, cold <= stock.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path

from jaxdeck.bench.edits import code_edit, copy_deck, prose_edit
from jaxdeck.bench.stock import compare_stock
from jaxdeck.build import Built, build_deck
from jaxdeck.stages.job import Shared
from jaxdeck.stages.options import BuildOptions
from jaxdeck.stamps import Sources
from jaxdeck.execute import fingerprint
from jaxdeck.records import BuildRecord, cell_info
from jaxdeck.html.export import warm_up_exporter

PROSE_TARGET = 0.10
FLOOR_TARGET = 1.3


def stage_record(built: Built) -> dict:
    """A build's figures as build.json stores them: stage seconds, cache, cells executed, the report's words."""
    stages = ("convert", "execute", "export_html", "pdf")
    seconds = {k: None if built.seconds is None else getattr(built.seconds, k) for k in stages}
    return {**seconds, "cache": built.cache, "cells_executed": built.cells_executed, "done": built.done}


def browser_print(html: Path, pdf: Path) -> float | None:
    """Seconds for one browser print of the HTML deck (launch, open, page.pdf), or None without a browser."""
    try:
        from jaxdeck.browser import chromium, script
    except ImportError:
        return None
    began = time.perf_counter()
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(html.resolve().as_uri() + "?print-pdf", wait_until="load")
            try:
                page.wait_for_function(script("reveal-ready.js"), timeout=15000)
            except Exception:
                pass
            page.pdf(path=str(pdf), width="1280px", height="720px", print_background=True)
    except Exception as err:
        print(f"  (browser print unavailable: {type(err).__name__}: {str(err)[:120]})", file=sys.stderr)
        return None
    return time.perf_counter() - began


def cold_build(deck: Path, root: Path, pdf: bool) -> tuple[Built, float, dict]:
    """Everything `make` does for a deck in one process, from an empty cache: ``(built, seconds, pdf_info)``.

    Without a browser the deck is built again without PDFs, so the other figures still count;
    ``pdf_info`` then says why.
    """
    fingerprint.forget()
    printer = None
    began = time.perf_counter()
    if pdf:
        try:
            from jaxdeck.pdf.printer import BackgroundPrinter
        except ImportError:
            BackgroundPrinter = None  # noqa: N806
        printer = BackgroundPrinter() if BackgroundPrinter else None
    warm_up_exporter()
    try:
        built = build_deck(deck, root, BuildOptions(pdf=True), shared=Shared(Sources(root), printer=printer))
        printed = built.printed
        pdf_info = {"available": printer is not None, "seconds": built.seconds.pdf,
                    "files": [str(p) for p in printed.paths] if printed is not None else []}
    except Exception as err:
        if printer is None:
            raise
        printer.close()
        printer = None
        built = build_deck(deck, root)
        pdf_info = {"available": False, "why": f"{type(err).__name__}: {str(err)[:200]}"}
    seconds = time.perf_counter() - began
    if printer is not None:
        printer.close()
    if not pdf:
        pdf_info = {"available": False, "why": "skipped"}
    return built, seconds, pdf_info


def bench_deck(source: Path, work: Path, repeat: int = 3, stock: bool = True, pdf: bool = True) -> dict:
    """Every figure of one deck (see the module's docstring) on a copy under ``work/NAME``; build.json's entry."""
    import nbformat

    name = source.stem
    folder = work / name
    deck = copy_deck(source, folder)
    root = folder / "build"
    result: dict = {"deck": str(source), "name": name}

    built, cold_total, pdf_info = cold_build(deck, root, pdf)
    nb = nbformat.read(built.notebook, as_version=4)
    info = BuildRecord.of(nb).to_metadata()
    durations = [cell_info(c).get("duration_s", 0.0) for c in nb.cells if c.cell_type == "code"]
    one_print = browser_print(built.html, folder / "one-print.pdf") if pdf_info.get("available") else None
    cold = stage_record(built)
    stages = {"convert": cold["convert"], "execute": cold["execute"], "export_html": cold["export_html"],
              "pdf": pdf_info.get("seconds") if pdf_info.get("available") else None}
    kernel_floor = info.get("kernel_start_s", 0.0) + sum(durations)
    result.update({
        "code_cells": len(durations), "slides": info.get("slides"), "cells_executed_cold": built.cells_executed,
        "cold": {"stages": stages, "build_s": cold_total - (stages["pdf"] or 0.0), "total_s": cold_total},
        "floor": {"kernel_start_s": info.get("kernel_start_s"), "cells_s": sum(durations),
                  "one_print_s": one_print,
                  "build_s": kernel_floor,
                  "total_s": kernel_floor + ((one_print or 0.0) if stages["pdf"] is not None else 0.0)},
        "pdf": pdf_info,
        "kernel_peak_rss_mb": info.get("kernel_peak_rss_mb"),
        "provenance": info.get("provenance"),
    })

    prose = []
    for k in range(repeat):
        prose_edit(deck, k)
        began = time.perf_counter()
        record = stage_record(build_deck(deck, root))
        prose.append({"seconds": time.perf_counter() - began, "cells_executed": record["cells_executed"], **record})
    result["warm_prose"] = {"median_s": statistics.median(p["seconds"] for p in prose), "runs": prose}

    code_edit(deck)
    began = time.perf_counter()
    record = stage_record(build_deck(deck, root))
    result["warm_code"] = {"seconds": time.perf_counter() - began, **record}

    if stock:  # on the original deck, as fresh processes
        shutil.copy(source, deck)
        result["cli_cold_s"], result["stock"] = compare_stock(deck, folder)
    result["targets"] = targets(result, prose)
    return result


def targets(result: dict, prose: list[dict]) -> dict:
    """The deck's verdicts: True, False, or None where the figure is missing."""
    cold, floor, stock = result["cold"], result["floor"], result.get("stock", {})
    return {
        # the cold build is the whole pipeline (convert, execute, HTML, PDF); the rebuild is `make slides`
        "prose_rebuild_le_10pct_cold": result["warm_prose"]["median_s"] <= PROSE_TARGET * cold["total_s"]
        and all(p["cells_executed"] == 0 for p in prose),
        "cold_le_1.3x_floor": cold["total_s"] <= FLOOR_TARGET * floor["total_s"] if floor["total_s"] else None,
        "cold_le_stock": stock["ratio"] <= 1.0 if "ratio" in stock else None,
    }
