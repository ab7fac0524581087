"""The build's options, one record from the command line to every stage (nbconvert's one configuration
for its exporter and preprocessors, here a frozen dataclass)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxdeck.pdf.layout import HandoutFlags


@dataclass(frozen=True)
class BuildOptions:
    """How a build runs; each field is a flag of ``jaxdeck build`` (or ``jaxdeck pdf``), its default the flag's."""

    timeout: float | None = None       # --timeout: a cell's default time limit (the header's, else 60 s)
    cache: bool = True                 # False (--no-cache): every deck executes, the cache is neither read nor filled
    frozen: str | Path | None = None   # --frozen: the executed notebook (or a folder of them) whose outputs are kept
    strict: bool = False               # --strict: the reader's warnings are errors
    allow_errors: bool = False         # --allow-errors: a cell's error is shown on its slide and listed as a warning
    flags: HandoutFlags | None = None  # --handout-per-page, --paper: the handout's layout for this run
    force: bool = False                # --force: every artefact is made again (outputs still through the cache)
    reprint: bool = False              # jaxdeck pdf --force: the PDFs are printed again
    execution: bool = True             # False (jaxdeck pdf): an executed notebook is judged by its deck alone
    single: bool = False               # --self-contained: single/NAME.html too
    article: bool = False              # --article: article/NAME.html too (with pdf, its PDF)
    pdf: bool = False                  # --pdf: the deck's PDFs too
    jobs: int | None = None            # --jobs: decks built at once (None: one per core, as memory allows)
