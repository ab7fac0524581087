"""Stage 3: an executed deck notebook -> a reveal.js HTML deck that presents offline.

nbconvert renders the cells with our template (themes/jaxdeck), after the preprocessors of
:mod:`jaxdeck.html.layout` have worked out the slide structure; reveal.js, KaTeX
and the theme load from ./assets beside the HTML. Text that came from cell
outputs is escaped by nbconvert; only markup the deck or a rich repr produced is HTML.
Markdown cells and speaker notes, MyST or not, are rendered by :mod:`jaxdeck.html.markdown` (it
replaces nbconvert's ``markdown2html`` filter, so the handout's notes render as the slides' do),
remote images point at their cached copies under ./images/remote, and a deck without slide
markers is fitted first (:mod:`jaxdeck.html.fit`) when a Chromium is there to measure it.
"""

from __future__ import annotations

import functools
import hashlib
import html as html_
import shutil
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from jaxdeck.html.exporter import DeckExporter

from jaxdeck.html import markdown
from jaxdeck.html.assets import THEMES, install_assets, is_theme_file, theme_sheets
from jaxdeck.atomic import write_text
from jaxdeck.errors import DeckError
from jaxdeck.html.layout import PREPROCESSORS, REMOTE_IMAGES, slide_images
from jaxdeck.options import DeckOptions
from jaxdeck.records import BuildRecord, cell_info


def reveal_config(options: dict) -> dict:
    """``Reveal.initialize`` options from a deck header's options (``DeckOptions.reveal_config``)."""
    return DeckOptions.of(options).reveal_config()


_exporter_lock = threading.Lock()


def remote_images(rendered: str, images: dict | None) -> str:
    """Rendered HTML with each remote image's ``src`` pointing at its copy beside the page."""
    for url, local in (images or {}).items():
        for written in dict.fromkeys((url, html_.escape(url))):
            rendered = rendered.replace(f'src="{written}"', f'src="{html_.escape(local)}"')
    return rendered


@functools.lru_cache(maxsize=1)
def exporter() -> DeckExporter:
    """One nbconvert exporter per process: its templates are compiled once."""
    made = DeckExporter(template_name="jaxdeck", extra_template_basedirs=[str(THEMES)])
    made.register_filter("markdown2html", markdown.render)
    made.register_filter("remote_images", remote_images)
    for preprocessor in PREPROCESSORS:
        made.register_preprocessor(preprocessor, enabled=True)
    return made


def deck_resources(options: DeckOptions, title: str, provenance: dict | None = None) -> dict:
    """What the template reads besides the notebook: title, asset folder, theme, reveal.js options,
    title slide, the presenting tools."""
    config = options.reveal_config()
    if "chalkboard" in config:  # drawings kept in the tab while it lives: a reload (the preview's) keeps them
        config["chalkboard"]["storage"] = f"jaxdeck-chalkboard:{title}"
    return {"jaxdeck": {"title": title, "assets": "assets", "theme_css": theme_sheets(options.theme),
                        "footer": options.footer, "logo": options.logo,
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


def to_html(nb: nbformat.NotebookNode, title: str | None = None) -> str:
    """The deck as one HTML page that expects ./assets beside it (titled ``title``, else the header's, else "Slides")."""
    options = DeckOptions.of(nb)
    provenance = BuildRecord.of(nb).provenance
    resources = deck_resources(options, title or options.title_for(None), provenance)
    with _exporter_lock:
        body, _ = exporter().from_notebook_node(nb, resources=resources)
    return body


def local_images(nb: nbformat.NotebookNode) -> list[str]:
    """Relative image paths the deck shows (they are copied beside the HTML): its markdown's
    images, its slides' background images and the header's logo; and a theme file (``theme: NAME.css``)."""
    logo, theme = DeckOptions.of(nb).logo, DeckOptions.of(nb).theme
    found = [logo] if logo and "://" not in logo else []
    found += [theme] if is_theme_file(theme) else []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        found += [src for src in slide_images(cell) if "://" not in src and not src.startswith(("data:", "/"))]
        for token in markdown.PARSER.parse(cell.source):
            for child in token.children or []:
                src = str(child.attrs.get("src", "")) if child.type == "image" else ""
                if src and "://" not in src and not src.startswith(("data:", "/")):
                    found.append(src.split("#")[0].split("?")[0])
    return found


def remote_copies(nb: nbformat.NotebookNode) -> dict[str, Path]:
    """The cached copies of the deck's remote images: relative path beside the HTML -> cached file."""
    found = {}
    for cell in nb.cells:
        for local in filter(None, (cell_info(cell).get("images") or {}).values()):
            found[f"{REMOTE_IMAGES}/{Path(local).name}"] = Path(local)
    return found


def copy_images(nb: nbformat.NotebookNode, deck: Path, folder: Path) -> None:
    """Copy the pictures the deck shows into ``folder``, where its page looks for them: local ones
    at their relative paths (those that stay inside ``folder``), remote ones' cached copies."""
    for relative, source in remote_copies(nb).items():
        if source.is_file():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / relative)
    for image in local_images(nb):
        source = (deck.parent / image).resolve()
        target = (folder / image).resolve()
        if source.is_file() and folder.resolve() in target.parents:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


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


def fitted(nb: nbformat.NotebookNode, out: Path, title: str, browser=None) -> nbformat.NotebookNode:
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
        return write_text(scratch, to_html(candidate, title=title))

    def in_own_browser() -> nbformat.NotebookNode:
        with chromium() as started:
            return fit_in_browser(nb, render, started, DeckOptions.of(nb).size)

    try:
        if browser is not None:
            return fit_in_browser(nb, render, browser, DeckOptions.of(nb).size)
        # on a thread of its own: Playwright's sync API refuses to start in a thread that already drives a browser
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="jaxdeck-fit") as pool:
            return pool.submit(in_own_browser).result()
    finally:
        scratch.unlink(missing_ok=True)


def export_html(nb: nbformat.NotebookNode, deck: str | Path, out: str | Path, browser=None, *, fit: bool = True) -> Path:
    """Write the HTML deck to ``out`` atomically, with its assets and images beside it.

    A deck without slide markers is fitted first (in ``browser``, else a Chromium started
    here), unless ``fit`` is false (``nb`` rendered as it is)."""
    deck, out = Path(deck), Path(out)
    title = DeckOptions.of(nb).title_for(deck)
    install_assets(out.parent)
    copy_images(nb, deck, out.parent)  # before the fit: it measures the slides with their pictures in
    if fit:
        from jaxdeck.html.fit import cuts_of, write_cuts
        from jaxdeck.html.fit_tall import blocks_of

        nb = fitted(nb, out, title, browser)
        write_cuts(out, cuts_of(nb), blocks_of(nb))  # the live view cuts and fits its slides as this fit did
    return write_text(out, to_html(nb, title=title))
