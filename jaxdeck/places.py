"""Where jaxdeck's own files are (the theme, the npm packages) and which themes there are.

Every stage may need these, the read stage (to check a header's theme) as much as the HTML
stage (to copy the files beside a deck); they live here so that neither imports the other.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: the repository (for an editable install; in a wheel install, the folder that holds the package)
ROOT = PACKAGE.parent
#: the theme and the npm packages: the wheel's copies when they are there, else the repository's
THEMES = PACKAGE / "themes" if (PACKAGE / "themes").is_dir() else ROOT / "themes"
NODE_MODULES = PACKAGE / "npm" if (PACKAGE / "npm").is_dir() else ROOT / "node_modules"

#: our own themes (themes/jaxdeck/static/NAME.css); other names are reveal.js's built-in themes
OWN_THEMES = ("projector", "projector-dark")
DEFAULT_THEME = "projector"
#: an own theme that only changes another's --jd-* variables, and the theme it is loaded after
THEME_BASES = {"projector-dark": "projector"}


def is_theme_file(theme: str | None) -> bool:
    """A deck's own theme: a CSS file beside the deck (``theme: talk.css``), loaded after projector.css."""
    return bool(theme) and theme.lower().endswith(".css")


def own_sheets(theme: str) -> list[str]:
    """The stylesheets of themes/jaxdeck/static/ (NAME.css) that a theme loads, its base first
    (a theme file loads projector's, then itself from the deck's folder)."""
    if is_theme_file(theme):
        return own_sheets(DEFAULT_THEME)
    base = THEME_BASES.get(theme)
    return (own_sheets(base) if base else []) + [theme]


def known_themes() -> list[str]:
    """Our themes first, then reveal.js's built-in ones (when node_modules is installed)."""
    return list(OWN_THEMES) + sorted(p.stem for p in (NODE_MODULES / "reveal.js/dist/theme").glob("*.css"))
