"""`jaxdeck bench --corpus`: a folder of notebooks built and measured, static and live, for real.

The fixture corpus holds the tall-block notebook and a tutorial written for the web (an offline
badge, a `Note:` to its reader, a cell that cannot run here): both build, and neither has a
slide that runs past its bottom in the static deck or in the live slideshow.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxdeck.bench.corpus import bench_corpus, table

#: builds with a kernel and Chromium (a live server too)
pytestmark = pytest.mark.heavy
from jaxdeck.html.fit_tall import FLOOR

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def rows(tmp_path_factory, browser):
    corpus = tmp_path_factory.mktemp("corpus")
    folder = corpus / "notebooks"
    folder.mkdir()
    for fixture in (FIXTURES / "tall" / "tall_blocks.md", FIXTURES / "corpus" / "web_tutorial.md"):
        shutil.copy(fixture, folder / fixture.name)
    return bench_corpus(folder, corpus / "build", browser=browser)


def test_every_notebook_builds_and_no_slide_overflows_static_or_live(rows):
    assert [r.notebook for r in rows] == ["tall_blocks.md", "web_tutorial.md"]
    assert all(r.built for r in rows), [r.why for r in rows]
    assert [(r.overflow_static, r.overflow_live) for r in rows] == [(0, 0), (0, 0)]
    assert all(r.slides >= 3 for r in rows)


def test_the_tall_blocks_used_smaller_type_but_none_below_the_floor(rows):
    tall = rows[0]
    assert FLOOR <= tall.smallest_scale < 1


def test_a_web_tutorials_badge_and_its_failing_cell_are_warnings_not_failures(rows):
    web = rows[1]
    assert web.warnings == 2 and web.smallest_scale == 1.0


def test_the_table_has_a_row_per_notebook_and_a_total(rows, tmp_path):
    text = table(rows)
    lines = text.splitlines()
    assert lines[0].startswith("| notebook | built | slides | overflow static | overflow live |")
    assert len(lines) == 2 + len(rows) + 1 and "**2 of 2 built**" in lines[-1]


def test_the_command_writes_the_table_to_build_bench_corpus_json(tmp_path):
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "empty.md").write_text("# Just a title\n\nAnd a line.\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "jaxdeck", "bench", "--corpus", str(folder), "--no-live",
                           "--out", str(tmp_path / "build")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "build" / "bench" / "corpus.json").read_text())
    assert [n["notebook"] for n in written["notebooks"]] == ["empty.md"] and written["notebooks"][0]["built"]
    assert "| empty.md | yes |" in done.stdout
