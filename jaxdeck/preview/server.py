"""The preview's web server: the deck's HTML on 127.0.0.1, and a stream of its rebuilds.

Standard library only (``http.server``, one thread per connection). Every request needs the
preview's token (:mod:`jaxdeck.preview.access`: ``?token=`` in the URL it printed, then a
cookie); one without it gets 403 and nothing else, not even whether a file exists. No
folder is ever listed.

- ``/`` redirects to ``/NAME.html``: the deck as the build wrote it, with the reload script
  (``reload.js``) added before ``</body>``, or a waiting page until the first build is done;
- ``/_preview/events``: Server-Sent Events, one ``data:`` line of JSON per change of the
  session's state (version of the last good HTML, the build error if any, warm or not);
- ``/_preview/state``: that JSON once; ``POST /_preview/fresh``: run the deck afresh (only from
  the deck's own page: another site's Origin, or Sec-Fetch-Site cross-site or same-site, is refused);
- anything else: files under ``build/preview/`` (assets, images), revalidated on every load.

It answers only requests addressed to its own host and port (a page elsewhere cannot reach
it through a DNS name pointed at 127.0.0.1), and sends nothing to the network.
"""

from __future__ import annotations

import errno
import json
import threading
from functools import partial
from html import escape
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from string import Template
from urllib.parse import quote, unquote, urlsplit

from jaxdeck.errors import DeckError
from jaxdeck.preview.access import PARAMETER, Access
from jaxdeck.preview.session import Session

HERE = Path(__file__).resolve().parent
RELOAD_JS = HERE / "reload.js"
WAITING_HTML = HERE / "waiting.html"
RELOAD_TAG = HERE / "reload-tag.html"
LOOPBACK = "127.0.0.1"
#: seconds between keep-alive comments on an idle event stream
KEEPALIVE_S = 15.0


class PreviewServer(ThreadingHTTPServer):
    """Serves one :class:`Session` to the holder of ``access``'s token; ``stop()`` ends the streams and the server."""

    daemon_threads = True

    def __init__(self, session: Session, port: int = 0, request_fresh=None):
        self.session = session
        self.request_fresh = request_fresh or (lambda: None)
        self.stopping = False
        folder = session.html.parent
        folder.mkdir(parents=True, exist_ok=True)
        try:
            super().__init__((LOOPBACK, port), partial(Handler, directory=str(folder)))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise DeckError(None, None, f"port {port} on {LOOPBACK} is in use",
                                "stop what uses it or pick another: make preview PORT=8001 (--port 0: any free port)") from None
            raise
        self.port = self.server_address[1]
        self.access = Access(self.port)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="jaxdeck-preview-http", daemon=True)

    @property
    def page(self) -> str:
        """The deck's path on the server, as a URL spells it (``my talk.html``: ``/my%20talk.html``)."""
        return "/" + quote(self.session.html.name)

    @property
    def url(self) -> str:
        """The deck's page with the token: the one URL that lets a browser in."""
        return f"http://{LOOPBACK}:{self.port}{self.page}?{PARAMETER}={self.access.token}"

    def start(self) -> "PreviewServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping = True
        with self.session.changed:
            self.session.changed.notify_all()  # event streams see `stopping` and end
        if self._thread.is_alive():  # shutdown() waits for serve_forever, which must be running
            self.shutdown()
            self._thread.join(timeout=5)
        self.server_close()


class Handler(SimpleHTTPRequestHandler):
    server: PreviewServer
    #: this request carried the token in its URL: its answer sets the cookie
    _token_in_url = False

    def log_message(self, format, *args) -> None:  # noqa: A002 - the terminal shows rebuilds, not requests
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")  # revalidate: an image may have been replaced
        self.send_header("Referrer-Policy", "no-referrer")  # the page's URL holds the token
        if self._token_in_url:
            self.send_header("Set-Cookie", self.server.access.set_cookie())
        super().end_headers()

    def _host_is_ours(self) -> bool:
        host = (self.headers.get("Host") or "").lower()
        return host in (f"{LOOPBACK}:{self.server.port}", f"localhost:{self.server.port}")

    def _let_in(self) -> bool:
        """Our host, and the token in the URL or the cookie; else a 403 that names nothing served here."""
        access = self.server.access
        self._token_in_url = False
        if not self._host_is_ours():
            self.send_error(HTTPStatus.FORBIDDEN, "wrong host")
            return False
        self._token_in_url = access.in_query(self.path)
        if not self._token_in_url and not access.in_cookie(self.headers.get("Cookie")):
            self.send_error(HTTPStatus.FORBIDDEN, "this preview needs its token: open the URL it printed")
            return False
        return True

    def list_directory(self, path):
        """No folder is listed, even to the token's holder: 404 as for a missing file."""
        self.send_error(HTTPStatus.NOT_FOUND)
        return None

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._let_in():
            return
        target = urlsplit(self.path)
        path = unquote(target.path)
        session = self.server.session
        if path == "/":
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", self.server.page + (f"?{target.query}" if target.query else ""))
            self.end_headers()
        elif path == f"/{session.html.name}":
            self._deck()
        elif path == "/_preview/reload.js":
            self._send(RELOAD_JS.read_bytes(), "text/javascript; charset=utf-8")
        elif path == "/_preview/state":
            with session.changed:
                state = session.state.public()
            self._send(json.dumps(state).encode(), "application/json")
        elif path == "/_preview/events":
            self._events()
        elif path == "/favicon.ico":
            self.send_response(HTTPStatus.NO_CONTENT)
            self.end_headers()
        else:
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if not self._let_in():
            return
        super().do_HEAD()

    def _from_our_page(self) -> bool:
        """A POST the deck's own page sent, not one another site's page had the browser send here
        (it would carry that site's Origin, or Sec-Fetch-Site: cross-site); a local tool sends neither."""
        site = (self.headers.get("Sec-Fetch-Site") or "").lower()
        if site and site not in ("same-origin", "none"):
            return False
        origin = (self.headers.get("Origin") or "").lower()
        return not origin or origin in (f"http://{LOOPBACK}:{self.server.port}", f"http://localhost:{self.server.port}")

    def do_POST(self) -> None:  # noqa: N802
        if not self._let_in():
            return
        if not self._from_our_page():
            self.send_error(HTTPStatus.FORBIDDEN, "not from the preview's own page")
            return
        if urlsplit(self.path).path != "/_preview/fresh":
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        self.server.request_fresh()
        self._send(b"{}", "application/json", status=HTTPStatus.ACCEPTED)

    def _send(self, body: bytes, content_type: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _deck(self) -> None:
        """The deck with the reload script, which learns the version it was served at."""
        session = self.server.session
        with session.changed:  # the version before the file: a newer file with an older number reloads once more
            version = session.state.version
        try:
            html = session.html.read_text(encoding="utf-8") if version else None
        except OSError:
            html = None
        if html is None:
            html, version = WAITING_HTML.read_text(encoding="utf-8"), 0
        tag = Template(RELOAD_TAG.read_text(encoding="utf-8").strip()).substitute(
            version=version, deck=escape(session.html.name, quote=True))
        at = html.rfind("</body>")
        html = html[:at] + tag + html[at:] if at >= 0 else html + tag
        self._send(html.encode("utf-8"), "text/html; charset=utf-8")

    def _events(self) -> None:
        """The session's state now, then after every change, until the server stops."""
        session = self.server.session
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
        seen = None
        try:
            while not self.server.stopping:
                with session.changed:
                    if seen == session.state.seq:
                        session.changed.wait(timeout=KEEPALIVE_S)
                    if self.server.stopping:
                        break
                    state = session.state.public()
                if state["seq"] == seen:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    self.wfile.write(f"data: {json.dumps(state)}\n\n".encode())
                    seen = state["seq"]
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True
