"""A cell's outputs within the deck's cap: cut, said on the slide, and small everywhere after."""

from __future__ import annotations

import pytest
import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from jaxdeck.execute.limits import MB, cap_outputs
from jaxdeck.records import cell_info
from support import run_cli


def test_outputs_past_the_cap_are_cut_at_a_line_and_the_cut_is_said():
    big = "".join(f"row {i:06d}\n" for i in range(100_000))  # 1.1 MB
    cell = new_code_cell("print(rows)", outputs=[new_output("stream", name="stdout", text="first\n"),
                                                  new_output("stream", name="stdout", text=big),
                                                  new_output("display_data", data={"text/plain": "x" * MB})])
    small = new_code_cell("1", outputs=[new_output("execute_result", data={"text/plain": "1"}, execution_count=1)])
    nb = new_notebook(cells=[cell, small], metadata={"jaxdeck": {"max_output_mb": 0.5}})
    assert cap_outputs(nb) == [0]
    kept = cell.outputs
    assert kept[0].text == "first\n" and kept[1].text.endswith("\n") and kept[1].text.startswith("row 000000\n")
    assert len(kept[1].text.encode()) <= 0.5 * MB and len(kept) == 3  # the picture-sized output is dropped
    assert kept[-1].text.startswith("… output truncated: 2.0 MB in all, over this deck's 0.5 MB cap")
    assert cell_info(cell)["output_truncated_mb"] == 2.0
    assert small.outputs[0].data["text/plain"] == "1" and "output_truncated_mb" not in cell_info(small)


@pytest.mark.heavy
def test_a_cell_printing_megabytes_makes_a_small_notebook_cache_and_deck(tmp_path):
    (tmp_path / "talk.md").write_text(
        "---\njupyter:\n  jaxdeck:\n    max_output_mb: 0.1\n---\n\n# Loud\n\n"
        "```python\nfor i in range(100_000):\n    print('line', i, 'x' * 40)\n```\n\nNote: five megabytes.\n")
    done = run_cli("build", "talk.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "build"
    nb = nbformat.read(out / "notebooks" / "talk.ipynb", as_version=4)
    loud = next(c for c in nb.cells if c.cell_type == "code")
    assert loud.outputs[-1].text.startswith("… output truncated: 4.9 MB in all, over this deck's 0.1 MB cap")
    for path in [out / "notebooks" / "talk.ipynb", out / "html" / "talk.html", *(out / "cache").rglob("*.ipynb")]:
        assert path.stat().st_size < 0.6 * MB, path  # the cap, plus the page's own markup
    assert "output truncated: 4.9 MB" in (out / "html" / "talk.html").read_text()
