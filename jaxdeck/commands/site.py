"""`jaxdeck site`: every talk of the series as one offline site, ``build/site/`` (index, a page per talk,
search over slides, notes and code, downloads) that opens from ``file://`` and serves from any static host.

The decks are built first, as ``jaxdeck build --article --pdf`` builds them (only what is out of date; with
``--frozen`` from the outputs kept there); then :func:`jaxdeck.site.make_site` makes what changed. The series
is ``slides/series.yml`` (title, description, talks in order; :mod:`jaxdeck.site.series`); decks named on the
command line are the talks instead, in that order.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.cli import deck_arguments
from jaxdeck.decks import SLIDES, find_decks


def add_arguments(command) -> None:
    deck_arguments(command)
    command.add_argument("--frozen", type=Path, default=None, metavar="PATH",
                         help="build the decks with the outputs kept from another machine (e.g. gpu/h100), as "
                              "`jaxdeck build --frozen` does; the cards say which machine made them")
    command.add_argument("--series", type=Path, default=None, metavar="FILE",
                         help="the series file: title, description and talks in order (default: slides/series.yml)")
    command.add_argument("-j", "--jobs", type=int, default=None, metavar="N", help="build N decks at once")


def report(built) -> None:
    """A deck's line when its build did something (an up-to-date deck says nothing here)."""
    from jaxdeck.commands.build import report as build_report

    if built.done != "up to date" or built.warnings or built.frozen:
        build_report(built)


def run(args) -> int:
    from dataclasses import replace

    from jaxdeck.commands.build import build_decks
    from jaxdeck.places import WRITTEN, own_build_folder
    from jaxdeck.site import make_site
    from jaxdeck.site.series import read_series

    decks = find_decks(args.decks) if args.decks else None
    slides = decks[0].parent if decks else SLIDES
    series = read_series(slides, args.series)
    if decks:
        series = replace(series, talks=tuple(decks))
    if not series.talks:
        from jaxdeck.errors import DeckError

        raise DeckError(slides, None, "no decks for the site", "write decks in slides/ or name them in series.yml")
    own_build_folder(args.out, WRITTEN + ("site",))
    build_decks(list(series.talks), args.out, pdf=True, article=True, frozen=args.frozen, report=report,
                jobs=args.jobs)
    made = make_site(series, args.out)
    print(made.line(), flush=True)
    return 0
