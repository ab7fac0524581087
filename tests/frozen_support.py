"""A "kept" notebook for the ``--frozen`` tests: tests/fixtures/frozen_talk.md executed here by a real
kernel, then marked as another machine's (a GPU's provenance, its outputs saying ``far`` where this
machine's say ``here``), signed by this user or not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

from jaxdeck import trust
from jaxdeck.build import build_deck

FIXTURE = Path(__file__).parent / "fixtures" / "frozen_talk.md"
#: the machine the kept notebook says it was executed on
GPU = {"backend": "gpu", "device_kind": "Test GPU 80GB", "device_count": 1, "jax": "9.9.9",
       "executed_at": "2026-01-01T00:00:00+00:00"}
GPU_SHORT = "1 x Test GPU 80GB · jax 9.9.9"


def kept_notebook(folder: Path, signed: bool) -> Path:
    """``folder/gpu/frozen_talk.ipynb``: the fixture deck executed in ``folder/box``, marked as the GPU's."""
    box = folder / "box"
    box.mkdir(parents=True)
    deck = box / FIXTURE.name
    shutil.copy(FIXTURE, deck)
    nb = nbformat.read(build_deck(deck, box / "build").notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.from_dict(json.loads(json.dumps(o).replace("here", "far"))) for o in cell.outputs]
    nb.metadata.jaxdeck_build.provenance = nbformat.from_dict(GPU)
    path = folder / "gpu" / f"{FIXTURE.stem}.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    if signed:
        trust.sign(nbformat.read(path, as_version=4))
    assert trust.signed_file(path) == signed
    return path


def laptop_deck(folder: Path) -> Path:
    """A fresh copy of the fixture deck in ``folder``, to edit and build there."""
    folder.mkdir(parents=True, exist_ok=True)
    deck = folder / FIXTURE.name
    shutil.copy(FIXTURE, deck)
    return deck


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path: Path, text: str) -> int:
    """The line of ``path`` (1-based) of the code fence just above the first line holding ``text``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if text in line)
    return max(k for k in range(at) if lines[k].startswith("```python")) + 1


def code_texts(nb) -> list[str]:
    """Each code cell's outputs as one JSON text."""
    return [json.dumps(c.outputs) for c in nb.cells if c.cell_type == "code"]


def runs(folder: Path) -> int:
    """How many times a kernel ran the fixture deck in ``folder`` (its first cell logs each run)."""
    log = folder / "executed.log"
    return len(log.read_text().split()) if log.exists() else 0
