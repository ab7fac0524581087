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
OWN_THEMES = ("projector",)
DEFAULT_THEME = "projector"


def known_themes() -> list[str]:
    """Our themes first, then reveal.js's built-in ones (when node_modules is installed)."""
    return list(OWN_THEMES) + sorted(p.stem for p in (NODE_MODULES / "reveal.js/dist/theme").glob("*.css"))
