"""The site's pages from its Jinja templates (``themes/jaxdeck/site/*.html.j2``), and its search index.

Every value a template shows is escaped by Jinja (titles and words come from decks); the series'
description is the organiser's Markdown, rendered by the decks' own engine. The search index is a script
(``search-index.js``) that sets ``window.JAXDECK_SEARCH``, so the site searches from ``file://`` with no
request; ``site.js`` shows its results as text, never as markup.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from jaxdeck.places import THEMES
from jaxdeck.site.facts import Talk
from jaxdeck.site.series import Series

#: the site's look: templates, styles and scripts
SITE_THEME = THEMES / "jaxdeck" / "site"
#: the files of the look copied into the site as they are
STATIC = ("site.css", "site.js")


@functools.lru_cache(maxsize=1)
def environment():
    import jinja2

    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(SITE_THEME)), autoescape=True,
                                     undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.filters["size"] = size
    return environment


def size(count: int) -> str:
    """A file's size as people read it: ``820 KB``, ``1.4 MB``."""
    if count < 1024 * 1024:
        return f"{max(1, round(count / 1024))} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def description_html(series: Series) -> str:
    from jaxdeck.html.markdown import render

    return render(series.description) if series.description else ""


def index_page(series: Series, talks: list[Talk]) -> str:
    from markupsafe import Markup

    return environment().get_template("index.html.j2").render(
        series=series, description=Markup(description_html(series)), talks=talks, root="")


def talk_page(series: Series, talk: Talk, before: Talk | None, after: Talk | None) -> str:
    return environment().get_template("talk.html.j2").render(series=series, talk=talk, before=before, after=after,
                                                             root="../")


def search_index(talks: list[Talk], entries: dict[str, list[dict]]) -> str:
    """The script that hands ``site.js`` every slide's words: one record per talk, its slides' entries."""
    data = [{"talk": t.title, "page": t.page, "slides": entries.get(t.name, [])} for t in talks]
    value = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    # as Jinja's tojson: no <, > or & even inside strings, so the script stays one JSON value wherever it is put
    value = value.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return ("/* The series' search index: every talk's slides, their text, notes and code (jaxdeck site). */\n"
            "window.JAXDECK_SEARCH = " + value + ";\n")


def look() -> dict[str, str | None]:
    """The digest of every file of the site's look, which its pages are made with."""
    from jaxdeck.stamps import file_sha

    return {p.name: file_sha(p) for p in sorted(SITE_THEME.iterdir()) if p.is_file()}


def static_files(site: Path) -> dict[Path, Path]:
    """The look's files the pages load: their place in the site -> the theme's file."""
    return {site / "assets" / name: SITE_THEME / name for name in STATIC}
