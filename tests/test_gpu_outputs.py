"""gpu/KIND/: decks executed on a GPU box, kept so a laptop's handouts show the GPU's figures.

Each kept notebook must come from that box (its provenance names a GPU and every build there
passed) and build its deck with ``--frozen`` here, no kernel run, the HTML's provenance line naming
the GPU. A notebook whose deck's code has changed since is stale: it is skipped, naming the
command that makes it again on a GPU box (gpu/build-decks.sh).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KEPT = sorted((ROOT / "gpu").glob("*/*.ipynb"))


def test_every_deck_has_its_gpu_notebook_in_each_kept_folder():
    for folder in {p.parent for p in KEPT}:
        decks = {p.stem for p in (ROOT / "slides").glob("*.md") if p.name != "README.md"}
        assert decks <= {p.stem for p in folder.glob("*.ipynb")}, f"{folder.name} lacks {decks - {p.stem for p in folder.glob('*.ipynb')}}"


@pytest.mark.heavy
@pytest.mark.parametrize("kept", KEPT, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_kept_notebook_builds_its_deck_frozen_with_the_gpu_named(kept, tmp_path):
    record = json.loads(kept.read_text(encoding="utf-8"))["metadata"]["jaxdeck_build"]
    assert record["provenance"]["backend"] == "gpu" and not record.get("warnings"), record["provenance"]
    deck = ROOT / "slides" / f"{kept.stem}.md"
    done = subprocess.run([sys.executable, "-m", "jaxdeck", "build", "--frozen", str(kept), str(deck),
                           "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "differs from the frozen notebook" in done.stderr + done.stdout:
        pytest.skip(f"{kept.relative_to(ROOT)} is stale against {deck.name}: run gpu/build-decks.sh on a GPU box")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "html" / f"{kept.stem}.html").read_text(encoding="utf-8")
    assert record["provenance"]["device_kind"] in html and "executed" not in done.stdout  # no kernel ran here
