"""How the handout goes on paper: how many slides a page, and which paper.

The deck's header says it (``handout_per_page``, ``paper``); ``jaxdeck pdf --handout-per-page N
--paper NAME`` says it for one run, over the header (:class:`HandoutFlags`, recorded with the
handout so that a run with other flags prints it again). Imports nothing heavy: the build's
up-to-date check reads the flags too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from jaxdeck.options import CHOICES, DeckOptions


@dataclass(frozen=True)
class Paper:
    """A paper Chromium prints on: its name there, and its size in millimetres."""

    name: str
    width_mm: float
    height_mm: float

    def print_options(self) -> dict:
        """Chromium's paper and margins (Playwright's ``page.pdf`` options)."""
        return {"format": self.name, "margin": {side: f"{mm}mm" for side, mm in MARGIN_MM.items()}}


#: the papers a handout is printed on, by the name the header and the command line give
PAPERS = {"a4": Paper("A4", 210.0, 297.0), "letter": Paper("Letter", 215.9, 279.4)}

#: the margins the handout and the article are printed with, in millimetres (the page header sits in the top one)
MARGIN_MM = {"top": 18, "bottom": 14, "left": 16, "right": 16}


@dataclass(frozen=True)
class HandoutFlags:
    """What the command line says of the handout for one run; None leaves the header's."""

    per_page: int | None = None
    paper: str | None = None

    def given(self) -> dict:
        """The flags given, as the handout's record of what it was printed with keeps them."""
        return {key: value for key, value in asdict(self).items() if value is not None}

    def suffix(self) -> str:
        """What the flags add to the handout's name: ``-2up``, ``-letter``, ``-2up-letter``; nothing without flags."""
        return "".join(f"-{part}" for part in (self.per_page and f"{self.per_page}up", self.paper) if part)


def pdf_path(outputs, kind: str, flags: HandoutFlags | None = None) -> Path:
    """Where a PDF of ``outputs`` (:class:`jaxdeck.decks.Outputs`) goes: ``kind`` names it as Outputs does;
    a handout laid out by a run's flags has a name of its own (``NAME-handout-2up-letter.pdf``), so that
    neither a later run with other flags nor one without (``make article PDF=1``) prints over it."""
    path = getattr(outputs, kind)
    suffix = (flags or HandoutFlags()).suffix() if kind == "handout" else ""
    return path.with_name(f"{path.stem}{suffix}{path.suffix}") if suffix else path


@dataclass(frozen=True)
class HandoutLayout:
    """How one handout is printed: ``per_page`` slides (each with its notes) on each page of ``paper``."""

    per_page: int = 1
    paper: Paper = PAPERS["a4"]

    @classmethod
    def of(cls, options: DeckOptions, flags: HandoutFlags | None = None) -> HandoutLayout:
        """The header's layout, each flag given for this run in place of the header's value."""
        flags = flags or HandoutFlags()
        per_page = flags.per_page or options.handout_per_page
        return cls(per_page, PAPERS[flags.paper or options.paper])

    def page(self) -> dict:
        """What the handout's script lays slides out by: slides a page, the height of a page inside its
        margins, which each slide takes its share of, and the width of each slide's picture (CSS lengths)."""
        height = self.paper.height_mm - MARGIN_MM["top"] - MARGIN_MM["bottom"]
        return {"perPage": self.per_page, "height": f"{height:g}mm", "frameWidth": f"{self.frame_width_mm():.1f}mm"}

    def frame_width_mm(self) -> float:
        """How wide each slide is printed: as wide as its share of the page allows, with room for its
        notes (beneath it two a page, beside it three a page). The slides' smallest text (20 px outputs)
        stays at 6 pt or more from 142 mm (a 1280 px slide), so a handout is read without a loupe."""
        width = self.paper.width_mm - MARGIN_MM["left"] - MARGIN_MM["right"]
        share = (self.paper.height_mm - MARGIN_MM["top"] - MARGIN_MM["bottom"]) / self.per_page
        if self.per_page == 1:
            return width - 1
        if self.per_page == 2:
            return min(width, (share - HEAD_MM - NOTES_BENEATH_MM - SHEET_GAP_MM[2]) * SLIDE_ASPECT)
        return min(width - NOTES_BESIDE_MM, (share - SHEET_GAP_MM[3]) * SLIDE_ASPECT)


#: the handout's room for a slide's heading, and under each slide's block (its border and gap: handout.css),
#: by slides a page, in millimetres
HEAD_MM, SHEET_GAP_MM = 8, {2: 6, 3: 2.5}
#: the room kept for notes beneath a slide (two a page) or beside it (three a page, the heading on top), in millimetres
NOTES_BENEATH_MM, NOTES_BESIDE_MM = 28, 35
#: the slides' shape on paper (the default 1280x720)
SLIDE_ASPECT = 16 / 9


def add_flags(command) -> None:
    """``--handout-per-page N`` and ``--paper NAME`` on a verb that prints handouts (argparse)."""
    command.add_argument("--handout-per-page", type=int, choices=CHOICES["handout_per_page"], metavar="N",
                         help="slides on each page of the handout: 1 (its notes beneath), 2 (the notes beside and "
                              "beneath each) or 3 (the same, smaller); for this run, over the header's "
                              "handout_per_page (default 1)")
    command.add_argument("--paper", choices=CHOICES["paper"],
                         help="the handout's paper, for this run, over the header's paper (default a4); "
                              "the slides PDF stays 16:9")


def flags_of(args) -> HandoutFlags:
    """The handout flags a command line gave (:func:`add_flags`)."""
    return HandoutFlags(args.handout_per_page, args.paper)
