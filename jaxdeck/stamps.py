"""Up-to-date records: an artefact is rebuilt only when something it is made from changed.

Beside each artefact lies a small JSON record, ``.NAME.EXT.inputs.json`` (for example
``build/html/.talk.html.inputs.json``), with the sha256 of the artefact as it was written
and the digests of what it was made from:

- the executed notebook: the deck's text and path, the jupytext configuration, the
  converter's code and versions, and how the outputs were made (``execution``: the kernel
  environment's key fields and the ``demos`` version, as the execution cache keys them,
  or the digest of the ``--frozen`` notebook they were taken from, with both when the outputs of
  the code cells changed since it are this build's);
- the HTML: the executed notebook's digest, the look (``themes/`` less the print-only and
  live-only files, and the versions of the npm packages copied beside it), the exporter's
  code and versions, and the images the deck shows;
- each PDF: the HTML's digest and its inputs, the print styles (for the handout also its
  styles and template, and the layout flags of ``jaxdeck pdf`` when given), the printer's code
  and the deck path the handout names;
- the self-contained file (``--self-contained``): the HTML's digest, the digest of every file
  it inlined, the theme's files that serve run-time loads, and its code;
- the article (``--article``): the executed notebook's digest, the look and the article's own
  theme files, its code and the images it shows; its PDF: the article's digest and inputs and
  the printer's code.

Digests of contents, never modification times: the decision holds across processes, copies
of ``build/`` and machines. An artefact is up to date when its file still has the recorded
digest and its inputs digest the same now; a torn, missing or foreign record means a rebuild.
Which artefacts a build makes, read from these records, is a deck's plan (:mod:`jaxdeck.stages.plan`);
the records are written by the stage runner alone (:mod:`jaxdeck.stages.runner`).

Checking imports nothing heavy (no nbformat, jupytext, nbconvert or Playwright), so a
``make`` with nothing to do is quick. The kernel environment is recognised by
:func:`jaxdeck.execute.fingerprint.machine_signature`; only when that changed is the full
fingerprint (a probe that imports JAX in a subprocess, remembered in ``build/cache/env``)
asked whether the executed outputs still hold.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from jaxdeck.execute import fingerprint
from jaxdeck.html.assets import NODE_MODULES, NPM_FILES, THEMES
from jaxdeck.atomic import write_text
from jaxdeck.decks import Outputs

if TYPE_CHECKING:
    from jaxdeck.pdf.layout import HandoutFlags

SCHEMA = 1
PACKAGE = Path(__file__).resolve().parent

#: jaxdeck's modules and the distributions whose code shapes each artefact (a change rebuilds it)
CODE = {
    "notebook": ("read/__init__.py", "read/source.py", "read/header.py", "read/fences.py", "read/pictures.py",
                 "read/formats.py", "read/yaml_header.py", "read/images.py", "read/structure.py", "read/breaks.py",
                 "read/contained.py", "read/loads.py", "execute/__init__.py", "execute/cache.py", "execute/limits.py",
                 "execute/where.py", "markers.py", "records.py", "options.py", "trust.py", "untrusted.py",
                 "places.py", "execute/frozen.py", "machines.py", "execute/shape.py", "read/problems.py",
                 "read/foreign.py"),
    "html": ("html/__init__.py", "html/export.py", "html/shown.py", "html/exporter.py", "html/layout.py",
             "html/assets.py", "html/markdown.py", "html/myst/__init__.py", "html/myst/syntax.py",
             "html/myst/html.py", "html/myst/tags.py", "html/myst/live.py", "html/fit.py", "html/fit_blocks.py",
             "html/fit_cuts.py", "html/fit_measure.py", "html/fit_record.py", "html/fit_tall.py", "html/fit_long.py",
             "html/outputs.py", "browser.py", "pages.py", "options.py", "read/structure.py", "read/formats.py", "markers.py",
             "html/loads.py", "read/contained.py", "html/menu.py", "records.py", "places.py", "html/outputs_from.py",
             "machines.py", "read/loads.py", "read/yaml_header.py", "read/breaks.py"),
    "pdf": ("pdf/export.py", "pdf/layout.py", "browser.py", "pages.py", "read/structure.py", "read/formats.py", "markers.py",
            "records.py", "html/loads.py", "read/contained.py", "options.py", "html/__init__.py", "html/assets.py",
            "html/fit_record.py", "html/markdown.py", "html/myst/syntax.py", "places.py", "machines.py",
            "read/loads.py", "read/yaml_header.py", "read/breaks.py"),
    "single": ("html/single.py", "places.py", "read/loads.py", "read/contained.py"),
    "article": ("article/export.py", "article/sections.py", "html/__init__.py", "html/export.py", "html/shown.py",
                "html/exporter.py", "html/layout.py", "html/assets.py", "html/markdown.py", "html/myst/__init__.py",
                "html/myst/syntax.py", "html/myst/html.py", "html/myst/tags.py", "html/myst/live.py",
                "html/outputs.py", "html/fit.py", "html/fit_blocks.py", "html/fit_cuts.py", "html/fit_measure.py",
                "html/fit_record.py", "html/fit_tall.py", "html/fit_long.py", "browser.py", "pages.py", "options.py",
                "read/structure.py", "read/formats.py", "markers.py", "records.py", "places.py", "html/loads.py",
                "read/contained.py", "html/menu.py", "html/outputs_from.py", "machines.py",
                "read/loads.py", "read/yaml_header.py", "read/breaks.py"),
}
#: where each stage's code starts; tests/test_stamps.py follows their imports and fails when a module
#: they reach is neither in CODE nor in PLUMBING
ENTRIES = {
    "notebook": ("read/__init__.py", "execute/__init__.py", "execute/cache.py"),
    "html": ("html/export.py", "html/fit.py"),
    "pdf": ("pdf/export.py",),
    "single": ("html/single.py",),
    "article": ("article/export.py",),
}
#: modules the stages import that never change an artefact's bytes: errors, files, signals, the
#: progress line, the memo of Markdown parses; and the kernel's run, whose outputs are keyed by the
#: execution cache's key instead
PLUMBING = ("__init__.py", "errors.py", "atomic.py", "decks.py", "progress.py", "stopping.py", "claims.py", "limits.py",
            "ulimit.py",
            "tokens.py", "orphans.py", "watchdog.py",
            "execute/kernel.py", "execute/spec.py", "execute/cells.py", "execute/fingerprint.py", "execute/measure.py")
TOOLS = {
    "notebook": ("jupytext", "nbformat", "markdown-it-py", "tinycss2", "bleach"),
    "html": ("nbconvert", "markdown-it-py", "mdit-py-plugins", "pygments", "tinycss2"),
    "pdf": ("playwright", "markdown-it-py", "mdit-py-plugins", "pygments"),
    "single": ("tinycss2", "jinja2"),
    "article": ("nbconvert", "markdown-it-py", "mdit-py-plugins", "pygments", "tinycss2"),
}

#: files under themes/ that only the PDFs read (the rest is the look of every deck)
PRINT_FILES = {"pdf": ("jaxdeck/static/print.css",),
               "handout": ("jaxdeck/static/print.css", "jaxdeck/static/handout.css", "jaxdeck/handout.html.j2")}
#: files under themes/ that only the live slideshow reads
LIVE_FILES = ("jaxdeck/static/live.css",)
#: files under themes/ that only the self-contained file reads
SINGLE_FILES = ("jaxdeck/single/files.js", "jaxdeck/single/files.html.j2")
#: files under themes/ that only the article reads, and only its PDF (the article also reads the deck's look)
ARTICLE_FILES = ("jaxdeck/article.html.j2", "jaxdeck/static/article.css", "jaxdeck/static/article.js")
ARTICLE_PRINT_FILES = ("jaxdeck/scripts/article-ready.js", "jaxdeck/handout.html.j2")
#: the folder under themes/ that only the series site reads (jaxdeck.site keeps its own records)
SITE_FOLDER = "jaxdeck/site/"

#: the names jupytext looks for in a deck's folder and its parents (jupytext.config.JUPYTEXT_CONFIG_FILES)
JUPYTEXT_CONFIG_FILES = ("jupytext", "jupytext.toml", "jupytext.yml", "jupytext.yaml", "jupytext.json",
                         ".jupytext", ".jupytext.toml", ".jupytext.yml", ".jupytext.yaml", ".jupytext.json",
                         ".jupytext.py")


def file_sha(path: str | Path) -> str | None:
    """sha256 of a file's bytes, None when there is no such file."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def record_path(artefact: Path) -> Path:
    return artefact.with_name(f".{artefact.name}.inputs.json")


def load(artefact: Path) -> dict | None:
    """The artefact's record, when the artefact still holds the bytes the record names."""
    try:
        record = json.loads(record_path(artefact).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("schema") != SCHEMA or not isinstance(record.get("inputs"), dict):
        return None
    if record.get("sha256") is None or file_sha(artefact) != record["sha256"]:
        return None
    return record


def save(artefact: Path, inputs: dict, **extra) -> dict:
    """Record what ``artefact`` (already written) was made from."""
    record = {"schema": SCHEMA, "artefact": artefact.name, "sha256": file_sha(artefact), "inputs": inputs, **extra}
    write_text(record_path(artefact), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def frozen_notebook(frozen: str | Path, deck: Path) -> Path:
    """The executed notebook ``--frozen`` names for ``deck`` (a file, or a folder holding NAME.ipynb)."""
    frozen = Path(frozen)
    return frozen / f"{deck.stem}.ipynb" if frozen.is_dir() else frozen


def _versions(names) -> dict:
    from importlib import metadata

    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


class Sources:
    """What the artefacts under one build folder are made from, each digested at most once per build."""

    def __init__(self, root: str | Path, themes: Path = THEMES, node_modules: Path = NODE_MODULES):
        self.root = Path(root)
        self.themes = Path(themes)
        self.node_modules = Path(node_modules)
        self._jupytext: dict[Path, str | None] = {}

    @cached_property
    def code(self) -> dict[str, str]:
        # each module and distribution once, though several stages name it
        shas = {m: file_sha(PACKAGE / m) for m in dict.fromkeys(m for modules in CODE.values() for m in modules)}
        versions = _versions(dict.fromkeys(name for names in TOOLS.values() for name in names))
        return {stage: fingerprint.digest({"modules": {m: shas[m] for m in modules},
                                           "tools": {name: versions[name] for name in TOOLS[stage]}})
                for stage, modules in CODE.items()}

    @cached_property
    def look(self) -> str:
        skip = (set(LIVE_FILES) | set(SINGLE_FILES) | set(ARTICLE_FILES) | set(ARTICLE_PRINT_FILES)
                | {f for files in PRINT_FILES.values() for f in files})
        files = (p for p in sorted(self.themes.rglob("*")) if p.is_file())
        theme = {name: file_sha(p) for p in files if (name := p.relative_to(self.themes).as_posix()) not in skip
                 and not name.startswith(SITE_FOLDER)}
        npm = {name: file_sha(self.node_modules / name / "package.json") for name in NPM_FILES}
        return fingerprint.digest({"theme": theme, "npm": npm})

    @cached_property
    def article_look(self) -> str:
        """The deck's look (the article's template extends the deck's) and the article's own files."""
        return fingerprint.digest({"look": self.look, "article": {f: file_sha(self.themes / f) for f in ARTICLE_FILES}})

    @cached_property
    def print_styles(self) -> dict[str, str]:
        return {kind: fingerprint.digest({f: file_sha(self.themes / f) for f in files})
                for kind, files in PRINT_FILES.items()}

    @cached_property
    def machine(self) -> str:
        return fingerprint.digest(fingerprint.machine_signature())

    @cached_property
    def demos(self) -> str | None:
        return fingerprint.demos_version()

    @cached_property
    def environment(self) -> str | None:
        """The digest of the kernel environment's key fields (may run the probe); None when it failed."""
        env = fingerprint.environment(self.root)
        return None if "error" in env else fingerprint.digest(fingerprint.key_part(env))

    def jupytext(self, deck: Path) -> str | None:
        """Digest of the jupytext configuration file that applies to ``deck`` (the nearest one up)."""
        folder = deck.resolve().parent
        if folder not in self._jupytext:
            found = None
            for place in (folder, *folder.parents):
                names = [n for n in JUPYTEXT_CONFIG_FILES if (place / n).is_file()]
                pyproject = place / "pyproject.toml"
                if not names and pyproject.is_file() and "[tool.jupytext" in pyproject.read_text(errors="replace"):
                    names = ["pyproject.toml"]
                if names:
                    found = fingerprint.digest({n: file_sha(place / n) for n in names})
                    break
            self._jupytext[folder] = found
        return self._jupytext[folder]

    # what each artefact is made from

    def notebook_inputs(self, deck: Path) -> dict:
        """The executed notebook's inputs apart from its ``execution``."""
        return {"deck": file_sha(deck), "path": str(deck), "jupytext": self.jupytext(deck), "code": self.code["notebook"]}

    def execution(self, deck: Path, frozen: str | Path | None = None, own: bool = False) -> dict:
        """How the outputs were made: here, or kept from the ``frozen`` notebook (and, ``own``, partly here)."""
        here = {"environment": self.environment, "demos": self.demos} if frozen is None or own else {}
        return here if frozen is None else {"frozen": file_sha(frozen_notebook(frozen, deck)), **here}

    def html_inputs(self, notebook_sha: str | None, deck: Path, images) -> dict:
        return {"notebook": notebook_sha, "look": self.look, "code": self.code["html"],
                "images": {image: file_sha(deck.parent / image) for image in sorted(set(images))}}

    def pdf_inputs(self, kind: str, html: dict, deck: Path, flags: HandoutFlags | None = None) -> dict:
        """A PDF's inputs; the handout's also the layout flags given for this run (the header's are in the HTML's)."""
        inputs = {"html": html["sha256"], "html_inputs": fingerprint.digest(html["inputs"]),
                  "print": self.print_styles[kind], "code": self.code["pdf"], "source": str(deck)}
        given = flags.given() if flags is not None and kind == "handout" else {}
        return {**inputs, "flags": given} if given else inputs

    def article_inputs(self, notebook_sha: str | None, deck: Path, images) -> dict:
        return {"notebook": notebook_sha, "look": self.article_look, "code": self.code["article"],
                "images": {image: file_sha(deck.parent / image) for image in sorted(set(images))}}

    def article_pdf_inputs(self, article: dict) -> dict:
        return {"article": article["sha256"], "article_inputs": fingerprint.digest(article["inputs"]),
                "print": fingerprint.digest({f: file_sha(self.themes / f) for f in ARTICLE_PRINT_FILES}),
                "code": self.code["pdf"]}

    def single_inputs(self, html: dict, folder: Path, files) -> dict:
        """The self-contained file's inputs: the HTML and every file (relative to ``folder``) it inlined."""
        return {"html": html["sha256"], "code": self.code["single"],
                "serve": fingerprint.digest({f: file_sha(self.themes / f) for f in SINGLE_FILES}),
                "files": {name: file_sha(folder / name) for name in sorted(files or ())}}

    # is it up to date?

    def execution_holds(self, record: dict, artefact: Path, deck: Path, frozen: str | Path | None) -> bool:
        """Whether the recorded outputs are what this build would make (cheaply, unless the machine changed)."""
        recorded = record["inputs"].get("execution")
        if not isinstance(recorded, dict) or (frozen is None) == ("frozen" in recorded):
            return False
        if frozen is not None:  # the same kept notebook; the outputs made here, if any, hold as a plain build's do
            recorded = dict(recorded)
            if recorded.pop("frozen") != file_sha(frozen_notebook(frozen, deck)):
                return False
            if not recorded:
                return True  # every output kept
        if not recorded.get("environment") or recorded.get("demos") != self.demos:
            return False
        if record.get("machine") == self.machine:
            return True
        if recorded["environment"] != self.environment:
            return False
        # the same kernel environment under a new machine signature (a copied build/, another host
        # name, an unrelated upgrade): the record learns the signature, so the next check is cheap
        write_text(record_path(artefact), json.dumps(dict(record, machine=self.machine), indent=1, sort_keys=True) + "\n")
        return True

    def article_holds(self, article: dict | None, notebook: dict, deck: Path, outputs: Outputs) -> bool:
        """Whether the article is made from this notebook, look and images, with its assets beside it."""
        folder = outputs.article.parent
        if article is None or not (folder / "assets" / "themes" / "article.js").is_file():
            return False
        images = article["inputs"].get("images") or {}
        own = folder / outputs.files  # the deck's files are copied into its own folder beside the article
        if any(sha is not None and folder.resolve() in (own / image).resolve().parents
               and not (own / image).resolve().is_file() for image, sha in images.items()):
            return False  # a picture copied beside the article is gone
        return article["inputs"] == self.article_inputs(notebook["sha256"], deck, images)

    def html_holds(self, html: dict | None, notebook: dict, deck: Path, outputs: Outputs) -> bool:
        """Whether the HTML is made from this notebook, look and images, with its assets and image copies beside it."""
        folder = outputs.html.parent
        if html is None or not (folder / "assets" / "reveal.js" / "dist" / "reveal.js").is_file():
            return False
        images = html["inputs"].get("images") or {}
        for image, sha in images.items():
            copy = (folder / outputs.files / image).resolve()  # the deck's own folder of files beside the page
            if sha is not None and folder.resolve() in copy.parents and not copy.is_file():
                return False  # export copies the images that lie below the HTML's folder
        return html["inputs"] == self.html_inputs(notebook["sha256"], deck, images)

