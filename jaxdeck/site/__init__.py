"""The series site: every talk of a series as one folder, ``build/site/``, that opens from ``file://`` with no
request and that any static host serves as it is.

It is made from the decks' built artefacts (``jaxdeck site`` builds what is missing or out of date first, as
``jaxdeck build --article --pdf`` does): an index with a card per talk in the series' order
(:mod:`.series`), a page per talk with its contents and downloads, and a search over every slide's text,
notes and code (:mod:`.pages`). A talk's facts are gathered once per change of its artefacts (:mod:`.facts`,
:mod:`.slides`), its title slide's picture taken once per change of its deck (:mod:`.picture`), and its files
copied into the site (:mod:`.files`); each page is made again only when what it shows changed
(:mod:`.records`), so a site with nothing new writes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from jaxdeck.decks import Outputs
from jaxdeck.errors import DeckError, display_path
from jaxdeck.site.series import Series

PACKAGE = Path(__file__).resolve().parent


@dataclass
class Made:
    """What one run of the site wrote: pages, pictures, copies and removed files (paths under the site)."""

    site: Path
    pages: list[Path] = field(default_factory=list)
    pictures: list[Path] = field(default_factory=list)
    copies: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    def line(self) -> str:
        """The report's one line: what was made, or that the site is up to date."""
        parts = [f"{len(items)} {one if len(items) == 1 else many}" for items, one, many in
                 ((self.pages, "page", "pages"), (self.pictures, "picture", "pictures"),
                  (self.copies, "file copied", "files copied"), (self.removed, "file removed", "files removed"))
                 if items]
        return f"{display_path(self.site / 'index.html')}: {', '.join(parts) or 'up to date'}"


def code() -> dict[str, str | None]:
    from jaxdeck.site.pages import look
    from jaxdeck.stamps import file_sha

    return {"modules": {p.name: file_sha(p) for p in sorted(PACKAGE.glob("*.py"))}, "look": look()}


def make_site(series: Series, root: Path, browser=None) -> Made:
    """Write ``root/site/`` for ``series`` from the talks' artefacts under ``root`` (built already)."""
    from jaxdeck.site import files, pages, picture
    from jaxdeck.site.records import Records, recorded_sha
    from jaxdeck.stamps import file_sha

    site = root / "site"
    cache = root / "cache" / "site"
    made = Made(site)
    records = Records(cache / "records.json")
    made_with = code()
    outputs = [Outputs(deck, root) for deck in series.talks]
    for each in outputs:
        for artefact in (each.notebook, each.html):
            if not artefact.is_file():
                raise DeckError(each.deck, None, f"has no {display_path(artefact)}",
                                f"build it first: jaxdeck build --article --pdf {each.deck}")

    # the title slides' pictures: one browser for those whose deck changed
    shots = {each.name: (site / "pictures" / f"{each.name}.png",
                         {"html": recorded_sha(each.html), "style": file_sha(picture.STYLE)}) for each in outputs}
    stale = [each for each in outputs if not records.holds(*shots[each.name])]
    if stale:
        from jaxdeck.browser import given_or_started

        with given_or_started(browser) as started:
            for each in stale:
                shot, inputs = shots[each.name]
                picture.take(started, each.html, shot)
                records.note(shot, inputs)
                made.pictures.append(shot)

    # each talk's facts and search entries, gathered again when its artefacts changed
    talks, entries, facts_shas, search_shas = [], {}, [], []
    for each in outputs:
        from jaxdeck.site.facts import Talk, gather

        inputs = {"deck": file_sha(each.deck), "path": each.deck.name, "code": made_with,
                  "artefacts": {str(a): recorded_sha(a) for a in (each.notebook, each.html, each.pdf, each.handout,
                                                                   each.article, each.article_pdf) if a.is_file()}}
        facts, words = cache / f"{each.name}.talk.json", cache / f"{each.name}.search.json"
        if records.holds(facts, inputs) and records.holds(words, inputs):
            talk = Talk.from_json(json.loads(facts.read_text(encoding="utf-8")))
            entries[each.name] = json.loads(words.read_text(encoding="utf-8"))
        else:
            talk, entries[each.name] = gather(each.deck, each, site, f"pictures/{each.name}.png")
            records.write(facts, json.dumps(talk.to_json(), indent=1, sort_keys=True) + "\n", inputs)
            records.write(words, json.dumps(entries[each.name], indent=1) + "\n", inputs)
        talks.append(talk)
        facts_shas.append(file_sha(facts))
        search_shas.append(file_sha(words))

    # the artefacts, copied where the pages link them
    pairs = files.shared(root, site) | pages.static_files(site)
    for each in outputs:
        pairs |= files.wanted(each, each.deck, site)
    made.copies = files.mirror(pairs)
    made.removed = files.sweep(site, set(pairs))

    # the pages
    told = {"title": series.title, "description": series.description}
    written = []
    for k, talk in enumerate(talks):
        before, after = (talks[k - 1] if k else None), (talks[k + 1] if k + 1 < len(talks) else None)
        page = site / talk.page
        inputs = {"series": told, "talk": facts_shas[k], "code": made_with,
                  "around": [(t.title, t.page) if t else None for t in (before, after)]}
        if not records.holds(page, inputs) and records.write(page, pages.talk_page(series, talk, before, after),
                                                             inputs):
            written.append(page)
    index = site / "index.html"
    inputs = {"series": told, "talks": facts_shas, "code": made_with}
    if not records.holds(index, inputs) and records.write(index, pages.index_page(series, talks), inputs):
        written.append(index)
    search = site / "search-index.js"
    inputs = {"search": search_shas, "talks": [(t.title, t.page) for t in talks], "code": made_with}
    if not records.holds(search, inputs) and records.write(search, pages.search_index(talks, entries), inputs):
        written.append(search)
    if not (site / ".nojekyll").is_file():  # GitHub Pages serves the folder as it is
        records.write(site / ".nojekyll", b"", {})
        written.append(site / ".nojekyll")
    made.pages = written

    # what no talk of the series has any more
    kept = {site / t.page for t in talks} | {shots[e.name][0] for e in outputs}
    for folder in ("talks", "pictures"):
        for stale_file in sorted((site / folder).glob("*")) if (site / folder).is_dir() else []:
            if stale_file.is_file() and stale_file not in kept:
                stale_file.unlink()
                made.removed.append(stale_file)
    kept |= {index, search, site / ".nojekyll"}
    kept |= {cache / f"{e.name}.{kind}.json" for e in outputs for kind in ("talk", "search")}
    records.forget(kept)
    records.save()
    return made
