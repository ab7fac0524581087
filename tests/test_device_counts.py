"""Every deck in slides/ at 1, 2, 3 and 8 devices: no cell error and every claim check holding.

``JAXDECK_DEVICES=N`` overrides whatever count a deck asks for, as a box with N accelerators
would; each deck is run in a real kernel at each count, with one more check appended that the
kernel really saw N CPU devices. Parametrised over slides/, so a new deck is covered without
new test code. A slower group of its own: ``-m devices`` runs only it, ``-m 'not devices'`` skips it.
The decks' timings are taken with a quarter of their budget (``DEMOS_TIMING_BUDGET_SCALE``):
these runs check that cells run and claims hold, the figures themselves are not read. The checks
that read a clock are left out (tests/clock_checks.py), each one named in the run's summary: they
hold in the deck's own build and on a GPU, not on cores that every other test shares.
At the count a deck runs at by itself (1, or the 8 it simulates) the session's build of it
(the ``built`` fixture) already ran every check there: its kernel's own account of its devices,
in the notebook's provenance, stands in for the appended check, and the deck is not run again.
"""

from __future__ import annotations

import nbformat
import pytest

from clock_checks import LEFT_OUT, without_clock_checks
from support import DECKS, deck_id
from jaxdeck.claims import is_check
from jaxdeck.execute.kernel import execute
from jaxdeck.read import deck_to_notebook
from jaxdeck.records import BuildRecord

COUNTS = (1, 2, 3, 8)   # 3: a count that divides none of the decks' batches evenly

pytestmark = [pytest.mark.devices, pytest.mark.skipif(not DECKS, reason="no decks in slides/")]


def with_device_check(nb, count: int):
    """The deck's notebook with a last check that the kernel ran on ``count`` CPU devices."""
    nb = nbformat.from_dict(nb)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import jax\nassert len(jax.devices('cpu')) == %d, f'ran on {len(jax.devices(\"cpu\"))} CPU devices'" % count,
        metadata={"tags": ["check"], "jaxdeck": {"line": None, "slide": None}}))
    return nb


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_every_deck_runs_and_every_claim_holds_at_this_device_count(deck, count, built, monkeypatch, record_property):
    _, prebuilt = built(deck)
    ran_on = BuildRecord.of(prebuilt).provenance or {}
    if (ran_on.get("backend"), ran_on.get("device_count")) == ("cpu", count):
        executed, ours = prebuilt, 0  # run at this count by the session's build, as its kernel says
        expected = sum(is_check(c) for c in prebuilt.cells)
    else:
        monkeypatch.setenv("JAXDECK_DEVICES", str(count))
        monkeypatch.setenv("DEMOS_TIMING_BUDGET_SCALE", "0.25")
        nb, left_out = without_clock_checks(deck_to_notebook(deck), deck)
        record_property(LEFT_OUT, left_out)
        expected = sum(is_check(c) for c in nb.cells) + 1
        executed, ours = execute(with_device_check(nb, count), deck), 1  # a cell error or a failed check raises a DeckError naming its line
    errors = [c for c in executed.cells if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
              and any(o.get("output_type") == "error" for o in c.outputs)]
    assert not errors
    # every check of the deck ran (at another count than its own, all but those that read a clock), and ours
    assert sum(is_check(c) for c in executed.cells) == expected >= 1 + ours
