"""A kept notebook of the wrong shape (``jaxdeck build --frozen``) is one line naming the file, the place in the
notebook and the field, and what to do; never a traceback (jaxdeck.execute.shape)."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jaxdeck.execute.shape import read_executed
from support import run_cli

DECK = '# Talk\n\n```python\nprint("hi")\n```\n\n---\n\n## Two\n\n```python\n1 + 1\n```\n'
HINT = "give the executed notebook `jaxdeck build` wrote"


def kept() -> dict:
    """The deck above as a machine elsewhere executed it, as JSON."""
    nb = new_notebook(cells=[
        new_markdown_cell("# Talk"),
        new_code_cell('print("hi")', execution_count=1, outputs=[new_output("stream", name="stdout", text="hi\n")]),
        new_markdown_cell("## Two"),
        new_code_cell("1 + 1", execution_count=2,
                      outputs=[new_output("execute_result", data={"text/plain": "2"}, execution_count=2)])])
    nb.metadata["jaxdeck_build"] = {"provenance": {"backend": "gpu", "device_count": 1, "jax": "9.9.9"}}
    return json.loads(nbformat.writes(nb))


def _no_data(nb):
    del nb["cells"][3]["outputs"][0]["data"]


def _set(*path, value):
    def change(nb):
        for key in path[:-1]:
            nb = nb[key]
        nb[path[-1]] = value
    return change


#: (what is wrong, the change, what the line says)
SHAPES = [
    ("cells an object", _set("cells", value={"a": 1}), "'cells' must be a list of objects"),
    ("an output without data", _no_data, "cell 4, output 1: 'data' is missing (an object)"),
    ("outputs not a list", _set("cells", 3, "outputs", value={"a": 1}), "cell 4: 'outputs' must be a list of objects"),
    ("an output's metadata not an object", _set("cells", 3, "outputs", 0, "metadata", value=[1]),
     "cell 4, output 1: 'metadata' must be an object"),
    ("a stream's text a number", _set("cells", 1, "outputs", 0, "text", value=5),
     "cell 2, output 1: 'text' must be a string or a list of strings"),
    ("a cell's source an object", _set("cells", 3, "source", value={"x": 1}),
     "cell 4: 'source' must be a string or a list of strings"),
    ("a cell's metadata not an object", _set("cells", 3, "metadata", value=3), "cell 4: 'metadata' must be an object"),
    ("a picture that is a number", _set("cells", 3, "outputs", 0, "data", value={"image/png": 1}),
     "cell 4, output 1: 'data.image/png' must be a string or a list of strings"),
    ("the build record not an object", _set("metadata", "jaxdeck_build", value="x"),
     "'metadata.jaxdeck_build' must be an object"),
    ("the machine not an object", _set("metadata", "jaxdeck_build", "provenance", value=[1]),
     "'metadata.jaxdeck_build.provenance' must be an object or null"),
    ("a device count that is text", _set("metadata", "jaxdeck_build", "provenance", "device_count", value="2"),
     "'metadata.jaxdeck_build.provenance.device_count' must be a whole number or null"),
]


@pytest.fixture(scope="module")
def talk(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shapes")
    (folder / "talk.md").write_text(DECK)
    return folder


def test_the_kept_notebook_as_built_is_read(tmp_path):
    path = tmp_path / "kept.ipynb"
    path.write_text(json.dumps(kept()))
    nb = read_executed(path)
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "markdown", "code"]


@pytest.mark.parametrize("what, change, said", SHAPES, ids=[s[0] for s in SHAPES])
def test_a_kept_notebook_of_the_wrong_shape_is_one_line_naming_the_field(talk, what, change, said):
    raw = kept()
    change(raw)
    box = talk / "gpu" / "h100"
    box.mkdir(parents=True, exist_ok=True)
    (box / "talk.ipynb").write_text(json.dumps(raw))
    done = run_cli("build", "talk.md", "--frozen", "gpu/h100", cwd=talk)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0] == f"error: gpu/h100/talk.ipynb: {said}; {HINT} (build/notebooks/NAME.ipynb), unedited"


def _refused(folder, text: str):
    """``jaxdeck build --frozen`` of the deck in ``folder`` with ``text`` as its kept notebook: its one line."""
    box = folder / "gpu" / "h100"
    box.mkdir(parents=True, exist_ok=True)
    (box / "talk.ipynb").write_text(text)
    done = run_cli("build", "talk.md", "--frozen", "gpu/h100", cwd=folder)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_kept_notebook_nested_too_deep_to_read_is_one_line(talk):
    """JSON nested deeper than Python's parser recurses (100,000 lists) is said, not a RecursionError."""
    line = _refused(talk, '{"cells":' + "[" * 100_000 + "]" * 100_000 + "}")
    assert line.startswith("error: gpu/h100/talk.ipynb: not a notebook: its JSON nests too deep"), line


def test_a_kept_output_over_the_deck_s_cap_is_refused_naming_cell_and_output(tmp_path):
    """A build cuts a cell's outputs to the deck's cap (max_output_mb:); a kept output beyond it, which
    would make the deck as big and keep the browser laying it out for ever, is one line naming it."""
    (tmp_path / "talk.md").write_text("---\njupyter:\n  jaxdeck:\n    max_output_mb: 1\n---\n\n" + DECK)
    raw = kept()
    raw["cells"][3]["outputs"][0]["data"]["text/plain"] = "A" * (2 * 1024 * 1024)
    line = _refused(tmp_path, json.dumps(raw))
    assert line.startswith("error: gpu/h100/talk.ipynb: cell 4, output 1: 2.0 MB, over the deck's 1 MB cap "
                           "on a cell's outputs (max_output_mb:)"), line
