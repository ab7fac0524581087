"""A real headless Chromium, driven by Playwright, for checks, tests and PDF export.

The browser is found at ``$CHROMIUM``, then under common names on PATH, then
Playwright's own download; with none, a DeckError says how to get one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from jaxdeck.errors import DeckError

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

#: quiet, offline-friendly flags: no background calls home, no first-run UI
FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--allow-file-access-from-files",
]

HOW_TO_GET_ONE = ("install one: `sudo apt-get install chromium` (Debian/Ubuntu), or set CHROMIUM=/path/to/chrome; "
                  "without root, `.venv/bin/python -m playwright install chromium` where downloads are allowed")


def find_chromium() -> str:
    """Path of a Chromium-family browser, or a DeckError that says how to install one."""
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        if Path(explicit).is_file() or shutil.which(explicit):
            return shutil.which(explicit) or explicit
        raise DeckError(None, None, f"CHROMIUM={explicit} does not exist", HOW_TO_GET_ONE)
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            path = p.chromium.executable_path
        if path and Path(path).is_file():
            return path
    except Exception:
        pass
    raise DeckError(None, None, "no Chromium found (needed for PDF export and browser checks)", HOW_TO_GET_ONE)


@contextlib.contextmanager
def chromium() -> Iterator["object"]:
    """A started headless browser (Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright

    executable = find_chromium()
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
        page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=15000)
        yield page, requests
    finally:
        page.close()
