"""A deck named with a space, `my talk.md`, showing a picture named with one, works on every surface.

A URL spells the space ``%20`` while the file keeps it: each surface is opened where a user
opens it (the URL `preview` and `present` print, the files `build` writes) in a real Chromium,
and must show the deck with its picture: the preview with its reload script (a save reloads
it), the live slideshow from its real Jupyter server, the HTML deck, the self-contained file
and the article.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from jaxdeck.browser import script
from support import ROOT, run_cli

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

NAME = "my talk"
PICTURE = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>'
DECK = ("# Spaced out\n\nHello from a spaced name.\n\n```python\nprint('sum is', 2 + 3)\n```\n\n---\n\n"
        "## A picture\n\n![a box](<images/my box.svg>)\n\nNote: the box\n")
#: every picture of the page has loaded, and the box (the file, a copy of it or its data: URI) is among them
PICTURES_LOADED = """() => {
  const all = [...document.images];
  return all.some(i => i.alt === 'a box') && all.every(i => i.complete && i.naturalWidth > 0);
}"""


def a_repo(folder: Path) -> Path:
    """``folder`` with slides/my talk.md, slides/images/my box.svg and jupytext's settings, as the repository has."""
    (folder / "slides" / "images").mkdir(parents=True)
    (folder / "slides" / f"{NAME}.md").write_text(DECK)
    (folder / "slides" / "images" / "my box.svg").write_text(PICTURE)
    shutil.copy(ROOT / "jupytext.toml", folder / "jupytext.toml")
    return folder


@contextlib.contextmanager
def started(folder: Path, *args: str, pattern: str):
    """`python -m jaxdeck ARGS` in ``folder``, as a user starts it; yields (process, the first match of
    ``pattern`` in what it prints), reading the rest all along; stopped with Ctrl-C after."""
    process = subprocess.Popen([sys.executable, "-u", "-m", "jaxdeck", *args], cwd=folder,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    printed = threading.Event()

    def read() -> None:  # all along: a full pipe would stop the command at its next print
        for line in process.stdout:
            lines.append(line)
            if re.search(pattern, line):
                printed.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        printed.wait(120)  # a hang guard
        found = next((re.search(pattern, line) for line in lines if re.search(pattern, line)), None)
        assert found, "".join(lines)
        yield process, found
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(60)  # a hang guard
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(scope="module")
def spaced_build(tmp_path_factory):
    """`jaxdeck build "slides/my talk.md" --self-contained --article`: the HTML deck, the single file, the article."""
    folder = a_repo(tmp_path_factory.mktemp("spaces"))
    done = run_cli("build", f"slides/{NAME}.md", "--self-contained", "--article", cwd=folder, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "build"


def page_of(browser):
    """A new page, and the list of what it failed to load. A load the page itself cut short is no failure:
    the event stream a reload ends, a picture whose src JupyterLab's renderer replaced as it resolved it."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    failed: list[str] = []
    page.on("requestfailed",
            lambda r: failed.append(f"{r.failure} {r.url}") if r.failure != "net::ERR_ABORTED" else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return page, failed


@pytest.mark.parametrize("kind,ready", [("html", "reveal-ready.js"), ("single", "reveal-ready.js"),
                                        ("article", "article-ready.js")])
def test_the_built_files_show_the_deck_and_its_picture(browser, spaced_build, kind, ready):
    """build/html/my talk.html, build/single/my talk.html and build/article/my talk.html, opened from
    file:// as a user double-clicks them: laid out, with the cell's output and the picture."""
    path = spaced_build / kind / f"{NAME}.html"
    assert path.is_file()
    page, failed = page_of(browser)
    try:
        page.goto(path.as_uri())
        page.wait_for_function(script(ready), timeout=60000)
        page.wait_for_function(PICTURES_LOADED, timeout=30000)
        text = page.evaluate("document.body.textContent")
        assert "Hello from a spaced name." in text and "sum is 5" in text
    finally:
        page.close()
    assert failed == [], failed


def test_the_preview_serves_its_page_with_the_reload_script(browser, tmp_path):
    """`jaxdeck preview "slides/my talk.md"` prints /my%20talk.html?token=...; that page has the reload
    script, shows the picture, and a save reloads it."""
    repo = a_repo(tmp_path)
    deck = repo / "slides" / f"{NAME}.md"
    with started(repo, "preview", f"slides/{NAME}.md", "--no-browser", "--port", "0", "--out", "build",
                 pattern=r"(http://127\.0\.0\.1:\d+/my(?:%20| )talk\.html(?:\?token=[\w-]+)?)") as (process, found):
        url = found.group(1)
        page, failed = page_of(browser)
        try:
            page.goto(url)
            page.wait_for_function(script("reveal-ready.js"), timeout=60000)  # after the first build
            assert page.evaluate("document.querySelector('script[src=\"/_preview/reload.js\"]').dataset.deck") \
                == f"{NAME}.html"
            page.wait_for_function(PICTURES_LOADED, timeout=30000)
            page.evaluate("window.beforeTheSave = true")
            deck.write_text(DECK.replace("Hello from", "Hello again from"))
            page.wait_for_function(script("slide-shows.js"), arg=["Hello again from", True], timeout=30000,
                                   polling="raf")  # a hang guard
            assert page.evaluate("window.beforeTheSave") is None  # a real reload
        finally:
            page.close()
        assert failed == [], failed
        assert process.poll() is None
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/my%20talk\.html\?token=[\w-]+", url), url  # a URL to paste


def test_present_prints_a_slideshow_url_that_opens(browser, tmp_path):
    """`jaxdeck present "slides/my talk.md"` prints .../rise/slides/my%20talk.md?token=...; that URL
    opens the live slideshow of the deck from its real Jupyter server, picture and all."""
    repo = a_repo(tmp_path)
    with started(repo, "present", f"slides/{NAME}.md", "--no-browser", "--port", "0",
                 pattern=r"slideshow:\s+(http://127\.0\.0\.1:\d+/rise/slides/my%20talk\.md\?token=\S+)") \
            as (process, found):
        page, failed = page_of(browser)
        try:
            page.goto(found.group(1))
            page.wait_for_selector("body.jd-live-ready", timeout=90000)
            assert "Hello from a spaced name." in page.evaluate("document.body.textContent")
            page.wait_for_function(PICTURES_LOADED, timeout=30000)
        finally:
            page.close()
        assert failed == [], failed
        assert process.poll() is None
