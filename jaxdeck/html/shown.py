"""The files a deck's page shows, worked out once per build of the deck.

Its markdown's images, what its raw HTML loads, its slides' background images, the header's logo
and theme file with what that file loads, and the cached copies of its remote images: the HTML
stage copies them beside the page, the article's stage beside the article, and the stamps of both
record the deck's own files among their inputs. Finding them parses every markdown cell, so a
build does it once (:meth:`ShownFiles.of`) and hands the record to each of those steps.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat

from jaxdeck.html import markdown
from jaxdeck.html.assets import is_theme_file
from jaxdeck.html.layout import REMOTE_IMAGES, slide_images
from jaxdeck.read.loads import check_stylesheet, loads
from jaxdeck.options import DeckOptions
from jaxdeck.read.contained import Named, check, file_part, names_a_file
from jaxdeck.records import cell_info
from jaxdeck.tokens import parsed


@dataclass(frozen=True)
class ShownFiles:
    """The files one deck's page shows.

    ``written``: the deck's own files as the deck writes them (:func:`written_files`); ``theme``:
    those its theme file loads, each checked; ``remote``: the cached copies of its remote images,
    by their path beside the page.
    """

    written: tuple[str, ...]
    theme: tuple[Named, ...]
    remote: Mapping[str, Path]

    @classmethod
    def of(cls, nb: nbformat.NotebookNode, deck: Path) -> ShownFiles:
        """What ``nb``, the notebook of ``deck``, shows; a DeckError at the theme file's line for a
        file that theme may not load."""
        return cls(tuple(written_files(nb)), tuple(theme_files(nb, deck)), remote_copies(nb))

    @property
    def local(self) -> list[str]:
        """The files of the deck's folder the page shows, as paths relative to that folder: the
        files a copy is made of, and the stamps record."""
        found = [posixpath.normpath(file_part(src)) for src in self.written]  # `my%20pic.png` names `my pic.png`
        found += [f.relative for f in self.theme]
        return list(dict.fromkeys(found))


def written_files(nb: nbformat.NotebookNode) -> list[str]:
    """Every local file the deck's page shows, as the deck writes it: its markdown's images, what
    its raw HTML loads, its slides' background images, the header's logo and theme file."""
    logo, theme = DeckOptions.of(nb).logo, DeckOptions.of(nb).theme
    written = [logo] if logo else []
    written += [theme] if is_theme_file(theme) else []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        written += slide_images(cell)
        for token in parsed(markdown.PARSER, cell.source):
            if token.type == "html_block":
                written += [load.url for load in loads(token.content)]
            for child in token.children or []:
                if child.type == "image":
                    written.append(str(child.attrs.get("src", "")))
                elif child.type == "html_inline":
                    written += [load.url for load in loads(child.content)]
    return [src for src in dict.fromkeys(written) if names_a_file(src)]


def theme_files(nb: nbformat.NotebookNode, deck: Path) -> list[Named]:
    """The files the deck's theme file loads (its ``url()``s, ``@import``s), each checked; a
    DeckError at the theme file's line for one it may not load."""
    theme = DeckOptions.of(nb).theme
    if not is_theme_file(theme) or not (deck.parent / theme).is_file():
        return []
    return check_stylesheet(deck, check(deck, None, theme))


def remote_copies(nb: nbformat.NotebookNode) -> dict[str, Path]:
    """The cached copies of the deck's remote images: relative path beside the HTML -> cached file."""
    found = {}
    for cell in nb.cells:
        for local in filter(None, (cell_info(cell).get("images") or {}).values()):
            found[f"{REMOTE_IMAGES}/{Path(local).name}"] = Path(local)
    return found
