"""The assets beside a deck are copies of the project's own: one swapped for other bytes of the same size
with a later time is replaced, by a forced build and by a build that exports the page again; an
unchanged one is not rewritten."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT
from jaxdeck.html.assets import install_assets, npm_root

DECK = "---\ntitle: Ours\n---\n\n# A slide\n\nSome words.\n"
#: an asset every deck loads, and its source
ASSET = Path("assets/reveal.js/dist/reveal.js")


def swap(copy: Path) -> bytes:
    """``copy`` given other bytes of its size and a later modification time, as another user's script would."""
    original = copy.read_bytes()
    other = b"window.stolen = 1;//" + b"x" * (len(original) - 20)
    assert len(other) == len(original) and other != original
    later = copy.stat().st_mtime + 3600
    copy.write_bytes(other)
    os.utime(copy, (later, later))
    return original


def test_a_swapped_copy_of_the_same_size_and_a_later_time_is_replaced(tmp_path):
    install_assets(tmp_path)
    copy = tmp_path / ASSET
    original = swap(copy)
    install_assets(tmp_path)
    assert copy.read_bytes() == original == (npm_root() / "reveal.js" / "dist" / "reveal.js").read_bytes()


def test_an_unchanged_copy_is_not_rewritten(tmp_path):
    install_assets(tmp_path)
    copy = tmp_path / ASSET
    before = copy.stat()
    install_assets(tmp_path)
    after = copy.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def jaxdeck(folder: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "jaxdeck", "build", *args, "talk.md"], cwd=folder,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "talk.md: HTML" in done.stdout, done.stdout


@pytest.mark.heavy  # two builds of a deck by the command line
@pytest.mark.parametrize("how", ["--force", "an edit of the deck"])
def test_a_build_replaces_a_swapped_copy(tmp_path, how):
    (tmp_path / "talk.md").write_text(DECK, encoding="utf-8")
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    jaxdeck(tmp_path)
    original = swap(tmp_path / "build" / "html" / ASSET)
    if how == "--force":
        jaxdeck(tmp_path, "--force")
    else:  # no --force: the page is exported again because the deck changed
        (tmp_path / "talk.md").write_text(DECK + "\nMore words.\n", encoding="utf-8")
        jaxdeck(tmp_path)
    assert (tmp_path / "build" / "html" / ASSET).read_bytes() == original
