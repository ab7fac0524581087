"""A real headless Chromium, driven by Playwright, for checks, tests and PDF export.

The browser is ``$CHROMIUM`` when that is set; otherwise the first Chromium-family browser
found (:func:`candidates`): by its usual names on PATH, then in /usr/bin, /usr/local/bin and
/snap/bin, then Google Chrome or Chromium in /Applications or ~/Applications (macOS), then
Playwright's own download (``python -m playwright install chromium``: ~/.cache/ms-playwright
on Linux, ~/Library/Caches/ms-playwright on macOS, or $PLAYWRIGHT_BROWSERS_PATH). With none,
a one-line DeckError says how to get one.

What a page runs comes from the theme's ``scripts/*.js`` (:func:`script`), one function per file,
so that a test, a check and a print all wait for the same things.

A page of a deck (opened, confined to its own files, served) is :mod:`jaxdeck.pages`'s.

A page answers in bounded time or is said to be stuck, in one line (:class:`PageStuck`, named
after the deck by :func:`about`): it loads within :data:`PAGE_S` (:func:`jaxdeck.pages.new_page`), and every
step on it (a script of the theme's, a print: :func:`run_script`, :func:`print_pdf`) finishes
within :data:`STEP_S`, or a :class:`Deadline` kills the browser under it, since Playwright gives
those calls no timeout and a deck's script that never ends would keep them waiting for ever.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import sys
import threading
from pathlib import Path
from typing import Iterator, Mapping

from jaxdeck.errors import DeckError
from jaxdeck.html.assets import THEMES
from jaxdeck.limits import check_file_size
from jaxdeck.orphans import private_folder, remove_private
from jaxdeck.stopping import end_tree, is_driver, marked

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
]

#: in the environment of the Chromium a :func:`chromium` starts, a value of its own (its profile folder)
BROWSER_MARK = "JAXDECK_BROWSER"
#: id of a started browser -> its mark
_MARKS: dict[int, str] = {}
#: ids of the started browsers a :class:`Deadline` ended
_ENDED: set[int] = set()
#: seconds a page may take to load and show its deck (a script that never ends keeps it from doing so);
#: ``JAXDECK_PAGE_TIMEOUT=N`` gives a slow machine more (or a test less)
PAGE_S = 30
PAGE_ENV = "JAXDECK_PAGE_TIMEOUT"
#: seconds one of the theme's scripts may run on a page, or a print take (a long deck's fit or print
#: takes seconds; this is for a page that stopped answering)
STEP_S = 180


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
    """A started headless browser (Playwright ``Browser``), closed on exit.

    Its processes carry :data:`BROWSER_MARK` in their environment, so that a :class:`Deadline`
    can end them (and their driver) when a page never answers; a browser ended so is not closed
    again. A file-size limit too small for Chromium (``ulimit -f``) is said first, in one line.
    """
    executable = find_chromium()  # or a DeckError, Playwright's absence included
    check_file_size("PDFs and fitted slides")
    from playwright.sync_api import sync_playwright

    profile = private_folder("jaxdeck-chromium-")  # swept by a later start if this process is killed
    try:
        with sync_playwright() as p:
            # its crash reports and desktop settings (XDG folders) go to the profile, removed below, not the home
            own = {name: profile for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")}
            browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS,
                                        env={**os.environ, **own, BROWSER_MARK: profile})
            _MARKS[id(browser)] = profile
            try:
                yield browser
            finally:
                if alive(browser):
                    browser.close()
                _MARKS.pop(id(browser), None)
                _ENDED.discard(id(browser))
    finally:
        remove_private(profile)


def alive(browser) -> bool:
    """Whether ``browser`` still runs: connected, and not ended by a :class:`Deadline` (whose kill
    Playwright may not have noticed yet: a call on it then waits for ever)."""
    return browser.is_connected() and id(browser) not in _ENDED


class PageStuck(DeckError):
    """A page that never became ready, or a step on it that never ended (a script of the deck's that loops).

    ``what`` is the step (``loading the page``, ``running fit.js``, ``printing the PDF``)."""

    def __init__(self, what: str, seconds: float, deck: str | Path | None = None):
        self.what, self.seconds = what, seconds
        super().__init__(deck, None, f"{what} took over {seconds:g} s in Chromium",
                         "a script in the deck (a raw <script>, an output's JavaScript) that never ends keeps the "
                         "page busy: fix or remove it, then build again")


class Deadline:
    """Inside, a step on a page of ``browser`` (``what``) that outlasts ``seconds`` ends the browser.

    Playwright gives some calls no timeout (a script evaluated, a print, a new page), and a page
    whose own script never ends never answers them. When the time is up, Chromium and its driver
    are killed: the call fails at once, and the block raises :class:`PageStuck`. The browser is
    gone then; whoever holds it starts another for what comes next.
    """

    def __init__(self, browser, what: str, seconds: float = STEP_S):
        self.browser, self.what, self.seconds = browser, what, seconds
        self.fired = threading.Event()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> "Deadline":
        self._timer = threading.Timer(self.seconds, self._end)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, kind, error, trace) -> None:
        self._timer.cancel()
        if self.fired.is_set() and (kind is None or issubclass(kind, Exception)):
            raise PageStuck(self.what, self.seconds) from None

    def _end(self) -> None:
        self.fired.set()
        end_browser(self.browser)


def end_browser(browser) -> None:
    """Kill a :func:`chromium`'s processes and its Playwright driver: every call waiting on it fails,
    and the browser is not closed again (:func:`alive` is false for it)."""
    mark = _MARKS.get(id(browser))
    if mark is None:
        return
    _ENDED.add(id(browser))
    found = marked(mark, BROWSER_MARK)
    drivers = []
    for process in found:
        with contextlib.suppress(Exception):
            parent = process.parent()
            if parent is not None and is_driver(parent) and parent not in drivers:
                drivers.append(parent)
    end_tree(known=found + drivers, grace=None, wait=1.0)


def page_seconds() -> float:
    """The seconds a page may take to load: :data:`PAGE_S`, or ``JAXDECK_PAGE_TIMEOUT`` when set."""
    given = os.environ.get(PAGE_ENV, "").strip()
    if not given:
        return PAGE_S
    try:
        seconds = float(given)
    except ValueError:
        seconds = 0
    if not 0 < seconds < 86400:
        raise DeckError(None, None, f"{PAGE_ENV}={given!r} is not a number of seconds",
                        f"give a positive number (the default is {PAGE_S}), or unset it")
    return seconds


def page_failed(err: Exception, what: str, seconds: float | None = None) -> Exception:
    """A Playwright error on a page as what it means to a user: a timeout is :class:`PageStuck`,
    a browser that closed under the call a DeckError saying so; anything else (a bug in a script of
    the theme's) is returned as it is."""
    from playwright.sync_api import Error, TimeoutError

    if isinstance(err, TimeoutError):
        return PageStuck(what, page_seconds() if seconds is None else seconds)
    if isinstance(err, Error) and ("closed" in str(err).lower() or "crash" in str(err).lower()):
        return DeckError(None, None, f"Chromium closed while {what}",
                         "it may have run out of memory (`dmesg` says) or been killed; build again")
    return err


@contextlib.contextmanager
def about(deck: str | Path | None):
    """Inside, a page's failure (:class:`PageStuck`, a Chromium that closed) is said naming ``deck``,
    the file the user knows, rather than the page Chromium was shown (None: as it is)."""
    try:
        yield
    except DeckError as err:
        if err.path is not None or deck is None:
            raise
        raise DeckError(deck, None, err.message, err.hint) from None


def script(name: str) -> str:
    """The source of one of the theme's browser scripts (``themes/jaxdeck/scripts/NAME``)."""
    return (SCRIPTS / name).read_text(encoding="utf-8")


def run_script(page, name: str, arg=None, seconds: float = STEP_S):
    """Evaluate the theme's script ``name`` on ``page`` (with ``arg``) within ``seconds`` (:class:`Deadline`)."""
    with Deadline(page.context.browser, f"running {name}", seconds):
        try:
            return page.evaluate(script(name), arg)
        except Exception as err:
            raise page_failed(err, f"running {name}", seconds) from None


def print_pdf(page, seconds: float = STEP_S, **options) -> bytes:
    """``page.pdf(**options)`` within ``seconds`` (:class:`Deadline`): a page kept busy never prints."""
    with Deadline(page.context.browser, "printing the PDF", seconds):
        try:
            return page.pdf(**options)
        except Exception as err:
            raise page_failed(err, "printing the PDF", seconds) from None


def add_style(page, css: str, seconds: float = STEP_S) -> None:
    """``page.add_style_tag(content=css)`` within ``seconds`` (:class:`Deadline`)."""
    with Deadline(page.context.browser, "styling the page", seconds):
        try:
            page.add_style_tag(content=css)
        except Exception as err:
            raise page_failed(err, "styling the page", seconds) from None


def fonts_ready(page) -> None:
    """Wait until the page's web fonts are loaded: a measurement or a print before that sees fallback metrics."""
    run_script(page, "fonts-ready.js")
