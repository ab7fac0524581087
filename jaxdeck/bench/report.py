"""`make bench`'s printed report: build.json's figures and verdicts as rich tables.

The figures are the JSON's, formatted only (seconds to two places, ratios, percentages);
no verdict is decided here.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

PLAIN_WIDTH = 160  # a report written to a file or a pipe is read in an editor, not an 80-column terminal


def seconds(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def ratio(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def verdict(ok: bool | None) -> Text:
    """PASS, FAIL, or n/a where the figure is missing."""
    if ok is None:
        return Text("n/a", style="dim")
    return Text("PASS", style="green") if ok else Text("FAIL", style="bold red")


def _table(title: str, *columns: str, caption: str | None = None, words: tuple[str, ...] = ()) -> Table:
    """A compact table: the first column (a name) left-aligned, the ``words`` columns left-aligned and wrapped,
    the figures right-aligned; names and figures stay on one line each, so no number is split."""
    table = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, title_justify="left", caption_justify="left",
                  pad_edge=False, title_style="bold")
    for k, column in enumerate(columns):
        text = column in words
        table.add_column(column, justify="left" if text or k == 0 else "right", overflow="fold", no_wrap=not text)
    return table


def stage_table(decks: list[dict]) -> Table:
    """Each deck's cold build per stage against its floor."""
    table = _table("cold build per stage against its floor (seconds)", "deck", "cells", "convert", "execute", "html",
                   "pdf", "cold", "floor", "cold/floor", "one print", "kernel MB",
                   caption="cold = convert + execute + html + pdf as `make` runs them in one process, empty cache "
                           "(the environment probe and the browser launch overlap the kernel); floor = kernel start "
                           "+ sum of cell times (+ one browser print when the pdf stage ran); kernel MB = kernel "
                           "peak RSS (VmHWM).")
    for d in decks:
        cold, floor, stages = d["cold"], d["floor"], d["cold"]["stages"]
        over_floor = cold["total_s"] / floor["total_s"] if floor["total_s"] else None
        table.add_row(d["name"], str(d["code_cells"]), seconds(stages["convert"]), seconds(stages["execute"]),
                      seconds(stages["export_html"]), seconds(stages["pdf"]), seconds(cold["total_s"]),
                      seconds(floor["total_s"]), ratio(over_floor),
                      seconds(floor["one_print_s"]), seconds(d.get("kernel_peak_rss_mb")))
    return table


def rebuild_table(decks: list[dict]) -> Table:
    """Each deck's warm rebuilds, and our cold CLI build against the stock pipeline."""
    table = _table("rebuilds and the stock pipeline (seconds)", "deck", "prose", "prose/cold", "prose/html-only cold",
                   "code", "ours cli", "stock", "ours/stock",
                   caption="prose/code = warm rebuild (`make slides`: convert + cache + html) after a prose/code edit; "
                           "prose/cold = against the whole cold build; prose/html-only cold = against convert + "
                           "execute + html; ours cli vs stock = fresh processes, HTML only, empty cache.")
    for d in decks:
        cold, prose, stock = d["cold"], d["warm_prose"]["median_s"], d.get("stock", {})
        table.add_row(d["name"], seconds(prose), f"{100 * prose / cold['total_s']:.1f}%",
                      f"{100 * prose / cold['build_s']:.1f}%", seconds(d["warm_code"]["seconds"]),
                      seconds(d.get("cli_cold_s")), seconds(stock.get("total_s")), ratio(stock.get("ratio")))
    return table


def deck_targets_table(decks: list[dict]) -> Table:
    """Each deck's verdicts, with the PDF stage's figures and what failed."""
    table = _table("targets per deck", "deck", "prose rebuild <= 10% of cold", "cold <= 1.3x floor", "cold <= stock",
                   "pdf export (slides + handout)", words=("pdf export (slides + handout)",))
    for d in decks:
        t, pdf = d["targets"], d["pdf"]
        table.add_row(d["name"], verdict(t["prose_rebuild_le_10pct_cold"]), verdict(t["cold_le_1.3x_floor"]),
                      verdict(t["cold_le_stock"]),
                      f"{seconds(pdf['seconds'])} s" if pdf.get("available") else f"unavailable: {pdf.get('why')}")
    return table


def failures(decks: list[dict]) -> Text | None:
    """The stock pipeline's failures, one line each, or None when there are none."""
    lines = [f"{d['name']}: stock pipeline failed: {(d['stock']['error'] or '').strip().splitlines()[-1:]}"
             for d in decks if d.get("stock") and not d["stock"]["ok"]]
    return Text("\n".join(lines), style="red") if lines else None


def _step_table(title: str) -> Table:
    return _table(title, "step", "seconds", "detail", "goal", "verdict", words=("detail", "goal"))


def make_table(made: dict) -> Table:
    """`make` over every deck: the first build, the no-op (and where its time goes), a one-deck prose edit."""
    noop, edit = made["noop"], made["prose_edit"]
    table = _step_table(f"make {made['target']} over {len(made['decks'])} decks")
    table.add_row("first build", seconds(made["first"]["seconds"]), "", "", "")
    heaviest = ", ".join(f"{h['module']} {h['seconds']:.2f}" for h in noop["heaviest"][:3])
    table.add_row("nothing to do", seconds(noop["median_s"]),
                  f"files written: {max(len(r['written']) for r in noop['runs'])}; python start-up "
                  f"{seconds(noop['startup_s'])} s, imports {seconds(noop['imports_s'])} s, heaviest: {heaviest}",
                  "no-op make < 1 s", verdict(made["targets"]["noop_make_lt_1s"]))
    table.add_row(f"prose edit of {edit['deck']}: make", seconds(edit["all_decks"]["seconds"]),
                  f"{edit['ratio']:.2f}x make DECK={edit['deck']} alone; "
                  f"decks rebuilt: {', '.join(edit['decks_rebuilt']) or 'none'}",
                  "one-deck edit <= that deck alone (+10 %)", verdict(made["targets"]["one_deck_edit_le_deck_alone"]))
    table.add_row(f"prose edit of {edit['deck']}: make DECK={edit['deck']}", seconds(edit["deck_alone"]["seconds"]),
                  "", "", "")
    return table


def edit_loop_table(loop: dict) -> Table:
    """The edit loop: the CLI's start, a prose edit rebuilt from the CLI, the preview's save-to-visible latency."""
    start, prose, preview, targets = loop["cli_start"], loop["cli_prose"], loop["preview"], loop["targets"]
    table = _step_table(f"edit loop on {Path(loop['deck']).name}")
    table.add_row("jaxdeck --help", seconds(start["help_s"]), f"python -c pass {seconds(start['python_s'])} s", "", "")
    table.add_row("import nbformat", seconds(start["import_nbformat_s"]),
                  f"without rfc3987_syntax {seconds(start['import_nbformat_without_rfc3987_syntax_s'])} s", "", "")
    if "error" in prose:
        table.add_row("cli build", "-", Text(f"failed: {prose['error']}", style="red"), "", "")
    else:
        table.add_row("cli: cold build", seconds(prose["cold_s"]), "", "", "")
        table.add_row("cli: prose-edit rebuild", seconds(prose["prose_s"]), f"{100 * prose['fraction']:.1f} % of cold",
                      "<= 10 % of cold", verdict(targets["cli_prose_le_10pct_cold"]))
    if "error" in preview:
        table.add_row("preview", "-", Text(f"unavailable: {preview['error']}", style="red"), "", "")
    else:
        table.add_row("preview, save to visible in Chromium: prose", seconds(preview["prose_s"]), "", "< 1 s",
                      verdict(targets["preview_prose_lt_1s"]))
        table.add_row("preview: one-cell code edit", seconds(preview["code_s"]),
                      f"the cell ran {seconds(preview['code_cell_s'])} s", "<= cell + 1 s",
                      verdict(targets["preview_code_le_cell_plus_1s"]))
        table.add_row("preview: kept the slide", "", "", "same slide after each edit",
                      verdict(targets["preview_kept_slide"]))
    return table


def first_run_table(first: dict) -> Table:
    """A fresh clone: `make` from nothing, every deck at -j 1 and -j N, `make test`."""
    made, par, targets = first["first_make"], first["parallel"], first["targets"]
    table = _step_table(f"a fresh clone ({first['cores']} cores)")
    table.add_row("make (setup + every deck, HTML + PDF)", seconds(made["seconds"]),
                  f"setup {seconds(made['setup_s'])} s, decks {seconds(made['decks_s'])} s (package caches warm)",
                  "< 60 s", verdict(targets["first_make_lt_60s"]))
    table.add_row(f"every deck, --jobs {par['jobs']}", seconds(par["parallel_s"]),
                  f"{par['speed_up']:.2f}x faster than --jobs 1 ({seconds(par['serial_s'])} s)", ">= 1.4x",
                  verdict(targets["parallel_speed_up_ge_1_4"]))
    if first.get("suite"):
        table.add_row("make test", seconds(first["suite"]["seconds"]), " ".join(first["suite"]["summary"]), "< 300 s",
                      verdict(targets["suite_lt_5min"]))
    return table


def harness_line(harness: dict) -> Text:
    """The timing harness's own benchmark: ok, or why not (its figures are in timing.json)."""
    took = f" ({seconds(harness.get('seconds'))} s)" if harness.get("seconds") else ""
    state = "ok" if harness.get("ok") else harness.get("why") or "failed"
    return Text(f"demos.calibration: {state}{took}", style=None if harness.get("ok") else "red")


def renderables(report: dict) -> list[RenderableType]:
    """Every part of the report that build.json has, in the order the benchmarks ran."""
    parts: list[RenderableType] = []
    decks = report.get("decks") or []
    if decks:
        parts += [stage_table(decks), rebuild_table(decks), deck_targets_table(decks)]
        failed = failures(decks)
        if failed is not None:
            parts.append(failed)
    if report.get("make"):
        parts.append(make_table(report["make"]))
    if report.get("edit_loop"):
        parts.append(edit_loop_table(report["edit_loop"]))
    if report.get("first_run"):
        parts.append(first_run_table(report["first_run"]))
    if report.get("timing_harness"):
        parts.append(harness_line(report["timing_harness"]))
    return parts


def print_report(report: dict, console: Console | None = None) -> None:
    """Print the report: in colour on a terminal, at its width; elsewhere plain and :data:`PLAIN_WIDTH` wide."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=PLAIN_WIDTH)
    for k, part in enumerate(renderables(report)):
        if k:
            console.print()
        console.print(part)


def as_text(report: dict, width: int = PLAIN_WIDTH) -> str:
    """The report as plain text (no colour), as it prints to a file."""
    out = io.StringIO()
    print_report(report, Console(file=out, width=width, color_system=None, force_terminal=False))
    return out.getvalue()
