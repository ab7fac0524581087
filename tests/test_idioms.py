"""Every deck in slides/ writes today's JAX: one spelling for each thing, the current one.

The decks teach by example, so an old spelling on a slide is one the audience copies: the pytree
functions are ``jax.tree.*`` (not ``jax.tree_util.tree_*``), a jitted method takes
``@jax.jit(static_argnums=...)`` (not ``functools.partial``), devices are counted with
``lax.axis_size`` (not ``psum(1, ...)``), and ``jax.pmap``, kept for history, appears in one shown
cell at most. Parametrised over slides/; read with jupytext, as the build reads them.
"""

from __future__ import annotations

import re

import jupytext
import pytest

from support import DECKS, deck_id
from jaxdeck.claims import is_check

#: a pattern in a code cell -> what to write instead
OLD = {
    r"jax\.tree_util\.tree_(map|leaves|flatten|unflatten|structure)\b": "jax.tree.map / leaves / flatten / ...",
    r"partial\(\s*jax\.jit\b": "@jax.jit(static_argnums=...) or @jax.jit(static_argnames=...)",
    r"psum\(\s*1\s*,": "lax.axis_size(axis_name)",
}


def code_cells(deck, shown: bool = False) -> list[str]:
    """The deck's code cells (``shown``: those the audience sees, its claim checks left out)."""
    return [cell.source for cell in jupytext.read(deck).cells
            if cell.cell_type == "code" and not (shown and is_check(cell))]


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_a_deck_spells_each_thing_the_current_way(deck):
    found = [f"{pattern!r} (write {instead})" for source in code_cells(deck) for pattern, instead in OLD.items()
             if re.search(pattern, source)]
    assert not found, f"{deck.name}: {'; '.join(found)}"


@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_pmap_is_history_in_one_cell_at_most(deck):
    cells = [source for source in code_cells(deck, shown=True) if re.search(r"\bjax\.pmap\b", source)]
    assert len(cells) <= 1, f"{deck.name}: jax.pmap in {len(cells)} code cells; lead with jit and shardings, shard_map for per-device code"
