"""Packaging hook: a wheel carries the theme, the front-end files a deck loads, and the live extension built.

Everything else lives in pyproject.toml. In the repository the code reads ``themes/`` and
``node_modules/`` where they are (an editable install copies nothing); a built wheel gets
copies of them inside the package, as ``jaxdeck/themes/`` and ``jaxdeck/npm/PACKAGE/...``
(only the reveal.js, its presenting tools' and KaTeX files listed in ``NPM_FILES`` in jaxdeck/html/assets.py, from
the node_modules/ that ``npm ci`` installs as pinned by package-lock.json), so an installed
jaxdeck builds decks offline in any folder. An sdist carries the same files, so a wheel
built from it needs no npm either. The live slideshow's extension goes in as package data
(``jaxdeck/live/labextensions/``, pyproject.toml) once ``make`` has built it from
``jaxdeck/live/extension/``; a wheel or sdist without it is refused.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
ASSETS = HERE / "jaxdeck" / "html" / "assets.py"
LIVE_EXTENSION = HERE / "jaxdeck" / "live" / "labextensions" / "jaxdeck-live"
SKIP = ("__pycache__", ".DS_Store")


def npm_files() -> dict[str, list[str]]:
    """``NPM_FILES`` as written in assets.py (read, not imported: the build needs none of jaxdeck's imports)."""
    for node in ast.parse(ASSETS.read_text(encoding="utf-8")).body:
        targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
        if any(isinstance(t, ast.Name) and t.id == "NPM_FILES" for t in targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"NPM_FILES not found in {ASSETS}")


def copy_tree(source: Path, target: Path) -> None:
    if source.is_dir():
        for child in sorted(source.rglob("*")):
            if child.is_file() and not any(part in SKIP for part in child.relative_to(source).parts):
                copy_tree(child, target / child.relative_to(source))
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def copy_npm(target: Path, node_modules: Path = HERE / "node_modules") -> None:
    """Copy the files decks load (and each package's package.json) to ``target/PACKAGE/...``."""
    for package, entries in npm_files().items():
        root = node_modules / package
        entries = [*entries, "package.json"]
        missing = [entry for entry in entries if not (root / entry).exists()]
        if missing:
            raise SystemExit(f"error: {root / missing[0]} is missing; run `npm ci` (or `make setup`) "
                             "in the repository before building a wheel or an sdist")
        for entry in entries:
            copy_tree(root / entry, target / package / entry)


def check_live_extension(folder: Path = LIVE_EXTENSION) -> None:
    """The built live extension must be in ``folder``: the server refuses to start without it."""
    try:
        load = json.loads((folder / "package.json").read_text(encoding="utf-8"))["jupyterlab"]["_build"]["load"]
    except (OSError, ValueError, KeyError, TypeError):
        load = None
    if load is None or not (folder / load).is_file():
        raise SystemExit(f"error: the live slideshow's extension is not built in {folder}; run `make setup` "
                         "in the repository before building a wheel or an sdist")


def bundle(target: Path, themes: Path = HERE / "themes") -> None:
    """Copy the theme to ``target/themes`` and the npm files decks load to ``target/npm``; the live
    extension must be there already (package data)."""
    if not (themes / "jaxdeck").is_dir():
        raise SystemExit(f"error: no theme in {themes}; build the wheel from the repository or its sdist")
    copy_tree(themes, target / "themes")
    copy_npm(target / "npm")
    check_live_extension(target / "live" / "labextensions" / "jaxdeck-live")  # copied as package data


class BuildPy(build_py):
    """build_py, plus the theme and the npm files under build_lib/jaxdeck (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            bundle(Path(self.build_lib) / "jaxdeck")


class Sdist(sdist):
    """sdist, plus the npm files (the theme comes in through MANIFEST.in)."""

    def make_release_tree(self, base_dir, files) -> None:
        check_live_extension()
        super().make_release_tree(base_dir, files)
        copy_npm(Path(base_dir) / "node_modules")


# setuptools' scratch folders go under build/setuptools, beside the decks' artefacts rather than among them
setup(cmdclass={"build_py": BuildPy, "sdist": Sdist}, options={"build": {"build_base": "build/setuptools"}})
