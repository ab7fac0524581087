"""The execution cache: a prose edit re-executes nothing, a code edit re-executes the deck.

Key (sha256 of a JSON document):

- the deck's code cells in order: each cell's source and the metadata that changes
  how it runs (``tags``, e.g. ``raises-exception``/``skip-execution``, ``timeout``, and
  whether it is a ``highlight`` listing that is shown rather than run),
  plus the deck's default timeout;
- the kernel environment (:mod:`jaxdeck.execute.fingerprint`): Python, jax, jaxlib, numpy,
  backend, device kind and the JAX/XLA environment variables;
- the ``demos`` package's ``__version__`` (parsed from ``demos/__init__.py``, never imported).

Markdown cells, speaker notes and slide breaks are not in the key, so editing them
reuses the stored outputs: they are grafted, in order, onto the code cells of the
freshly converted notebook.

Storage: ``build/cache/exec/KK/KEY.json``, one content-addressed file per key,
written to a temporary file and renamed into place (:mod:`jaxdeck.atomic`). Two
builds of the same deck at once may both write the same entry; each rename is
atomic and both contents are valid, so readers always see a whole entry. A file
that cannot be read or does not match is treated as a miss. ``make clean`` removes
``build/``, and with it the cache; ``jaxdeck build --no-cache`` neither reads nor writes it.

Trust: cached outputs keep the trust of the run that made them. Each entry carries this user's
signature of its content (:func:`jaxdeck.trust.signature`, the secret the build signs its notebooks
with); an entry whose signature does not hold (changed since it was written, or written by someone
else) is a miss, said in one line, and the deck runs again. Outputs reused from the cache are then
signed with the notebook, as a run's are, and no others.

Frozen outputs (``jaxdeck build --frozen PATH``), an executed notebook built elsewhere whose outputs a
build takes cell by cell while the deck's code still matches it, are :mod:`jaxdeck.execute.frozen`'s.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import nbformat

from jaxdeck import trust
from jaxdeck.execute import fingerprint
from jaxdeck.atomic import write_text
from jaxdeck.options import DeckOptions
from jaxdeck.records import BuildRecord, ExecFacts, cell_info, update_cell_info

SCHEMA = 2  # 2: entries carry their signature
#: notebook-level metadata that execution produces and a hit must restore
NOTEBOOK_KEYS = ("kernelspec", "language_info", "widgets")
#: fields of the build record that describe the execution (the rest describe the conversion)
EXECUTION_KEYS = BuildRecord.EXECUTION


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_identity(cell) -> dict:
    """What about a code cell changes its outputs: its source and how it is run."""
    tags = cell.metadata.get("tags", [])
    return {"source": cell.source, "tags": sorted(tags) if isinstance(tags, list) else tags,
            "timeout": cell.metadata.get("timeout"), "listing": bool(cell.metadata.get("highlight"))}


def code_identity(nb) -> dict:
    return {"cells": [cell_identity(c) for c in code_cells(nb)],
            "timeout": DeckOptions.of(nb).timeout}


def cache_key(nb, env: dict, demos: str | None = None) -> str:
    """The entry's key: the code cells, the kernel's environment and ``demos.__version__``."""
    demos = demos if demos is not None else fingerprint.demos_version()
    return fingerprint.digest({"schema": SCHEMA, "code": code_identity(nb),
                               "environment": fingerprint.key_part(env), "demos": demos})


def _plain(value):
    return json.loads(json.dumps(value))


def cell_record(cell) -> dict:
    """The part of an executed code cell that the cache stores."""
    info = cell_info(cell)
    record = {"outputs": _plain(cell.get("outputs", [])), "execution_count": cell.get("execution_count"),
              "execution": _plain(cell.metadata.get("execution", {}))}
    for key in ("duration_s", "others_share", "cpu_s", "waited_s"):  # how long it took, how busy the machine was meanwhile
        if key in info:
            record[key] = info[key]
    return record


def entry_of(executed, key: str, deck: str | None = None, facts: ExecFacts | None = None) -> dict:
    """The cache entry of ``executed``; ``facts``: how it ran (None: as its build record says)."""
    return {
        "schema": SCHEMA,
        "key": key,
        "deck": deck,
        "cells": [cell_record(c) for c in code_cells(executed)],
        "notebook": {k: _plain(executed.metadata[k]) for k in NOTEBOOK_KEYS if k in executed.metadata},
        "build": _plain((facts or BuildRecord.of(executed)).execution()),
    }


def graft_cell(cell, record: dict) -> None:
    """Put a stored :func:`cell_record` (outputs, count, timing) on the code cell ``cell``, in place."""
    cell.outputs = [nbformat.from_dict(o) for o in record.get("outputs", [])]
    cell.execution_count = record.get("execution_count")
    if record.get("execution"):
        cell.metadata["execution"] = nbformat.from_dict(record["execution"])
    for key in ("duration_s", "others_share", "cpu_s", "waited_s"):
        if key in record:
            update_cell_info(cell, **{key: record[key]})


def graft(nb, entry: dict, status: str) -> tuple[nbformat.NotebookNode, ExecFacts]:
    """A copy of ``nb`` with the stored outputs on its code cells, in order, and how they were made."""
    nb = copy.deepcopy(nb)
    cells = code_cells(nb)
    if len(cells) != len(entry["cells"]):
        raise ValueError("code cell count differs")
    for cell, record in zip(cells, entry["cells"]):
        graft_cell(cell, record)
    for k, v in entry.get("notebook", {}).items():
        nb.metadata[k] = nbformat.from_dict(v)
    stored = {k: v for k, v in entry.get("build", {}).items() if k in EXECUTION_KEYS}
    return nb, ExecFacts(**dict(stored, cells_executed=0, cells_reused=len(cells), cache=status))


class ExecutionCache:
    """Content-addressed executed outputs under ``ROOT/cache/exec``."""

    def __init__(self, root: str | Path):
        self.folder = Path(root) / "cache" / "exec"

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def has_entries(self) -> bool:
        try:
            return any(folder.is_dir() and any(folder.iterdir()) for folder in self.folder.iterdir())
        except OSError:
            return False

    def get(self, key: str) -> dict | None:
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("schema") != SCHEMA or entry.get("key") != key:
            return None
        if not isinstance(entry.get("cells"), list):
            return None
        content = {k: v for k, v in entry.items() if k != "signature"}
        if not trust.signature_holds(content, entry.get("signature")):
            print(f"jaxdeck: {self.path(key)}: a cached run this user's builds did not sign (changed since it "
                  "was written?); not reused, the deck runs again", file=sys.stderr)
            return None
        return content

    def put(self, key: str, executed, deck: str | None = None, facts: ExecFacts | None = None) -> Path | None:
        """Store ``executed``'s outputs (run as ``facts`` say) under ``key``, signed; nothing when they cannot be signed."""
        entry = entry_of(executed, key, deck, facts)
        signature = trust.signature(entry)
        if signature is None:
            return None
        return write_text(self.path(key), json.dumps({**entry, "signature": signature}, sort_keys=True))

    def lookup(self, nb, env: dict) -> tuple[str, nbformat.NotebookNode | None, ExecFacts | None]:
        """(key, grafted notebook, how it ran) on a hit, (key, None, None) on a miss."""
        key = cache_key(nb, env)
        entry = self.get(key)
        if entry is None:
            return key, None, None
        try:
            hit, facts = graft(nb, entry, "hit")
        except (ValueError, KeyError, TypeError):
            return key, None, None
        return key, hit, facts.merged(ExecFacts(cache_key=key))
