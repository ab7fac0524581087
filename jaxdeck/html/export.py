"""Stage 3: an executed deck notebook -> a reveal.js HTML deck that presents offline.

nbconvert renders the cells with our template (themes/jaxdeck), after the preprocessors of
:mod:`jaxdeck.html.layout` have worked out the slide structure; reveal.js, KaTeX
and the theme load from ./assets beside the HTML. Text that came from cell
outputs is escaped by nbconvert; only markup the deck or a rich repr produced is HTML.
Markdown cells and speaker notes, MyST or not, are rendered by :mod:`jaxdeck.html.markdown` (it
replaces nbconvert's ``markdown2html`` filter, so the handout's notes render as the slides' do),
remote images point at their cached copies under ./images/remote, and a deck without slide
markers is fitted first (:mod:`jaxdeck.html.fit`) when a Chromium is there to measure it.

The files a deck names (its pictures, what its raw HTML loads, its theme file and that file's
``url()``s) are copied into a folder of the deck's own beside the page, ``NAME_files/``, at their
paths in the deck's folder, and the page names them there: no copy can land on another deck's
page, a shared asset, or another deck's picture of the same name. Each is checked again by the
rule of :mod:`jaxdeck.read.contained` as it is copied.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jinja2
import nbformat
from nbconvert.preprocessors import Preprocessor
from jaxdeck.html.exporter import DeckExporter

from jaxdeck.html import markdown
from jaxdeck.html.assets import THEMES, copy_if_changed, install_assets, theme_sheets
from jaxdeck.atomic import write_text
from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError
from jaxdeck.html.layout import PREPROCESSORS
from jaxdeck.html.loads import at_copies, beside
from jaxdeck.html.menu import MenuTitles
from jaxdeck.html.outputs_from import OutputsFrom
from jaxdeck.html.shown import ShownFiles
from jaxdeck.stopping import result
from jaxdeck.options import DeckOptions
from jaxdeck.read.contained import MISSING, Refused, copied_as, named, refusal
from jaxdeck.records import BuildRecord


def reveal_config(options: dict) -> dict:
    """``Reveal.initialize`` options from a deck header's options (``DeckOptions.reveal_config``)."""
    return DeckOptions.of(options).reveal_config()


_exporter_lock = threading.Lock()


@jinja2.pass_context
def remote_images(context, rendered: str, images: dict | None) -> str:
    """A markdown cell's rendered HTML with each file it loads at its copy beside the page: a remote
    image's (``images``: URL -> path), and the deck's own in its folder of files (the resources'
    ``jaxdeck.files``, when the page has one)."""
    files = ((context.get("resources") or {}).get("jaxdeck") or {}).get("files")
    return at_copies(rendered, files, images)


class SlideBackgrounds(Preprocessor):
    """Each slide's background picture at its copy in the deck's folder of files (``resources.jaxdeck.files``)."""

    def preprocess(self, nb, resources):
        files = (resources.get("jaxdeck") or {}).get("files")
        for cell in nb.cells if files else ():
            data = ((cell.metadata.get("jd") or {}).get("section") or {}).get("data") or {}
            if data.get("background-image"):
                data["background-image"] = beside(data["background-image"], files)
        return nb, resources


@functools.lru_cache(maxsize=1)
def exporter() -> DeckExporter:
    """One nbconvert exporter per process: its templates are compiled once."""
    made = DeckExporter(template_name="jaxdeck", extra_template_basedirs=[str(THEMES)])
    made.register_filter("markdown2html", markdown.render)
    made.register_filter("remote_images", remote_images)
    for preprocessor in (*PREPROCESSORS, SlideBackgrounds, MenuTitles, OutputsFrom):
        made.register_preprocessor(preprocessor, enabled=True)
    return made


def deck_resources(options: DeckOptions, title: str, provenance: dict | None = None, files: str | None = None) -> dict:
    """What the template reads besides the notebook: title, asset folder, the deck's folder of files
    (``files``; none: the deck's files are named as the deck writes them), theme, reveal.js options,
    title slide, the presenting tools."""
    config = options.reveal_config()
    if "chalkboard" in config:  # drawings kept in the tab while it lives: a reload (the preview's) keeps them
        config["chalkboard"]["storage"] = f"jaxdeck-chalkboard:{title}"
    return {"jaxdeck": {"title": title, "assets": "assets", "files": files,
                        "theme_css": theme_sheets(options.theme, files=files), "footer": options.footer,
                        "logo": beside(options.logo, files) if options.logo else options.logo,
                        "config": config, "byline": options.byline(), "provenance": provenance or {},
                        "tools": options.tools, "chalkboard_in_pdf": options.chalkboard_in_pdf,
                        "incremental": options.incremental}}


def warm_up_exporter() -> threading.Thread:
    """Compile the templates in the background (a build does this while the first kernel runs)."""
    def run():
        with _exporter_lock:
            exporter().from_notebook_node(nbformat.v4.new_notebook(), resources=deck_resources(DeckOptions(), ""))

    thread = threading.Thread(target=run, name="jaxdeck-exporter", daemon=True)
    thread.start()
    return thread


def to_html(nb: nbformat.NotebookNode, title: str | None = None, files: str | None = None) -> str:
    """The deck as one HTML page that expects ./assets beside it (titled ``title``, else the header's, else "Slides"),
    and the deck's own files in ``./files`` (``NAME_files``; none: where the deck names them)."""
    options = DeckOptions.of(nb)
    provenance = BuildRecord.of(nb).provenance
    resources = deck_resources(options, title or options.title_for(None), provenance, files)
    with _exporter_lock:
        body, _ = exporter().from_notebook_node(nb, resources=resources)
    return body


def copy_images(shown: ShownFiles, deck: Path, folder: Path) -> None:
    """Copy the files the deck shows into ``folder``, where its page looks for them: remote images'
    cached copies under images/remote/, the deck's own files into its folder of files
    (``NAME_files/``) at their paths in the deck's folder (a picture of the project at
    :func:`jaxdeck.read.contained.copied_as`). A file the rule of
    :mod:`jaxdeck.read.contained` refuses (it left the deck's folder since the deck was read) is a
    DeckError; one that is gone is skipped (the page shows it broken, as `jaxdeck check` says)."""
    for relative, source in shown.remote.items():
        if source.is_file():
            copy_if_changed(source, folder / relative)
    own = folder / Outputs(deck).files
    for src in shown.written:
        try:
            found = named(deck.parent, src, project=True)  # a picture of the project, ../figures/x.svg, too
        except Refused as refused:
            if refused.why == MISSING:
                continue
            raise refusal(deck, None, "file", refused) from None
        copy_if_changed(found.path, own / copied_as(found.relative))
    for found in shown.theme:
        copy_if_changed(found.path, own / found.relative)


def fit_record(nb: nbformat.NotebookNode, out: str | Path) -> dict | None:
    """What the HTML's record keeps of the fit of a deck without markers (None for a deck with them):
    the Chromium that measured it (None: none was found, the deck is unfitted) and its cuts' digest,
    so that a Chromium installed later refits the deck."""
    from jaxdeck.browser import find_chromium
    from jaxdeck.html.fit import marker_less
    from jaxdeck.html.fit_record import cuts_path

    if not marker_less(nb):
        return None
    try:
        found = find_chromium()
    except DeckError:
        found = None
    cuts = cuts_path(out)
    return {"chromium": found,
            "cuts": hashlib.sha256(cuts.read_bytes()).hexdigest() if cuts.is_file() else None}


def fitted(nb: nbformat.NotebookNode, out: Path, title: str, browser=None, files: str | None = None) -> nbformat.NotebookNode:
    """``nb`` cut where its slides overflow (a deck without slide markers), measured in Chromium.

    Without a Chromium the deck is exported as it is, with one warning line on stderr."""
    from jaxdeck.browser import chromium, find_chromium
    from jaxdeck.html.fit import fit_in_browser, marker_less

    if not marker_less(nb):
        return nb
    if browser is None:
        try:
            find_chromium()
        except DeckError as error:
            print(f"jaxdeck: {out.name}: not fitted to its slides ({error.message})", file=sys.stderr)
            return nb
    scratch = out.with_name(f".{out.stem}.fitting.html")

    def render(candidate: nbformat.NotebookNode) -> Path:
        return write_text(scratch, to_html(candidate, title=title, files=files))

    def in_own_browser() -> nbformat.NotebookNode:
        with chromium() as started:
            return fit_in_browser(nb, render, started, DeckOptions.of(nb).size)

    try:
        if browser is not None:
            return fit_in_browser(nb, render, browser, DeckOptions.of(nb).size)
        # on a thread of its own: Playwright's sync API refuses to start in a thread that already drives a browser
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="jaxdeck-fit") as pool:
            return result(pool.submit(in_own_browser))
    finally:
        scratch.unlink(missing_ok=True)


def export_html(nb: nbformat.NotebookNode, deck: str | Path, out: str | Path, browser=None, *, fit: bool = True,
                shown: ShownFiles | None = None) -> Path:
    """Write the HTML deck to ``out`` atomically, with its assets and images beside it.

    A deck without slide markers is fitted first (in ``browser``, else a Chromium started
    here), unless ``fit`` is false (``nb`` rendered as it is). ``shown``: the files ``nb``
    shows, when the build has worked them out already."""
    deck, out = Path(deck), Path(out)
    title, files = DeckOptions.of(nb).title_for(deck), Outputs(deck).files
    install_assets(out.parent)
    # before the fit: it measures the slides with their pictures in
    copy_images(shown or ShownFiles.of(nb, deck), deck, out.parent)
    if fit:
        from jaxdeck.html.fit import cuts_of, write_cuts
        from jaxdeck.html.fit_tall import blocks_of

        nb = fitted(nb, out, title, browser, files)
        write_cuts(out, cuts_of(nb), blocks_of(nb))  # the live view cuts and fits its slides as this fit did
    return write_text(out, to_html(nb, title=title, files=files))
