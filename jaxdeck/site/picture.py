"""The picture of a talk's title slide on its card: its first slide as the deck shows it, taken in Chromium.

The deck is opened from its own folder as every check of the project opens one (:func:`jaxdeck.pages.open_deck`:
its files and nothing else), at a quarter of the slide's area; the theme's presenting controls are hidden
(``themes/jaxdeck/site/picture.css``) so the picture is the slide alone. One browser takes every picture a
run needs, and only pictures whose deck changed are taken again (the site's records).
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.atomic import write_bytes
from jaxdeck.places import THEMES

#: the picture's size: the decks' 16:9 at half their width
WIDTH, HEIGHT = 640, 360
STYLE = THEMES / "jaxdeck" / "site" / "picture.css"


def take(browser, deck_html: Path, picture: Path) -> Path:
    """Write the first slide of ``deck_html`` to ``picture`` (PNG)."""
    from jaxdeck.browser import add_style, fonts_ready
    from jaxdeck.pages import open_deck

    with open_deck(browser, deck_html, width=WIDTH, height=HEIGHT) as (page, _requests):
        add_style(page, STYLE.read_text(encoding="utf-8"))
        fonts_ready(page)
        write_bytes(picture, page.screenshot(type="png"))
    return picture
