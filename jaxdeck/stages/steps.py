"""The stages of a deck's build, in the order they run: each a small named step that runs once when the
plan wants it, takes the record an earlier stage gave (``takes``), returns its own (``gives``) and says
what the artefacts it wrote were made from; :mod:`jaxdeck.stages.runner` runs them, and is the one
writer of the input records. A new stage is a class here and an entry in :data:`STAGES`.

The heavy libraries (nbformat, jupytext, nbconvert, nbclient, Playwright) are imported only when a
stage runs, so a build with nothing to do stays quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jaxdeck import stamps, trust
from jaxdeck.atomic import write_text
from jaxdeck.decks import ARTICLE_PDF
from jaxdeck.errors import DeckError, display_path
from jaxdeck.records import OPTIONS_KEY, BuildRecord
from jaxdeck.stages.job import Job
from jaxdeck.stages.records import Article, Executed, Execution, Page, Read, Shown, Stamp


class Stage:
    """A step of a deck's build. ``name`` is what the progress line says while it runs (None: the line
    stays as it was); ``clock`` the :class:`jaxdeck.stages.records.StageSeconds` field its time counts in."""

    name: str | None = None
    takes: str | None = None
    gives: str = ""
    clock: str = "export_html"

    def wanted(self, job: Job) -> bool:
        raise NotImplementedError

    def run(self, job: Job, given: Any) -> Any:
        raise NotImplementedError

    def stamps(self, job: Job, made: Any) -> list[Stamp]:
        """The input records of the artefacts ``made`` wrote (none by default)."""
        return []


class ReadDeck(Stage):
    """Markdown -> notebook (:func:`jaxdeck.read.read_deck`); ``--allow-errors`` as the header's says it."""

    name, gives, clock = "convert", "read", "convert"

    def wanted(self, job: Job) -> bool:
        return job.plan.notebook

    def run(self, job: Job, given: None) -> Read:
        from jaxdeck.read import read_deck

        nb, learnt = read_deck(job.deck, job.outputs.root, job.options.strict)
        if job.options.allow_errors:  # as the header's `allow_errors: true` says it
            nb.metadata.setdefault(OPTIONS_KEY, {})["allow_errors"] = True
        return Read(nb, learnt)


class Execute(Stage):
    """Notebook -> executed notebook, through the execution cache (:mod:`jaxdeck.execute`), and what the
    run learnt of the deck, which the runner writes into its build record before :class:`KeepExecuted`."""

    name, takes, gives, clock = "execute", "read", "execution", "execute"

    def wanted(self, job: Job) -> bool:
        return job.plan.notebook

    def run(self, job: Job, given: Read) -> Execution:
        from jaxdeck.execute import run_deck

        name, progress, options = job.deck.name, job.shared.progress, job.options
        try:
            run = run_deck(given.notebook, job.deck, job.outputs.root, timeout=options.timeout,
                           cache=options.cache, frozen=options.frozen, cpus=job.cpus,
                           on_cell=(lambda k, n: progress.cell(name, k, n)) if progress else None,
                           on_start=job.shared.on_start)
        except DeckError as err:
            raise kept(err, job.outputs.errors) from None
        job.outputs.errors.unlink(missing_ok=True)  # a failure's record lasts until the deck runs
        return Execution(run.notebook, run.learnt)


class KeepExecuted(Stage):
    """The executed notebook, its build record written, -> ``notebooks/NAME.ipynb``, signed where its outputs
    are this user's builds'."""

    takes, gives, clock = "execution", "executed", "execute"

    def wanted(self, job: Job) -> bool:
        return job.plan.notebook

    def run(self, job: Job, given: Execution) -> Executed:
        import nbformat

        from jaxdeck.execute import frozen_line

        nb = given.notebook
        record, frozen = BuildRecord.of(nb), frozen_line(nb, job.deck)
        written = nbformat.writes(nb)
        write_text(job.outputs.notebook, written)
        # outputs made here, or kept from a notebook this user's builds signed: shown as built, live too
        if not record.frozen_cells or trust.signed_file(record.frozen_from):
            trust.sign(nb, written=written)
        return Executed(nb, record, frozen, written)

    def stamps(self, job: Job, made: Executed) -> list[Stamp]:
        sources = job.shared.sources
        # outputs made here, kept from the frozen notebook, or both
        execution = sources.execution(job.deck, job.options.frozen, own=made.record.own_provenance is not None)
        return [Stamp(job.outputs.notebook, {**sources.notebook_inputs(job.deck), "execution": execution},
                      {"machine": sources.machine})]


class LoadExecuted(Stage):
    """The executed notebook an earlier build wrote, when it is up to date and a later stage needs it:
    sanitised unless this user's build signed it, as the live slideshow shows it."""

    gives = "executed"

    def wanted(self, job: Job) -> bool:
        return not job.plan.notebook and bool(job.plan.html or job.plan.pdfs or job.plan.article)

    def run(self, job: Job, given: None) -> Executed:
        from jaxdeck.execute.shape import read_executed

        nb = read_executed(job.outputs.notebook, f"build it again: jaxdeck build --force {job.deck}")
        if not trust.signed(nb):  # not as this user's build wrote it: shown sanitised, as live
            from jaxdeck.untrusted import sanitised

            nb = sanitised(nb)
        return Executed(nb)


class FilesShown(Stage):
    """The files the deck's slides show (:class:`jaxdeck.html.shown.ShownFiles`), for the page and the article."""

    takes, gives = "executed", "shown"

    def wanted(self, job: Job) -> bool:
        return job.plan.html or job.plan.article

    def run(self, job: Job, given: Executed) -> Shown:
        from jaxdeck.html.shown import ShownFiles

        return Shown(given.notebook, ShownFiles.of(given.notebook, job.deck))


class ExportHtml(Stage):
    """Executed notebook -> the reveal.js page (:func:`jaxdeck.html.export.export_html`), fitted where the
    deck has no slide markers."""

    name, takes, gives = "export html", "shown", "page"

    def wanted(self, job: Job) -> bool:
        return job.plan.html

    def run(self, job: Job, given: Shown) -> Page:
        from jaxdeck.html.export import export_html, fit_record

        path = job.outputs.html
        export_html(given.notebook, job.deck, path, shown=given.files)
        return Page(path, tuple(given.files.local), fit_record(given.notebook, path))

    def stamps(self, job: Job, made: Page) -> list[Stamp]:
        inputs = job.shared.sources.html_inputs(notebook_sha(job), job.deck, made.images)
        return [Stamp(made.path, inputs, {"fit": made.fit})]


class SingleFile(Stage):
    """The page (this build's, or the earlier one still up to date) and every file it loads -> one file
    (:func:`jaxdeck.html.single.write_single`)."""

    name, gives = "single file", "single"

    def wanted(self, job: Job) -> bool:
        return job.plan.single

    def run(self, job: Job, given: None):
        from jaxdeck.html.single import write_single

        return write_single(job.outputs.html, job.outputs.single, job.deck)

    def stamps(self, job: Job, made) -> list[Stamp]:
        html = stamps.load(job.outputs.html)
        if html is None:
            return []
        return [Stamp(job.outputs.single, job.shared.sources.single_inputs(html, job.outputs.html.parent, made.files))]


class ExportArticle(Stage):
    """Executed notebook -> the article (:func:`jaxdeck.article.export.export_article`)."""

    name, takes, gives = "article", "shown", "article"

    def wanted(self, job: Job) -> bool:
        return job.plan.article

    def run(self, job: Job, given: Shown) -> Article:
        from jaxdeck.article.export import export_article

        export_article(given.notebook, job.deck, job.outputs.article, shown=given.files)
        return Article(job.outputs.article, tuple(given.files.local))

    def stamps(self, job: Job, made: Article) -> list[Stamp]:
        return [Stamp(made.path, job.shared.sources.article_inputs(notebook_sha(job), job.deck, made.images))]


class Print(Stage):
    """The page (and the article) -> the PDFs the plan names, in the build's printer
    (:class:`jaxdeck.pdf.printer.BackgroundPrinter`); nothing without one."""

    name, takes, gives, clock = "pdf", "executed", "printed", "pdf"

    def wanted(self, job: Job) -> bool:
        return bool(job.plan.pdfs) and job.shared.printer is not None

    def run(self, job: Job, given: Executed):
        return job.shared.printer.print_pdfs(given.notebook, job.outputs.html, job.outputs, parts=job.plan.pdfs,
                                             flags=job.options.flags)

    def stamps(self, job: Job, made) -> list[Stamp]:
        from jaxdeck.pdf.layout import pdf_path

        sources, outputs, flags = job.shared.sources, job.outputs, job.options.flags
        html = stamps.load(outputs.html)
        found = []
        for kind in job.plan.pdfs:
            if kind == ARTICLE_PDF:
                article = stamps.load(outputs.article)
                if article is not None:
                    found.append(Stamp(outputs.article_pdf, sources.article_pdf_inputs(article)))
            elif html is not None:
                found.append(Stamp(pdf_path(outputs, kind, flags), sources.pdf_inputs(kind, html, job.deck, flags)))
        return found


#: every stage, in the order a deck goes through them
STAGES: tuple[Stage, ...] = (ReadDeck(), Execute(), KeepExecuted(), LoadExecuted(), FilesShown(), ExportHtml(), SingleFile(),
                             ExportArticle(), Print())


def notebook_sha(job: Job) -> str | None:
    """The digest the executed notebook's record names (None when it has none that holds)."""
    notebook = stamps.load(job.outputs.notebook)
    return notebook and notebook["sha256"]


def kept(err: DeckError, where: Path) -> DeckError:
    """``err``, its details (a traceback, a stuck kernel's stacks) written to ``where`` and named in its hint."""
    if not err.details:
        return err
    write_text(where, err.details.rstrip() + "\n")
    hint = (err.hint + "; " if err.hint else "") + f"{err.details_are} is in {display_path(where)}"
    return DeckError(err.path, err.line, err.message, hint, slide=err.slide, details=err.details,
                     details_are=err.details_are)
