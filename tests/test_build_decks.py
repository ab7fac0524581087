"""gpu/build-decks.sh, run here as on a GPU box: each deck's line once, on the terminal and in OUT/results.txt.

The box's Python is this one (jaxdeck and its dependencies already there), the wheelhouse one
whose requirements.txt lists nothing more to install, so that pip runs as it does there, offline.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from support import ROOT


@pytest.mark.heavy
def test_each_decks_line_is_said_once_also_when_out_was_used_before(tmp_path):
    wheelhouse, out = tmp_path / "wheelhouse", tmp_path / "out"
    wheelhouse.mkdir()
    (wheelhouse / "requirements.txt").write_text("")
    env = {**os.environ, "DECKS": "example.md", "PYTHONPATH": str(ROOT)}
    for run in (1, 2):  # the second into the same OUT, as after a first try on the box
        done = subprocess.run(["bash", str(ROOT / "gpu" / "build-decks.sh"), str(wheelhouse), str(out), sys.executable],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        said = [line for line in done.stdout.splitlines() if line.startswith("example.md exit ")]
        assert len(said) == 1 and said[0].startswith("example.md exit 0 in "), (run, done.stdout)
        kept = [line for line in (out / "results.txt").read_text().splitlines() if line.startswith("example.md ")]
        assert kept == said, (run, kept)
