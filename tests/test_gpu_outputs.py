"""gpu/KIND/: decks executed on a GPU box, kept so a laptop's handouts show the GPU's figures.

Each kept notebook must come from that box (its provenance names a GPU and every build there
passed) and build its deck with ``--frozen`` here. A code cell shows the GPU's outputs while it and
every code cell before it still match the kept notebook; from the first changed one on (the kept
notebook is stale there: gpu/build-decks.sh on a GPU box makes it again) the outputs are this
build's, and the build's line under the deck names the kept cells and the first stale deck line.
This build's outputs come from the session's execution cache (the decks built once for the suite),
else from a kernel run here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import nbformat
import pytest

from jaxdeck.execute.cache import cell_identity
from jaxdeck.records import KEPT, OWN, cell_info
from jaxdeck.untrusted import sanitised

ROOT = Path(__file__).resolve().parent.parent
KEPT_NOTEBOOKS = sorted((ROOT / "gpu").glob("*/*.ipynb"))


def test_every_deck_has_its_gpu_notebook_in_each_kept_folder():
    for folder in {p.parent for p in KEPT_NOTEBOOKS}:
        decks = {p.stem for p in (ROOT / "slides").glob("*.md") if p.name != "README.md"}
        assert decks <= {p.stem for p in folder.glob("*.ipynb")}, f"{folder.name} lacks {decks - {p.stem for p in folder.glob('*.ipynb')}}"


def code(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


@pytest.mark.heavy
@pytest.mark.parametrize("kept", KEPT_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_kept_notebook_builds_its_deck_frozen_and_names_its_stale_cells(kept, tmp_path, built):
    record = json.loads(kept.read_text(encoding="utf-8"))["metadata"]["jaxdeck_build"]
    assert record["provenance"]["backend"] == "gpu" and not record.get("warnings"), record["provenance"]
    deck = ROOT / "slides" / f"{kept.stem}.md"
    shared = built(deck)[0].root / "cache"
    for part in ("exec", "env"):  # this build's outputs, as the session's build of the deck made them
        if (shared / part).is_dir():
            shutil.copytree(shared / part, tmp_path / "cache" / part)
    done = subprocess.run([sys.executable, "-m", "jaxdeck", "build", "--frozen", str(kept.relative_to(ROOT)),
                           f"slides/{deck.name}", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    said = lines[lines.index(next(l for l in lines if l.startswith(f"slides/{deck.name}: "))) + 1].strip()

    theirs = nbformat.read(kept, as_version=4)
    nb = nbformat.read(tmp_path / "notebooks" / f"{kept.stem}.ipynb", as_version=4)
    ours = code(nb)
    same = next((k for k, (a, b) in enumerate(zip(ours, code(theirs))) if cell_identity(a) != cell_identity(b)),
                min(len(ours), len(code(theirs))))
    assert [cell_info(c).get("outputs_from") for c in ours] == [KEPT] * same + [OWN] * (len(ours) - same)
    # the kept cells show the GPU's outputs (sanitised: the notebook was not signed here), the later ones this build's
    gpu = code(sanitised(theirs))
    assert [c.outputs for c in ours[:same]] == [c.outputs for c in gpu[:same]]
    build = nb.metadata["jaxdeck_build"]
    assert build["frozen_cells"] == same and build["frozen_provenance"] == record["provenance"]
    html = (tmp_path / "html" / f"{kept.stem}.html").read_text(encoding="utf-8")
    if same == len(ours):
        assert said.startswith(f"outputs of all {same} code cells kept from gpu/")
        assert "executed" not in done.stdout, "no kernel ran here"
    else:
        # stale from this cell on: said in the run's warnings summary, so a kept folder that no longer shows the
        # GPU's figures is seen (its cells are checked all the same)
        warnings.warn(f"{kept.relative_to(ROOT)} is stale from slides/{deck.name}:{cell_info(ours[same])['line']} "
                      f"({len(ours) - same} of {len(ours)} code cells show this build's outputs): "
                      f"run gpu/build-decks.sh on a GPU box", UserWarning)
        assert build["own_provenance"]["backend"] != "gpu"
        assert f"slides/{deck.name}:{cell_info(ours[same])['line']}" in said and "from this build" in said
        if same:
            assert said.startswith(f"outputs of code cell{'s 1-' if same > 1 else ' '}{same} ") and "changed since" in said
        else:
            assert said.startswith("code cell 1 changed since gpu/")
    if same:
        assert record["provenance"]["device_kind"] in html, "the title slide names the GPU"
