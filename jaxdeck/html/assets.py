"""Front-end files (reveal.js and its presenting tools, KaTeX, our themes) copied next to exported decks.

They come from the npm packages pinned in package-lock.json (installed into
node_modules/ by `make`) and from themes/; nothing is fetched at presentation time.
In the repository (an editable install) both are read where they are; an installed
wheel carries copies inside the package, ``jaxdeck/themes`` and ``jaxdeck/npm/PACKAGE``,
put there when the wheel is built (setup.py), so it builds decks offline in any folder.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from pathlib import Path
from urllib.parse import quote

from jaxdeck.atomic import copy_file
from jaxdeck.errors import DeckError
from jaxdeck.places import DEFAULT_THEME, NODE_MODULES, OWN_THEMES, PACKAGE, ROOT, THEMES, is_theme_file, known_themes, own_sheets  # noqa: F401

#: (package, files or folders inside it) that a deck loads: reveal.js, its plugins and KaTeX. The
#: presenting tools (a deck's ``tools`` option): search and zoom come with reveal.js; the menu loads
#: its stylesheet and Font Awesome from beside its script (only the web fonts browsers ask for), the
#: chalkboard its pictures (pens' cursors, the board) from beside its own
NPM_FILES = {
    "reveal.js": ["dist/reset.css", "dist/reveal.css", "dist/reveal.js", "dist/plugin/notes.js",
                  "dist/plugin/highlight.js", "dist/plugin/highlight/monokai.css", "dist/theme",
                  "dist/plugin/search.js", "dist/plugin/zoom.js", "LICENSE"],
    "katex": ["dist/katex.min.js", "dist/katex.min.css", "dist/contrib/auto-render.min.js", "dist/fonts", "LICENSE"],
    "reveal.js-menu": ["menu.js", "menu.css", "font-awesome/css/all.css", "font-awesome/webfonts/fa-solid-900.woff2",
                       "font-awesome/webfonts/fa-solid-900.woff", "font-awesome/webfonts/fa-regular-400.woff2",
                       "font-awesome/webfonts/fa-regular-400.woff", "font-awesome/LICENSE.txt", "LICENSE"],
    "reveal.js-plugins": ["chalkboard/plugin.js", "chalkboard/style.css", "chalkboard/img", "LICENSE"],
}

#: stylesheets every deck links besides its theme (themes/jaxdeck/static/NAME.css -> assets/themes/)
SHEETS = ("myst", "fit", "spellings")

#: what the article (jaxdeck.article) loads: KaTeX, and its files of themes/jaxdeck/static/ (-> assets/themes/)
ARTICLE_NPM = {"katex": NPM_FILES["katex"]}
ARTICLE_FILES = ("myst.css", "article.css", "article.js")


def npm_root() -> Path:
    if not (NODE_MODULES / "reveal.js" / "dist" / "reveal.js").is_file():
        raise DeckError(None, None, f"reveal.js is not installed in {NODE_MODULES}",
                        "run `make` (or `npm ci` in the repository) to install the front-end assets")
    return NODE_MODULES


def theme_sheets(theme: str | None, assets: str = "assets", files: str | None = None) -> list[str]:
    """Stylesheet URLs (relative to the HTML) for a theme named in a deck header; a theme file is
    in the deck's folder of files (``files``, ``NAME_files``) when the page has one."""
    theme = theme or DEFAULT_THEME
    if is_theme_file(theme):  # the deck's own file, copied beside the page as its images are
        return [f"{assets}/themes/{name}.css" for name in own_sheets(theme)] + [f"{quote(files)}/{theme}" if files else theme]
    if theme in OWN_THEMES:
        return [f"{assets}/themes/{name}.css" for name in own_sheets(theme)]
    if (npm_root() / "reveal.js" / "dist" / "theme" / f"{theme}.css").is_file():
        return [f"{assets}/reveal.js/dist/theme/{theme}.css"]
    raise DeckError(None, None, f"unknown theme '{theme}'", f"use one of: {', '.join(known_themes())}")


def copy_if_changed(source: Path, target: Path) -> None:
    """Copy the file or folder ``source`` to ``target`` atomically, skipping files whose copy holds the same
    bytes, so a rebuild rewrites no file that did not change. The copy is judged by its content (sha256,
    read only when the sizes match), not its size and time: a file swapped in of the same size with a
    later time is replaced all the same."""
    if source.is_dir():
        for child in source.rglob("*"):
            if child.is_file():
                copy_if_changed(child, target / child.relative_to(source))
        return
    if not _same_bytes(source, target):
        copy_file(source, target)


def _same_bytes(source: Path, target: Path) -> bool:
    try:
        there = os.lstat(target)
    except OSError:
        return False
    here = source.stat()
    if not stat.S_ISREG(there.st_mode) or there.st_size != here.st_size:
        return False
    return _digest(target) == _source_digest(str(source), here.st_size, here.st_mtime_ns, here.st_ino)


def _digest(path: Path | str) -> bytes:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").digest()


@functools.lru_cache(maxsize=4096)
def _source_digest(path: str, size: int, mtime_ns: int, inode: int) -> bytes:
    """An asset's own digest, once per process while it is unchanged (the decks of one build share them);
    the copy's is read every time: it is the one that may have been swapped."""
    return _digest(path)


def install_assets(folder: Path, npm: dict[str, list[str]] | None = None, sheets: tuple[str, ...] | None = None) -> Path:
    """Copy what a page loads into ``folder/assets`` (only files that changed).

    By default a deck's: reveal.js and its tools, KaTeX, every own theme and sheet. ``npm`` and
    ``sheets`` (file names in themes/jaxdeck/static/) narrow it for another kind of page.
    """
    root = npm_root()
    target = folder / "assets"
    for package, entries in (NPM_FILES if npm is None else npm).items():
        for entry in entries:
            copy_if_changed(root / package / entry, target / package / entry)
    for name in (tuple(f"{theme}.css" for theme in OWN_THEMES + SHEETS) if sheets is None else sheets):
        copy_if_changed(THEMES / "jaxdeck" / "static" / name, target / "themes" / name)
    return target


def install_article_assets(folder: Path) -> Path:
    """Copy what the article loads into ``folder/assets``: KaTeX and its own sheets, no reveal.js."""
    return install_assets(folder, ARTICLE_NPM, ARTICLE_FILES)
