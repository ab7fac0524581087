"""Finding a Chromium: every place jaxdeck looks, and what a build does when there is none.

Each rule is checked with a real executable file placed where the rule looks, in a fake
file system (``root`` for /usr, /snap and /Applications, a fake HOME and PATH), found by
the real :func:`jaxdeck.browser.find_chromium`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from jaxdeck.browser import find_chromium
from jaxdeck.errors import DeckError
from support import run_cli

ROOT = Path(__file__).resolve().parent.parent

PLAYWRIGHT_LINUX = "home/.cache/ms-playwright"
PLAYWRIGHT_MAC = "home/Library/Caches/ms-playwright"
TESTING_APP = "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"

#: (rule, where the browser lies below tmp_path, extra environment)
PLACES = [
    ("on PATH", "path/chromium", {}),
    ("google-chrome-stable on PATH", "path/google-chrome-stable", {}),
    ("/usr/bin", "root/usr/bin/chromium-browser", {}),
    ("/usr/local/bin", "root/usr/local/bin/google-chrome", {}),
    ("/snap/bin", "root/snap/bin/chromium", {}),
    ("/Applications Chrome", "root/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", {}),
    ("/Applications Chromium", "root/Applications/Chromium.app/Contents/MacOS/Chromium", {}),
    ("~/Applications Chrome", "home/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", {}),
    ("~/Applications Chromium", "home/Applications/Chromium.app/Contents/MacOS/Chromium", {}),
    ("playwright linux (old layout)", f"{PLAYWRIGHT_LINUX}/chromium-1140/chrome-linux/chrome", {}),
    ("playwright linux64", f"{PLAYWRIGHT_LINUX}/chromium-1255/chrome-linux64/chrome", {}),
    ("playwright headless shell", f"{PLAYWRIGHT_LINUX}/chromium_headless_shell-1255/"
                                  "chrome-headless-shell-linux64/chrome-headless-shell", {}),
    ("playwright XDG_CACHE_HOME", "xdg/ms-playwright/chromium-1255/chrome-linux64/chrome", {"XDG_CACHE_HOME": "xdg"}),
    ("playwright macOS (old layout)", f"{PLAYWRIGHT_MAC}/chromium-1140/chrome-mac/Chromium.app/Contents/MacOS/Chromium", {}),
    ("playwright macOS arm64", f"{PLAYWRIGHT_MAC}/chromium-1255/chrome-mac-arm64/{TESTING_APP}", {}),
    ("playwright macOS x64", f"{PLAYWRIGHT_MAC}/chromium-1255/chrome-mac-x64/{TESTING_APP}", {}),
    ("PLAYWRIGHT_BROWSERS_PATH", "browsers/chromium-1255/chrome-linux64/chrome", {"PLAYWRIGHT_BROWSERS_PATH": "browsers"}),
]


def executable(path: Path, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(mode)
    return path


@pytest.fixture
def place(tmp_path):
    """A fake file system: (environ, root) with an empty PATH folder and an empty HOME."""
    for folder in ("path", "home", "root"):
        (tmp_path / folder).mkdir()
    environ = {"PATH": str(tmp_path / "path"), "HOME": str(tmp_path / "home")}
    return environ, tmp_path / "root"


@pytest.mark.parametrize("rule, where, extra", PLACES, ids=[p[0] for p in PLACES])
def test_each_place_is_found(tmp_path, place, rule, where, extra):
    environ, root = place
    browser = executable(tmp_path / where)
    environ.update({key: str(tmp_path / value) for key, value in extra.items()})
    assert find_chromium(environ, root) == str(browser)


def test_nothing_found_says_how_to_get_one(place):
    environ, root = place
    with pytest.raises(DeckError) as raised:
        find_chromium(environ, root)
    message = str(raised.value)
    assert message.startswith("no Chromium found") and "\n" not in message
    assert "apt-get install chromium" in message and "playwright install chromium" in message


def test_a_file_that_cannot_run_is_passed_over(tmp_path, place):
    environ, root = place
    executable(root / "usr/bin/chromium", mode=0o644)
    later = executable(root / "snap/bin/chromium")
    assert find_chromium(environ, root) == str(later)


def test_path_comes_before_the_fixed_places_and_the_newest_download_wins(tmp_path, place):
    environ, root = place
    executable(root / "usr/bin/chromium")
    on_path = executable(tmp_path / "path/chromium-browser")
    assert find_chromium(environ, root) == str(on_path)

    environ["PATH"] = ""
    (root / "usr/bin/chromium").unlink()
    executable(tmp_path / PLAYWRIGHT_LINUX / "chromium-999/chrome-linux64/chrome")
    newest = executable(tmp_path / PLAYWRIGHT_LINUX / "chromium-1255/chrome-linux64/chrome")
    executable(tmp_path / PLAYWRIGHT_LINUX / "chromium_headless_shell-1300/chrome-headless-shell-linux64/chrome-headless-shell")
    assert find_chromium(environ, root) == str(newest)


def test_the_chromium_variable_wins_and_a_wrong_one_is_an_error(tmp_path, place):
    environ, root = place
    executable(root / "usr/bin/chromium")
    mine = executable(tmp_path / "elsewhere/my-chrome")
    assert find_chromium(dict(environ, CHROMIUM=str(mine)), root) == str(mine)
    with pytest.raises(DeckError, match=r"^CHROMIUM=/nowhere/chrome does not exist; "):
        find_chromium(dict(environ, CHROMIUM="/nowhere/chrome"), root)


def run_without_browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m jaxdeck ARGS` with an empty PATH, an empty HOME and no system folders (a bare root)."""
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "root").mkdir(exist_ok=True)
    code = ("import sys, pathlib, jaxdeck.browser as b; b.SYSTEM_ROOT = pathlib.Path(sys.argv[1]); "
            "from jaxdeck.cli import main; sys.exit(main(sys.argv[2:]))")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("CHROMIUM", "PLAYWRIGHT", "XDG_"))}
    env.update(PATH="", HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, str(tmp_path / "root"), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.heavy
@pytest.mark.parametrize("verb", [["build", "--pdf"], ["pdf"]], ids=["build --pdf", "pdf"])
def test_without_a_browser_every_deck_gets_its_html_then_one_line_error(tmp_path, verb):
    (tmp_path / "a.md").write_text("# Code\n\n```python\nprint(6 * 7)\n```\n")
    (tmp_path / "b.md").write_text("# Prose only\n\nHello.\n")
    done = run_without_browser(tmp_path, *verb, "a.md", "b.md")
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [done.stderr.strip().splitlines()[-1]] and "Traceback" not in done.stderr, done.stderr
    assert errors[0].startswith("error: no Chromium found, so no PDFs were printed (notebooks and HTML are built); ")
    assert "sudo apt-get install chromium" in errors[0] and "-m playwright install chromium" in errors[0]
    for name in ("a", "b"):
        assert (tmp_path / "build/notebooks" / f"{name}.ipynb").is_file()
        assert (tmp_path / "build/html" / f"{name}.html").is_file()
    assert (tmp_path / "build/html/assets/reveal.js/dist/reveal.js").is_file()
    assert not (tmp_path / "build/pdf").exists()
    assert done.stdout.splitlines() == ["a.md: executed 1 cell, HTML", "b.md: HTML"]


@pytest.mark.heavy
def test_a_deck_left_unfitted_for_want_of_a_chromium_is_fitted_once_one_is_there(tmp_path):
    long_section = "## One long section\n\n" + "\n\n".join(f"Paragraph {n} of a section too long for one slide."
                                                          for n in range(40)) + "\n"
    (tmp_path / "talk.md").write_text("# A talk without markers\n\n" + long_section)
    done = run_without_browser(tmp_path, "build", "talk.md")
    assert done.returncode == 0, done.stderr
    assert "not fitted to its slides" in done.stderr
    record = json.loads((tmp_path / "build/html/.talk.html.inputs.json").read_text())
    assert record["fit"]["chromium"] is None
    again = run_cli("build", "talk.md", cwd=tmp_path)  # this machine's Chromium, found as usual
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == ["talk.md: HTML"]
    record = json.loads((tmp_path / "build/html/.talk.html.inputs.json").read_text())
    assert record["fit"]["chromium"] and record["fit"]["cuts"]
    assert run_cli("build", "talk.md", cwd=tmp_path).stdout.splitlines() == ["talk.md: up to date"]


def test_a_served_page_reaches_the_files_of_its_folder_and_no_other(browser, tmp_path):
    """The origin a page is printed from (serve_folder) answers with its folder's files only: not a file
    above it (a .. spelt in the URL), not one a link inside it points out to, and no file:// at all."""
    from jaxdeck.pages import private_origin, serve_folder

    folder = tmp_path / "html"
    (folder / "sub dir").mkdir(parents=True)
    (folder / "deck.html").write_text("<!doctype html><title>deck</title>")
    (folder / "sub dir" / "inside.txt").write_text("inside")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    (folder / "link.txt").symlink_to(secret)
    page = browser.new_page()
    try:
        origin = private_origin()
        serve_folder(page, folder, origin)
        page.goto(f"{origin}/deck.html")
        got = page.evaluate("""async ([origin, secret]) => {
            const read = url => fetch(url).then(r => r.status + ' ' + (r.ok ? 'read' : ''), () => 'refused');
            return [await read(origin + '/sub%20dir/inside.txt'), await read(origin + '/..%2Fsecret.txt'),
                    await read(origin + '/sub%20dir/..%2F..%2Fsecret.txt'), await read(origin + '/link.txt'),
                    await read(origin + '/sub%20dir/'), await read(secret)];
        }""", [origin, secret.as_uri()])
    finally:
        page.close()
    assert got == ["200 read", "404 ", "404 ", "404 ", "404 ", "refused"]


@contextlib.contextmanager
def listening():
    """A web server on 127.0.0.1 (a free port) that writes down every request it gets: yields (its origin, the
    paths asked for). It stands for any service a deck's page could reach on the network or on this machine."""
    asked: list[str] = []

    class Note(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(b"answered")

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Note)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


#: a page that reaches out every way a deck's markup or script can, and says what it got
REACHING = """<!doctype html><title>deck</title>
<img id="own" src="own.svg"><img src="{there}/img-tag"><img src="{outside}">
<iframe src="{there}/frame"></iframe><link rel="stylesheet" href="{there}/style.css">
<script>
window.got = [];
fetch("{there}/fetch?where=" + encodeURIComponent(location.href)).then(r => r.text(), () => "refused")
  .then(t => window.got.push(t));
new Image().src = "{there}/img-js";
navigator.sendBeacon("{there}/beacon", "x");
window.open("{there}/popup");
const socket = new WebSocket("{there}".replace("http", "ws") + "/socket");
socket.onopen = () => window.got.push("socket open");
window.Reveal = {{isReady: () => document.getElementById("own").naturalWidth === 8 && window.got.length > 0}};
</script>"""


@pytest.mark.parametrize("opening", ["open_deck", "open_served"])
def test_a_page_reaches_nothing_but_its_own_files(browser, tmp_path, opening):
    """A page opened to fit, check or print a deck loads its own folder's files, and no other place: a
    picture, a frame, a style sheet, a fetch, a beacon or a websocket to another origin, or a file outside
    its folder, is refused in the browser and never reaches the server it names, which learns nothing."""
    import jaxdeck.pages

    folder = tmp_path / "html"
    folder.mkdir()
    (tmp_path / "secret.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>')
    (folder / "own.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')
    with listening() as (there, asked):
        (folder / "deck.html").write_text(REACHING.format(there=there, outside=(tmp_path / "secret.svg").as_uri()))
        refused: list[str] = []
        if opening == "open_deck":
            with jaxdeck.pages.open_deck(browser, folder / "deck.html") as (page, refused):
                got = page.evaluate("window.got")
        else:
            with jaxdeck.pages.open_served(browser, folder / "deck.html", "reveal-ready.js", 1280, 720) as page:
                got = page.evaluate("window.got")
        assert asked == [], (asked, got)
    assert got == ["refused"]
    if opening == "open_deck":
        assert {f"{there}/img-tag", f"{there}/frame", f"{there}/style.css", f"{there}/img-js",
                (tmp_path / "secret.svg").as_uri()} <= set(refused), refused
        assert not [url for url in refused if url.startswith(folder.resolve().as_uri())], refused


#: a deck whose own script and picture reach another origin (``{there}``), and say in the slide what they got
FETCHING = """---
jupyter:
  jaxdeck:
    title: Fetch
---

# Fetch

<p id="out">none</p>
<script>
fetch('{there}/fetch?where=' + location.href).then(r => r.text()).then(
  t => {{ document.getElementById('out').textContent = 'NET:' + t; }},
  e => {{ document.getElementById('out').textContent = 'ERR:' + e; }});
new Image().src = '{there}/img-js';
</script>
<img src="{there}/img-tag">
"""


@pytest.mark.heavy
def test_a_deck_s_script_reaches_no_other_origin_while_built_printed_or_checked(tmp_path):
    """The build's fit (a page from file://), the PDF's print (a private origin) and `jaxdeck check` (file://)
    open the deck in Chromium: its script's fetch and pictures to another origin never reach it, nor tell it
    where the deck lies; the deck builds, and check still reports the picture that cannot load."""
    with listening() as (there, asked):
        (tmp_path / "talk.md").write_text(FETCHING.format(there=there))
        built = run_cli("build", "--pdf", "talk.md", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        assert asked == [], asked
        checked = run_cli("check", "talk.md", cwd=tmp_path)
        assert "Traceback" not in checked.stderr, checked.stderr
        assert f"image '{there}/img-tag' failed to load" in checked.stdout + checked.stderr, checked.stdout
        assert asked == [], asked


@pytest.mark.heavy
def test_a_deck_that_refreshes_to_another_page_is_said_in_one_line_naming_it(tmp_path):
    """A <meta http-equiv="refresh"> to another origin would take the build's page there: Chromium stays on
    the deck, the server is never asked, and the build says in one line where the deck tried to go (not
    that a script never ended)."""
    with listening() as (there, asked):
        (tmp_path / "talk.md").write_text("---\njupyter:\n  jaxdeck:\n    title: Refresh\n---\n\n# Refresh\n\n"
                                          f'<meta http-equiv="refresh" content="0;url={there}/refresh?from=deck">\n'
                                          "text\n")
        done = run_cli("build", "--pdf", "talk.md", cwd=tmp_path)
        assert asked == [], asked
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "took over" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: talk.md: the deck's page tried to go to {there}/refresh?from=deck"), lines
