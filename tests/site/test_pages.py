"""The site's pages (jaxdeck.site.pages) show what a deck says as text: a hostile deck's header or slide
cannot put markup or script into the index, a talk page or the search index."""

from __future__ import annotations

import json
from pathlib import Path

from jaxdeck.site.facts import Download, Entry, Talk
from jaxdeck.site.pages import index_page, search_index, talk_page
from jaxdeck.site.series import Series

HOSTILE = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'


def hostile_talk() -> Talk:
    return Talk(name="evil", title=HOSTILE, subtitle=HOSTILE, author=HOSTILE, date=HOSTILE, venue=HOSTILE,
                minutes=10.0, estimated=False, slides=1, machine=HOSTILE, frozen=False, made_at=None,
                deck="html/evil.html", page="talks/evil.html", picture=None,
                downloads=(Download(HOSTILE, "html/evil.html", "HTML", 10),),
                contents=(Entry(HOSTILE, 1, "html/evil.html#/0/0", False),))


def test_a_decks_header_and_titles_are_text_on_the_index_and_its_page():
    talk = hostile_talk()
    series = Series("A series", "", (Path("slides/evil.md"),))
    for page in (index_page(series, [talk]), talk_page(series, talk, None, None)):
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;img src=x onerror=" in page


def test_the_search_index_cannot_close_its_script_or_run_code():
    text = search_index([hostile_talk()], {"evil": [{"title": HOSTILE, "notes": HOSTILE, "href": "html/evil.html#/0/0"}]})
    assert "<" not in text and ">" not in text  # every angle bracket escaped: the file is one JSON value
    prefix = "window.JAXDECK_SEARCH = "
    line = text.splitlines()[-1]
    assert line.startswith(prefix) and line.endswith(";")
    data = json.loads(line[len(prefix):-1])
    assert data[0]["talk"] == HOSTILE and data[0]["slides"][0]["notes"] == HOSTILE  # the words kept, as text
