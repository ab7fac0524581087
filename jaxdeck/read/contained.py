"""The one rule for a file a deck names: a relative path to a file inside the deck's folder, or
for a picture, inside its project.

The build reads every file a deck names (its pictures, what its raw HTML loads, its theme file
and that file's ``url()``s), copies it into the deck's own folder beside the page and inlines
it into the self-contained file. A name that left the deck's folder would let a deck carry any
file the builder can read into a file meant to be mailed, or land its copy on another deck's
page. So a name with a scheme (``file:``, ...), an absolute path, a path whose ``..`` climbs out
of the folder and one that resolves outside it (a symbolic link followed) are refused, in one
line at the file and line that wrote them. The read stage checks them before any kernel starts;
the HTML stage and the self-contained file apply the same rule again to what they copy and inline.

A picture may also be a file of the deck's project (``../figures/plot.svg`` from
``slides/talk.md``): the repository that holds the deck, the nearest folder with ``.git``. Its
copy goes into the deck's own folder of files as the others do, each ``..`` of its name a folder
:data:`UP` there (:func:`copied_as`), so no copy lands outside it. Without a repository the rule
stays the deck's folder: a deck in one's home folder must not carry the home's files. A file
outside the project, a link out of it, a hidden file or folder on the way up (``../.git/config``),
an absolute path and a ``file:`` URL stay refused.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from urllib.parse import unquote

from jaxdeck.errors import DeckError

#: the folder of a deck's copies that stands for ``..`` in the name of a file of its project
UP = "_up_"
#: a URL's scheme (``file:``, ``ftp:``, ``https:``): no path beside the deck
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: references that name no file: data and script URIs, anchors
NOT_FILES = ("data:", "blob:", "javascript:", "about:", "mailto:", "#")
#: references the browser fetches from the web (the build reads nothing there)
REMOTE = ("http://", "https://", "//")

#: why a name is refused (``Refused.why``)
SCHEMED, ABSOLUTE, OUTSIDE, MISSING, NO_FILE, LOOP = "scheme", "absolute", "outside", "missing", "no file", "loop"
#: each of them in a few words, for a message about a name
REASONS = {SCHEMED: "it is not a file beside the deck or a web URL", ABSOLUTE: "it is an absolute path",
           OUTSIDE: "it is outside the deck's folder", MISSING: "it is missing", NO_FILE: "it names no file",
           LOOP: "it is a symbolic link that leads back to itself"}


@dataclass(frozen=True)
class Named:
    """A file a deck names: ``relative`` to the deck's folder (POSIX, normalised) and its ``path`` (resolved)."""

    written: str
    relative: str
    path: Path


class Refused(Exception):
    """A name the rule refuses, and why (:data:`SCHEMED`, :data:`ABSOLUTE`, :data:`OUTSIDE`, :data:`MISSING`,
    :data:`NO_FILE`: a name no file can have, ``%00``)."""

    def __init__(self, written: str, why: str, path: Path | None = None, scope: Path | None = None,
                 instead: str | None = None):
        super().__init__(f"{written}: {why}")
        self.written, self.why, self.path = written, why, path
        self.scope = scope  # the folder a name had to stay in (the deck's, or its project's)
        self.instead = instead  # for an absolute path: the relative name of the same file, which the rule takes


def names_a_file(written: str) -> bool:
    """Whether a reference names a local file at all (not a web URL, a ``data:`` URI or an anchor)."""
    written = written.strip()
    return bool(written) and not written.lower().startswith(NOT_FILES + REMOTE)


def file_part(written: str) -> str:
    """The path a URL names, without its query and fragment, percent-decoded (``a%20b.svg#x`` is ``a b.svg``)."""
    return unquote(written.strip().split("#", 1)[0].split("?", 1)[0])


def named(folder: Path, written: str, within: str = "", project: bool = False) -> Named:
    """The file ``written`` names inside ``folder``, read from the subfolder ``within`` of it (a
    stylesheet's own folder, POSIX); :class:`Refused` unless it is a relative path to a file there.

    ``..`` is applied to the name as a browser applies it, then symbolic links are followed:
    either leaving ``folder`` refuses the name; with ``project`` (a picture), leaving ``folder``'s
    project (:func:`project_of`) does."""
    if SCHEME.match(written.strip()):
        raise Refused(written, SCHEMED)
    part = file_part(written)
    if "\0" in part:
        raise Refused(written, NO_FILE)
    if part.startswith(("/", "\\")) or PureWindowsPath(part).drive or PurePosixPath(part).is_absolute():
        raise Refused(written, ABSOLUTE, Path(part), instead=_relative_instead(folder, within, part, project))
    return located(folder, posixpath.normpath(posixpath.join(within, part.replace("\\", "/"))), written, project)


def _relative_instead(folder: Path, within: str, absolute: str, project: bool) -> str | None:
    """The relative name, from ``within`` ``folder``, of the file at the ``absolute`` path, when the rule
    takes that name (``../figures/plot.svg`` for a picture of the project): what the author meant."""
    if not PurePosixPath(absolute).is_absolute():
        return None  # a Windows drive or a backslash: no name of ours reaches it
    try:
        relative = posixpath.relpath(Path(absolute).resolve().as_posix(), (folder.resolve() / within).as_posix())
        located(folder, posixpath.normpath(posixpath.join(within, relative)), relative, project)
    except (Refused, OSError, RuntimeError, ValueError):  # RuntimeError: a link loop, before Python 3.13
        return None
    return relative


def project_of(folder: Path) -> Path:
    """The project a deck's ``folder`` belongs to: the nearest folder at or above it with ``.git``;
    ``folder`` itself (resolved) when there is none."""
    root = folder.resolve()
    return next((above for above in (root, *root.parents) if (above / ".git").exists()), root)


def _climbs(relative: str) -> bool:
    return relative == ".." or relative.startswith("../")


def located(folder: Path, relative: str, written: str | None = None, project: bool = False) -> Named:
    """The file at the normalised POSIX path ``relative`` inside ``folder`` (symbolic links followed),
    or :class:`Refused` (``written`` is the name as the deck wrote it, for messages). With ``project``
    a file of ``folder``'s project is allowed too, unless a hidden file or folder is on its way."""
    written = relative if written is None else written
    root = folder.resolve()
    try:
        path = (root / relative).resolve()
    except (OSError, RuntimeError):  # a link that leads back to itself (RuntimeError before Python 3.13)
        raise Refused(written, LOOP) from None
    scope = project_of(root) if project else root
    written_in = Path(posixpath.normpath(posixpath.join(root.as_posix(), relative)))  # the name, links not followed
    hidden = _climbs(relative) and any(p.startswith(".") and p != ".." for p in relative.split("/"))
    if not hidden and not path.is_relative_to(root) and path.is_relative_to(scope):  # a link out into the project
        hidden = any(p.startswith(".") for p in path.relative_to(scope).parts)
    if relative.startswith("/") or relative == ".." or hidden or not written_in.is_relative_to(scope) \
            or not path.is_relative_to(scope):
        raise Refused(written, OUTSIDE, path, scope)
    if not path.is_file():
        raise Refused(written, MISSING, path)
    return Named(written, relative, path)


def refusal(deck: Path, line: int | None, what: str, refused: Refused, folder: Path | None = None) -> DeckError:
    """The one-line error for a refused name, at ``deck``:``line`` (the file that wrote it)."""
    folder = deck.parent if folder is None else folder
    src, name = refused.written, PurePosixPath(file_part(refused.written)).name or "file"
    if refused.why == NO_FILE:
        return DeckError(deck, line, f"{what} '{src}' names no file", "fix the link")
    if refused.why == LOOP:
        return DeckError(deck, line, f"{what} '{src}' is a symbolic link that leads back to itself",
                         "point the link at the file, or put the file itself there")
    if refused.why == SCHEMED:
        return DeckError(deck, line, f"{what} '{src}' is not a file beside the deck or a web URL",
                         "copy the file next to the deck (e.g. into images/) and link it by a relative path")
    if refused.why == ABSOLUTE:
        return DeckError(deck, line, f"{what} '{src}' is an absolute path; a deck names its files by "
                                     "relative paths",
                         f"write it as {refused.instead}" if refused.instead else
                         f"copy it into {folder / 'images'} and link it as images/{name}")
    if refused.why == OUTSIDE:
        scope = refused.scope
        where = "the deck's folder" if scope in (None, folder.resolve()) else f"the deck's project ({scope})"
        return DeckError(deck, line, f"{what} '{src}' is outside {where}, so the HTML deck "
                                     "and its copies cannot carry it",
                         f"copy it into {folder / 'images'} and link it as images/{name}")
    close = near_names(refused.path) if refused.path is not None else []
    if close:  # each as the deck would write it: in the folder the name gave
        written = [posixpath.join(posixpath.dirname(file_part(src)), name) for name in close]
        return DeckError(deck, line, f"{what} '{src}' not found",
                         f"did you mean {' or '.join(repr(w) for w in written)}?")
    return DeckError(deck, line, f"{what} '{src}' not found", f"put the file at {refused.path} or fix the link")


def near_names(missing: Path, most: int = 3) -> list[str]:
    """The names of the files beside where ``missing`` was looked for that are closest to its name
    (difflib; ``plot.png`` for ``Plot.png``, ``plot.svg`` for ``plot.png``): what a typo meant."""
    from difflib import get_close_matches

    try:
        names = [p.name for p in missing.parent.iterdir() if p.is_file() and not p.name.startswith(".")]
    except OSError:  # the folder is missing too
        return []
    lowered: dict[str, str] = {}
    for name in sorted(names):
        lowered.setdefault(name.lower(), name)
    return [lowered[n] for n in get_close_matches(missing.name.lower(), list(lowered), n=most, cutoff=0.6)]


def copied_as(relative: str) -> str:
    """Where the copy of the file at ``relative`` (normalised, POSIX) goes in the deck's folder of
    files: there as it is, each leading ``..`` (a file of the project) as a folder :data:`UP`."""
    parts = relative.split("/")
    ups = next((i for i, p in enumerate(parts) if p != ".."), len(parts))
    return "/".join([UP] * ups + parts[ups:])


def copied_url(url: str) -> str:
    """``url`` (a file the deck names) as the page names its copy: a file of the deck's folder as it is
    written, one of its project (``../figures/plot.svg``) at :func:`copied_as` (``_up_/figures/plot.svg``)."""
    from urllib.parse import quote

    url = url.strip()
    at = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    relative = posixpath.normpath(unquote(url[:at]).replace("\\", "/"))
    if not _climbs(relative):
        return url
    return quote(copied_as(relative)) + url[at:]


def check(deck: Path, line: int | None, written: str, what: str = "image", within: str = "",
          project: bool = False) -> Named:
    """The file ``written`` names in ``deck``'s folder (``project``: or in its project), or the
    DeckError of :func:`refusal`."""
    try:
        return named(deck.parent, written, within, project)
    except Refused as refused:
        raise refusal(deck, line, what, refused) from None
