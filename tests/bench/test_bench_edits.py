"""The benchmarks' material: the generated deck, work copies, and the edits made to them."""

from __future__ import annotations

from jaxdeck.bench.edits import code_edit, copy_deck, generated_deck, prose_edit


def test_generated_deck_has_thirty_slides(tmp_path):
    from jaxdeck.read import deck_to_notebook

    path = tmp_path / "generated-30.md"
    path.write_text(generated_deck(30))
    nb = deck_to_notebook(path)
    assert nb.metadata.jaxdeck_build.slides == 30
    assert sum(c.cell_type == "code" for c in nb.cells) >= 5


def test_a_copy_takes_the_decks_folders_but_not_build(tmp_path):
    slides = tmp_path / "slides"
    (slides / "images").mkdir(parents=True)
    (slides / "images" / "a.svg").write_text("<svg/>")
    (slides / "build").mkdir()
    (slides / ".hidden").mkdir()
    (slides / "talk.md").write_text("# Talk\n")
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "stale.md").write_text("left from the last run")
    deck = copy_deck(slides / "talk.md", tmp_path / "copy")
    assert deck == tmp_path / "copy" / "talk.md" and deck.read_text() == "# Talk\n"
    assert sorted(p.name for p in deck.parent.iterdir()) == ["images", "talk.md"]


def test_edits_add_prose_and_change_or_add_a_cell(tmp_path):
    with_code = tmp_path / "a.md"
    with_code.write_text("# A\n\n```python\n1\n```\n")
    code_edit(with_code)
    assert with_code.read_text() == "# A\n\n```python\n# edited by the benchmark\n1\n```\n"
    prose_only = tmp_path / "b.md"
    prose_only.write_text("# B\n")
    code_edit(prose_only)
    assert prose_only.read_text().count("```python\n") == 1
    prose_edit(prose_only, 7)
    assert prose_only.read_text().endswith("## Added in prose edit 7\n\nA sentence that runs no code.\n")
