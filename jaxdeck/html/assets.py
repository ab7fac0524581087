"""Front-end files (reveal.js, KaTeX, our themes) copied next to exported decks.

They come from the npm packages pinned in package-lock.json (installed into
node_modules/ by `make`) and from themes/; nothing is fetched at presentation time.
In the repository (an editable install) both are read where they are; an installed
wheel carries copies inside the package, ``jaxdeck/themes`` and ``jaxdeck/npm/PACKAGE``,
put there when the wheel is built (setup.py), so it builds decks offline in any folder.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.atomic import copy_file
from jaxdeck.errors import DeckError
from jaxdeck.places import DEFAULT_THEME, NODE_MODULES, OWN_THEMES, PACKAGE, ROOT, THEMES, known_themes  # noqa: F401

#: (package, files or folders inside it) that a deck loads
NPM_FILES = {
    "reveal.js": ["dist/reset.css", "dist/reveal.css", "dist/reveal.js", "dist/plugin/notes.js",
                  "dist/plugin/highlight.js", "dist/plugin/highlight/monokai.css", "dist/theme", "LICENSE"],
    "katex": ["dist/katex.min.js", "dist/katex.min.css", "dist/contrib/auto-render.min.js", "dist/fonts", "LICENSE"],
}

#: stylesheets every deck links besides its theme (themes/jaxdeck/static/NAME.css -> assets/themes/)
SHEETS = ("myst", "fit")


def npm_root() -> Path:
    if not (NODE_MODULES / "reveal.js" / "dist" / "reveal.js").is_file():
        raise DeckError(None, None, f"reveal.js is not installed in {NODE_MODULES}",
                        "run `make` (or `npm ci` in the repository) to install the front-end assets")
    return NODE_MODULES


def theme_sheets(theme: str | None, assets: str = "assets") -> list[str]:
    """Stylesheet URLs (relative to the HTML) for a theme named in a deck header."""
    theme = theme or DEFAULT_THEME
    if theme in OWN_THEMES:
        return [f"{assets}/themes/{theme}.css"]
    if (npm_root() / "reveal.js" / "dist" / "theme" / f"{theme}.css").is_file():
        return [f"{assets}/reveal.js/dist/theme/{theme}.css"]
    raise DeckError(None, None, f"unknown theme '{theme}'", f"use one of: {', '.join(known_themes())}")


def _copy(source: Path, target: Path) -> None:
    if source.is_dir():
        for child in source.rglob("*"):
            if child.is_file():
                _copy(child, target / child.relative_to(source))
        return
    if target.is_file() and target.stat().st_size == source.stat().st_size and target.stat().st_mtime >= source.stat().st_mtime:
        return
    copy_file(source, target)


def install_assets(html_dir: Path) -> Path:
    """Copy what decks load into ``html_dir/assets`` (only files that changed)."""
    root = npm_root()
    target = html_dir / "assets"
    for package, entries in NPM_FILES.items():
        for entry in entries:
            _copy(root / package / entry, target / package / entry)
    for theme in OWN_THEMES + SHEETS:
        _copy(THEMES / "jaxdeck" / "static" / f"{theme}.css", target / "themes" / f"{theme}.css")
    return target
