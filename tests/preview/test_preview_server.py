"""The preview's web server: the deck with its reload script, a stream of rebuilds, 127.0.0.1 only.

Each request here carries the preview's cookie, as the page's own do; tests/preview/test_preview_token.py
shows what a request without it gets."""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.preview.server import PreviewServer
from jaxdeck.preview.session import Session

DECK = "# Talk\n\nHello.\n\n---\n\n## Two\n\nNo code at all.\n\nNote: quick\n"


@pytest.fixture
def served(write_deck, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = Session(write_deck(DECK).relative_to(tmp_path), tmp_path / "build", say=lambda line: None)
    fresh = threading.Event()
    server = PreviewServer(session, 0, request_fresh=fresh.set).start()
    server.fresh = fresh
    yield server
    server.stop()
    session.close()


def cookie(server) -> dict[str, str]:
    """The header the page's requests carry once its first one, with ``?token=``, has been answered."""
    return {"Cookie": f"{server.access.cookie_name}={server.access.token}"}


def request(server, method: str, path: str, host: str | None = None, **more: str):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = dict(cookie(server), **({"Host": host} if host else {}))
    headers.update({name.replace("_", "-"): value for name, value in more.items()})
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    return response, response.read()


def test_the_deck_is_served_with_the_reload_script_once_built(served):
    response, body = request(served, "GET", "/talk.html")
    assert response.status == 200 and b"Building the deck" in body  # before the first build
    assert b'<script src="/_preview/reload.js" data-version="0"' in body

    served.session.rebuild()
    response, body = request(served, "GET", "/")
    assert response.status == 302 and response.getheader("Location") == "/talk.html"
    response, body = request(served, "GET", "/talk.html")
    assert b"No code at all." in body and b'data-version="1" data-deck="talk.html"></script></body>' in body
    assert response.getheader("Cache-Control") == "no-cache"
    response, script = request(served, "GET", "/_preview/reload.js")
    assert response.status == 200 and b"EventSource('/_preview/events')" in script
    response, _ = request(served, "GET", "/assets/reveal.js/dist/reveal.js")
    assert response.status == 200
    assert json.loads(request(served, "GET", "/_preview/state")[1])["version"] == 1


@pytest.mark.heavy
def test_every_rebuild_and_error_is_streamed(served):
    session = served.session
    session.rebuild()
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    connection.request("GET", "/_preview/events", headers=cookie(served))
    stream = connection.getresponse()
    assert stream.getheader("Content-Type") == "text/event-stream"

    def event() -> dict:
        line = stream.readline()
        while not line.startswith(b"data: "):
            line = stream.readline()
        return json.loads(line[len(b"data: "):])

    assert event()["version"] == 1  # the state at once
    session.deck.write_text(DECK.replace("Hello.", "Hello again."))
    session.rebuild()
    assert event()["version"] == 2
    session.deck.write_text("# Talk\n\n```python\nx = 1\n")
    session.rebuild()
    failed = event()
    assert failed["version"] == 2 and failed["error"].startswith("error: slides/talk.md:3: ")
    connection.close()


def test_only_its_own_host_is_answered_and_fresh_is_a_post(served):
    response, _ = request(served, "GET", "/talk.html", host="attacker.example:80")
    assert response.status == 403
    response, _ = request(served, "GET", "/talk.html", host=f"localhost:{served.port}")
    assert response.status == 200
    response, _ = request(served, "POST", "/_preview/fresh")
    assert response.status == 202 and served.fresh.is_set()
    assert served.server_address[0] == "127.0.0.1"


def test_another_sites_page_cannot_make_the_preview_run_the_deck(served):
    """Any page the presenter has open may POST to 127.0.0.1; only the deck's own page is obeyed."""
    for headers in ({"Origin": "https://neighbour.example"}, {"Origin": "null"},
                    {"Sec_Fetch_Site": "cross-site"}, {"Sec_Fetch_Site": "same-site", "Origin": "http://localhost:1"}):
        response, _ = request(served, "POST", "/_preview/fresh", **headers)
        assert response.status == 403, headers
    assert not served.fresh.is_set()
    response, _ = request(served, "POST", "/_preview/fresh", Origin=f"http://127.0.0.1:{served.port}",
                          Sec_Fetch_Site="same-origin")
    assert response.status == 202 and served.fresh.is_set()


def test_a_taken_port_is_one_clear_error(write_deck, tmp_path):
    session = Session(write_deck(DECK), tmp_path / "build", say=lambda line: None)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(DeckError) as caught:
            PreviewServer(session, taken.getsockname()[1])
    assert "is in use" in str(caught.value) and "PORT=" in str(caught.value)
