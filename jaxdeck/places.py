"""Where jaxdeck's own files are (the theme, the npm packages), which themes there are, and whether
a build folder is the user's own to write in.

Every stage may need these, the read stage (to check a header's theme) as much as the HTML
stage (to copy the files beside a deck); they live here so that neither imports the other.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: the repository (for an editable install; in a wheel install, the folder that holds the package)
ROOT = PACKAGE.parent
#: the theme and the npm packages: the wheel's copies when they are there, else the repository's
THEMES = PACKAGE / "themes" if (PACKAGE / "themes").is_dir() else ROOT / "themes"
NODE_MODULES = PACKAGE / "npm" if (PACKAGE / "npm").is_dir() else ROOT / "node_modules"

#: our own themes (themes/jaxdeck/static/NAME.css); other names are reveal.js's built-in themes
OWN_THEMES = ("projector", "projector-dark")
DEFAULT_THEME = "projector"
#: an own theme that only changes another's --jd-* variables, and the theme it is loaded after
THEME_BASES = {"projector-dark": "projector"}


def is_theme_file(theme: str | None) -> bool:
    """A deck's own theme: a CSS file beside the deck (``theme: talk.css``), loaded after projector.css."""
    return bool(theme) and theme.lower().endswith(".css")


def own_sheets(theme: str) -> list[str]:
    """The stylesheets of themes/jaxdeck/static/ (NAME.css) that a theme loads, its base first
    (a theme file loads projector's, then itself from the deck's folder)."""
    if is_theme_file(theme):
        return own_sheets(DEFAULT_THEME)
    base = THEME_BASES.get(theme)
    return (own_sheets(base) if base else []) + [theme]


def known_themes() -> list[str]:
    """Our themes first, then reveal.js's built-in ones (when node_modules is installed)."""
    return list(OWN_THEMES) + sorted(p.stem for p in (NODE_MODULES / "reveal.js/dist/theme").glob("*.css"))


#: the folders of a build folder that ``build``, ``pdf`` and ``check`` write in, with every folder inside them
WRITTEN = ("notebooks", "html", "pdf", "cache", "single", "article", "images")
#: the folders of a build folder the other commands write in: preview's page, a rehearsal's report, the
#: benchmarks (present's record folder has its own, stricter check: jaxdeck.live.detached.private_folder)
LIVE_WRITTEN = ("preview", "rehearsal", "bench")
#: folders a deck's kernel has its libraries make (matplotlib's cache, see jaxdeck.execute.spec.own_folders):
#: made here first, so that they too are 0755 or stricter whatever the umask lets a library make
KERNEL_MADE = ("cache/matplotlib",)


def own_build_folder(root: str | Path, written: tuple[str, ...] = WRITTEN) -> None:
    """Refuse, in one line, a build folder another user could change under this one: a symbolic link,
    a folder of another user's, or one that group or others may write in, at every level a build
    writes in (``root`` and its ``written`` folders, all the way down), as OpenSSH's StrictModes
    refuses such a ~/.ssh. On a shared box another user's planted ``build -> /their/folder`` would
    otherwise be followed, and a file swapped in there printed into a PDF they can read.

    Called once per command before anything is written. Then, as :func:`jaxdeck.atomic.check_writable`,
    makes ``root`` (0755 under the umask) and fails in one line when it cannot be written.
    """
    from jaxdeck.atomic import check_writable, make_folders, user_error

    root = Path(root)
    refuse_unowned(root, written)
    check_writable(root, written)
    for name in KERNEL_MADE:
        try:
            make_folders(root / name)
        except OSError as err:
            raise (user_error(err, root) or err) from None


def refuse_unowned(root: str | Path, written: tuple[str, ...] = WRITTEN) -> None:
    """:func:`own_build_folder`'s check alone, making nothing: for a command that may yet stop before it
    writes (a live slideshow whose extension is not built leaves no build folder behind)."""
    root = Path(root)
    _own(root)
    for name in written:
        _own(root / name, below=True)


def own_folder(path: str | Path) -> None:
    """One folder jaxdeck writes in (the wheelhouse's), held to :func:`own_build_folder`'s rule: a DeckError
    when it is a link, another user's, or group or others may write in it; nothing there is fine."""
    _own(Path(path))


def _own(path: Path, below: bool = False) -> None:
    """Raise a DeckError when ``path`` (and with ``below``, any folder or link inside it) is not
    this user's alone; nothing there is fine."""
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    _refuse(path, found)
    if below and stat.S_ISDIR(found.st_mode):
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_symlink() or entry.is_dir(follow_symlinks=False):
                    _own(Path(entry.path), below=True)


def _refuse(path: Path, found: os.stat_result) -> None:
    from jaxdeck.errors import DeckError

    elsewhere = "pass --out to a folder of your own"
    if stat.S_ISLNK(found.st_mode):
        raise DeckError(None, None, f"{path} is a symbolic link (to {os.readlink(path)})", f"remove it, or {elsewhere}")
    if not stat.S_ISDIR(found.st_mode):
        return
    if found.st_uid not in (os.geteuid(), 0):
        raise DeckError(None, None, f"{path} is owned by another user ({_user(found.st_uid)})",
                        f"move it away (or ask its owner to), or {elsewhere}")
    open_to = [who for who, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if found.st_mode & bit]
    if open_to:
        raise DeckError(None, None, f"{path} is writable by {' and '.join(open_to)} "
                                    f"(mode {stat.S_IMODE(found.st_mode):04o})",
                        f"run `chmod go-w {path}`, or {elsewhere}")


def _user(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
