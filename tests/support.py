"""What test modules share besides fixtures: the repository, its decks, and the CLI run as a user runs it.

A module of its own (not conftest.py) so that folders with a conftest of their own import the same one.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jaxdeck.decks import find_decks  # noqa: E402

#: the environment the session started with: what a tested build sees, whatever a test process imported since
#: (``import jax`` sets TF_CPP_MIN_LOG_LEVEL) or an in-process test left behind
ENVIRONMENT = dict(os.environ)

DECKS = find_decks(None, ROOT / "slides")
#: the tutorial notebooks (MyST and jupytext Markdown) that must become decks too
NOTEBOOKS = sorted((ROOT / "tests" / "fixtures" / "notebooks").glob("*.md"))
#: the remote badge of md_random_numbers.md, served from the build's image cache (no network in tests)
BADGE = "https://img.shields.io/badge/runs%20on-CPU-informational"
BADGE_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="90" height="20"><rect width="90" height="20" fill="#07c"/></svg>'


def deck_id(path: Path) -> str:
    return path.stem


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 600):
    """Run `python -m jaxdeck ...` as a user would; returns the CompletedProcess."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "jaxdeck", *args], cwd=cwd or ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def built_repo(root: Path, deck: Path, files: dict[str, str] | None = None) -> Path:
    """``root`` made a repository holding ``deck`` as ``slides/talk.md`` (the files it reads beside it,
    ``files``: name -> text) and the project's jupytext.toml, the deck built there by the CLI."""
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    (root / "slides").mkdir()
    shutil.copy(deck, root / "slides" / "talk.md")
    for name, text in (files or {}).items():
        (root / "slides" / name).write_text(text)
    built = run_cli("build", "slides/talk.md", cwd=root)
    assert built.returncode == 0, built.stdout + built.stderr
    return root


@contextlib.contextmanager
def presenting(repo: Path, deck: str, env: dict | None = None):
    """`python -m jaxdeck present DECK --port 0 --no-browser` in ``repo``, as a presenter starts it (``env``:
    variables of its own, this process's left as they are); yields {"process", "base", "token"} and stops it
    with Ctrl-C."""
    import pytest

    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    process = subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", "present", deck,
                                "--port", "0", "--no-browser"], cwd=repo, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url, lines, deadline = None, [], time.monotonic() + 120
    while url is None and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(r"slideshow:\s+(http://127\.0\.0\.1:\d+)/rise/\S+\?token=(\S+)", line)
        if found:
            url = found.groups()
    if url is None:
        process.kill()
        pytest.fail("no slideshow URL printed:\n" + "".join(lines))
    try:
        yield {"process": process, "base": url[0], "token": url[1]}
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)


@contextlib.contextmanager
def previewing(folder: Path, *options: str, env: dict | None = None):
    """`python -m jaxdeck preview slides/talk.md --port 0 --out build OPTIONS` run in ``folder`` as a user
    starts it; yields (process, the match of its first line's URL: group 1 the URL, 2 the port, 3 the
    token). What it prints after is read all along: a full pipe would stop the preview at its next print."""
    import threading

    process = subprocess.Popen([sys.executable, "-m", "jaxdeck", "preview", "slides/talk.md", "--port", "0",
                                "--out", "build", *options], cwd=folder,
                               env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rest: list[str] = []
    process.printed = rest  # what it printed after its first line, for a failing test's message
    drain = threading.Thread(target=lambda: rest.extend(process.stdout), daemon=True)
    process.drain = drain  # joined: all it printed before it closed its output is in ``printed``
    try:
        line = process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+)/talk\.html(?:\?token=([\w-]+))?)", line)
        assert found, line
        drain.start()
        yield process, found
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)
        if drain.is_alive():
            drain.join(10)


#: run as ``python -c ... ARGS``: jaxdeck's CLI with a thread that, once the file ``JAXDECK_TEST_GO`` names
#: exists, sends SIGTERM to itself alone, as the kernel may hand a signal meant for the process to any thread
SIGNAL_IN_A_THREAD = """
import os, signal, sys, threading, time
import jaxdeck.cli as cli
def send():
    while not os.path.exists(os.environ["JAXDECK_TEST_GO"]):
        time.sleep(0.05)
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
threading.Thread(target=send, daemon=True).start()
sys.exit(cli.main(sys.argv[1:]))
"""


def command_line(process) -> str:
    """A process's command line, or "" once it has ended: a child listed a moment ago may be a zombie by now."""
    import psutil

    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def is_kernel(process) -> bool:
    """A Jupyter kernel: ipykernel's launcher (the live server's), or the one a build starts (``execute/launch.py``)."""
    line = command_line(process)
    return "ipykernel" in line or "jaxdeck/execute/launch.py" in line.replace("\\", "/")


def kernels_under(pid: int) -> list:
    """The kernel processes among ``pid``'s descendants that are still running."""
    import psutil

    return [p for p in psutil.Process(pid).children(recursive=True) if is_kernel(p)]


def wait_for(predicate, seconds: float, what: str) -> None:
    """Poll ``predicate`` until it holds; an AssertionError naming ``what`` after ``seconds`` (a hang guard for
    the test, not a performance budget)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"gave up after {seconds:.0f} s waiting for {what}")
        time.sleep(0.05)


def still_running(pids: list[int]) -> list[int]:
    """Those of ``pids`` that are running: gone and zombie (ended, not yet reaped) both count as stopped."""
    import psutil

    left = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                left.append(pid)
        except psutil.NoSuchProcess:
            pass
    return left


#: set to a value of a test's own in a command's environment: every process it starts inherits it,
#: also one handed to init (a Chromium helper), so :func:`started_by` finds what the command left behind
RUN_MARK = "JAXDECK_TEST_RUN"


def started_by(mark: str, wait: float = 2.0) -> list:
    """The running processes whose environment holds ``RUN_MARK=mark``; waits up to ``wait`` s for them to go
    (init reaps what it was handed)."""
    import psutil

    deadline = time.monotonic() + wait
    while True:
        found = []
        for process in psutil.process_iter():
            try:
                if process.environ().get(RUN_MARK) == mark and process.status() != psutil.STATUS_ZOMBIE:
                    found.append(process)
            except (psutil.Error, OSError):
                continue
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def end_started_by(mark: str) -> None:
    """Kill every process a marked command started (a test's hang guard cleaning up after it)."""
    import psutil

    for process in started_by(mark, wait=0):
        with contextlib.suppress(psutil.Error):
            process.kill()


@contextlib.contextmanager
def live_page(browser, server: dict, deck_name: str):
    """``slides/DECK_NAME`` in the live slideshow of ``server`` (from :func:`presenting`) at
    1280x720, once it is laid out; closed after."""
    from jaxdeck.browser import fonts_ready

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{server['base']}/rise/slides/{deck_name}?token={server['token']}")
        page.wait_for_selector("body.jd-live-ready", timeout=90000)
        fonts_ready(page)
        yield page
    finally:
        page.close()


def evaluate_live(browser, server: dict, deck_name: str, script: str):
    """What ``script`` evaluates to on a :func:`live_page`."""
    with live_page(browser, server, deck_name) as page:
        return page.evaluate(script)


def luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0-255 channels)."""
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 to 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def with_theme(text: str, theme: str) -> str:
    """A deck's text with ``theme:`` added to its header where jupytext writes it (keys in alphabetical order)."""
    header, body = text.split("\n---\n", 1)
    lines = header.split("\n")
    keys = [i for i, line in enumerate(lines) if re.match(r"    [a-z_]+:", line)]
    at = next((i for i in keys if lines[i].strip().split(":")[0] > "theme"), keys[-1] + 1)
    lines.insert(at, f"    theme: {theme}")
    return "\n".join(lines) + "\n---\n" + body


def bare_venv(folder: Path) -> Path:
    """A venv with no packages and no pip (pip from this venv installs into it: ``pip --python``); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    return folder / "bin" / "python"


def see_the_project(python: Path, *first: Path) -> None:
    """Let ``python``'s venv import, after its own packages, ``first`` then the project venv's (a ``.pth``;
    the ``.pth`` files in those folders are not run), with the project venv's share/jupyter (nbconvert's
    templates). Call it after installing what must shadow the project's: pip then never sees those as present."""
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    here = sysconfig.get_paths()
    folders = dict.fromkeys([*map(str, first), here["purelib"], here["platlib"]])
    (site / "zz-project.pth").write_text("".join(f"{f}\n" for f in folders), encoding="utf-8")
    share = python.parent.parent / "share"
    share.mkdir(exist_ok=True)
    (share / "jupyter").symlink_to(Path(sys.prefix) / "share" / "jupyter")


def selects_heavy(markexpr: str) -> bool:
    """Whether ``-m markexpr`` can keep a test marked ``heavy`` (with any of the other marks it names): every
    test that takes a built deck is heavy, so a run that leaves them all out (``make test-quick``) needs no
    deck built before it starts."""
    if not markexpr:
        return True
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # another pytest's layout: build the decks, as a run of everything would
        return True
    expression = Expression.compile(markexpr)
    others = sorted(set(re.findall(r"[A-Za-z_]\w*", markexpr)) - {"and", "or", "not", "heavy"})
    return any(expression.evaluate(lambda name, **_: name == "heavy" or name in chosen)
               for chosen in ({n for k, n in enumerate(others) if mask >> k & 1} for mask in range(2 ** len(others))))


def left_behind(repo: Path) -> list[str]:
    """Processes still running in ``repo`` (a server, a kernel, a browser started there)."""
    import psutil

    found = []
    for process in psutil.process_iter(["pid", "cwd", "cmdline"]):
        try:
            if process.info["cwd"] and Path(process.info["cwd"]).resolve().is_relative_to(repo):
                found.append(" ".join(process.info["cmdline"] or [])[:120])
        except (psutil.Error, ValueError, OSError):
            pass
    return found


def left_behind_after(repo: Path, within: float = 10) -> list[str]:
    """What is still running in ``repo`` once ``within`` seconds have passed or nothing is (a process on its
    way out takes a moment to go)."""
    deadline = time.monotonic() + within
    while left_behind(repo) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left_behind(repo)


#: names of the browsers jaxdeck could find on PATH (jaxdeck.browser looks for these and more)
BROWSER_NAMES = re.compile(r"chrom|chrome|headless_shell", re.I)


def without_browser(folder: Path) -> dict[str, str]:
    """The environment of a box with no Chromium: ``CHROMIUM`` unset, Playwright's own browsers looked for
    in an empty folder, and each PATH folder that holds a browser replaced by one (in ``folder``) of
    links to everything else in it."""
    env = {key: value for key, value in os.environ.items() if key != "CHROMIUM"}
    env["PYTHONPATH"] = str(ROOT)
    (folder / "no-browsers").mkdir(parents=True, exist_ok=True)
    env["PLAYWRIGHT_BROWSERS_PATH"] = str(folder / "no-browsers")
    parts = []
    for number, part in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        place = Path(part)
        if not part or not place.is_dir():
            continue
        names = [entry.name for entry in place.iterdir()]
        if not any(BROWSER_NAMES.search(name) for name in names):
            parts.append(part)
            continue
        mirror = folder / f"path-{number}"
        mirror.mkdir(parents=True, exist_ok=True)
        for name in names:
            if not BROWSER_NAMES.search(name) and not (mirror / name).exists():
                (mirror / name).symlink_to(place / name)
        parts.append(str(mirror))
    env["PATH"] = os.pathsep.join(parts)
    return env


#: run as ``python -c BLOCKED ARGS``: ``python -m jaxdeck ARGS`` where neither jaxdeck.browser nor Playwright
#: can be imported (as from a wheel installed without the browser extra): a path that imports either fails
WITHOUT_BROWSER_MODULES = """
import runpy, sys
for name in ("jaxdeck.browser", "playwright", "playwright.sync_api", "playwright.async_api"):
    sys.modules[name] = None
runpy.run_module("jaxdeck", run_name="__main__", alter_sys=True)
"""
