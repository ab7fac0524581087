"""`python -m jaxdeck build|pdf|check|present|preview|bench [DECK...]` and `new NAME`: the Makefile's verbs.

It starts at once: only the verb that runs is imported (``--help`` imports none), and the
verbs import their heavy libraries (nbformat, nbconvert, nbclient, Playwright) when they use them.
"""

from __future__ import annotations

import sys

# nbformat imports jsonschema, whose format checkers import rfc3987_syntax when it is
# installed (jupyter-events asks for it); that compiles some 35 Lark grammars at import,
# about 1.5 s of every start, for the `iri` formats that no notebook schema uses
# (jsonschema issue 1428). A None entry makes that optional import fail at once, and
# jsonschema then leaves those two checkers out. The other optional checkers' libraries
# (Jupyter's server asks for them too) cost 60 ms more, for formats (uri, date-time, duration,
# color, hostname, json-pointer) that the notebook schemas never name either; nothing else
# here imports them. Only this process is affected: the live server runs in one of its own.
FORMAT_CHECKERS_UNUSED = ("rfc3987_syntax", "rfc3986_validator", "rfc3339_validator", "isoduration", "uri_template",
                          "webcolors", "fqdn", "jsonpointer")
for _name in FORMAT_CHECKERS_UNUSED:
    sys.modules.setdefault(_name, None)

import argparse  # noqa: E402
import importlib  # noqa: E402
from pathlib import Path  # noqa: E402

from jaxdeck.errors import DeckError, os_error  # noqa: E402
from jaxdeck.limits import check_open_files  # noqa: E402
from jaxdeck.stopping import STOP_S, Stopped, leave, leave_on_signals, say, stop_on_signals  # noqa: E402

#: command -> (module with add_arguments/run, one-line help)
COMMANDS = {
    "build": ("jaxdeck.commands.build", "convert, execute and export decks to build/notebooks and build/html"),
    "pdf": ("jaxdeck.commands.pdf", "print decks to build/pdf/NAME.pdf and NAME-handout.pdf"),
    "check": ("jaxdeck.commands.check", "lint decks in a real browser: overflow, notes, slow cells, images"),
    "present": ("jaxdeck.commands.present", "present a deck live with Jupyter + RISE"),
    "preview": ("jaxdeck.commands.preview", "serve a deck's HTML on 127.0.0.1 and reload it on every save"),
    "rehearse": ("jaxdeck.commands.rehearse", "a dress rehearsal of the live talk here: every slide, cell and size"),
    "bench": ("jaxdeck.commands.bench", "run the performance benchmarks into build/bench"),
    "new": ("jaxdeck.commands.new", "start a deck: slides/NAME.md from a template that builds and checks clean"),
    "site": ("jaxdeck.commands.site", "every talk of the series as one offline site: build/site/index.html, a page "
                                      "per talk, search, downloads"),
}

#: commands that write in the build folder without a build (which holds it to jaxdeck.places.own_build_folder
#: itself): held to the same rule before they start anything (jaxdeck.places.refuse_unowned)
BUILD_FOLDER_OWN = {"present", "preview", "rehearse", "bench"}
#: commands that handle their stop signals themselves (a server that must shut down in order)
OWN_SIGNALS = {"present"}
#: commands that, once stopped, shut a server down in order (its threads joined, which takes seconds):
#: the others are gone within jaxdeck.stopping.STOP_S of the signal, whatever they wait on
ORDERLY = {"preview"}
#: an orderly shutdown still going this many seconds after the signal is a hang (a thread the interpreter's
#: exit would join, stuck): the process is then ended as the others are, its children with it
ORDERLY_S = 30.0


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``command``, only that verb's module is imported ("" imports none)."""
    top = argparse.ArgumentParser(prog="python -m jaxdeck", description="JAX seminar decks from Markdown.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        verb = sub.add_parser(name, help=help_text, description=help_text)
        if command is not None and name != command:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name == module_name:
                continue
            raise
        module.add_arguments(verb)
        verb.set_defaults(run=module.run)
    return top


def main(argv: list[str] | None = None) -> int:
    """The command line; called without ``argv`` it is the process's own (``python -m jaxdeck``, the
    ``jaxdeck`` script), whose end it owns too: a stop signal after the work, while the interpreter shuts
    down, still ends it as a stop."""
    whole_process = argv is None
    argv = sys.argv[1:] if argv is None else argv
    name = next((a for a in argv if not a.startswith("-")), "")
    args = parser(name if name in COMMANDS else "").parse_args(argv)
    if whole_process:
        from jaxdeck.orphans import watch

        watch()  # what it starts ends with it, even killed with SIGKILL; dead commands' folders are swept
    try:
        check_open_files()  # a kernel or Chromium would die of it later, saying less
        if args.command in BUILD_FOLDER_OWN:
            from jaxdeck.places import LIVE_WRITTEN, WRITTEN, refuse_unowned

            refuse_unowned(args.out, WRITTEN + LIVE_WRITTEN)
        if args.command in OWN_SIGNALS:
            return int(args.run(args) or 0)
        if whole_process:
            leave_on_signals()  # what stop_on_signals puts back when the work is done
        with stop_on_signals(ORDERLY_S if args.command in ORDERLY else STOP_S) as received:
            try:
                return int(args.run(args) or 0)
            except Exception:
                if received:  # the stop was raised where a library caught it (Playwright's loop): what broke next is the stop
                    raise Stopped(received[0]) from None
                raise
    except DeckError as err:
        for each in getattr(err, "errors", None) or [err]:
            if getattr(args, "verbose", False) and each.details:
                print(each.details.rstrip(), file=sys.stderr)
            print(f"{each.kind}: {each}", file=sys.stderr)
        if getattr(err, "errors", None):
            print(f"error: {err}", file=sys.stderr)
        return 1
    except Stopped as stop:
        if args.command in OWN_SIGNALS | ORDERLY:  # a server that has shut itself down in order
            say(stop)
            return stop.exit_code
        leave(stop)  # at once: a thread still in Playwright would hold up (or crash) the interpreter's shutdown
        return stop.exit_code
    except Exception as err:  # a full disk, a limit of the shell, a read-only folder: the user's to fix, in one line
        said = os_error(err, getattr(args, "out", None))
        if said is None:
            raise
        print(f"error: {said}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def deck_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments every verb shares: decks and the build folder."""
    command.add_argument("decks", nargs="*", metavar="DECK", help="Markdown decks (default: every deck in slides/)")
    command.add_argument("--out", type=Path, default=Path("build"), help="build folder (default: build)")
    command.add_argument("-v", "--verbose", action="store_true",
                         help="print a failing cell's whole traceback (or a stuck kernel's stacks) above its error")
