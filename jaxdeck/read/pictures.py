"""The pictures a deck shows, checked as it is read: each local one a file inside the deck's folder
(:mod:`jaxdeck.read.contained`), each remote one fetched once into the build's image cache
(:mod:`jaxdeck.read.images`), the header's logo and the slides' backgrounds local files too."""

from __future__ import annotations

from pathlib import Path

import nbformat

from jaxdeck.decks import BUILD
from jaxdeck.errors import DeckError
from jaxdeck.options import DeckOptions
from jaxdeck.read.contained import check
from jaxdeck.read.fences import MARKDOWN
from jaxdeck.read.loads import check_raw_html
from jaxdeck.read.problems import Problems
from jaxdeck.read.structure import trailing_attributes
from jaxdeck.read.yaml_header import header_line_count
from jaxdeck.tokens import parsed


def _line_of(text: str, needle: str, limit: int) -> int:
    """The line (1-based, among the first ``limit``) that starts with ``needle``; 1 when none does."""
    for number, line in enumerate(text.split("\n")[:limit], start=1):
        if line.strip().startswith(needle):
            return number
    return 1


def check_images(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int],
                 build: Path | None = None, strict: bool = False,
                 warnings: list[str] | None = None, problems: Problems | None = None) -> dict[str, str]:
    """Every image a markdown cell shows must exist next to the deck (decks present offline).

    A remote image is fetched once into ``BUILD/images/`` (see :mod:`jaxdeck.read.images`);
    returns ``{url: cached file}`` for them; one it refuses to fetch is a DeckError. One that
    cannot be fetched for want of a network (and no cached copy) maps to ``""``: the deck shows its alt text, and a line naming file:line and how to
    vendor it goes to ``warnings``; with ``strict`` it is a DeckError instead. A notebook written
    for the web (a Colab badge at its top) still builds offline. With ``problems``, every picture's
    problem is kept there (the warnings too) and the others are checked on.
    """
    own = problems if problems is not None else Problems(path, strict)
    remote = remote_images(path, nb, cell_lines, build, own)
    if problems is None:
        own.raise_any()
        if warnings is not None:
            warnings.extend(own.warning_lines())
    return remote


def remote_images(path: Path, nb: nbformat.NotebookNode, cell_lines: list[int], build: Path | None,
            problems: Problems) -> dict[str, str]:
    """:func:`check_images`, each problem kept in ``problems``: ``{url: cached file}`` of the remote ones."""
    from jaxdeck.read.images import FetchError, fetch

    remote: dict[str, str] = {}
    for cell, line in zip(nb.cells, cell_lines):
        if cell.cell_type != "markdown":
            continue
        tokens = parsed(MARKDOWN, cell.source)
        with problems.gathered():
            check_raw_html(path, line, tokens)  # what its raw HTML loads: files inside the deck's folder too
        for token in tokens:
            depth = 0  # inside a link: an image there is a badge, decoration
            for child in token.children or []:
                depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
                if child.type != "image":
                    continue
                src = str(child.attrs.get("src", ""))
                where = line + (token.map[0] if token.map else 0)
                if src.startswith(("http://", "https://", "//")):
                    if src not in remote:
                        try:
                            remote[src] = str(fetch(src, BUILD if build is None else build))
                        except FetchError as err:
                            hint = (f"download it next to the deck (e.g. to {path.parent / 'images' / err.name}) "
                                    "and link the local file")
                            failed = f"image '{src}' cannot be fetched ({err})"
                            remote[src] = ""
                            if not err.offline:  # refused (a private address, not an image): always an error
                                problems.error(DeckError(path, where, failed, hint))
                                continue
                            shown = "a badge, it shows as its link's text" if depth else "it shows as its alt text"
                            problems.warn(DeckError(path, where, f"{failed}, so {shown}", hint))
                    continue
                if src.startswith("data:"):
                    continue
                with problems.gathered():
                    check_local_image(path, where, src)
    return remote


def check_local_image(path: Path, where: int, src: str) -> None:
    """A DeckError unless ``src`` is a file inside the deck's folder or its project (a relative path;
    the file a browser loads for ``my%20pic.png``): the rule of :mod:`jaxdeck.read.contained`."""
    check(path, where, src, project=True)


def check_slide_images(path: Path, text: str, nb: nbformat.NotebookNode, cell_lines: list[int],
                       problems: Problems | None = None) -> None:
    """The header's ``logo`` and each slide's ``background-image`` (``## Title {background-image=...}``)
    are local files inside the deck's folder, as the images a slide shows are; a web URL is refused
    (neither is fetched: copy it beside the deck). Each problem goes to ``problems`` when given."""
    own = problems if problems is not None else Problems(path)
    shown: list[tuple[int, str]] = []
    logo = DeckOptions.of(nb).logo
    if logo:
        shown.append((_line_of(text, "logo:", header_line_count(text)), logo))
    for cell, line in zip(nb.cells, cell_lines):
        if cell.cell_type != "markdown":
            continue
        tokens = parsed(MARKDOWN, cell.source)
        for token, inline in zip(tokens, tokens[1:]):
            found = trailing_attributes(inline.content) if token.type == "heading_open" else None
            if found and found[1].get("background-image"):
                shown.append((line + (token.map[0] if token.map else 0), str(found[1]["background-image"])))
    for where, src in shown:
        if src.startswith(("http://", "https://", "//")):
            own.error(DeckError(path, where, f"image '{src}' is a web URL; a logo or slide background is not fetched",
                                f"download it next to the deck (e.g. into {path.parent / 'images'}) and link the local file"))
            continue
        with own.gathered():
            check_local_image(path, where, src)
    if problems is None:
        own.raise_any()
