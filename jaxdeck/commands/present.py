"""`jaxdeck present [DECK]`: the deck live in RISE, on 127.0.0.1 with a token.

Starts a Jupyter server (see :mod:`jaxdeck.live.server`), prints the slideshow URL
(``http://127.0.0.1:PORT/rise/slides/NAME.md?token=...``), opens a browser unless
``--no-browser``, and serves until Ctrl-C. Edits saved in Jupyter go back into the
Markdown deck. With no deck, the first deck in slides/ is presented and the others listed.

It lives and dies with its Jupyter server. SIGINT (Ctrl-C), SIGTERM (``kill``, a service
manager) and SIGHUP (a closed terminal, a dropped SSH session) each stop the server and
every kernel it started (:meth:`jaxdeck.live.server.Server.stop`: Jupyter gets two seconds
to shut its kernels down, then what is left is SIGKILLed), which frees the port and
removes the server's temporary folder with its token; then the command exits, with status
0 after SIGINT as ever, and 128 + the signal's number after SIGTERM (143) or SIGHUP (129),
the shell's convention for "ended by that signal". A second signal while it shuts down is
ignored, so the shutdown always finishes. A SIGKILL cannot be caught: after one, the server
and its kernels go on (``--stop`` stops those of a detached present, from its record; else stop
them by hand).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from jaxdeck.read import deck_to_notebook
from jaxdeck.decks import SLIDES, find_decks
from jaxdeck.errors import DeckError, display_path
from jaxdeck.opening import Opener
from jaxdeck.live.listening import LOOPBACK, is_loopback
from jaxdeck.live.server import check_extension, check_installed, start_server
from jaxdeck.stop_signals import STOP
from jaxdeck.stopping import Stopped


def add_arguments(command) -> None:
    command.add_argument("decks", nargs="*", metavar="DECK", help="the Markdown deck (default: the first in slides/)")
    command.add_argument("--port", type=int, default=8888, help="port on 127.0.0.1 (default 8888; 0: any free port)")
    command.add_argument("--no-browser", dest="browser", action="store_false", help="only print the URL")
    command.add_argument("--ip", default=LOOPBACK,
                         help="address to listen on (default 127.0.0.1; any other needs --allow-remote)")
    command.add_argument("--allow-remote", action="store_true",
                         help="allow a non-loopback --ip (the token is still required); prefer an SSH port forward")
    command.add_argument("--out", type=Path, default=Path("build"),
                         help="build folder with the pre-baked outputs in notebooks/ (default: build)")
    command.add_argument("--log", type=Path, default=None, help="write the Jupyter server's log to this file")
    command.add_argument("--detach", action="store_true",
                         help="keep serving after this terminal or SSH session ends (stop it with --stop)")
    command.add_argument("--stop", action="store_true", help="stop the present started here with --detach")
    command.add_argument("--detached", action="store_true", help=argparse.SUPPRESS)  # the process --detach starts


def choose_deck(arguments: list[str]) -> tuple[Path, list[Path]]:
    """The deck to present and the other decks in slides/ (to list them)."""
    if len(arguments) > 1:
        raise DeckError(None, None, f"present shows one deck at a time, got {len(arguments)}",
                        "name one: make present DECK=NAME")
    decks = find_decks(arguments)
    if not decks:
        raise DeckError(SLIDES, None, "no decks to present", "add a Markdown deck to slides/ or name one")
    if arguments:
        return decks[0], []
    return decks[0], decks[1:]


def say(line: str) -> None:
    """Print one line; after a SIGHUP the terminal may be gone, which is no error here."""
    try:
        print(line, flush=True)
    except OSError:
        sys.stdout = open(os.devnull, "w")  # so that the flush at exit does not fail either


def detached_argv(args) -> list[str]:
    """The command line of the process ``--detach`` starts: this one's, served in the background."""
    argv = [*args.decks, "--port", str(args.port), "--ip", args.ip, "--out", str(args.out), "--no-browser",
            "--detached"]
    if args.allow_remote:
        argv.append("--allow-remote")
    if args.log:
        argv += ["--log", str(args.log.resolve())]
    return argv


def run(args) -> int:
    from jaxdeck.live import detached

    if args.stop:
        from jaxdeck.live.stop_detached import stop

        say(stop(args.out))
        return 0
    if args.detach:
        choose_deck(args.decks)
        check_installed()  # said here, not in the background process's log
        check_extension()
        started = detached.detach(detached_argv(args), args.out)
        say(f"Presenting in the background (pid {started['pid']}); it keeps running when this session ends")
        say(f"  slideshow:  {started['url']}")
        say(f"  JupyterLab: {started['lab']}")
        say(f"  its log:    {started['log']}")
        say(f"Stop it with: {detached.stop_words(args.out)}")
        return 0
    deck, others = choose_deck(args.decks)
    if not is_loopback(args.ip) and not args.allow_remote:
        raise DeckError(None, None, f"refusing to listen on {args.ip}, which is not a loopback address",
                        "reach the box with an SSH port forward (see README), or add --allow-remote")
    if args.port < 0 or args.port > 65535:
        raise DeckError(None, None, f"--port {args.port} is not a port number", "use 1-65535, or 0 for any free port")
    root = Path.cwd()
    if not deck.resolve().is_relative_to(root.resolve()):
        raise DeckError(deck, None, "the deck is outside the current folder", "run from the repository root")
    server = opener = None
    try:
        STOP.install()  # SIGINT, SIGTERM and SIGHUP now raise Stopped (once)
        deck_to_notebook(deck)  # a broken deck fails here, with file:line, before any server starts
        decks_dir = deck.resolve().parent.relative_to(root.resolve()).as_posix() or "."
        out = args.out.resolve()
        build_dir = out.relative_to(root.resolve()).as_posix() if out.is_relative_to(root.resolve()) else str(out)
        server = start_server(root, port=args.port, ip=args.ip, allow_remote=args.allow_remote,
                              decks_dir=decks_dir, build_dir=build_dir, log_path=args.log)
        url = server.slideshow_url(deck)
        say(f"Presenting {display_path(deck)} (edits saved in Jupyter go back into it)")
        if others:
            say("Other decks: " + ", ".join(display_path(d) for d in others) + " (make present DECK=NAME)")
        say(f"  slideshow:  {url}")
        say(f"  JupyterLab: {server.base}/lab?token={server.token}")
        if not is_loopback(args.ip):
            say(f"  listening on {args.ip}:{server.port} (anyone who has the token can run code)")
        if args.detached:
            say(f"Detached from its terminal: stop it and its kernels with {detached.stop_words(args.out)}")
        else:
            say("Ctrl-C stops the server and its kernel.")
        if args.detached:
            detached.record(args.out, url=url, lab=f"{server.base}/lab?token={server.token}", server=server)
        if args.browser:  # at a private page that leads to the URL: the token on no command line
            opener = Opener(args.out, "present")
            opener.open(url, "the slideshow")
        ticks = 0
        while server.alive():
            if ticks % 4 == 0:  # every 2 s: the kernels it started, for stop() to kill any left behind
                server.track()
            ticks += 1
            time.sleep(0.5)
        say(f"the Jupyter server stopped (exit {server.process.returncode})")
        return 1 if server.process.returncode else 0
    except Stopped as stop:
        if stop.signum == signal.SIGINT:
            say("\nstopping the Jupyter server...")
            return 0
        say(f"{stop.name}: stopping the Jupyter server...")
        return 128 + stop.signum
    finally:
        STOP.armed = False  # first, and no call before it: from here on signals are only recorded
        if server is not None:
            server.stop()
        if opener is not None:
            opener.close()
        if args.detached:
            detached.forget(args.out)
        STOP.uninstall()
