"""`jaxdeck bench --corpus DIR`: every notebook of a folder built as a deck, and how well it presents.

For real tutorials (JAX's own MyST notebooks, say) the question is not speed but whether each
becomes a deck that fits: per notebook, whether it built (or why not), its slides, the slides
that run past their bottom in the static deck (``jaxdeck check``'s overflow) and in the live
slideshow (RISE in Chromium, the build's outputs shown, measured as ``jaxdeck rehearse``
measures), the smallest type scale the fit used (:data:`jaxdeck.html.fit_tall.FLOOR` is the
least allowed), the warnings (images it could not fetch, errors it shows) and the seconds.

The folder is copied under ``BUILD/bench/corpus/`` first, so its files are never written, and
only what is in it: no link is followed out of it or into a folder (:func:`copy_corpus`). Each
notebook is built with errors allowed (a tutorial may need a network or a dataset this machine
lacks: its error is then on a slide and among the warnings, as ``--allow-errors`` does).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from jaxdeck.errors import DeckError

#: the notebooks a corpus folder holds
PATTERNS = ("*.md", "*.myst", "*.ipynb")


@dataclass
class CorpusRow:
    """One notebook of a corpus, built and measured."""

    notebook: str
    built: bool
    why: str | None = None
    slides: int = 0
    overflow_static: int = 0
    overflow_live: int | None = None
    smallest_scale: float = 1.0
    warnings: int = 0
    seconds: float = 0.0


def _say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def notebooks(folder: Path) -> list[Path]:
    return sorted(p for pattern in PATTERNS for p in folder.glob(pattern) if p.name.lower() != "readme.md")


def left_out(path: Path, inside: Path, out: Path) -> str | None:
    """Why ``path``, an entry of the corpus folder ``inside`` (its real path), is not copied; None if it is.

    A link is copied as the file it names only when that file is inside the folder: one that leads
    out of it would copy what the folder does not hold (a link to /usr/share fills the disk), and
    one to a folder would copy a folder twice, or forever (a link to ``.``). A pipe or a device
    would block the copy or never end; the build folder ``out`` (where the copy goes, when it lies
    inside) is not the corpus.
    """
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(inside):
            return f"a link to {target}, outside the folder"
        if target.is_dir():
            return "a link to a folder (what it holds is copied where it is, once)"
        return None if target.is_file() else "a link to no file"
    if path.is_dir():
        return "the build folder" if path.resolve() == out else None
    return None if path.is_file() else "neither a file nor a folder"


def copy_corpus(folder: Path, target: Path, out: Path) -> None:
    """``folder`` copied to ``target`` (replacing an earlier copy; inside the build folder ``out``),
    nothing but what it holds (see :func:`left_out`; each entry left out is named in a line)."""
    inside, out = folder.resolve(), out.resolve()
    work = target.resolve().parent
    if inside == work or work in inside.parents:
        raise DeckError(folder, None, "is inside the benchmark's own folder, which it would replace",
                        "name a folder of notebooks outside it, or give --out another build folder")
    shutil.rmtree(target, ignore_errors=True)

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set()
        for name in names:
            why = left_out(Path(directory) / name, inside, out)
            if why:
                _say(f"left out {Path(directory) / name}: {why}")
                skipped.add(name)
        return skipped

    try:
        shutil.copytree(inside, target, ignore=ignore)
    except shutil.Error as err:  # every file it could not copy: the first names what to do
        source, _, why = err.args[0][0]
        raise DeckError(source, None, f"cannot copy it from the corpus ({why})",
                        "make it readable, or move it out of the folder") from None


def build_one(deck: Path, root: Path, browser) -> CorpusRow:
    """Build ``deck`` into ``root`` (errors allowed) and measure its static deck."""
    import nbformat

    from jaxdeck.build import build
    from jaxdeck.check.deck import check_deck
    from jaxdeck.decks import Outputs
    from jaxdeck.html.fit_record import read_blocks
    from jaxdeck.html.fit_tall import smallest_type
    from jaxdeck.records import BuildRecord
    from jaxdeck.stages.options import BuildOptions

    started = time.perf_counter()
    try:
        build([deck], root, BuildOptions(jobs=1, allow_errors=True))
    except DeckError as err:
        return CorpusRow(deck.name, False, str(err), seconds=round(time.perf_counter() - started, 1))
    seconds = time.perf_counter() - started
    outputs = Outputs(deck, root)
    nb = nbformat.read(outputs.notebook, as_version=4)
    html = outputs.html.read_text(encoding="utf-8")
    over = [p for p in check_deck(deck, nb, outputs.html, browser=browser) if p.kind == "overflow"]
    smallest = smallest_type(block.fit for block in read_blocks(outputs.html))
    return CorpusRow(deck.name, True, slides=html.count("data-jd-slide="), overflow_static=len(over),
                     smallest_scale=smallest, warnings=len(BuildRecord.of(nb).warnings or []),
                     seconds=round(seconds, 1))


def live_overflow(server, deck: Path, browser, size: tuple[int, int]) -> int:
    """Slides of the live slideshow that run past their bottom, with the build's outputs shown."""
    from jaxdeck.browser import fonts_ready
    from jaxdeck.check.measure import measure_slide
    from jaxdeck.rehearse.walk import open_slideshow, settle

    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        open_slideshow(page, server.slideshow_url(deck))
        fonts_ready(page)
        places = page.evaluate("() => window.jaxdeckLive.reveal.getSlides().map(s => {"
                               " const at = window.jaxdeckLive.reveal.getIndices(s); return [at.h, at.v || 0]; })")
        over = 0
        for h, v in places:
            page.evaluate("([h, v]) => window.jaxdeckLive.reveal.slide(h, v)", [h, v])
            settle(page)
            over += measure_slide(page).over_bottom  # as check and rehearse measure it: a scrollable slide is not over
        return over
    finally:
        page.close()


def bench_corpus(folder: Path, out: Path, *, live: bool = True, browser=None) -> list[CorpusRow]:
    """Build and measure every notebook of ``folder`` (a copy of it under ``out/bench/corpus``),
    in ``browser`` (else a Chromium started here)."""
    from jaxdeck.browser import given_or_started
    from jaxdeck.options import DeckOptions

    folder = Path(folder)
    if not folder.is_dir():
        raise DeckError(folder, None, "no such folder of notebooks", "name a folder of .md/.ipynb notebooks")
    work = out / "bench" / "corpus"
    decks_dir = work / "decks"
    copy_corpus(folder, decks_dir, out)
    found = notebooks(decks_dir)
    if not found:
        raise DeckError(folder, None, "holds no notebooks (.md, .myst, .ipynb)", "name a folder of notebooks")
    rows = []
    with given_or_started(browser) as browser:
        for deck in found:
            _say(f"{deck.name} ...")
            rows.append(build_one(deck, work / "build", browser))
        if live and any(r.built for r in rows):
            from jaxdeck.live.server import start_server

            _say("the live slideshow of each ...")
            server = start_server(work, decks_dir="decks", build_dir="build")
            try:
                for row, deck in zip(rows, found):
                    if row.built:
                        import nbformat

                        from jaxdeck.decks import Outputs

                        size = DeckOptions.of(nbformat.read(Outputs(deck, work / "build").notebook, 4)).size
                        row.overflow_live = live_overflow(server, deck, browser, size)
            finally:
                server.stop()
    return rows


def table(rows: list[CorpusRow]) -> str:
    """The rows as a Markdown table, with a total line."""
    lines = ["| notebook | built | slides | overflow static | overflow live | smallest type | warnings | s |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        built = "yes" if r.built else f"no: {r.why}"
        live = "-" if r.overflow_live is None else str(r.overflow_live)
        lines.append(f"| {r.notebook} | {built} | {r.slides} | {r.overflow_static} | {live} | "
                     f"{r.smallest_scale:.0%} | {r.warnings} | {r.seconds:.1f} |")
    built = [r for r in rows if r.built]
    lines.append(f"| **{len(built)} of {len(rows)} built** | | {sum(r.slides for r in built)} | "
                 f"{sum(r.overflow_static for r in built)} | {sum(r.overflow_live or 0 for r in built)} | "
                 f"{min([1.0, *(r.smallest_scale for r in built)]):.0%} | {sum(r.warnings for r in rows)} | "
                 f"{sum(r.seconds for r in rows):.1f} |")
    return "\n".join(lines)


def as_json(rows: list[CorpusRow]) -> list[dict]:
    return [asdict(r) for r in rows]
