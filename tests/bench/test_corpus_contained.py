"""`jaxdeck bench --corpus DIR` copies what DIR holds and nothing else.

Before, the copy followed every link: one to a big folder elsewhere copied it (a link to
/usr/share filled the disk), one to ``.`` copied the folder into itself until the path was too
long, and a corpus folder inside the benchmark's own was deleted before it was copied.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxdeck.errors import DeckError

ROOT = Path(__file__).resolve().parents[2]
#: a corpus of one small notebook takes a few seconds; copying the folder elsewhere or looping takes far longer
FINISHES_S = 120
NOTEBOOK = "# Just a title\n\nAnd a line.\n"


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A corpus with one notebook, a link to a big folder outside it, a link to itself and one to a file inside."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    for number in range(40):
        (outside / f"outside-{number}.bin").write_bytes(os.urandom(64 * 1024))
    (outside / "outside.md").write_text("# Not in the corpus\n", encoding="utf-8")
    folder = tmp_path / "corpus"
    (folder / "images").mkdir(parents=True)
    (folder / "one.md").write_text(NOTEBOOK + "\n![a chart](images/chart.svg)\n", encoding="utf-8")
    (folder / "images" / "chart.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    (folder / "big").symlink_to(outside, target_is_directory=True)
    (folder / "here").symlink_to(".", target_is_directory=True)
    (folder / "also.md").symlink_to(outside / "outside.md")
    (folder / "logo.svg").symlink_to("images/chart.svg")
    return folder


def everything(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.heavy
def test_a_corpus_with_links_out_and_to_itself_finishes_and_copies_only_what_it_holds(corpus, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    build = tmp_path / "build"
    done = subprocess.run([sys.executable, "-m", "jaxdeck", "bench", "--corpus", str(corpus), "--no-live",
                           "--out", str(build)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=FINISHES_S)
    assert done.returncode == 0, done.stderr
    copied = build / "bench" / "corpus" / "decks"
    assert everything(copied) == ["images", "images/chart.svg", "logo.svg", "one.md"]
    assert not (copied / "logo.svg").is_symlink()  # a link to a file inside: that file's bytes
    assert not [p for p in build.rglob("*") if p.name.startswith("outside")]
    left_out = [line for line in done.stderr.splitlines() if "left out" in line]
    assert len(left_out) == 3 and all(line.startswith("bench: left out ") for line in left_out)
    assert {Path(line.split(": ")[1]).name for line in left_out} == {"big", "here", "also.md"}
    assert "| one.md | yes |" in done.stdout


@pytest.mark.heavy
def test_a_pipe_in_the_corpus_is_left_out_not_waited_on(tmp_path, browser):
    from jaxdeck.bench.corpus import bench_corpus

    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "one.md").write_text(NOTEBOOK, encoding="utf-8")
    os.mkfifo(folder / "pipe.md")
    rows = bench_corpus(folder, tmp_path / "build", live=False, browser=browser)
    assert [(r.notebook, r.built) for r in rows] == [("one.md", True)]


def test_a_corpus_inside_the_benchmarks_folder_is_refused_and_kept(tmp_path, browser):
    from jaxdeck.bench.corpus import bench_corpus

    folder = tmp_path / "build" / "bench" / "corpus" / "decks"
    folder.mkdir(parents=True)
    (folder / "one.md").write_text(NOTEBOOK, encoding="utf-8")
    with pytest.raises(DeckError, match="inside the benchmark's own folder"):
        bench_corpus(folder, tmp_path / "build", live=False, browser=browser)
    assert (folder / "one.md").read_text(encoding="utf-8") == NOTEBOOK


@pytest.mark.heavy
def test_a_corpus_holding_the_build_folder_is_copied_without_it(tmp_path, browser):
    from jaxdeck.bench.corpus import bench_corpus

    folder = tmp_path / "talks"
    folder.mkdir()
    (folder / "one.md").write_text(NOTEBOOK, encoding="utf-8")
    for _ in range(2):  # the second run finds the first one's copy inside the corpus
        rows = bench_corpus(folder, folder / "build", live=False, browser=browser)
        assert [(r.notebook, r.built) for r in rows] == [("one.md", True)]
    assert everything(folder / "build" / "bench" / "corpus" / "decks") == ["one.md"]
