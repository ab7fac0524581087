"""`python -m jaxdeck build|pdf|check|present|bench [DECK...]`: the Makefile's verbs."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from .errors import DeckError

#: command -> (module with add_arguments/run, one-line help)
COMMANDS = {
    "build": ("jaxdeck.commands.build", "convert, execute and export decks to build/notebooks and build/html"),
    "pdf": ("jaxdeck.commands.pdf", "print decks to build/pdf/NAME.pdf and NAME-handout.pdf"),
    "check": ("jaxdeck.commands.check", "lint decks in a real browser: overflow, notes, slow cells, images"),
    "present": ("jaxdeck.commands.present", "present a deck live with Jupyter + RISE"),
    "bench": ("jaxdeck.commands.bench", "run the performance benchmarks into build/bench"),
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m jaxdeck", description="JAX seminar decks from Markdown.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name == module_name:
                continue
            raise
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except DeckError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def deck_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments every verb shares: decks and the build folder."""
    command.add_argument("decks", nargs="*", metavar="DECK", help="Markdown decks (default: every deck in slides/)")
    command.add_argument("--out", type=Path, default=Path("build"), help="build folder (default: build)")
