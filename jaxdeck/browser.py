"""A real headless Chromium, driven by Playwright, for checks, tests and PDF export.

The browser is ``$CHROMIUM`` when that is set; otherwise the first Chromium-family browser
found (:func:`candidates`): by its usual names on PATH, then in /usr/bin, /usr/local/bin and
/snap/bin, then Google Chrome or Chromium in /Applications or ~/Applications (macOS), then
Playwright's own download (``python -m playwright install chromium``: ~/.cache/ms-playwright
on Linux, ~/Library/Caches/ms-playwright on macOS, or $PLAYWRIGHT_BROWSERS_PATH). With none,
a one-line DeckError says how to get one.

What a page runs comes from the theme's ``scripts/*.js`` (:func:`script`), one function per file,
so that a test, a check and a print all wait for the same things.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Mapping

from jaxdeck.errors import DeckError
from jaxdeck.html.assets import THEMES

#: where the fixed places (/usr/bin, /snap/bin, /Applications) lie; tests point it at a fake tree
SYSTEM_ROOT = Path("/")
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
#: system folders searched by name even when PATH leaves them out (under SYSTEM_ROOT)
SYSTEM_DIRS = ("usr/bin", "usr/local/bin", "snap/bin")
#: macOS applications, under /Applications and ~/Applications
MAC_APPS = ("Google Chrome.app/Contents/MacOS/Google Chrome", "Chromium.app/Contents/MacOS/Chromium",
            "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing")
#: Playwright's downloads inside its cache folder, newest revision first; the full browser before the headless shell
PLAYWRIGHT_BUILDS = (
    ("chromium-*", ("chrome-linux64/chrome", "chrome-linux-arm64/chrome", "chrome-linux/chrome",
                    "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
                    "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
                    "chrome-mac/Chromium.app/Contents/MacOS/Chromium")),
    ("chromium_headless_shell-*", ("chrome-headless-shell-linux64/chrome-headless-shell",
                                   "chrome-headless-shell-linux-arm64/chrome-headless-shell",
                                   "chrome-linux/headless_shell",
                                   "chrome-headless-shell-mac-arm64/chrome-headless-shell",
                                   "chrome-headless-shell-mac-x64/chrome-headless-shell",
                                   "chrome-mac/headless_shell")),
)

#: the browser scripts pages run (Playwright evaluates each file's one function)
SCRIPTS = THEMES / "jaxdeck" / "scripts"

#: quiet, offline-friendly flags: no background calls home, no first-run UI
FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--allow-file-access-from-files",
]


def how_to_get_one() -> str:
    """What to do without a Chromium, for this platform, in one line."""
    python = sys.executable
    with contextlib.suppress(ValueError):
        python = str(Path(sys.executable).relative_to(Path.cwd()))
    system = ("install Google Chrome" if sys.platform == "darwin"
              else "install one: `sudo apt-get install chromium` (Debian/Ubuntu)")
    return (f"{system}, or set CHROMIUM=/path/to/chrome, "
            f"or run `{python} -m playwright install chromium` where downloads are allowed")



def _revision(folder: Path) -> int:
    number = re.search(r"(\d+)$", folder.name)
    return int(number.group(1)) if number else -1


def playwright_caches(environ: Mapping[str, str], home: Path) -> list[Path]:
    """Where ``playwright install`` puts browsers: $PLAYWRIGHT_BROWSERS_PATH, else the per-user caches."""
    chosen = environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if chosen == "0":  # inside the playwright package
        with contextlib.suppress(ImportError):
            import playwright

            return [Path(playwright.__file__).parent / "driver" / "package" / ".local-browsers"]
        return []
    if chosen:
        return [Path(chosen).expanduser()]
    linux = Path(environ["XDG_CACHE_HOME"]) if environ.get("XDG_CACHE_HOME") else home / ".cache"
    return [linux / "ms-playwright", home / "Library" / "Caches" / "ms-playwright"]


def candidates(environ: Mapping[str, str] | None = None, root: Path | None = None) -> Iterator[Path]:
    """Every place a Chromium may be, in the order they are tried (``root``: where /usr, /snap, /Applications lie)."""
    environ = os.environ if environ is None else environ
    root = SYSTEM_ROOT if root is None else root
    home = Path(environ.get("HOME") or Path.home())
    path = environ.get("PATH", os.defpath)
    for name in NAMES:
        found = shutil.which(name, path=path)
        if found:
            yield Path(found)
    for folder in SYSTEM_DIRS:
        for name in NAMES:
            yield root / folder / name
    for applications in (root / "Applications", home / "Applications"):
        for app in MAC_APPS:
            yield applications / app
    for cache in playwright_caches(environ, home):
        for pattern, executables in PLAYWRIGHT_BUILDS:
            for build in sorted(cache.glob(pattern), key=_revision, reverse=True):
                for executable in executables:
                    yield build / executable


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_chromium(environ: Mapping[str, str] | None = None, root: Path | None = None) -> str:
    """Path of a Chromium-family browser, or a DeckError that says how to install one (or Playwright,
    which drives it: the ``browser`` extra, which a plain ``pip install jaxdeck`` leaves out)."""
    if importlib.util.find_spec("playwright") is None:
        raise DeckError(None, None, "no Playwright to drive a Chromium (needed for PDF export and browser checks)",
                        "pip install 'jaxdeck[browser]' (make installs it)")
    environ = os.environ if environ is None else environ
    explicit = environ.get("CHROMIUM")
    if explicit:
        found = shutil.which(explicit, path=environ.get("PATH", os.defpath)) or explicit
        if _runnable(Path(found)):
            return found
        problem = "is not an executable file" if Path(found).exists() else "does not exist"
        raise DeckError(None, None, f"CHROMIUM={explicit} {problem}", how_to_get_one())
    for place in candidates(environ, root):
        if _runnable(place):
            return str(place)
    raise DeckError(None, None, "no Chromium found (needed for PDF export and browser checks)", how_to_get_one())


@contextlib.contextmanager
def given_or_started(browser=None) -> Iterator["object"]:
    """``browser`` when a caller has one running, else a :func:`chromium` started for the block."""
    if browser is not None:
        yield browser
        return
    with chromium() as started:
        yield started


@contextlib.contextmanager
def chromium() -> Iterator["object"]:
    """A started headless browser (Playwright ``Browser``), closed on exit."""
    executable = find_chromium()  # or a DeckError, Playwright's absence included
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="jaxdeck-chromium-")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def script(name: str) -> str:
    """The source of one of the theme's browser scripts (``themes/jaxdeck/scripts/NAME``)."""
    return (SCRIPTS / name).read_text(encoding="utf-8")


def fonts_ready(page) -> None:
    """Wait until the page's web fonts are loaded: a measurement or a print before that sees fallback metrics."""
    page.evaluate(script("fonts-ready.js"))


@contextlib.contextmanager
def open_deck(browser, html: str | Path, query: str = "", width: int = 1280, height: int = 720) -> Iterator[tuple]:
    """Open an HTML deck from file:// and wait for reveal.js; yields (page, requests).

    ``requests`` collects every URL the page asked for that is not a local file,
    so callers can assert that the deck works offline.
    """
    page = browser.new_page(viewport={"width": width, "height": height})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:", "blob:", "about:")) else None)
    url = Path(html).resolve().as_uri() + query
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function(script("reveal-ready.js"), timeout=15000)
        yield page, requests
    finally:
        page.close()
