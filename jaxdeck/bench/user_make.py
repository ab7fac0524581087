"""`make` over every deck as a user runs it: once to build, then with nothing to do, then after one prose edit.

Where the no-op `make` spends its time (Python's start-up and the heaviest imports) is
measured too. Targets: the no-op `make` under 1 s, writing nothing; a one-deck prose edit
through `make` within 10 % of `make DECK=NAME` after the same edit, rebuilding that deck only.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from jaxdeck.bench.edits import copy_folders, prose_edit
from jaxdeck.bench.processes import run_timed


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else {}


def import_costs(command: list[str], cwd: Path) -> dict:
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


def make_project(decks: list[Path], project: Path, seeds: list[Path] = ()) -> None:
    """A copy of the decks as a set-up checkout: the Makefile's .venv and node_modules linked, setup files old.

    Setup files older than the setup stamps make `make` see a machine where setup is done.
    The execution caches in ``seeds`` (the per-deck benchmarks' build folders) are copied in,
    so the first build runs no kernel.
    """
    from jaxdeck.html.assets import NODE_MODULES, ROOT

    shutil.rmtree(project, ignore_errors=True)
    slides = project / "slides"
    slides.mkdir(parents=True)
    for deck in decks:
        shutil.copy(deck, slides / deck.name)
        copy_folders(deck.parent, slides)
    (project / ".venv").symlink_to(Path(sys.prefix))
    (project / "node_modules").symlink_to(NODE_MODULES)
    for name in ("pyproject.toml", "uv.lock", "requirements.lock", "package.json", "package-lock.json", "jupytext.toml"):
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, project / name)
            os.utime(project / name, (0, 0))
    for seed in seeds:
        for part in ("exec", "env"):
            if (seed / "cache" / part).is_dir():
                shutil.copytree(seed / "cache" / part, project / "build" / "cache" / part, dirs_exist_ok=True)


def bench_make(decks: list[Path], work: Path, seeds: list[Path] = (), repeat: int = 3, pdf: bool = True) -> dict:
    """Every `make` figure (see the module's docstring), in ``work/make``; make.json's content."""
    from jaxdeck.html.assets import ROOT

    project = work / "make"
    make_project(decks, project, seeds)
    target = "all" if pdf else "slides"
    # the linked .venv and node_modules are the checkout's own: never re-installed from the copy
    # (-o: even where a setup stamp is missing, make leaves setup alone)
    keep = ["-o", ".venv/.jaxdeck-installed", "-o", "node_modules/.jaxdeck-installed"]
    make = ["make", "--no-print-directory", *keep, "-f", str(ROOT / "Makefile"), target]

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
    prose_edit(project / "slides" / deck.name, 0)
    edit = timed()
    prose_edit(project / "slides" / deck.name, 1)
    alone = timed(f"DECK={name}")
    python = [sys.executable, "-m", "jaxdeck", "build"] + (["--pdf"] if pdf else [])
    noop_s = statistics.median(r["seconds"] for r in noop)
    touched = sorted({Path(n).name.lstrip(".").split(".")[0].removesuffix("-handout") for n in edit["written"]})
    return {
        "target": target, "decks": [d.name for d in decks], "first": first,
        "noop": {"median_s": noop_s, "runs": noop,
                 "startup_s": statistics.median(run_timed([sys.executable, "-c", "pass"])[0] for _ in range(3)),
                 **import_costs(python, project)},
        "prose_edit": {"deck": name, "all_decks": edit, "deck_alone": alone,
                       "ratio": edit["seconds"] / alone["seconds"], "decks_rebuilt": touched},
        "targets": {"noop_make_lt_1s": noop_s < 1.0 and all(not r["written"] for r in noop),
                    "one_deck_edit_le_deck_alone": edit["seconds"] <= 1.1 * alone["seconds"] and touched == [name]},
    }
