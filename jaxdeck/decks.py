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
    ``html/NAME.html``, ``pdf/NAME.pdf``, ``pdf/NAME-handout.pdf``, ``single/NAME.html``,
    ``article/NAME.html`` and ``article/NAME.pdf``."""

    deck: Path
    root: Path = BUILD

    @property
    def name(self) -> str:
        return self.deck.stem

    @property
    def notebook(self) -> Path:
        return self.root / "notebooks" / f"{self.name}.ipynb"

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
    """The decks named on the command line, or every deck in ``slides/``."""
    if arguments:
        decks = []
        for argument in arguments:
            path = Path(argument)
            if path.is_dir():
                decks.extend(find_decks(None, path))
                continue
            if not path.exists():
                raise DeckError(path, None, "no such deck", "give the path of a Markdown file, e.g. slides/01-intro.md")
            if path.suffix.lower() not in (".md", ".markdown"):
                raise DeckError(path, None, "not a Markdown deck", "decks are .md files")
            decks.append(path)
        return one_name_each(decks)
    if not slides.is_dir():
        raise DeckError(slides, None, "no slides folder", "run from the repository root or name a deck")
    return sorted(p for p in slides.glob("*.md") if p.name not in NOT_DECKS)


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
