"""`make bench`: build times per stage against their floor, cached rebuilds, and the stock pipeline.

For each deck in ``slides/`` (plus a generated 30-slide deck), working on a copy under
``build/bench/work/`` so that neither ``slides/`` nor ``build/`` are touched:

- cold build per stage (convert, execute, export HTML, PDF) with an empty cache;
- its floor: kernel start + the sum of the cells' execution times + one browser print
  (launch Chromium, open the HTML deck, ``page.pdf``);
- warm rebuild after a prose edit (must execute no cell) and after a code edit;
- the stock pipeline on the same deck in the same run: ``jupytext --to ipynb`` then
  ``jupyter nbconvert --to slides --execute``, against ``python -m jaxdeck build`` with
  an empty cache, both as fresh processes;
- the kernel's peak resident memory.

Then `make` over all the decks as a user runs it (:func:`bench_make`): with nothing to do
(where its time goes: Python's start-up and the heaviest imports), and after a prose edit
of one deck, against `make DECK=NAME` after the same edit.

Then the edit loop (:mod:`jaxdeck.bench.edit_loop`): ``jaxdeck --help``, a prose edit rebuilt
from the command line against the cold build, and ``jaxdeck preview``'s save-to-visible
latency in Chromium for a prose and a one-cell code edit.

Results go to ``build/bench/build.json`` (the `make` figures also to ``make.json``); the
table and the targets (prose rebuild <= 10 % of cold, cold <= 1.3x floor, cold <= stock,
no-op `make` < 1 s, one-deck edit through `make` <= that deck alone) are printed.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat

from jaxdeck.execute import fingerprint
from jaxdeck.atomic import write_text
from jaxdeck.build import build_deck
from jaxdeck.html.export import warm_up_exporter
from jaxdeck.decks import Outputs

PROSE_TARGET = 0.10
FLOOR_TARGET = 1.3


def generated_deck(slides: int = 30) -> str:
    """A 30-slide deck with JAX demo cells, the size the PDF target is set for."""
    parts = ["---\njupyter:\n  jupytext:\n    text_representation:\n      extension: .md\n      format_name: markdown\n"
             "  kernelspec:\n    display_name: Python 3\n    language: python\n    name: python3\n---\n",
             "# A generated 30-slide deck\n\nThe benchmark's stand-in for a full seminar.\n\n"
             "```python\nimport jax\nimport jax.numpy as jnp\njax.devices()\n```\n"]
    for k in range(2, slides + 1):
        text = [f"---\n\n## Slide {k}\n\n- a point about JAX, number {k}\n- another point, with `code`\n\n"
                f"Note: what to say on slide {k}.\n"]
        if k % 4 == 0:
            text.append(f"\n```python\n@jax.jit\ndef f{k}(x):\n    return jnp.tanh(x @ x.T).sum() * {k}\n\n"
                        f"x = jnp.ones(({16 * k // 4}, 32))\nprint(f{k}(x).block_until_ready())\n```\n")
        parts.append("\n" + "".join(text))
    return "".join(parts)


def _run(command: list[str], cwd: Path | None = None, timeout: float = 600) -> tuple[float, int, str]:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - began, done.returncode, (done.stderr or done.stdout)[-2000:]


def _bin(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else name


def prose_edit(path: Path, k: int) -> None:
    path.write_text(path.read_text() + f"\n---\n\n## Added in prose edit {k}\n\nA sentence that runs no code.\n")


def code_edit(path: Path) -> None:
    text = path.read_text()
    edited, n = re.subn(r"```python\n", "```python\n# edited by the benchmark\n", text, count=1)
    if not n:
        edited = text + "\n```python\n# a cell added by the benchmark\n1 + 1\n```\n"
    path.write_text(edited)


def browser_print(html: Path, pdf: Path) -> float | None:
    """Seconds for one browser print of the HTML deck (launch, open, page.pdf), or None without a browser."""
    try:
        from jaxdeck.browser import chromium
    except ImportError:
        return None
    began = time.perf_counter()
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(html.resolve().as_uri() + "?print-pdf", wait_until="load")
            try:
                page.wait_for_function("() => window.Reveal && Reveal.isReady && Reveal.isReady()", timeout=15000)
            except Exception:
                pass
            page.pdf(path=str(pdf), width="1280px", height="720px", print_background=True)
    except Exception as err:
        print(f"  (browser print unavailable: {type(err).__name__}: {str(err)[:120]})", file=sys.stderr)
        return None
    return time.perf_counter() - began


def bench_deck(source: Path, work: Path, repeat: int = 3, stock: bool = True, pdf: bool = True) -> dict:
    name = source.stem
    folder = work / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    deck = folder / source.name
    shutil.copy(source, deck)
    for item in source.parent.iterdir():  # images and data the deck may use
        if item.is_dir() and not item.name.startswith(".") and item.name not in ("build",):
            shutil.copytree(item, folder / item.name, dirs_exist_ok=True)
    root = folder / "build"
    result: dict = {"deck": str(source), "name": name}

    # cold: empty cache and environment memo, everything `make` does for a deck in one process:
    # the probe and the browser's launch overlap the kernel's run, as in `jaxdeck build --pdf`
    fingerprint.forget()
    stats: dict = {}
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
        outputs = build_deck(deck, root, stats=stats, printer=printer)
        pdf_info = {"available": printer is not None, "seconds": stats.get("pdf"),
                    "files": [str(outputs.pdf), str(outputs.handout)] if printer is not None else []}
    except Exception as err:
        if printer is None:
            raise
        printer.close()
        printer = None
        outputs = build_deck(deck, root, stats=stats)
        pdf_info = {"available": False, "why": f"{type(err).__name__}: {str(err)[:200]}"}
    cold_total = time.perf_counter() - began
    if printer is not None:
        printer.close()
    if not pdf:
        pdf_info = {"available": False, "why": "skipped"}
    nb = nbformat.read(outputs.notebook, as_version=4)
    info = nb.metadata.get("jaxdeck_build", {})
    durations = [c.metadata.get("jaxdeck", {}).get("duration_s", 0.0) for c in nb.cells if c.cell_type == "code"]
    pdf = pdf_info
    one_print = browser_print(outputs.html, folder / "one-print.pdf") if pdf.get("available") else None
    stages = {"convert": stats["convert"], "execute": stats["execute"], "export_html": stats["export_html"],
              "pdf": pdf.get("seconds") if pdf.get("available") else None}
    kernel_floor = info.get("kernel_start_s", 0.0) + sum(durations)
    result.update({
        "code_cells": len(durations), "slides": info.get("slides"), "cells_executed_cold": stats["cells_executed"],
        "cold": {"stages": stages, "build_s": cold_total - (stages["pdf"] or 0.0), "total_s": cold_total},
        "floor": {"kernel_start_s": info.get("kernel_start_s"), "cells_s": sum(durations),
                  "one_print_s": one_print,
                  "build_s": kernel_floor,
                  "total_s": kernel_floor + ((one_print or 0.0) if stages["pdf"] is not None else 0.0)},
        "pdf": pdf,
        "kernel_peak_rss_mb": info.get("kernel_peak_rss_mb"),
        "provenance": info.get("provenance"),
    })

    # warm: prose edits execute nothing
    prose = []
    for k in range(repeat):
        prose_edit(deck, k)
        stats = {}
        began = time.perf_counter()
        build_deck(deck, root, stats=stats)
        prose.append({"seconds": time.perf_counter() - began, "cells_executed": stats["cells_executed"], **stats})
    result["warm_prose"] = {"median_s": statistics.median(p["seconds"] for p in prose), "runs": prose}

    # warm: a code edit executes the deck again
    code_edit(deck)
    stats = {}
    began = time.perf_counter()
    build_deck(deck, root, stats=stats)
    result["warm_code"] = {"seconds": time.perf_counter() - began, **stats}

    # stock pipeline vs ours, both as fresh processes on the same (original) deck
    if stock:
        shutil.copy(source, deck)
        ours_root = folder / "cli-build"
        shutil.rmtree(ours_root, ignore_errors=True)
        ours_s, ours_rc, ours_err = _run([sys.executable, "-m", "jaxdeck", "build", str(deck), "--out", str(ours_root)])
        stock_dir = folder / "stock"
        stock_dir.mkdir(exist_ok=True)
        ipynb = stock_dir / f"{name}.ipynb"
        t1, rc1, err1 = _run([_bin("jupytext"), "--to", "ipynb", str(deck), "-o", str(ipynb)])
        t2, rc2, err2 = _run([_bin("jupyter"), "nbconvert", "--to", "slides", "--execute", str(ipynb),
                              "--output-dir", str(stock_dir)]) if rc1 == 0 else (0.0, rc1, err1)
        result["cli_cold_s"] = ours_s if ours_rc == 0 else None
        result["stock"] = {"jupytext_s": t1, "nbconvert_s": t2, "total_s": t1 + t2,
                           "ok": rc1 == 0 and rc2 == 0, "error": None if rc1 == 0 and rc2 == 0 else (err2 or err1)[-500:],
                           "ours_error": None if ours_rc == 0 else ours_err[-500:]}
        if result["stock"]["ok"] and result["cli_cold_s"]:
            result["stock"]["ratio"] = result["cli_cold_s"] / result["stock"]["total_s"]

    cold = result["cold"]
    floor = result["floor"]
    result["targets"] = {
        # the cold build is the whole pipeline (convert, execute, HTML, PDF); the rebuild is `make slides`
        "prose_rebuild_le_10pct_cold": result["warm_prose"]["median_s"] <= PROSE_TARGET * cold["total_s"]
        and all(p["cells_executed"] == 0 for p in prose),
        "cold_le_1.3x_floor": cold["total_s"] <= FLOOR_TARGET * floor["total_s"] if floor["total_s"] else None,
        "cold_le_stock": (result["stock"]["ratio"] <= 1.0) if stock and "ratio" in result.get("stock", {}) else None,
    }
    return result


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else {}


def _import_costs(command: list[str], cwd: Path) -> dict:
    """``python -X importtime`` of a command: the heaviest top-level imports, in seconds."""
    done = subprocess.run([command[0], "-X", "importtime", *command[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    top = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if line.startswith("import time:") and len(parts) == 3 and parts[1].strip().isdigit():
            name = parts[2]
            if len(name) - len(name.lstrip()) == 1:  # imported by the command itself, not by another module
                top.append((name.strip(), int(parts[1]) / 1e6))
    top.sort(key=lambda item: -item[1])
    return {"imports_s": sum(s for _, s in top), "heaviest": [{"module": n, "seconds": s} for n, s in top[:6]]}


def bench_make(decks: list[Path], work: Path, seeds: list[Path] = (), repeat: int = 3, pdf: bool = True) -> dict:
    """`make` over every deck as a user runs it: once to build, then with nothing to do, then after one prose edit.

    Works in ``work/make``: a copy of the decks with the repository's Makefile, its .venv and
    node_modules linked, and setup files older than the setup stamps (a machine where setup is
    done). The execution caches in ``seeds`` (the per-deck benchmarks' build folders) are copied
    in, so the first build runs no kernel. Targets: the no-op `make` under 1 s; a one-deck prose
    edit through `make` within 10 % of `make DECK=NAME` after the same edit (that deck alone),
    rebuilding that deck's artefacts only.
    """
    from jaxdeck.html.assets import NODE_MODULES, ROOT

    project = work / "make"
    shutil.rmtree(project, ignore_errors=True)
    slides = project / "slides"
    slides.mkdir(parents=True)
    for deck in decks:
        shutil.copy(deck, slides / deck.name)
        for item in deck.parent.iterdir():  # images and data the decks use
            if item.is_dir() and not item.name.startswith("."):
                shutil.copytree(item, slides / item.name, dirs_exist_ok=True)
    (project / ".venv").symlink_to(Path(sys.prefix))
    (project / "node_modules").symlink_to(NODE_MODULES)
    for name in ("pyproject.toml", "package.json", "package-lock.json", "jupytext.toml"):
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, project / name)
            os.utime(project / name, (0, 0))
    for seed in seeds:
        for part in ("exec", "env"):
            if (seed / "cache" / part).is_dir():
                shutil.copytree(seed / "cache" / part, project / "build" / "cache" / part, dirs_exist_ok=True)
    target = "all" if pdf else "slides"
    make = ["make", "--no-print-directory", "-f", str(ROOT / "Makefile"), target]

    def timed(*extra: str) -> dict:
        before = _snapshot(project / "build")
        began = time.perf_counter()
        done = subprocess.run([*make, *extra], cwd=project, capture_output=True, text=True, timeout=1800)
        seconds = time.perf_counter() - began
        if done.returncode != 0:
            raise RuntimeError(f"make failed in {project}: {(done.stderr or done.stdout).strip()[-500:]}")
        after = _snapshot(project / "build")
        written = sorted(n for n in set(before) | set(after)
                         if before.get(n) != after.get(n) and not n.startswith("cache/"))
        report = [line for line in done.stdout.splitlines() if line.startswith("slides/")]
        return {"seconds": seconds, "report": report, "written": written}

    first = timed()
    noop = [timed() for _ in range(repeat)]
    deck = next((d for d in decks if d.name.startswith("01-")), decks[0])
    name = deck.stem
    prose_edit(slides / deck.name, 0)
    edit = timed()
    prose_edit(slides / deck.name, 1)
    alone = timed(f"DECK={name}")
    python = [sys.executable, "-m", "jaxdeck", "build"] + (["--pdf"] if pdf else [])
    noop_s = statistics.median(r["seconds"] for r in noop)
    touched = sorted({Path(n).name.lstrip(".").split(".")[0].removesuffix("-handout") for n in edit["written"]})
    return {
        "target": target, "decks": [d.name for d in decks], "first": first,
        "noop": {"median_s": noop_s, "runs": noop,
                 "startup_s": statistics.median(_run([sys.executable, "-c", "pass"])[0] for _ in range(3)),
                 **_import_costs(python, project)},
        "prose_edit": {"deck": name, "all_decks": edit, "deck_alone": alone,
                       "ratio": edit["seconds"] / alone["seconds"], "decks_rebuilt": touched},
        "targets": {"noop_make_lt_1s": noop_s < 1.0 and all(not r["written"] for r in noop),
                    "one_deck_edit_le_deck_alone": edit["seconds"] <= 1.1 * alone["seconds"] and touched == [name]},
    }


def timing_harness(out: Path) -> dict:
    """``python -m demos.bench --out build/bench`` when the demos package has one."""
    try:
        from importlib import util

        spec = util.find_spec("demos")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin or not (Path(spec.origin).parent / "bench.py").exists():
        return {"available": False, "why": "demos/bench.py not found"}
    try:
        seconds, rc, tail = _run([sys.executable, "-m", "demos.bench", "--out", str(out)], timeout=900)
    except subprocess.TimeoutExpired:
        return {"available": True, "ok": False, "why": "timed out after 900 s"}
    return {"available": True, "ok": rc == 0, "seconds": seconds, "returncode": rc, "tail": tail if rc else ""}


def run_bench(decks: list[Path], out: Path, *, generated: bool = True, repeat: int = 3, stock: bool = True,
              harness: bool = True, pdf: bool = True, make: bool = False, edit_loop: bool = False) -> dict:
    bench = out / "bench"
    work = bench / "work"
    work.mkdir(parents=True, exist_ok=True)
    sources = list(decks)
    if generated:
        gen = work / "source" / "generated-30.md"
        gen.parent.mkdir(parents=True, exist_ok=True)
        gen.write_text(generated_deck(30))
        sources.append(gen)
    report = {
        "when": datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {"hostname": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "environment": fingerprint.provenance(fingerprint.environment(work)),
        "decks": [],
    }
    for source in sources:
        print(f"bench: {source} ...", file=sys.stderr, flush=True)
        report["decks"].append(bench_deck(source, work, repeat=repeat, stock=stock, pdf=pdf))
    if make and decks:
        print("bench: make over every deck: nothing to do, then one prose edit ...", file=sys.stderr, flush=True)
        seeds = [work / Path(d["deck"]).stem / "build" for d in report["decks"]]
        report["make"] = bench_make(list(decks), work, seeds, repeat=repeat, pdf=pdf)
        # its own file too, as demos.bench writes timing.json: a partial bench run that rewrites build.json keeps it
        write_text(bench / "make.json", json.dumps(dict(report["make"], when=report["when"]), indent=1, default=str))
    if edit_loop and decks:
        from jaxdeck.bench.edit_loop import bench_edit_loop

        main = next((d for d in decks if d.name.startswith("01-")), decks[0])
        print(f"bench: the edit loop on {main}: --help, a prose edit from the CLI, the preview in Chromium ...",
              file=sys.stderr, flush=True)
        report["edit_loop"] = bench_edit_loop(main, work, repeat=repeat)
    if harness:
        print("bench: python -m demos.bench ...", file=sys.stderr, flush=True)
        report["timing_harness"] = timing_harness(bench)
    write_text(bench / "build.json", json.dumps(report, indent=1, default=str))
    return report


def _s(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _verdict(value) -> str:
    return "n/a" if value is None else ("PASS" if value else "FAIL")


def table(report: dict) -> str:
    rows = [("deck", "cells", "convert", "execute", "html", "pdf", "cold", "floor", "cold/floor",
             "prose", "prose/cold", "prose/html-only cold", "code", "ours cli", "stock", "ours/stock", "kernel MB")]
    for d in report["decks"]:
        cold, floor, stock = d["cold"], d["floor"], d.get("stock", {})
        rows.append((
            d["name"], str(d["code_cells"]), _s(cold["stages"]["convert"]), _s(cold["stages"]["execute"]),
            _s(cold["stages"]["export_html"]), _s(cold["stages"]["pdf"]), _s(cold["total_s"]), _s(floor["total_s"]),
            f"{cold['total_s'] / floor['total_s']:.2f}x" if floor["total_s"] else "-",
            _s(d["warm_prose"]["median_s"]), f"{100 * d['warm_prose']['median_s'] / cold['total_s']:.1f}%",
            f"{100 * d['warm_prose']['median_s'] / cold['build_s']:.1f}%",
            _s(d["warm_code"]["seconds"]), _s(d.get("cli_cold_s")), _s(stock.get("total_s")),
            f"{stock['ratio']:.2f}x" if "ratio" in stock else "-", _s(d.get("kernel_peak_rss_mb")),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append("seconds; cold = convert + execute + html + pdf as `make` runs them in one process, empty cache "
                 "(the environment probe and the browser launch overlap the kernel);")
    lines.append("floor = kernel start + sum of cell times (+ one browser print when the pdf stage ran);")
    lines.append("prose/code = warm rebuild (`make slides`: convert + cache + html) after a prose/code edit;")
    lines.append("prose/cold = against the whole cold build; prose/html-only cold = against convert + execute + html;")
    lines.append("ours cli vs stock = fresh processes, HTML only, empty cache; kernel MB = kernel peak RSS (VmHWM).")
    for d in report["decks"]:
        t = d["targets"]
        lines.append(f"{d['name']}: prose rebuild <= 10% of cold: {_verdict(t['prose_rebuild_le_10pct_cold'])}; "
                     f"cold <= 1.3x floor: {_verdict(t['cold_le_1.3x_floor'])}; "
                     f"cold <= stock: {_verdict(t['cold_le_stock'])}")
        if not d["pdf"].get("available"):
            lines.append(f"  pdf stage unavailable: {d['pdf'].get('why')}; one browser print alone: {_s(d['floor']['one_print_s'])} s")
        else:
            lines.append(f"  pdf export (slides + handout): {_s(d['pdf']['seconds'])} s; one browser print: {_s(d['floor']['one_print_s'])} s")
        if d.get("stock") and not d["stock"]["ok"]:
            lines.append(f"  stock pipeline failed: {(d['stock']['error'] or '').strip().splitlines()[-1:]}")
    made = report.get("make")
    if made:
        noop, edit = made["noop"], made["prose_edit"]
        lines.append(f"make {made['target']} over {len(made['decks'])} decks: first {_s(made['first']['seconds'])} s; "
                     f"nothing to do {_s(noop['median_s'])} s (files written: {max(len(r['written']) for r in noop['runs'])}; "
                     f"python start-up {_s(noop['startup_s'])} s, imports {_s(noop['imports_s'])} s, heaviest: "
                     + ", ".join(f"{h['module']} {h['seconds']:.2f}" for h in noop["heaviest"][:3]) + ")")
        lines.append(f"  prose edit of {edit['deck']}: make {_s(edit['all_decks']['seconds'])} s against "
                     f"make DECK={edit['deck']} {_s(edit['deck_alone']['seconds'])} s ({edit['ratio']:.2f}x), "
                     f"decks rebuilt: {', '.join(edit['decks_rebuilt']) or 'none'}")
        lines.append(f"  no-op make < 1 s: {_verdict(made['targets']['noop_make_lt_1s'])}; one-deck edit <= that deck "
                     f"alone (+10 %): {_verdict(made['targets']['one_deck_edit_le_deck_alone'])}")
    if report.get("edit_loop"):
        from jaxdeck.bench.edit_loop import table_lines

        lines.extend(table_lines(report["edit_loop"]))
    harness = report.get("timing_harness")
    if harness:
        lines.append(f"demos.bench: {'ok' if harness.get('ok') else harness.get('why') or 'failed'}"
                     + (f" ({_s(harness.get('seconds'))} s)" if harness.get("seconds") else ""))
    return "\n".join(lines)
