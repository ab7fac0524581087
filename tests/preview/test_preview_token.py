"""The preview's token: another user of the box can neither read the deck being written nor make it run.

127.0.0.1 is every local user's. Without the token a request gets 403 and learns nothing (no
page, no file, no folder listing, no state); the URL the preview prints carries it, and its
answer sets the cookie the page's own requests then carry. The token is on no command line.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import stat
import sys
import threading
import time
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import psutil
import pytest

from jaxdeck.browser import script
from jaxdeck.preview.server import PreviewServer
from jaxdeck.preview.session import Session
from support import kernels_under, previewing

PICTURE = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>'
DECK = "# Talk\n\nHello.\n\n---\n\n## Two\n\n![a box](images/box.svg)\n\nNote: quick\n"
CODE_DECK = "# Talk\n\nHello.\n\n```python\nx = 6\nprint('x is', x)\n```\n\nNote: quick\n"
#: every kind of thing the preview answers ("PICTURE" and "ITS FOLDER": where the page shows the box from)
PLACES = [("GET", "/"), ("GET", "/talk.html"), ("GET", "PICTURE"), ("GET", "ITS FOLDER"), ("GET", "/assets/"),
          ("GET", "/_preview/reload.js"), ("GET", "/_preview/state"), ("GET", "/_preview/events"),
          ("HEAD", "/talk.html"), ("POST", "/_preview/fresh")]


class Pictures(HTMLParser):
    """The ``src`` of every ``<img>`` of a page."""

    def __init__(self, page: str):
        super().__init__()
        self.found: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.found.append(dict(attrs).get("src") or "")


def request(port: int, method: str, path: str, **headers: str):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, headers={name.replace("_", "-"): value for name, value in headers.items()})
    response = connection.getresponse()
    body = response.read() if method != "HEAD" else b""
    connection.close()
    return response, body


def token_of(url: str) -> str:
    """The token in a URL the preview printed ("" for none)."""
    return parse_qs(urlsplit(url).query).get("token", [""])[0]


@pytest.fixture
def served(write_deck, tmp_path, monkeypatch):
    """A real preview server of a built deck with a picture; ``server.fresh`` is set when asked to run it afresh."""
    monkeypatch.chdir(tmp_path)
    deck = write_deck(DECK)
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "box.svg").write_text(PICTURE)
    session = Session(deck.relative_to(tmp_path), tmp_path / "build", say=lambda line: None)
    session.rebuild()
    picture = "/" + next(src for src in Pictures(session.html.read_text()).found if src.endswith("box.svg"))
    fresh = threading.Event()
    server = PreviewServer(session, 0, request_fresh=fresh.set).start()
    server.fresh = fresh
    server.where = {"PICTURE": picture, "ITS FOLDER": picture.rsplit("/", 1)[0] + "/"}
    yield server
    server.stop()
    session.close()


def test_without_the_token_every_request_is_refused_and_learns_nothing(served):
    """No token, a wrong one in the URL or the cookie: 403 for the page, the pictures, their folder,
    the state and events, and a POST that would run the deck; no cookie handed out, no name shown."""
    name, token = f"jaxdeck-preview-{served.port}", token_of(served.url)
    wrong = [{}, {"query": "?token=" + "x" * 43}, {"query": "?token=" + token[:-1]},
             {"query": "?token=%C3%A9"}, {"Cookie": f"{name}=nope"}, {"Cookie": f"{name}={token}x"},
             {"Cookie": f'jaxdeck-preview-1={token}'}, {"Cookie": "\x7f;;=="}]
    for method, path in PLACES:
        path = served.where.get(path, path)
        for given in wrong:
            given = dict(given)
            response, body = request(served.port, method, path + given.pop("query", ""), **given)
            assert response.status == 403, (method, path, given)
            assert response.getheader("Set-Cookie") is None
            for secret in (b"talk", b"box", b"Hello", b"version", b"svg", b"images"):
                assert secret not in body, (method, path, secret, body)
    assert not served.fresh.is_set()  # the deck was not run again


def test_the_url_it_prints_lets_the_page_in_with_a_cookie(served):
    """The printed URL (deck page + ?token=) answers 200 and sets an HttpOnly, SameSite=Strict cookie
    for this port; with that cookie alone the page's pictures, state and POST work; no folder is listed."""
    url = served.url
    assert re.fullmatch(rf"http://127\.0\.0\.1:{served.port}/talk\.html\?token=[\w-]{{43}}", url), url
    response, body = request(served.port, "GET", url.split(str(served.port), 1)[1])
    assert response.status == 200 and b"Hello." in body and b'data-deck="talk.html"' in body
    cookie = response.getheader("Set-Cookie")
    assert cookie.startswith(f"jaxdeck-preview-{served.port}={served.access.token};")
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {part.strip() for part in cookie.split(";")}
    assert response.getheader("Referrer-Policy") == "no-referrer"

    jar = {"Cookie": cookie.split(";", 1)[0]}
    response, body = request(served.port, "GET", served.where["PICTURE"], **jar)
    assert response.status == 200 and body == PICTURE.encode() and response.getheader("Set-Cookie") is None
    response, body = request(served.port, "GET", "/_preview/state", **jar)
    assert response.status == 200 and json.loads(body)["version"] == 1
    for folder in (served.where["ITS FOLDER"], "/assets/", "/"):  # "/" redirects to the deck instead
        response, body = request(served.port, "GET", folder, **jar)
        assert response.status in (302, 404) and b"box.svg" not in body and b"reveal" not in body, folder
    response, _ = request(served.port, "GET", f"/?token={served.access.token}")
    assert response.status == 302 and response.getheader("Location") == f"/talk.html?token={served.access.token}"
    response, _ = request(served.port, "POST", "/_preview/fresh", Origin="https://elsewhere.example", **jar)
    assert response.status == 403 and not served.fresh.is_set()  # the token does not lift the same-origin check
    response, _ = request(served.port, "POST", "/_preview/fresh", Origin=f"http://127.0.0.1:{served.port}",
                          Sec_Fetch_Site="same-origin", **jar)
    assert response.status == 202 and served.fresh.is_set()


@pytest.fixture
def running(tmp_path):
    """`python -m jaxdeck preview` as a user starts it, opening a browser: $BROWSER is a script that
    records what it was given. Yields (process, printed URL, the browser's arguments file)."""
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "talk.md").write_text(CODE_DECK)
    given = tmp_path / "browser-was-given.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(f"import sys\nopen({str(given)!r}, 'w').write('\\n'.join(sys.argv[1:]))\n")
    with previewing(tmp_path, env={"BROWSER": f"{sys.executable} {browser} %s"}) as (process, found):
        yield process, found, given


def state(port: int, token: str) -> dict:
    return json.loads(request(port, "GET", f"/_preview/state?token={token}")[1])


def until(condition, seconds: float = 90, what: str = "") -> None:
    """Wait for ``condition`` (a hang guard, not a latency budget)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.heavy
def test_a_post_without_the_token_does_not_run_the_deck_again(running):
    """A real preview with a real warm kernel: another user's POST is refused and the kernel
    is the same one; the token's POST runs the deck in a fresh kernel."""
    process, found, _ = running
    port, token = int(found.group(2)), found.group(3) or ""
    until(lambda: state(port, token)["kernel"] == "ready", what="the first run did not finish")
    before, kernels = state(port, token), {p.pid for p in kernels_under(process.pid)}
    assert kernels
    for headers in ({}, {"Cookie": f"jaxdeck-preview-{port}=guess"}):
        response, body = request(port, "POST", "/_preview/fresh", **headers)
        assert response.status == 403 and b"talk" not in body
    assert state(port, token) == before  # nothing ran: the same build, the same kernel
    assert {p.pid for p in kernels_under(process.pid)} == kernels

    response, _ = request(port, "POST", f"/_preview/fresh?token={token}")
    assert response.status == 202
    until(lambda: state(port, token)["version"] > before["version"] and state(port, token)["kernel"] == "ready",
          what="the token's POST did not run the deck afresh")
    assert {p.pid for p in kernels_under(process.pid)} - kernels  # a new kernel
    assert process.poll() is None


@pytest.mark.heavy
@pytest.mark.browser
def test_the_token_is_on_no_command_line_and_the_opened_page_leads_to_the_deck(browser, running, tmp_path):
    """The browser is started at a private file, not at the URL: no process's command line holds the
    token, the file that does is this user's alone, and it sends a real Chromium on to the deck,
    whose own requests then all succeed with the cookie. A stop removes the file."""
    process, found, given = running
    url, token = found.group(1), found.group(3) or ""
    until(lambda: given.is_file() and given.read_text(), 30, "no browser was opened")
    opened = given.read_text().strip()
    assert opened.startswith("file://") and token not in opened
    for other in psutil.process_iter(["cmdline"]):
        assert token not in " ".join(other.info["cmdline"] or []), other
    holders = [p for p in tmp_path.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    assert holders and all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in holders), holders
    assert all(stat.S_IMODE(p.parent.stat().st_mode) & 0o077 == 0 for p in holders), holders

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    answers: list[tuple[str, int]] = []
    page.on("response", lambda r: answers.append((r.url, r.status)))
    try:
        page.goto(opened)
        page.wait_for_url(url, timeout=30000)
        page.wait_for_function(script("reveal-ready.js"), timeout=60000)
        assert page.evaluate("document.querySelector('script[src=\"/_preview/reload.js\"]') !== null")
        cookie = [c for c in page.context.cookies() if c["name"] == f"jaxdeck-preview-{found.group(2)}"]
        assert cookie and cookie[0]["httpOnly"] and cookie[0]["sameSite"] == "Strict"
        assert not page.evaluate("document.cookie")  # HttpOnly: no script of the page reads it
    finally:
        page.context.clear_cookies()
        page.close()
    ours = [(u, s) for u, s in answers if u.startswith("http://")]
    assert ours and all(s < 400 for _, s in ours), ours  # the page, its scripts, assets and events, by the cookie
    process.send_signal(signal.SIGINT)
    process.wait(60)  # a hang guard
    assert not any(p.is_file() for p in holders)
