"""jaxdeck.live.stash: what a live rewrite kept, read back from the JSON model a save receives."""

from __future__ import annotations

from jaxdeck.live import stash


def test_take_removes_what_was_kept_and_leaves_the_rest():
    cell = {"metadata": {"jaxdeck": {"kept": "---\n\n", "line": 3}}, "source": "x"}
    assert stash.take(cell, "kept") == "---\n\n"
    assert cell["metadata"]["jaxdeck"] == {"line": 3}
    assert stash.take(cell, "kept") is None


def test_take_copes_with_cells_that_kept_nothing():
    assert stash.take({"source": "x"}, "kept") is None
    assert stash.take({"metadata": {"jaxdeck": "not a dict"}}, "kept") is None


def test_text_joins_a_source_given_as_lines():
    assert stash.text({"source": ["a\n", "b"]}) == "a\nb"
    assert stash.text({"source": "a\nb"}) == "a\nb"
    assert stash.text({}) == ""
