"""The series file beside the decks (``slides/series.yml``): the site's title, description and order of talks.

Every key may be left out: the title is then made from the project folder's name, the description is
empty, and the talks are every deck of the folder in file-name order. It is read with a deck header's
limits (no aliases, bounded depth and size), and a mistake in it is one line naming the file and line.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from jaxdeck.decks import NOT_DECKS, SLIDES
from jaxdeck.errors import DeckError

#: where the series file lies, in the decks' folder
SERIES_FILE = "series.yml"
#: the keys a series file may hold, with the type each must have
KEYS = {"title": str, "description": str, "talks": list}
#: a series file larger than this is not one
MAX_BYTES = 64 * 1024
#: a series file nests no deeper than this
MAX_DEPTH = 8


@dataclass(frozen=True)
class Series:
    """A series: its title, its description (Markdown) and its talks, in order (deck paths)."""

    title: str
    description: str
    talks: tuple[Path, ...]
    source: Path | None = None


def default_title(slides: Path) -> str:
    """The project folder's name as a title (``jax-seminars`` -> ``Jax seminars``)."""
    folder = slides.resolve()
    name = (folder.parent if folder.name == SLIDES.name else folder).name
    words = name.replace("-", " ").replace("_", " ").strip() or "Talks"
    return words[:1].upper() + words[1:]


def read_series(slides: Path = SLIDES, path: Path | None = None) -> Series:
    """The series of the decks in ``slides`` as ``path`` (default ``slides/series.yml``) says, with defaults."""
    import yaml

    from jaxdeck.read.yaml_header import HeaderLimit

    path = path or slides / SERIES_FILE
    decks = sorted(p for p in slides.glob("*.md") if p.name not in NOT_DECKS) if slides.is_dir() else []
    if not path.is_file():
        return Series(default_title(slides), "", tuple(decks), None)
    data = path.read_bytes()
    if len(data) > MAX_BYTES:
        raise DeckError(path, None, f"is larger than {MAX_BYTES // 1024} KB", "a series file holds a title, a "
                        "description and a list of talks")
    try:
        node = yaml.compose(data.decode("utf-8"), Loader=_loader())
        values = yaml.load(data.decode("utf-8"), Loader=_loader())
    except HeaderLimit as err:
        raise DeckError(path, _line(err), err.problem, "write plain keys and values") from None
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise DeckError(path, _line(err), f"is not YAML ({getattr(err, 'problem', None) or err})",
                        "see slides/README.md, 'A series of talks'") from None
    if values is None:
        return Series(default_title(slides), "", tuple(decks), path)
    if not isinstance(values, dict):
        raise DeckError(path, 1, "is not a mapping of keys", "write `title:`, `description:` and `talks:`")
    lines = {k.value: k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    for key, value in values.items():
        line = lines.get(key)
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            raise DeckError(path, line, f"unknown key {key!r}",
                            f"did you mean {close[0]!r}?" if close else "the keys are " + ", ".join(KEYS))
        if not isinstance(value, KEYS[key]) or (key == "talks" and not all(isinstance(t, str) for t in value)):
            wanted = "a list of deck names" if key == "talks" else "text"
            raise DeckError(path, line, f"{key}: must be {wanted}", None)
    talks = tuple(_talk(path, lines.get("talks"), name, slides) for name in values.get("talks") or []) \
        if "talks" in values else tuple(decks)
    return Series(str(values.get("title") or default_title(slides)).strip(),
                  str(values.get("description") or "").strip(), talks, path)


def _loader():
    """The deck header's loader (no aliases, bounded depth), for a series file."""
    from jaxdeck.read.yaml_header import HeaderLoader

    class SeriesLoader(HeaderLoader):
        what, most_depth = "a series file", MAX_DEPTH

    return SeriesLoader


def _talk(path: Path, line: int | None, name: str, slides: Path) -> Path:
    """The deck a series' ``talks:`` entry names (``NAME`` or ``NAME.md`` in the decks' folder)."""
    stem = name[:-3] if name.lower().endswith(".md") else name
    deck = slides / f"{stem}.md"
    if deck.is_file() and "/" not in stem:
        return deck
    known = sorted(p.stem for p in slides.glob("*.md") if p.name not in NOT_DECKS)
    close = difflib.get_close_matches(stem, known, n=1)
    raise DeckError(path, line, f"talks: no deck {name!r} in {slides}",
                    f"did you mean {close[0]!r}?" if close else "name decks of the folder, without .md")


def _line(err) -> int | None:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    return mark.line + 1 if mark is not None else None
