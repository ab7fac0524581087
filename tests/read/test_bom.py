"""A deck saved with a UTF-8 byte order mark (Notepad, an editor's "UTF-8 with BOM") reads as the
same deck without it, and jaxdeck's own write-backs (the live save, check's round trip) keep it.

Before, the mark stayed in the text: a title heading became a paragraph (its slide gone from the
deck, silently), a header was not a header, and a save wrote the deck without its mark.
"""

from __future__ import annotations

import codecs
import shutil
from pathlib import Path

import nbformat
import pytest

from jaxdeck.errors import DeckError

ROOT = Path(__file__).resolve().parents[2]
BOM = codecs.BOM_UTF8

WITH_HEADER = """---
jupyter:
  jaxdeck:
    title: A talk with a header
---

# A talk with a header

Someone, somewhere

Note: the title slide's notes.

---

## Second slide

- one
- two
"""

PLAIN = """# A plain talk

Someone, somewhere

---

## Second slide

Text
"""


def built(folder: Path, data: bytes):
    """(the HTML deck's text, its executed notebook) of a deck made of ``data``, built in ``folder``."""
    from jaxdeck.build import build_deck

    deck = folder / "slides" / "talk.md"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(data)
    outputs = build_deck(deck, folder / "build")
    return outputs.html.read_text(encoding="utf-8"), nbformat.read(outputs.notebook, as_version=4)


@pytest.mark.heavy
@pytest.mark.parametrize("text", [WITH_HEADER, PLAIN], ids=["header", "plain"])
def test_a_deck_with_a_bom_builds_the_same_slides_title_first(tmp_path, text):
    plain_html, plain_nb = built(tmp_path / "plain", text.encode("utf-8"))
    html, nb = built(tmp_path / "bom", BOM + text.encode("utf-8"))
    title = text.split("\n# ", 1)[1].split("\n")[0] if text.startswith("---") else text[2:].split("\n")[0]
    assert html.count("data-jd-slide=") == plain_html.count("data-jd-slide=") == 2
    assert f">{title}</h1>" in html
    assert [c.source for c in nb.cells] == [c.source for c in plain_nb.cells]
    assert nb.cells[0].source.startswith(f"# {title}")
    assert "\ufeff" not in html


def test_checks_round_trip_reads_a_bom_deck_back_as_written(tmp_path):
    from jaxdeck.read.source import round_trip_difference

    for name, text in (("header.md", WITH_HEADER), ("plain.md", PLAIN)):
        deck = tmp_path / name
        deck.write_bytes(BOM + text.encode("utf-8"))
        assert round_trip_difference(deck) is None, name


def live_repo(tmp_path: Path, data: bytes) -> Path:
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    shutil.copytree(ROOT / "slides" / "images", tmp_path / "slides" / "images")
    (tmp_path / "slides" / "example.md").write_bytes(data)
    return tmp_path


def save(cm, path: str, nb) -> None:
    # as the server does: the model arrives as JSON from the browser
    cm.save({"type": "notebook", "format": "json", "content": nbformat.from_dict(nb)}, path)


def test_the_live_save_keeps_the_bom_and_changes_only_the_edited_line(tmp_path):
    from jaxdeck.live.contents import DeckContentsManager

    original = BOM + (ROOT / "slides" / "example.md").read_bytes()
    repo = live_repo(tmp_path, original)
    path = "slides/example.md"
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get(path)["content"]
    assert nb.cells[0].source.startswith("# ")  # the title slide, as without the mark

    save(cm, path, nb)
    assert (repo / path).read_bytes() == original  # an unchanged save writes the same bytes, the mark first

    index = next(k for k, c in enumerate(nb.cells) if c.cell_type == "markdown" and k > 0 and "\n" in c.source)
    old = nb.cells[index].source
    nb.cells[index].source = old.replace("\n", " (edited)\n", 1)
    save(cm, path, nb)
    edited = original.replace(old.encode("utf-8"), nb.cells[index].source.encode("utf-8"), 1)
    assert (repo / path).read_bytes() == edited and edited.startswith(BOM)


def test_a_byte_that_is_not_utf8_is_still_named_at_its_line_after_a_bom(tmp_path):
    from jaxdeck.read.source import read_notebook

    deck = tmp_path / "talk.md"
    deck.write_bytes(BOM + b"# Title\n\nok\n\xff here\n")
    with pytest.raises(DeckError) as raised:
        read_notebook(deck)
    assert raised.value.line == 4 and "byte 0xff" in raised.value.message
