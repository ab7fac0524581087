"""The HTML stage's side of what markup loads (:mod:`jaxdeck.read.loads`): each file a deck's own
markup loads pointed at its copy beside the page, a remote image at its cached copy."""

from __future__ import annotations

from urllib.parse import quote

from jaxdeck.read.contained import SCHEME, copied_url, names_a_file
from jaxdeck.read.loads import MAYBE_LOADS, relinked


def at_copies(markup: str, files: str | None, remote: dict[str, str] | None = None) -> str:
    """``markup`` (a markdown cell's or a note's HTML) with each file it loads at its copy beside the
    page: a remote image at its cached copy (``remote``: URL -> path beside the page), a file of the
    deck's in the deck's folder of files, ``files`` (``NAME_files/``, :attr:`jaxdeck.decks.Outputs.files`)."""
    if not files and not remote or not MAYBE_LOADS.search(markup):
        return markup
    return relinked(markup, lambda load: beside(load.url, files, remote))


def beside(url: str, files: str | None, remote: dict[str, str] | None = None) -> str:
    """Where the page finds the file ``url`` names: see :func:`at_copies`."""
    if remote and url in remote:
        return remote[url]
    if not files or not names_a_file(url) or SCHEME.match(url.strip()) or url.strip().startswith(("/", "\\")):
        return url
    return f"{quote(files)}/{copied_url(url)}"  # a picture of the project (../figures/x.svg) at its copy
