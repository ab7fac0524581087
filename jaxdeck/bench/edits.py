"""The benchmarks' material: a generated 30-slide deck, work copies of decks, and the edits made to them.

Every benchmark edits a copy, so that neither ``slides/`` nor ``build/`` are touched. The edits
write in place, as an editor saves (they are the input being timed, not an artefact).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path


def generated_deck(slides: int = 30) -> str:
    """A 30-slide deck with JAX demo cells, the size the PDF target is set for."""
    parts = ["---\njupyter:\n  jupytext:\n    text_representation:\n      extension: .md\n      format_name: markdown\n"
             "  kernelspec:\n    display_name: Python 3\n    language: python\n    name: python3\n---\n",
             "# A generated 30-slide deck\n\nThe benchmark's stand-in for a full seminar.\n\n"
             "```python\nimport jax\nimport jax.numpy as jnp\njax.devices()\n```\n"]
    for k in range(2, slides + 1):
        text = [f"---\n\n## Slide {k}\n\n- a point about JAX, number {k}\n- another point, with `code`\n\n"
                f"Note: what to say on slide {k}.\n"]
        if k % 4 == 0:
            text.append(f"\n```python\n@jax.jit\ndef f{k}(x):\n    return jnp.tanh(x @ x.T).sum() * {k}\n\n"
                        f"x = jnp.ones(({16 * k // 4}, 32))\nprint(f{k}(x).block_until_ready())\n```\n")
        parts.append("\n" + "".join(text))
    return "".join(parts)


def copy_deck(source: Path, folder: Path) -> Path:
    """A fresh ``folder`` holding a copy of ``source`` and the folders beside it (images, data); the copy's path."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    deck = folder / source.name
    shutil.copy(source, deck)
    copy_folders(source.parent, folder)
    return deck


def copy_folders(slides: Path, into: Path) -> None:
    """The folders a deck may use (images, data) from ``slides`` into ``into``; hidden ones and build/ stay."""
    for item in slides.iterdir():
        if item.is_dir() and not item.name.startswith(".") and item.name != "build":
            shutil.copytree(item, into / item.name, dirs_exist_ok=True)


def prose_edit(path: Path, k: int) -> None:
    """Add a slide of prose: a rebuild after it should execute no cell."""
    path.write_text(path.read_text() + f"\n---\n\n## Added in prose edit {k}\n\nA sentence that runs no code.\n")


def code_edit(path: Path) -> None:
    """Change the first code cell (or add one): a rebuild after it executes the deck again."""
    text = path.read_text()
    edited, n = re.subn(r"```python\n", "```python\n# edited by the benchmark\n", text, count=1)
    if not n:
        edited = text + "\n```python\n# a cell added by the benchmark\n1 + 1\n```\n"
    path.write_text(edited)
