"""The deck options of a YAML header (``jupyter: jaxdeck:``), with their defaults in one place.

Every stage that needs a deck's size, title, theme or budgets reads them through
:class:`DeckOptions` instead of re-reading ``nb.metadata["jaxdeck"]`` with defaults of its own.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from jaxdeck.records import OPTIONS_KEY

#: option -> the types a header may give it (checked when the deck is read); a ``date`` may be a
#: YAML date (``date: 2026-11-22``), shown as written
TYPES: dict[str, type | tuple[type, ...]] = {
    "title": str, "subtitle": str, "author": str, "date": (str, datetime.date), "venue": str,
    "theme": str, "transition": str, "width": int, "height": int,
    "slide_number": (bool, str), "timeout": (int, float), "budget_s": (int, float),
    "duration": (int, float), "words_per_minute": int, "max_output_mb": (int, float), "strict": bool, "allow_errors": bool,
    "footer": str, "logo": str,
    "tools": bool, "chalkboard_in_pdf": bool, "incremental": bool, "max_code_lines": int,
    "handout_per_page": int, "paper": str,
}
#: options a header may give only one of a few values (checked when the deck is read; the first is the default)
CHOICES: dict[str, tuple] = {"handout_per_page": (1, 2, 3), "paper": ("a4", "letter")}

#: the notebook metadata keys (a Markdown header's ``jupyter:`` mapping, a MyST header's root) that
#: jaxdeck, jupytext, Jupyter and RISE read: a key close to one of them is a typo, and an error
READ_KEYS = (OPTIONS_KEY, "rise", "jupytext", "kernelspec", "language_info")
#: notebook metadata that Jupyter's tools and MyST write: kept as written, passed on, never a warning
KEPT_KEYS = frozenset({
    # Jupyter, its extensions and notebook services
    "widgets", "colab", "kaggle", "accelerator", "gpuClass", "vscode", "interpreter", "celltoolbar", "toc",
    "toc-autonumbering", "toc-showcode", "toc-showmarkdowntxt", "toc-showtags", "varInspector", "latex_envs",
    "hide_input", "nteract", "anaconda-cloud", "orig_nbformat", "papermill", "kernel_info", "title", "authors",
    "language",
    # MyST, MyST-NB and Jupyter Book front matter
    "jupyter", "subtitle", "short_title", "description", "label", "date", "author", "affiliations",
    "contributors", "keywords", "tags", "venue", "subject", "github", "doi", "arxiv", "open_access",
    "license", "copyright", "funding", "numbering", "math", "abbreviations", "bibliography", "exports",
    "downloads", "banner", "thumbnail", "site", "options", "parts", "abstract", "settings", "myst", "mystnb",
    "file_format", "execution", "substitutions", "html_meta", "orphan", "nosearch", "tocdepth",
})


@dataclass(frozen=True)
class DeckOptions:
    """A deck's options; a field the header leaves out holds its default."""

    title: str | None = None
    subtitle: str | None = None
    author: str | None = None
    date: str | None = None
    venue: str | None = None
    theme: str | None = None
    transition: str = "none"
    width: int = 1280
    height: int = 720
    slide_number: bool | str = "c/t"
    timeout: float | None = None
    budget_s: float = 2.0
    max_output_mb: float = 4.0         # a code cell's outputs beyond this are cut, and the slide says so
    max_code_lines: int = 14           # a shown code cell longer than this is a `check` problem: a room can't read it
    duration: float | None = None      # the talk's length in minutes, for the rehearsal's clock
    words_per_minute: int = 130        # the presenter's pace, for the rehearsal's clock
    strict: bool = False               # a warning (an image that cannot be fetched) stops the build
    allow_errors: bool = False         # a cell's error is shown and listed, not a failed build (a tutorial)
    footer: str | None = None          # a line of text at the foot of every slide
    logo: str | None = None            # a local image (under the deck's folder) in every slide's corner
    tools: bool = True                 # reveal.js's search, zoom, menu and chalkboard on the slides
    chalkboard_in_pdf: bool = False    # the chalkboard stays in reveal.js's print view (drawings printed)
    incremental: bool = False          # every list on the slides steps in item by item ({.nonincremental} keeps one whole)
    handout_per_page: int = 1          # slides on each handout page, each with its notes (1, 2 or 3)
    paper: str = "a4"                  # the handout's and the article PDF's paper (a4 or letter)

    @classmethod
    def of(cls, metadata: Mapping[str, Any] | DeckOptions | None) -> DeckOptions:
        """The options of a notebook's ``metadata.jaxdeck`` (or of a notebook: its metadata is looked up)."""
        if isinstance(metadata, DeckOptions):
            return metadata
        if metadata is not None and "metadata" in metadata and "cells" in metadata:
            metadata = metadata["metadata"].get(OPTIONS_KEY)
        given = {k: v for k, v in dict(metadata or {}).items() if k in TYPES and v is not None}
        if isinstance(given.get("date"), datetime.date):  # the reader keeps a YAML date as written
            given["date"] = str(given["date"])
        return cls(**given)

    def title_for(self, deck: str | Path | None) -> str:
        """The deck's title: the header's, else the file's name."""
        return self.title or (Path(deck).stem if deck else "Slides")

    @property
    def size(self) -> tuple[int, int]:
        """The slide's width and height in CSS pixels."""
        return int(self.width), int(self.height)

    def byline(self) -> list[str]:
        """Subtitle, author, venue and date, those the header gives, in that order."""
        return [str(v) for v in (self.subtitle, self.author, self.venue, self.date) if v]

    def reveal_config(self) -> dict:
        """``Reveal.initialize`` options: 16:9 by default, slide numbers, no centring; with the
        presenting tools, a menu of the slides alone (no theme or transition pickers: the deck's
        are fixed) and the chalkboard's settings."""
        config = {
            "width": self.size[0], "height": self.size[1], "margin": 0.04, "hash": True,
            "controls": True, "progress": True, "center": False, "transition": self.transition,
            # true shows the number as the default does ("c/t"), not as reveal.js's own true ("h.v": "6 . 1")
            "slideNumber": "c/t" if self.slide_number is True else self.slide_number, "pdfSeparateFragments": False,
        }
        if self.tools:
            # no button in the corner, where it would cover a slide's last output line: M or a
            # click on the slide number opens the menu. Its titles are each slide's data-menu-title,
            # text the build escaped (jaxdeck.html.menu): the menu would read a heading's text as HTML
            config["menu"] = {"themes": False, "transitions": False, "numbers": True,
                              "titleSelector": "", "useTextContentForMissingTitles": True,
                              "openButton": False, "openSlideNumber": True}
            config["chalkboard"] = {"theme": "chalkboard"}
        return config


