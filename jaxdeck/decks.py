"""Which decks a command works on, and where each deck's artefacts go."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jaxdeck.errors import DeckError, display_path

SLIDES = Path("slides")
BUILD = Path("build")
NOT_DECKS = {"README.md"}
#: the article's PDF, by the name of its ``Outputs`` attribute (printed with the deck's PDFs)
ARTICLE_PDF = "article_pdf"


@dataclass(frozen=True)
class Outputs:
    """Where each artefact of one deck goes under a build folder: ``notebooks/NAME.ipynb``,
    ``html/NAME.html`` (the deck's files in ``html/NAME_files/``), ``pdf/NAME.pdf``,
    ``pdf/NAME-handout.pdf``, ``single/NAME.html``, ``article/NAME.html`` and ``article/NAME.pdf``."""

    deck: Path
    root: Path = BUILD

    @property
    def name(self) -> str:
        return self.deck.stem

    @property
    def files(self) -> str:
        """The folder beside the deck's page (``html/NAME_files/``, ``article/NAME_files/``) that holds
        the files the deck names, at their paths in the deck's folder: no copy lands on another
        deck's page, a shared asset or another deck's file of the same name."""
        return f"{self.name}_files"

    @property
    def notebook(self) -> Path:
        return self.root / "notebooks" / f"{self.name}.ipynb"

    @property
    def errors(self) -> Path:
        """The whole traceback (or a stuck kernel's stacks) of the deck's last failed run, named in its error."""
        return self.root / "notebooks" / f"{self.name}.error.txt"

    @property
    def html(self) -> Path:
        return self.root / "html" / f"{self.name}.html"

    @property
    def pdf(self) -> Path:
        return self.root / "pdf" / f"{self.name}.pdf"

    @property
    def handout(self) -> Path:
        return self.root / "pdf" / f"{self.name}-handout.pdf"

    @property
    def single(self) -> Path:
        """The self-contained deck (``--self-contained``): one HTML file with every asset inlined."""
        return self.root / "single" / f"{self.name}.html"

    @property
    def article(self) -> Path:
        """The talk as a readable page (``--article``): slides' content with the notes as prose."""
        return self.root / "article" / f"{self.name}.html"

    @property
    def article_pdf(self) -> Path:
        """The article printed to A4 (``--article --pdf``)."""
        return self.root / "article" / f"{self.name}.pdf"


def find_decks(arguments: list[str] | None = None, slides: Path = SLIDES) -> list[Path]:
    """The decks named on the command line (a path, or a name in ``slides/`` as ``make DECK=NAME`` takes
    it), or every deck in ``slides/``."""
    if arguments:
        decks = []
        for argument in arguments:
            path = Path(argument)
            if path.is_dir():
                decks.extend(find_decks(None, path))
                continue
            path = by_name(argument, slides) or path
            if not path.exists():
                raise DeckError(path, None, "no such deck", did_you_mean(argument, slides))
            if path.suffix.lower() not in (".md", ".markdown"):
                raise DeckError(path, None, "not a Markdown deck", "decks are .md files")
            decks.append(path)
        return one_name_each(decks)
    if not slides.is_dir():
        raise DeckError(slides, None, "no slides folder", "run from the repository root or name a deck")
    return sorted(p for p in slides.glob("*.md") if p.name not in NOT_DECKS)


def by_name(argument: str, slides: Path = SLIDES) -> Path | None:
    """``slides/NAME.md`` for a bare ``NAME`` (or ``NAME.md``, ``slides/NAME``) that is no file here, else None."""
    path = Path(argument)
    if path.exists() or len(path.parts) > 2 or (len(path.parts) == 2 and path.parts[0] != slides.name):
        return None
    stem = path.name[:-3] if path.name.lower().endswith(".md") else path.name
    found = slides / f"{stem}.md"
    return found if found.is_file() else None


def did_you_mean(argument: str, slides: Path = SLIDES) -> str:
    """What to say about a deck name that matches none: the closest decks in ``slides/``, or how to name one."""
    import difflib

    known = sorted(p.stem for p in slides.glob("*.md") if p.name not in NOT_DECKS) if slides.is_dir() else []
    stem = Path(argument).name
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    close = difflib.get_close_matches(stem, known, n=3, cutoff=0.5)
    close += [k for k in known if stem and stem.lower() in k.lower() and k not in close][:3 - len(close)]
    if close:
        return "did you mean " + " or ".join(close) + "?" + f" (the decks are in {display_path(slides)}/)"
    if known:
        return f"name a deck in {display_path(slides)}/, e.g. {known[0]}, or give the path of a Markdown file"
    return "give the path of a Markdown file, or make one with `make new DECK=NAME`"


def one_name_each(decks: list[Path]) -> list[Path]:
    """``decks`` without repeats, or a one-line error when two of them share a name: their
    artefacts (``build/html/NAME.html``, ...) are named after the deck, and one would replace the other."""
    seen: dict[str, Path] = {}
    unique = []
    for deck in decks:
        twin = seen.get(deck.stem)
        if twin is not None and twin.resolve() == deck.resolve():
            continue
        if twin is not None:
            raise DeckError(deck, None, f"has the same name as {display_path(twin)}, so both would build into "
                            f"{deck.stem}.html", "rename one of them, or build them into different --out folders")
        seen[deck.stem] = deck
        unique.append(deck)
    return unique
