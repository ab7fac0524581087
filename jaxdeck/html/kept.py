"""What a deck's export keeps between builds, under ``build/cache/``, signed: the page's compiled
templates and its highlighted code.

Every process that exports a deck compiles nbconvert's templates and the theme's to Python code,
and highlights each code cell with Pygments, whose lexers compile their patterns first: some
0.2 s of CPU in the rebuild after a prose edit, which changes neither. So both are kept:

- ``build/cache/templates/``: Jinja's bytecode cache, one file per template, named by the
  template's name (not its path: a copied project finds them), in a folder for this Jinja and
  this Python; a template that changed is compiled again by Jinja's own check of its source;
- ``build/cache/highlight/``: each code cell's HTML by its language, the formatter's options and
  its source, in one file for this Pygments and these IPython lexers, the latest exports' cells
  first (at most :data:`HIGHLIGHTS`).

A template's code is code the build runs, a cell's HTML is markup the page shows as it is: each
file carries this user's signature (:func:`jaxdeck.trust.signature`, as the execution cache's
entries do), and one whose signature does not hold is never used: the template is compiled, the
code highlighted, again. A file that cannot be read or written only costs that work.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Callable

import jinja2
from jinja2.bccache import Bucket

from jaxdeck import trust
from jaxdeck.atomic import write_bytes, write_text

#: the most highlighted cells the highlight file keeps
HIGHLIGHTS = 4096


def templates_folder(root: str | Path) -> Path:
    """Where a build folder keeps the compiled templates of this Jinja and this Python."""
    return Path(root) / "cache" / "templates" / f"jinja-{jinja2.__version__}-python-{platform.python_version()}"


def highlights_file(root: str | Path) -> Path:
    """Where a build folder keeps the code highlighted by this Pygments and these IPython lexers."""
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "none"

    return Path(root) / "cache" / "highlight" / (f"pygments-{version('pygments')}-"
                                                 f"ipython-lexers-{version('ipython-pygments-lexers')}.json")


def _template_signature(key: str, code: bytes) -> str | None:
    return trust.signature({"template": key, "code": base64.b64encode(code).decode("ascii")})


class SignedTemplates(jinja2.BytecodeCache):
    """Jinja's bytecode cache in the folder ``where``: one file per template, its first line this user's signature."""

    def __init__(self, where: str | Path):
        self.where = Path(where)

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        """The template's name alone (Jinja adds its path): a moved or copied project finds what it compiled."""
        return hashlib.sha1(name.encode("utf-8")).hexdigest()

    def _path(self, bucket: Bucket) -> Path:
        return self.where / f"{bucket.key}.code"

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            signature, _, code = self._path(bucket).read_bytes().partition(b"\n")
        except OSError:
            return
        expected = _template_signature(bucket.key, code)
        if expected is not None and hmac.compare_digest(expected.encode("ascii"), signature):
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        code = bucket.bytecode_to_string()
        signature = _template_signature(bucket.key, code)
        if signature is None:
            return
        try:
            write_bytes(self._path(bucket), signature.encode("ascii") + b"\n" + code)
        except OSError:
            pass


class KeptHighlights:
    """Code cells' HTML as highlighted by earlier exports, from a file this user's builds signed."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.kept = self._load()
        self.used: dict[str, str] = {}  # this process's cells, the latest last
        self.changed = False

    def _load(self) -> dict[str, str]:
        try:
            record = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        entries = record.get("highlighted") if isinstance(record, dict) else None
        if not isinstance(entries, dict) or not all(isinstance(html, str) for html in entries.values()):
            return {}
        return entries if trust.signature_holds({"highlighted": entries}, record.get("signature")) else {}

    def highlighted(self, language: str, options: dict, source: str, highlight: Callable[[], str]) -> str:
        """The HTML of ``source`` in ``language`` with the formatter's ``options``: kept, else ``highlight()``."""
        spelled = json.dumps([language, options, source], sort_keys=True, default=repr)
        key = hashlib.sha256(spelled.encode("utf-8")).hexdigest()
        html = self.used.pop(key, None)
        html = self.kept.get(key) if html is None else html
        if html is None:
            html, self.changed = highlight(), True
        self.used[key] = html
        while len(self.used) > HIGHLIGHTS:
            del self.used[next(iter(self.used))]
        return html

    def save(self) -> None:
        """Keep what was highlighted since the last save, this process's cells first, then the file's others."""
        if not self.changed:
            return
        entries = dict(reversed(self.used.items()))
        for key, html in self.kept.items():
            if len(entries) >= HIGHLIGHTS:
                break
            entries.setdefault(key, html)
        signature = trust.signature({"highlighted": entries})
        if signature is None:
            return
        try:
            write_text(self.path, json.dumps({"highlighted": entries, "signature": signature}))
        except OSError:
            return
        self.kept, self.changed = entries, False


def keep(exporter, root: str | Path) -> None:
    """Let the deck's ``exporter`` (:class:`jaxdeck.html.exporter.DeckExporter`) use and keep, under the
    build folder ``root``, the templates it compiles and the code it highlights."""
    exporter.environment.bytecode_cache = SignedTemplates(templates_folder(root))
    exporter.kept_highlights = KeptHighlights(highlights_file(root))
