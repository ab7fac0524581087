"""The talks' artefacts copied into the site, so that the folder opens and is served as it is.

The site keeps the build folder's layout (``html/``, ``article/``, ``pdf/``, ``notebooks/``) and the decks'
Markdown in ``source/``: a deck's page finds its shared ``assets/`` and its ``NAME_files/`` where the build
put them. A copy keeps its original's times, and a file whose copy has the same size and time is left as
it is, so a site with nothing new writes nothing. Files of the site's folders that no talk has any more
(a deck taken out of the series) are removed.
"""

from __future__ import annotations

import os
from pathlib import Path

from jaxdeck.atomic import copy_file
from jaxdeck.decks import Outputs

#: the site's folders that hold copies (everything in them is the site's to replace or remove)
COPIED = ("html", "article", "pdf", "notebooks", "source")


def _tree(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def wanted(outputs: Outputs, deck: Path, site: Path) -> dict[Path, Path]:
    """Each file of one talk to copy: its place in ``site`` -> its original."""
    pairs: dict[Path, Path] = {}
    for original, folder in ((outputs.html, "html"), (outputs.article, "article")):
        if not original.is_file():
            continue
        pairs[site / folder / original.name] = original
        for part in (original.parent / outputs.files, ):
            for file in _tree(part):
                pairs[site / folder / file.relative_to(original.parent)] = file
    for original, folder in ((outputs.pdf, "pdf"), (outputs.handout, "pdf"), (outputs.article_pdf, "article"),
                             (outputs.notebook, "notebooks"), (deck, "source")):
        if original.is_file():
            pairs[site / folder / original.name] = original
    return pairs


def shared(root: Path, site: Path) -> dict[Path, Path]:
    """The files every deck's page (or article) loads from beside it: ``assets/`` and fetched ``images/``."""
    pairs: dict[Path, Path] = {}
    for folder in ("html/assets", "html/images", "article/assets", "article/images"):
        for file in _tree(root / folder):
            pairs[site / file.relative_to(root)] = file
    return pairs


def same(copy: Path, original: Path) -> bool:
    """Whether ``copy`` is what copying ``original`` would make (same size and modification time)."""
    try:
        a, b = copy.stat(), original.stat()
    except OSError:
        return False
    return a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns


def mirror(pairs: dict[Path, Path]) -> list[Path]:
    """Copy each original whose copy is missing or differs; the copies made."""
    made = []
    for copy, original in pairs.items():
        if not same(copy, original):
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy_file(original, copy)
            made.append(copy)
    return made


def sweep(site: Path, kept: set[Path]) -> list[Path]:
    """Remove the files of the site's copied folders that are not in ``kept``, and folders left empty."""
    removed = []
    for folder in COPIED:
        for file in _tree(site / folder):
            if file not in kept:
                file.unlink()
                removed.append(file)
        for place, _, files in sorted(os.walk(site / folder), reverse=True):
            if not files and not os.listdir(place) and Path(place) != site / folder:
                os.rmdir(place)
    return removed
