"""`jaxdeck new NAME`: a new deck, slides/NAME.md, from a template that builds and checks clean."""

from __future__ import annotations

import datetime
import getpass
import re
import shlex
import subprocess
import sys
from pathlib import Path

from jaxdeck.errors import DeckError, display_path

#: the deck a new talk starts from (shipped in the wheel as package data)
TEMPLATE = Path(__file__).resolve().parent.parent / "templates" / "new-deck.md"
#: what a deck's name may be: it becomes a file name and make's DECK=NAME
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
#: the jaxdeck repository, where `make` works (absent from an installed wheel)
REPOSITORY = Path(__file__).resolve().parent.parent.parent


def add_arguments(command) -> None:
    command.add_argument("name", metavar="NAME", help="the deck's name: slides/NAME.md is written (e.g. 13-my-talk)")
    command.add_argument("--title", help="the talk's title (default: made from NAME)")
    command.add_argument("--author", help="the byline (default: git's user.name, else your login name)")
    command.add_argument("--slides", type=Path, default=Path("slides"), metavar="DIR",
                         help="the folder the deck goes in (default: slides)")


def deck_name(name: str) -> str:
    """NAME without a trailing .md, or a DeckError when it is not a plain file name."""
    stem = name[:-3] if name.endswith(".md") else name
    if not NAME.fullmatch(stem):
        raise DeckError(None, None, f"{name!r} is not a plain file name",
                        "give a name of letters, digits, '-', '_' and '.', such as 13-my-talk (no folder: "
                        "the deck goes in slides/)")
    return stem


def title_of(stem: str) -> str:
    """``'13-my-talk'`` -> ``'My talk'``: the name without its number, as words."""
    words = re.sub(r"^[\d._-]+", "", stem).replace("_", " ").replace("-", " ").strip() or stem
    return words[0].upper() + words[1:]


def default_author() -> str:
    try:
        done = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=10)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return getpass.getuser()


def yaml_scalar(value: str) -> str:
    """``value`` as YAML writes it, quoted where it must be (a date, ``yes``, a colon), as jupytext writes it back."""
    import yaml

    return yaml.safe_dump(value, allow_unicode=True, width=10**6).removesuffix("\n...\n").strip()


def render(title: str, author: str, date: str) -> str:
    text = TEMPLATE.read_text(encoding="utf-8")
    for marker, value in (("@TITLE@", yaml_scalar(title)), ("@AUTHOR@", yaml_scalar(author)),
                          ("@DATE@", yaml_scalar(date)), ("@HEADING@", title)):
        text = text.replace(marker, value)
    return text


def next_commands(stem: str, deck: Path) -> list[str]:
    """What to run next, as it works from a fresh shell: make in the repository, else this Python."""
    here = Path.cwd().resolve()
    if (here == REPOSITORY and (here / "Makefile").is_file()
            and deck.resolve().parent == (REPOSITORY / "slides").resolve()):
        return [f"make DECK={stem}", f"make preview DECK={stem}"]
    python = shlex.quote(sys.executable)
    where = shlex.quote(display_path(deck))
    return [f"{python} -m jaxdeck build {where}", f"{python} -m jaxdeck preview {where}"]


def run(args) -> int:
    from jaxdeck.atomic import write_text

    stem = deck_name(args.name)
    deck = args.slides / f"{stem}.md"
    if deck.exists() or deck.is_symlink():
        raise DeckError(None, None, f"{display_path(deck)} already exists; jaxdeck new never overwrites a deck",
                        f"choose another NAME, or go on with that one: {next_commands(stem, deck)[0]}")
    title = " ".join((args.title or "").split()) or title_of(stem)
    author = " ".join((args.author or "").split()) or default_author()
    write_text(deck, render(title, author, datetime.date.today().isoformat()))
    build, preview = next_commands(stem, deck)
    print(f"wrote {display_path(deck)}")
    print(f"next: {build}    # build it")
    print(f"      {preview}    # write it beside a preview that reloads on every save")
    return 0
