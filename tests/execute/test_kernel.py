"""Running decks in a real kernel: outputs, timings, allowed errors, error lines, timeouts."""

from __future__ import annotations

import os

import pytest

from jaxdeck.read import deck_to_notebook
from jaxdeck.errors import DeckError
from jaxdeck.execute import cell_durations
from jaxdeck.execute.kernel import execute


def run(deck, **kwargs):
    return execute(deck_to_notebook(deck), deck, **kwargs)


def test_outputs_timings_and_the_deck_folder(write_deck):
    deck = write_deck(
        "# T\n\n```python\nimport os, time\ntime.sleep(0.2)\nos.path.basename(os.getcwd())\n```\n\n"
        "---\n\n## Two\n\n```python tags=[\"raises-exception\"]\n1 / 0\n```\n"
    )
    seen = []
    nb = run(deck, on_cell=lambda k, n: seen.append((k, n)))
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].outputs[0]["data"]["text/plain"] == "'slides'"  # the kernel runs beside the deck
    assert code[1].outputs[0]["output_type"] == "error" and code[1].outputs[0]["ename"] == "ZeroDivisionError"
    assert seen == [(1, 2), (2, 2)]
    durations = cell_durations(nb)
    assert [(line, slide) for line, slide, _, _ in durations] == [(3, 1), (13, 2)]
    assert 0.2 <= durations[0][2] < 5


def test_an_error_names_file_line_slide_and_exception(write_deck):
    deck = write_deck("# T\n\n---\n\n## Two\n\n```python\nx = 1\n```\n\n--\n\n## Three\n\n```python\nundefined_name\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    text = str(caught.value)
    assert caught.value.line == 15 and caught.value.slide == 3
    assert text.startswith(f"{deck}:15 (slide 3): NameError: name 'undefined_name' is not defined")


def test_a_cell_past_its_timeout_fails_with_its_line(write_deck):
    deck = write_deck("# T\n\n```python timeout=2\nimport time\ntime.sleep(60)\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    assert caught.value.line == 3 and "timed out after 2 s" in str(caught.value)


def test_the_input_notebook_is_not_changed(write_deck):
    deck = write_deck("# T\n\n```python\n40 + 2\n```\n")
    nb = deck_to_notebook(deck)
    executed = execute(nb, deck)
    assert nb.cells[1].outputs == [] and executed.cells[1].outputs[0]["data"]["text/plain"] == "42"


def test_highlight_listings_are_shown_not_run(write_deck):
    deck = write_deck('# T\n\n```python highlight="1|2"\nimport nonexistent_module\nraise SystemExit\n```\n\n```python\n1 + 1\n```\n')
    nb = run(deck)
    listing, cell = [c for c in nb.cells if c.cell_type == "code"]
    assert listing.outputs == [] and "tags" not in listing.metadata
    assert cell.outputs[0]["data"]["text/plain"] == "2"
    assert [r[0] for r in cell_durations(nb)] == [8]


CLAIM = ("# T\n\n---\n\n## A dtype\n\n```python\nimport jax.numpy as jnp\nx = jnp.ones(3)\nx.dtype\n```\n\n"
         "```python tags=[\"check\"]\n{check}\n```\n")


def test_a_check_that_holds_runs_and_records_nothing_visible(write_deck):
    nb = run(write_deck(CLAIM.format(check='assert x.dtype == jnp.float32, f"expected float32, got {x.dtype}"')))
    check = [c for c in nb.cells if c.cell_type == "code"][-1]
    assert check.metadata["tags"] == ["check"] and check.outputs == []


@pytest.mark.parametrize("check, says", [
    ('assert x.dtype == jnp.float16, f"expected float16, got {x.dtype}"', "expected float16, got float32"),
    ("assert x.dtype == jnp.float16", "an assertion without a message failed"),
    ("x.no_such_attribute", "AttributeError: "),
])
def test_a_failing_check_says_the_claim_no_longer_holds_on_this_machine(write_deck, check, says):
    deck = write_deck(CLAIM.format(check=check))
    with pytest.raises(DeckError) as caught:
        run(deck)
    assert caught.value.line == 13 and caught.value.slide == 2
    import jax  # the test, not jaxdeck, may ask JAX which machine this is

    count = os.environ.get("JAXDECK_DEVICES") or jax.device_count()  # the kernel's count, not this process's
    machine = f"{count} × {jax.devices()[0].device_kind}, jax {jax.__version__}"
    assert str(caught.value).startswith(f"{deck}:13 (slide 2): the claim no longer holds on this machine ({machine}): ")
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_where_errors_are_allowed_every_failing_check_is_listed_and_the_deck_runs_on(write_deck):
    from jaxdeck.execute import errors_listed
    from jaxdeck.records import BuildRecord

    deck = write_deck("---\njupyter:\n  jaxdeck:\n    allow_errors: true\n---\n\n"
                      + CLAIM.format(check='assert x.dtype == jnp.float16, "expected float16"')
                      + '\n```python\ny = 2 * x\n```\n\n```python tags=["check"]\nassert y.sum() == 7, "expected 7"\n```\n')
    nb = errors_listed(run(deck), deck)
    warnings = BuildRecord.of(nb).warnings
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "the claim no longer holds on this machine: expected float16; a check, shown nowhere (allow_errors)",
        "the claim no longer holds on this machine: expected 7; a check, shown nowhere (allow_errors)"]


#: a cell that starts a process outside its kernel's tree and group: `setsid` in a shell that exits at
#: once, so the sleeper is handed to init in a session of its own; it writes its pid beside the deck
ESCAPE = ('```python\nimport subprocess\nsubprocess.run(["sh", "-c", "setsid sleep 300 & echo $! > escaped.pid"], '
          'check=True)\n```\n')


def test_a_process_a_cell_started_outside_the_kernels_tree_ends_with_the_kernel(write_deck):
    import time

    import psutil

    deck = write_deck("# T\n\n" + ESCAPE)
    run(deck)
    pid = int((deck.parent / "escaped.pid").read_text())
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
