"""A build signs the notebook it writes; an edited one, or one built with --frozen, is not signed."""

from __future__ import annotations

import nbformat

from jaxdeck import trust
from support import run_cli

DECK = "# Talk\n\n```python\nfrom IPython.display import HTML\nHTML('<b>bold</b>')\n```\n\nNote: a chart.\n"


def test_a_build_signs_its_notebook_and_an_edit_or_a_frozen_build_is_not_trusted(tmp_path):
    data = tmp_path / "jupyter-data"
    env = {"JUPYTER_DATA_DIR": str(data)}
    (tmp_path / "talk.md").write_text(DECK)
    done = run_cli("build", "talk.md", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    store = data / "jaxdeck-trust"
    built = tmp_path / "build" / "notebooks" / "talk.ipynb"
    nb = nbformat.read(built, as_version=4)
    assert trust.signed(nb, store)
    assert not trust.signed(nb, tmp_path / "elsewhere")  # another user's (or machine's) store

    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs[0]["data"]["text/html"] = "<script>alert(1)</script>"
    assert not trust.signed(nb, store)

    foreign = tmp_path / "foreign.ipynb"
    nbformat.write(nb, foreign)  # outputs made elsewhere, built in with --frozen
    (tmp_path / "talk.md").write_text(DECK.replace("a chart", "a chart, frozen"))
    done = run_cli("build", "talk.md", "--frozen", str(foreign), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert not trust.signed(nbformat.read(built, as_version=4), store)
