"""What the site says of one talk, gathered from its built artefacts into small records.

The header's options (:class:`jaxdeck.options.DeckOptions`), the build record's provenance named the short
way (:mod:`jaxdeck.machines`), the deck's slides (:mod:`jaxdeck.site.slides`) and its length: the header's
``duration``, else the rehearsal clock's estimate (:mod:`jaxdeck.rehearse.clock`: the notes read aloud at
the deck's pace plus its cells' recorded run time), which the site labels an estimate.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from jaxdeck.decks import Outputs
from jaxdeck.site.slides import Place, Words


@dataclass(frozen=True)
class Download:
    """One file of a talk: what it is, where it lies in the site, its size in bytes."""

    label: str
    href: str
    kind: str
    size: int


@dataclass(frozen=True)
class Entry:
    """One slide in the talk's contents: its title, number and link into the deck."""

    title: str
    number: int
    href: str
    vertical: bool


@dataclass(frozen=True)
class Talk:
    """A talk's card and page: its header's facts, its length, slides, machine, picture, downloads, contents."""

    name: str
    title: str
    subtitle: str | None
    author: str | None
    date: str | None
    venue: str | None
    minutes: float | None
    estimated: bool
    slides: int
    machine: str
    frozen: bool
    made_at: str | None
    deck: str
    page: str
    picture: str | None
    downloads: tuple[Download, ...]
    contents: tuple[Entry, ...]

    @property
    def length(self) -> str:
        """``45 min``, ``about 12 min (estimate)``, or "" when nothing says."""
        if self.minutes is None:
            return ""
        shown = f"{max(1, round(self.minutes))} min"
        return f"about {shown} (estimate)" if self.estimated else shown

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Talk:
        data = dict(data)
        data["downloads"] = tuple(Download(**d) for d in data["downloads"])
        data["contents"] = tuple(Entry(**e) for e in data["contents"])
        return cls(**data)


#: the site's folder for each kind of artefact (as the build folder names them)
FOLDERS = {"html": "html", "article": "article", "pdf": "pdf", "notebook": "notebooks", "source": "source"}


def downloads(outputs: Outputs, deck: Path, site: Path) -> tuple[Download, ...]:
    """The talk's files, in the order a reader wants them, those that exist (their copies in ``site``)."""
    name = outputs.name
    wanted = (("Slides", f"html/{name}.html", "HTML", outputs.html),
              ("Article", f"article/{name}.html", "HTML", outputs.article),
              ("Slides PDF", f"pdf/{name}.pdf", "PDF", outputs.pdf),
              ("Handout PDF", f"pdf/{name}-handout.pdf", "PDF", outputs.handout),
              ("Article PDF", f"article/{name}.pdf", "PDF", outputs.article_pdf),
              ("Notebook", f"notebooks/{name}.ipynb", "ipynb", outputs.notebook),
              ("Markdown source", f"source/{deck.name}", "Markdown", deck))
    return tuple(Download(label, href, kind, made.stat().st_size) for label, href, kind, made in wanted
                 if made.is_file())


def machine_of(nb) -> tuple[str, bool]:
    """Where the talk's outputs were made, the short way, and whether any were kept from another machine."""
    from jaxdeck.machines import ranges, short, split_of
    from jaxdeck.records import BuildRecord

    record = BuildRecord.of(nb)
    split = split_of(nb)
    if split is None:
        return short(record.provenance), False
    if not split.mixed or split.own_machine is None:
        return (split.kept_machine if split.kept else split.own_machine or short(record.provenance)), bool(split.kept)
    kept = ranges(range(split.kept_slides[0], split.kept_slides[1] + 1)) if split.kept_slides else ""
    own = ranges(range(split.own_slides[0], split.own_slides[1] + 1)) if split.own_slides else ""
    return f"{split.kept_machine} (slides {kept}); {split.own_machine} (slides {own})", True


def minutes_of(nb, options, words: dict[int, Words]) -> tuple[float | None, bool]:
    """The talk's length in minutes and whether it is an estimate: the header's ``duration``, else the
    rehearsal clock's (each slide's notes, or its text where it has none, read aloud, and its cells' time)."""
    from jaxdeck.rehearse import clock
    from jaxdeck.site.slides import live_seconds

    if options.duration:
        return float(options.duration), False
    live = live_seconds(nb)
    seconds = sum(clock.slide_seconds(clock.words(said.notes or said.text), live.get(number, 0.0),
                                      options.words_per_minute)
                  for number, said in words.items())
    seconds += sum(s for number, s in live.items() if number not in words)
    return (seconds / 60 if seconds else None), True


def gather(deck: Path, outputs: Outputs, site: Path, picture: str | None) -> tuple[Talk, list[dict]]:
    """The talk's record and its search entries (one per slide with words), read from its artefacts."""
    import nbformat

    from jaxdeck.options import DeckOptions
    from jaxdeck.records import BuildRecord
    from jaxdeck.site.slides import places, words_of

    nb = nbformat.read(outputs.notebook, as_version=4)
    options = DeckOptions.of(nb)
    shown: list[Place] = places(outputs.html)
    said = words_of(nb)
    minutes, estimated = minutes_of(nb, options, said)
    machine, frozen = machine_of(nb)
    deck_href = f"html/{outputs.name}.html"
    contents = tuple(Entry(p.title, k, f"{deck_href}{p.hash}", p.v > 0) for k, p in enumerate(shown, start=1))
    made_at = BuildRecord.of(nb).executed_at
    title = options.title or (shown[0].title if shown else None) or options.title_for(deck)  # as slide 1 shows it
    talk = Talk(name=outputs.name, title=title, subtitle=options.subtitle, author=options.author,
                date=options.date, venue=options.venue, minutes=minutes, estimated=estimated, slides=len(shown),
                machine=machine, frozen=frozen, made_at=str(made_at)[:10] if made_at else None, deck=deck_href,
                page=f"talks/{outputs.name}.html", picture=picture, downloads=downloads(outputs, deck, site),
                contents=contents)
    first = {}
    for place in shown:  # the first slide the deck shows for each of the notebook's slides
        first.setdefault(place.slide, place)
    entries = []
    for number, words in sorted(said.items()):
        place = first.get(number)
        if place is None:
            continue
        entries.append({"title": place.title, "href": f"{deck_href}{place.hash}", "number": shown.index(place) + 1,
                        "text": " ".join(words.text), "notes": " ".join(words.notes), "code": "\n".join(words.code)})
    return talk, entries
