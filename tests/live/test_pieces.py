"""The live view cut into the static deck's slides (jaxdeck.live.pieces), through the real contents manager.

MyST cells are served cut at their recorded breaks; a marker-less deck is cut where its last
HTML build's fit cut it (``build/html/NAME.cuts.json``); a save glues the pieces back so the
file changes only where the presenter edited it.
"""

from __future__ import annotations

import pytest

from jaxdeck.html.fit_record import CONTINUED, Cut, read_blocks, read_cuts, write_cuts
from jaxdeck.live.pieces import PIECE_KEY
from jaxdeck.read import deck_to_notebook
from jaxdeck.read.structure import slide_count

from live.test_myst_view import MYST_NOTEBOOKS, save, served

SHOWN = ("slide", "subslide")

TUTORIAL = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
    jupytext_version: 1.16.4
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A long tutorial

## Arrays

Arrays are immutable: an update makes a new array.

Indexing works as in NumPy, for reading.

Writing goes through the `.at` property.

```{code-cell}
import jax.numpy as jnp
x = jnp.arange(3)
x.at[0].set(5)
```

## Next

The end.
"""


def slide_types(nb) -> list[str]:
    return [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in nb.cells]


def shown_slides(nb) -> int:
    return sum(kind in SHOWN for kind in slide_types(nb))


def tutorial(tmp_path, cuts=()):
    """The tutorial served, with ``cuts`` as its last fit's (lines of TUTORIAL, 1-based)."""
    deck = tmp_path / "src" / "tutorial.md"
    deck.parent.mkdir(parents=True)
    deck.write_text(TUTORIAL, encoding="utf-8")
    html = tmp_path / "repo" / "build" / "html" / "tutorial.html"
    html.parent.mkdir(parents=True)
    write_cuts(html, list(cuts))
    return served(tmp_path / "repo", deck)


def line_of(text: str) -> int:
    return TUTORIAL.split("\n").index(text) + 1


@pytest.mark.parametrize("deck", MYST_NOTEBOOKS, ids=lambda p: p.stem)
def test_myst_cells_are_served_cut_at_their_breaks(tmp_path, deck):
    repo, cm, name, nb = served(tmp_path, deck)
    derived = deck_to_notebook(repo / name, build=repo / "build")
    breaks = sum(len(c.metadata["jaxdeck"].get("breaks") or []) for c in derived.cells)
    assert breaks, "every MyST fixture has a cell with a slide break inside"
    assert len(nb.cells) == len(derived.cells) + breaks
    # as many slides as the static deck has before any fit, each starting in a cell of its own
    skipped = sum(1 for c in nb.cells if slide_types(nb)[nb.cells.index(c)] == "skip"
                  and c.metadata["jaxdeck"].get("live_tags", {}).get("slide_type") in SHOWN)
    assert shown_slides(nb) + skipped == slide_count(derived)


@pytest.mark.parametrize("deck", MYST_NOTEBOOKS, ids=lambda p: p.stem)
def test_an_edit_in_a_later_piece_changes_only_that_line(tmp_path, deck):
    repo, cm, name, nb = served(tmp_path, deck)
    before = (repo / name).read_text(encoding="utf-8").split("\n")
    piece = next(c for c in nb.cells if (c.metadata["jaxdeck"].get(PIECE_KEY) or {}).get("n", 0) > 0)
    lines = piece.source.split("\n")
    number = next(k for k, line in enumerate(lines) if len(line) > 20 and line in before and before.count(line) == 1)
    old = lines[number]
    lines[number] = old + " (edited)"
    piece.source = "\n".join(lines)
    save(cm, name, nb)
    after = (repo / name).read_text(encoding="utf-8").split("\n")
    assert len(after) == len(before)
    assert [k for k, (a, b) in enumerate(zip(before, after)) if a != b] == [before.index(old)]


def test_the_fits_cuts_start_continued_slides_and_are_not_saved(tmp_path):
    cuts = [Cut(line_of("Writing goes through the `.at` property."), "Writing goes through the `.at` property.",
                f"## Arrays{CONTINUED}"),
            Cut(line_of("```{code-cell}"), "import jax.numpy as jnp", f"## Arrays{CONTINUED}")]
    repo, cm, name, nb = tutorial(tmp_path, cuts)
    sources = [c.source for c in nb.cells]
    continued = [k for k, s in enumerate(sources) if s.startswith(f"## Arrays{CONTINUED}")]
    assert len(continued) == 2
    assert [slide_types(nb)[k] for k in continued] == ["subslide", "subslide"]
    # in the markdown cell: the heading above the paragraph it continues with
    assert sources[continued[0]] == f"## Arrays{CONTINUED}\n\nWriting goes through the `.at` property."
    # before the code cell: a heading cell of its own, the code continuing its slide
    assert nb.cells[continued[1] + 1].cell_type == "code" and slide_types(nb)[continued[1] + 1] == "-"
    assert "Indexing works" in sources[continued[0] - 1] and "Writing" not in sources[continued[0] - 1]
    save(cm, name, nb)
    assert (repo / name).read_text(encoding="utf-8") == TUTORIAL


def test_an_edit_on_a_continued_slide_changes_only_that_line(tmp_path):
    cut = Cut(line_of("Writing goes through the `.at` property."), "Writing goes through the `.at` property.",
              f"## Arrays{CONTINUED}")
    repo, cm, name, nb = tutorial(tmp_path, [cut])
    cell = next(c for c in nb.cells if c.source.startswith(f"## Arrays{CONTINUED}"))
    cell.source = cell.source.replace("`.at` property.", "`.at` property, which copies.")
    save(cm, name, nb)
    assert (repo / name).read_text(encoding="utf-8") == TUTORIAL.replace("`.at` property.",
                                                                          "`.at` property, which copies.")


def test_a_cut_whose_line_changed_since_the_fit_is_skipped(tmp_path):
    stale = Cut(line_of("Writing goes through the `.at` property."), "Writing went through `.at`.", "## Arrays")
    _, _, _, nb = tutorial(tmp_path, [stale])
    plain_tmp = tmp_path / "plain"
    _, _, _, plain = tutorial(plain_tmp)
    assert [c.source for c in nb.cells] == [c.source for c in plain.cells]


def test_a_piece_whose_first_piece_was_deleted_is_saved_as_a_cell_of_its_own(tmp_path):
    cut = Cut(line_of("Writing goes through the `.at` property."), "Writing goes through the `.at` property.",
              f"## Arrays{CONTINUED}")
    repo, cm, name, nb = tutorial(tmp_path, [cut])
    first = next(k for k, c in enumerate(nb.cells) if c.source.startswith("## Arrays\n"))
    del nb.cells[first]
    save(cm, name, nb)
    text = (repo / name).read_text(encoding="utf-8")
    assert "Indexing works" not in text and "## Arrays\n" not in text
    assert "Writing goes through the `.at` property." in text and CONTINUED not in text


def test_cuts_round_trip_through_their_file(tmp_path):
    html = tmp_path / "deck.html"
    cuts = [Cut(12, "Some text.", "## A (continued)"), Cut(40, "x = 1", None)]
    write_cuts(html, cuts)
    assert read_cuts(html) == cuts
    write_cuts(html, [])
    assert read_cuts(html) == [] and not list(tmp_path.iterdir())
    (tmp_path / "deck.cuts.json").write_text("not json")
    assert read_cuts(html) == [] and read_blocks(html) == []


def test_a_code_cell_the_fit_split_is_served_as_two_pieces_and_saved_whole(tmp_path):
    """A split at a top-level statement: the first piece runs alone, the second under a continued heading
    holds the outputs; each piece carries its fit record for the extension; a save writes the file back."""
    from jaxdeck.html.fit_record import Block

    fence = line_of("```{code-cell}")
    split = Block(fence, "import jax.numpy as jnp", {"scale": 0.6}, split=2)
    rest = Block(fence + 2, "x.at[0].set(5)", {"scale": 0.8, "lines": {"0": 3}})
    cut = Cut(fence + 2, "x.at[0].set(5)", f"## Arrays{CONTINUED}")
    deck = tmp_path / "src" / "tutorial.md"
    deck.parent.mkdir(parents=True)
    deck.write_text(TUTORIAL, encoding="utf-8")
    html = tmp_path / "repo" / "build" / "html" / "tutorial.html"
    html.parent.mkdir(parents=True)
    write_cuts(html, [cut], [split, rest])
    repo, cm, name, nb = served(tmp_path / "repo", deck)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in code] == ["import jax.numpy as jnp\nx = jnp.arange(3)", "x.at[0].set(5)"]
    assert [c.metadata["jaxdeck"].get("fit") for c in code] == [{"scale": 0.6}, {"scale": 0.8, "lines": {"0": 3}}]
    between = nb.cells[nb.cells.index(code[1]) - 1]
    assert between.source == f"## Arrays{CONTINUED}" and slide_types(nb)[nb.cells.index(between)] == "subslide"
    save(cm, name, nb)
    assert (repo / name).read_text(encoding="utf-8") == TUTORIAL
