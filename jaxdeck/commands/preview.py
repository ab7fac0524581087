"""`jaxdeck preview [DECK]`: the deck's HTML on 127.0.0.1, rebuilt on every save, the browser at the same slide.

Prints the URL (``http://127.0.0.1:PORT/NAME.html?token=...``: nobody else on the box may
see the deck or run it, see :mod:`jaxdeck.preview.access`), opens a browser unless
``--no-browser``, and rebuilds ``build/preview/NAME.html`` whenever the deck, one of its
images or the theme changes (see :mod:`jaxdeck.preview.session` for what runs). A build
error is printed and shown in the page over the last good deck; the preview goes on.
Enter in the terminal (or ``R`` in the page) runs the deck afresh in a new kernel.

Ctrl-C, SIGTERM and SIGHUP stop the server and the kernel; the exit status is 0 after
Ctrl-C and 128 + the signal's number after the others.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from jaxdeck.decks import SLIDES, find_decks
from jaxdeck.errors import DeckError, display_path
from jaxdeck.opening import Opener
from jaxdeck.stopping import WAKE_S, Stopped

DEFAULT_PORT = 8000


def add_arguments(command) -> None:
    command.add_argument("decks", nargs="*", metavar="DECK", help="the Markdown deck (default: the first in slides/)")
    command.add_argument("--port", type=int, default=DEFAULT_PORT,
                         help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0: any free port)")
    command.add_argument("--no-browser", dest="browser", action="store_false", help="only print the URL")
    command.add_argument("--out", type=Path, default=Path("build"),
                         help="build folder: the preview goes to OUT/preview, the execution cache is OUT/cache")
    command.add_argument("--timeout", type=float, default=None, help="default per-cell timeout in seconds (60)")


def choose_deck(arguments: list[str]) -> Path:
    if len(arguments) > 1:
        raise DeckError(None, None, f"preview shows one deck at a time, got {len(arguments)}",
                        "name one: make preview DECK=NAME")
    decks = find_decks(arguments)
    if not decks:
        raise DeckError(SLIDES, None, "no decks to preview", "add a Markdown deck to slides/ or name one")
    return decks[0]


def say(line: str) -> None:
    """Print one line; after a SIGHUP the terminal may be gone, which is no error here."""
    try:
        print(line, flush=True)
    except OSError:
        pass


def enter_means_fresh(rebuilder) -> None:
    """On a terminal, each Enter asks for a fresh run."""
    if not sys.stdin or not sys.stdin.isatty():
        return

    def read() -> None:
        for _ in sys.stdin:
            rebuilder.fresh()

    threading.Thread(target=read, name="jaxdeck-preview-stdin", daemon=True).start()


def run(args) -> int:
    from jaxdeck.preview.server import PreviewServer
    from jaxdeck.preview.session import Session
    from jaxdeck.preview.watch import Rebuilder

    deck = choose_deck(args.decks)
    if args.port < 0 or args.port > 65535:
        raise DeckError(None, None, f"--port {args.port} is not a port number", "use 1-65535, or 0 for any free port")
    session = Session(deck, args.out, timeout=args.timeout, say=say)
    rebuilder = Rebuilder(session)
    server = PreviewServer(session, args.port, request_fresh=rebuilder.fresh)
    opener = None
    try:
        server.start()
        say(f"Previewing {display_path(deck)} at {server.url}")
        say("It rebuilds on every save of the deck, its images or the theme; Enter (or R in the page) "
            "runs it afresh; Ctrl-C stops.")
        rebuilder.start()
        enter_means_fresh(rebuilder)
        if args.browser:
            opener = Opener(args.out, "preview")
            opener.open(server.url, "the preview")
        while True:
            time.sleep(WAKE_S)  # not an hour: a stop signal that lands in another thread waits for this one
    except Stopped as stop:
        say("\nstopping the preview..." if stop.name == "SIGINT" else f"{stop.name}: stopping the preview...")
        return 0 if stop.name == "SIGINT" else stop.exit_code
    finally:
        session.stopping = True
        server.stop()
        rebuilder.stopped.set()
        session.close()
        rebuilder.stop(timeout=10)
        if opener is not None:
            opener.close()
