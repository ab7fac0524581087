"""Cached outputs keep the trust of the run that made them: an execution cache entry changed since
this user's build wrote it (a <script> put into an output), or written under another user's secret,
is not reused; the deck runs again in a real kernel, and the notebook the build writes and signs
holds the run's outputs, not the entry's."""

from __future__ import annotations

import json

import nbformat
import pytest

from jaxdeck import trust
from jaxdeck.build import build_deck
from jaxdeck.execute.cache import ExecutionCache

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

DECK = """# Talk

Some prose.

```python
from IPython.display import HTML
HTML('<b class="made-here">bold</b>')
```
"""
SCRIPT = '<script>window.__tampered = 1</script>'


@pytest.fixture
def deck(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    path = tmp_path / "talk.md"
    path.write_text(DECK, encoding="utf-8")
    return path


def entry_path(root, nb):
    return ExecutionCache(root).path(nb.metadata.jaxdeck_build.cache_key)


def read(outputs) -> nbformat.NotebookNode:
    return nbformat.read(outputs.notebook, as_version=4)


def prose_edit(deck) -> None:
    """A change the execution cache ignores: the next build looks its entry up."""
    deck.write_text(deck.read_text(encoding="utf-8").replace("Some prose.", "Other prose."), encoding="utf-8")


def test_a_tampered_cache_entry_is_run_again_and_its_script_never_signed(deck, tmp_path, capsys):
    root = tmp_path / "build"
    first = read(build_deck(deck, root))
    assert trust.signed(first) and first.metadata.jaxdeck_build.cells_executed == 1
    path = entry_path(root, first)
    entry = json.loads(path.read_text(encoding="utf-8"))
    html = entry["cells"][-1]["outputs"][0]["data"]
    html["text/html"] += SCRIPT
    path.write_text(json.dumps(entry, sort_keys=True), encoding="utf-8")

    prose_edit(deck)
    capsys.readouterr()
    again = read(build_deck(deck, root))
    assert SCRIPT not in json.dumps(again.cells[-1].outputs)
    assert again.metadata.jaxdeck_build.cells_executed == 1 and again.metadata.jaxdeck_build.cache == "miss"
    assert trust.signed(again)
    warned = [line for line in capsys.readouterr().err.splitlines() if str(path) in line]
    assert len(warned) == 1 and "did not sign" in warned[0], warned
    assert SCRIPT not in path.read_text(encoding="utf-8")  # the run's entry replaced the tampered one


def test_an_entry_signed_with_another_users_secret_is_not_reused(deck, tmp_path, monkeypatch):
    root = tmp_path / "build"
    read(build_deck(deck, root))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "another-user"))
    prose_edit(deck)
    again = read(build_deck(deck, root))
    assert again.metadata.jaxdeck_build.cells_executed == 1
    assert trust.signed(again, tmp_path / "another-user" / "jaxdeck-trust")


def test_an_untampered_entry_is_reused_and_signed_with_the_notebook(deck, tmp_path):
    root = tmp_path / "build"
    read(build_deck(deck, root))
    prose_edit(deck)
    again = read(build_deck(deck, root))
    assert again.metadata.jaxdeck_build.cells_executed == 0 and again.metadata.jaxdeck_build.cache == "hit"
    assert trust.signed(again) and "made-here" in json.dumps(again.cells[-1].outputs)
