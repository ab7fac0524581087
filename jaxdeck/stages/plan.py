"""Which stages a deck's build runs: each artefact whose input record is missing or whose inputs changed
(:mod:`jaxdeck.stamps`), and every artefact made from it after it. Imports nothing heavy: a build with
nothing to do reads the records and stops here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jaxdeck import stamps
from jaxdeck.decks import ARTICLE_PDF, Outputs
from jaxdeck.stages.options import BuildOptions

#: the two PDFs of a deck, by the name of their ``Outputs`` attribute
PDFS = ("pdf", "handout")


@dataclass
class Plan:
    """Which of a deck's artefacts a build makes; a fresh plan makes none."""

    deck: Path
    outputs: Outputs
    notebook: bool = True
    html: bool = True
    pdfs: tuple[str, ...] = ()
    single: bool = False
    article: bool = False

    @property
    def fresh(self) -> bool:
        return not (self.notebook or self.html or self.pdfs or self.single or self.article)


def plan(deck: Path, outputs: Outputs, sources: stamps.Sources, options: BuildOptions = BuildOptions()) -> Plan:
    """What to rebuild of ``deck``: each artefact whose record is missing or whose inputs changed.

    ``options.single`` asks for the self-contained file too, ``options.article`` the article (with
    ``options.pdf`` its PDF too, planned in ``pdfs`` as :data:`ARTICLE_PDF`). ``force`` rebuilds all,
    ``reprint`` the PDFs; without ``cache`` the deck always executes; without ``execution`` the executed
    notebook is judged by the deck alone, not by where its outputs came from (``jaxdeck pdf`` and
    ``check`` keep outputs taken with ``--frozen``); ``flags`` (``jaxdeck pdf --handout-per-page N
    --paper NAME``) reprint a handout printed otherwise.
    """
    from jaxdeck.pdf.layout import pdf_path

    pdf, single, article, flags = options.pdf, options.single, options.article, options.flags
    pdfs = PDFS if pdf else ()
    everything = pdfs + ((ARTICLE_PDF,) if article and pdf else ())
    if options.force or not options.cache:
        return Plan(deck, outputs, True, True, everything, single, article)
    notebook = stamps.load(outputs.notebook)
    if (notebook is None
            or {k: v for k, v in notebook["inputs"].items() if k != "execution"} != sources.notebook_inputs(deck)
            or (options.execution and not sources.execution_holds(notebook, outputs.notebook, deck, options.frozen))):
        return Plan(deck, outputs, True, True, everything, single, article)
    made_article, article_pdf = article_plan(sources, notebook, deck, outputs, pdf=pdf, reprint=options.reprint) \
        if article else (False, ())
    html = stamps.load(outputs.html)
    if not sources.html_holds(html, notebook, deck, outputs) or unfitted_but_fittable(html):
        return Plan(deck, outputs, False, True, pdfs + article_pdf, single, made_article)
    stale = []
    for kind in pdfs:
        record = stamps.load(pdf_path(outputs, kind, flags))
        if options.reprint or record is None or record["inputs"] != sources.pdf_inputs(kind, html, deck, flags):
            stale.append(kind)
    single = single and not single_holds(sources, html, outputs)
    return Plan(deck, outputs, False, False, tuple(stale) + article_pdf, single, made_article)


def article_plan(sources: stamps.Sources, notebook: dict, deck: Path, outputs: Outputs, *, pdf: bool,
                 reprint: bool) -> tuple[bool, tuple[str, ...]]:
    """Whether the article is out of date, and its PDF (``(ARTICLE_PDF,)`` or ``()``, asked for with ``pdf``)."""
    article = stamps.load(outputs.article)
    if not sources.article_holds(article, notebook, deck, outputs):
        return True, (ARTICLE_PDF,) if pdf else ()
    if not pdf:
        return False, ()
    printed = stamps.load(outputs.article_pdf)
    stale = reprint or printed is None or printed["inputs"] != sources.article_pdf_inputs(article)
    return False, (ARTICLE_PDF,) if stale else ()


def single_holds(sources: stamps.Sources, html: dict, outputs: Outputs) -> bool:
    """Whether the self-contained file was made from this HTML and the files beside it as they are now."""
    record = stamps.load(outputs.single)
    if record is None:
        return False
    files = record["inputs"].get("files")
    return isinstance(files, dict) and record["inputs"] == sources.single_inputs(html, outputs.html.parent, files)


def unfitted_but_fittable(html: dict) -> bool:
    """An HTML exported unfitted for want of a Chromium (its record's ``fit``), where one is found now."""
    fit = html.get("fit")
    if not isinstance(fit, dict) or fit.get("chromium"):
        return False
    from jaxdeck.browser import find_chromium
    from jaxdeck.errors import DeckError

    try:
        return bool(find_chromium())
    except DeckError:
        return False
