"""The edit loop's benchmark measures what it says, on its own copy of a deck (figures only, no budgets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxdeck.bench.edit_loop import bench_edit_loop
from jaxdeck.bench.report import as_text

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

FIXTURE = Path(__file__).parent.parent / "fixtures" / "cache_basic.md"


@pytest.mark.browser
def test_the_edit_loop_is_measured_on_a_copy(tmp_path, browser):
    before = FIXTURE.read_text()
    loop = bench_edit_loop(FIXTURE, tmp_path, repeat=1, browser=browser)

    start = loop["cli_start"]
    assert all(start[k] > 0 for k in ("help_s", "python_s", "import_nbformat_s",
                                      "import_nbformat_without_rfc3987_syntax_s"))
    prose = loop["cli_prose"]
    assert prose["cold_s"] > 0 and 0 < prose["fraction"]
    assert [r["report"] for r in prose["runs"]] == ["cache_basic.md: HTML"]  # the rebuild ran no cell

    preview = loop["preview"]
    assert "error" not in preview, preview
    assert [r["did"].split(" (")[0] for r in preview["prose"]] == ["prose edit, no cell run"]
    assert [r["did"].split(" (")[0] for r in preview["code"]] == ["1 cell run in the warm kernel"]
    assert preview["prose_s"] > 0 and preview["code_s"] > 0 and preview["kept_slide"] is True
    assert set(loop["targets"]) == {"cli_prose_le_10pct_cold", "preview_prose_lt_1s", "preview_code_le_cell_plus_1s",
                                    "preview_kept_slide"}
    assert "save to visible" in as_text({"edit_loop": loop})
    assert FIXTURE.read_text() == before  # the benchmark edits its copy
