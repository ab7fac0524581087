"""A deck's page in the headless Chromium: opened once it is ready, confined to its own files, and,
to be printed or measured, served from a private origin.

A page that is printed (or measured) is served to Chromium from a private origin of its own
(:func:`open_served`): Playwright answers ``http://127.0.0.1:PORT/...`` from the files of the page's
folder, and nothing else, with nothing listening on the port. So Chromium runs without file access:
no script in a deck (an output's, the author's) can read a local file, by ``fetch``, XHR or a frame,
into what it prints.

Every page a :func:`new_page` opens loads its own files and nothing else (:func:`confine`): a request
to any other place (another origin, a file outside the page's folder, a websocket) is refused inside
the browser, before it leaves it, so a deck's script or picture reaches no service on the network or
on this machine, and tells none of them where the deck lies. A page that tries to go elsewhere (a
``<meta http-equiv="refresh">``, a script setting ``location``) stays where it is, and the step is
refused in one line naming where it went (:class:`PageLeft`).

A page loads within :func:`~jaxdeck.browser.page_seconds` or is :class:`~jaxdeck.browser.PageStuck`
(:mod:`jaxdeck.browser` starts the browser and bounds each step on a page).
"""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import quote, unquote, urlsplit

from jaxdeck.browser import Deadline, PageStuck, alive, page_failed, page_seconds, script
from jaxdeck.errors import DeckError

#: the host of the origin a served page is at (:func:`serve_folder`); its port is drawn at random per page
LOOPBACK = "127.0.0.1"
#: the ports drawn from: the dynamic range, where no service has a fixed home
PORTS = (49152, 65535)


class PageLeft(DeckError):
    """A page that tried to go to another place than its own (``url``): a ``<meta http-equiv="refresh">``
    or a script setting ``location`` in the deck. It was kept where it was; what it showed is not to be trusted."""

    def __init__(self, url: str, deck: str | Path | None = None):
        self.url = url
        shown = url if len(url) <= 200 else url[:199] + "…"
        super().__init__(deck, None, f"the deck's page tried to go to {shown} in Chromium",
                         "a <meta http-equiv=\"refresh\"> or a script setting location in the deck leaves it: "
                         "remove it (a built deck loads only its own files), then build again")


@contextlib.contextmanager
def confine(page, own: Callable[[str], bool], refused: list[str] | None = None) -> Iterator[list[str]]:
    """Inside, ``page`` loads only the URLs ``own`` says are its own; yields ``refused`` (a new list by
    default), to which the URLs it was refused are added as they come.

    Every request of the page's context (a popup's too) goes through Playwright's router (``route``), a
    websocket through its own (``route_web_socket``): another's is aborted in the browser, and a navigation of the page
    to another place is answered ``204 No Content``, which leaves the page as it was. On leaving the
    block, a page that tried to navigate away is :class:`PageLeft` (raised only when the block ended
    well: a step's own failure comes first)."""
    from playwright.sync_api import Error

    refused = [] if refused is None else refused
    left: list[str] = []

    def request(route) -> None:
        asked = route.request
        with contextlib.suppress(Error):  # a page closed meanwhile: nothing left to answer
            if own(asked.url):
                route.fallback()  # to the route serving the page's folder, if any, else as asked
                return
            refused.append(asked.url)
            if asked.is_navigation_request() and asked.frame == page.main_frame:
                left.append(asked.url)
                route.fulfill(status=204, body="")
            else:
                route.abort("blockedbyclient")

    def websocket(socket) -> None:
        refused.append(socket.url)
        with contextlib.suppress(Error):
            socket.close()  # never connected to the place it names

    # the page's own context: what a popup it opens asks goes through the same rules
    page.context.route("**/*", request)
    page.context.route_web_socket("**/*", websocket)
    try:
        yield refused
    except PageStuck:
        if left:
            raise PageLeft(left[0]) from None
        raise
    if left:
        raise PageLeft(left[0])


def in_folder(folder: str | Path) -> Callable[[str], bool]:
    """Whether a URL is a ``file:`` URL of a file under ``folder`` (symbolic links followed, as :func:`serve_folder` does)."""
    root = Path(folder).resolve()

    def own(url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            return False
        return Path(unquote(parts.path)).resolve().is_relative_to(root)

    return own


def at_origin(origin: str) -> Callable[[str], bool]:
    """Whether a URL is at ``origin`` (``http://127.0.0.1:PORT``)."""
    return lambda url: url == origin or url.startswith(origin + "/")


@contextlib.contextmanager
def new_page(browser, url: str, ready: str, width: int, height: int, ready_s: float = 15,
             before=None, *, own: Callable[[str], bool], refused: list[str] | None = None) -> Iterator[object]:
    """A page of ``browser`` at ``width`` x ``height`` showing ``url`` once it has loaded and the theme's
    script ``ready`` says so, closed on exit; a page that never gets there is :class:`PageStuck`
    (within :func:`page_seconds` to load, ``ready_s`` more to be ready). ``before(page)`` runs before it loads.

    The page loads only what ``own`` says is its own (:func:`confine`: its folder's files, its origin); the URLs it was refused are added to ``refused`` as they come; one that tried to leave is
    :class:`PageLeft`."""
    load_s = page_seconds()
    with Deadline(browser, "opening a page", load_s):
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, service_workers="block")
        except Exception as err:
            raise page_failed(err, "opening a page") from None
    try:
        with confine(page, own, refused):
            if before is not None:
                before(page)
            # Playwright's own timeouts come first; the deadline is for a page that stops answering at all
            with Deadline(browser, "loading the page", load_s + ready_s + 10):
                try:
                    page.goto(url, wait_until="load", timeout=load_s * 1000)
                except Exception as err:
                    raise page_failed(err, "loading the page", load_s) from None
                try:
                    page.wait_for_function(script(ready), timeout=ready_s * 1000)
                except Exception as err:
                    raise page_failed(err, "laying out the slides", ready_s) from None
            yield page
    finally:
        if alive(browser):
            with contextlib.suppress(Exception), Deadline(browser, "closing a page", 10):
                page.close()


def private_origin() -> str:
    """``http://127.0.0.1:PORT``, the port drawn at random: the origin of one served page."""
    return f"http://{LOOPBACK}:{PORTS[0] + secrets.randbelow(PORTS[1] - PORTS[0])}"


def serve_folder(page, folder: str | Path, origin: str) -> None:
    """Answer ``page``'s requests to ``origin`` with the files under ``folder``: a path outside it, or no file,
    is a 404. Playwright answers them (``route`` of the page's own context, a popup's requests too), so nothing
    listens at the origin, and no other page or user reaches the folder through it."""
    root = Path(folder).resolve()

    def answer(route) -> None:
        wanted = (root / unquote(urlsplit(route.request.url).path).lstrip("/")).resolve()
        if wanted.is_relative_to(root) and wanted.is_file():
            route.fulfill(path=wanted)  # its type from its extension, as a web server's
        else:
            route.fulfill(status=404, body="")

    page.context.route(f"{origin}/**", answer)


@contextlib.contextmanager
def open_served(browser, html: str | Path, ready: str, width: int, height: int, query: str = "",
                ready_s: float = 15) -> Iterator[object]:
    """:func:`new_page` showing the page ``html`` (with ``query``) from its folder, served at a private
    origin (:func:`serve_folder`), not from file://: its scripts reach that folder's files and no other."""
    html, origin = Path(html), private_origin()
    with new_page(browser, f"{origin}/{quote(html.name)}{query}", ready, width, height, ready_s=ready_s,
                  before=lambda page: serve_folder(page, html.parent, origin), own=at_origin(origin)) as page:
        yield page


@contextlib.contextmanager
def open_deck(browser, html: str | Path, query: str = "", width: int = 1280, height: int = 720) -> Iterator[tuple]:
    """Open an HTML deck from file:// and wait for reveal.js; yields (page, requests).

    The page loads the files of its folder and nothing else (:func:`confine`); ``requests`` collects
    every URL it asked for that is not one of those (refused, never loaded), so callers can assert
    that the deck works offline.
    """
    requests: list[str] = []
    html = Path(html).resolve()
    with new_page(browser, html.as_uri() + query, "reveal-ready.js", width, height, own=in_folder(html.parent),
                  refused=requests) as page:
        yield page, requests
