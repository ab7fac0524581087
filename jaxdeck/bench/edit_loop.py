"""The edit loop's benchmark (part of `make bench`): how long an author waits between a save and the result.

On a copy of one deck (the main seminar), under ``build/bench/work/edit-loop/``:

- ``jaxdeck --help`` as a fresh process, against ``python -c pass``; the cost of
  ``import nbformat`` with and without jsonschema's rfc3987_syntax grammars;
- from the command line: a cold ``jaxdeck build`` (empty cache) and the rebuild after a
  one-sentence edit, as fresh processes; the goal is at most 10 % of the cold build;
- ``jaxdeck preview`` in a real headless Chromium: from the write of the file to the
  moment the new text shows on the slide on show, for a prose edit (goal under 1 s) and
  for an edit of one code cell (goal: that cell's own run time plus 1 s), and whether the
  page stayed at its slide.

Figures only: nothing here is asserted by the unit tests; :mod:`jaxdeck.bench.report` prints them.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from jaxdeck.bench.edits import copy_deck
from jaxdeck import markers
from jaxdeck.records import cell_info

PROSE_TARGET = 0.10
PREVIEW_PROSE_TARGET_S = 1.0
PREVIEW_CODE_SLACK_S = 1.0


def _timed(command: list[str], cwd: Path, timeout: float = 900) -> tuple[float, subprocess.CompletedProcess]:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - began, done


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def cli_start(work: Path, repeat: int = 5) -> dict:
    """``jaxdeck --help`` against bare Python, and what jsonschema's grammars cost an nbformat import."""
    python = sys.executable
    help_s = _median(_timed([python, "-m", "jaxdeck", "--help"], work)[0] for _ in range(repeat))
    python_s = _median(_timed([python, "-c", "pass"], work)[0] for _ in range(repeat))
    stock = _median(_timed([python, "-c", "import nbformat"], work)[0] for _ in range(repeat))
    ours = _median(_timed([python, "-c", "import sys; sys.modules['rfc3987_syntax'] = None; import nbformat"], work)[0]
                   for _ in range(repeat))
    return {"help_s": help_s, "python_s": python_s, "import_nbformat_s": stock,
            "import_nbformat_without_rfc3987_syntax_s": ours}


def cli_prose(deck: Path, root: Path, repeat: int = 3) -> dict:
    """A cold `jaxdeck build` and the rebuilds after one-sentence edits, each a fresh process."""
    command = [sys.executable, "-m", "jaxdeck", "build", deck.name, "--out", str(root)]
    shutil.rmtree(root, ignore_errors=True)
    cold, done = _timed(command, deck.parent)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout).strip()[-500:]}
    runs = []
    for k in range(repeat):
        deck.write_text(deck.read_text() + f"\nOne more sentence, number {k}.\n")
        seconds, done = _timed(command, deck.parent)
        runs.append({"seconds": seconds, "report": done.stdout.strip(), "ok": done.returncode == 0})
    prose = _median(r["seconds"] for r in runs)
    return {"cold_s": cold, "prose_s": prose, "fraction": prose / cold if prose and cold else None, "runs": runs}


def pick_cell(deck: Path, notebook: Path) -> dict | None:
    """The quickest code cell that shows an output, with the heading of its slide above it and no break between."""
    import nbformat

    lines = deck.read_text().splitlines()
    nb = nbformat.read(notebook, as_version=4)
    best = None
    for cell in nb.cells:
        info = cell_info(cell)
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code" or not cell.get("outputs") or cell.metadata.get("highlight") or tags:
            continue
        fence = info.get("line")
        if not fence or "duration_s" not in info:
            continue
        heading = None
        for number in range(fence - 1, 0, -1):
            text = lines[number - 1].strip()
            if markers.is_marker(text) or text.startswith("```"):
                break
            if re.match(r"#{1,6} \S", text):
                heading = number
                break
        if heading is None:
            continue
        close = next((n for n in range(fence + 1, len(lines) + 1) if lines[n - 1].startswith("```")), None)
        if close is None:
            continue
        if best is None or info["duration_s"] < best["duration_s"]:
            best = {"fence": fence, "close": close, "heading": heading, "duration_s": info["duration_s"],
                    "slide": info.get("slide")}
    return best


def _state(url: str) -> dict:
    """The preview's state, asked with the token of its ``url`` (``.../NAME.html?token=...``)."""
    page = urllib.parse.urlsplit(url)
    state = page._replace(path=page.path.rsplit("/", 1)[0] + "/_preview/state")
    with urllib.request.urlopen(urllib.parse.urlunsplit(state), timeout=10) as response:
        return json.loads(response.read())


def _wait(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"gave up waiting for {what}")
        time.sleep(0.1)


def preview_latency(deck: Path, root: Path, cell: dict, repeat: int = 3, browser=None) -> dict:
    """Save-to-visible seconds in a real headless Chromium, for prose edits and one-cell code edits.

    ``browser``: a started Playwright browser to use (one process can drive only one); else one is started.
    """
    from jaxdeck.browser import chromium, script

    process = subprocess.Popen([sys.executable, "-m", "jaxdeck", "preview", deck.name, "--no-browser", "--port", "0",
                                "--out", str(root)], cwd=deck.parent, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        found = re.search(r"(http://127\.0\.0\.1:\d+/\S+\.html\?token=\S+)", process.stdout.readline())
        if not found:
            return {"error": "the preview printed no URL"}
        url = found.group(1)
        _wait(lambda: _state(url)["version"] >= 1 and _state(url)["kernel"] == "ready", 900, "the warm kernel")
        result: dict = {"prose": [], "code": []}
        with (contextlib.nullcontext(browser) if browser is not None else chromium()) as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(url, wait_until="load")
            page.wait_for_function(script("reveal-ready.js"), timeout=60000)
            lines = deck.read_text().splitlines()
            heading = lines[cell["heading"] - 1]
            # go to the slide of the cell: the section whose heading is the cell's slide's heading
            page.evaluate(script("go-to-heading.js"), heading)
            where = page.evaluate(script("slide-indices.js"))
            for kind in ("prose", "code"):
                for k in range(repeat):
                    lines = deck.read_text().splitlines()
                    mark = f"edit-loop {kind} {k}"
                    if kind == "prose":
                        lines[cell["heading"] - 1] = f"{heading} ({mark})"
                    else:
                        lines.insert(cell["close"] - 1, f"print({mark!r})")
                    began = time.time()
                    deck.write_text("\n".join(lines) + "\n")
                    page.wait_for_function(script("slide-shows.js"), arg=[mark, True], timeout=120000, polling="raf")
                    seconds = time.time() - began
                    page.wait_for_function(script("reveal-ready.js"), timeout=60000)
                    kept = page.wait_for_function(script("slide-h.js"), timeout=60000).json_value() == where["h"]
                    state = _state(url)
                    result[kind].append({"seconds": seconds, "did": state["did"], "ran_s": state["ran_s"],
                                         "kept_slide": kept})
                    if kind == "code":  # take the line out again, so that every edit changes the cell by one line
                        lines.pop(cell["close"] - 1)
                        deck.write_text("\n".join(lines) + "\n")
                        page.wait_for_function(script("slide-shows.js"), arg=[mark, False], timeout=120000)
                        page.wait_for_function(script("reveal-ready.js"), timeout=120000)
                    time.sleep(0.3)
            page.close()
        for kind in ("prose", "code"):
            result[f"{kind}_s"] = _median(r["seconds"] for r in result[kind])
        result["code_cell_s"] = _median(r["ran_s"] for r in result["code"])
        result["kept_slide"] = all(r["kept_slide"] for r in result["prose"] + result["code"])
        return result
    finally:
        process.terminate()
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def bench_edit_loop(source: Path, work: Path, repeat: int = 3, browser=None) -> dict:
    """Every figure of the edit loop on a copy of ``source`` (see the module's docstring); ``browser``: see preview_latency."""
    folder = (work / "edit-loop").resolve()  # the commands run in the deck's folder
    deck = copy_deck(source, folder)
    root = folder / "build"
    result: dict = {"deck": str(source), "cli_start": cli_start(folder)}
    result["cli_prose"] = cli_prose(deck, root, repeat)
    cell = pick_cell(deck, root / "notebooks" / f"{deck.stem}.ipynb") if "error" not in result["cli_prose"] else None
    result["cell"] = cell
    try:
        result["preview"] = preview_latency(deck, root, cell, repeat, browser) if cell else {"error": "no code cell to edit"}
    except Exception as err:  # no browser, or a preview that failed: the other figures still count
        result["preview"] = {"error": f"{type(err).__name__}: {str(err)[:300]}"}
    prose, preview = result["cli_prose"], result["preview"]
    result["targets"] = {
        "cli_prose_le_10pct_cold": prose["fraction"] <= PROSE_TARGET if prose.get("fraction") else None,
        "preview_prose_lt_1s": preview["prose_s"] < PREVIEW_PROSE_TARGET_S if preview.get("prose_s") else None,
        "preview_code_le_cell_plus_1s": preview["code_s"] <= preview["code_cell_s"] + PREVIEW_CODE_SLACK_S
        if preview.get("code_s") is not None and preview.get("code_cell_s") is not None else None,
        "preview_kept_slide": preview.get("kept_slide"),
    }
    return result

