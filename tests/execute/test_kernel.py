"""Running decks in a real kernel: outputs, timings, allowed errors, error lines, timeouts."""

from __future__ import annotations

import os

import pytest

from jaxdeck.read import deck_to_notebook
from jaxdeck.errors import DeckError
from jaxdeck.execute import cell_durations
from jaxdeck.execute.kernel import execute

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy


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


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="the machine's load is read from /proc")
def test_a_cell_records_how_much_of_the_cpu_other_processes_took_while_it_ran(write_deck):
    """A process spinning beside the kernel (not one the kernel started: a cell's own children are its
    work) shows in each cell's others_share, and the kernel's own CPU time in cpu_s: a cell that sleeps
    uses next to none, one that computes about its length (tests/execute/test_measure_load.py shows that
    the kernel's own work is never counted as another process's)."""
    import subprocess
    import sys

    deck = write_deck("# T\n\n```python\nimport time\ntime.sleep(1.0)\n```\n\n"
                      "```python\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n```\n")
    cpus = len(os.sched_getaffinity(0))
    # three spinners a CPU, each in a session of its own (the scheduler shares the CPUs between sessions first)
    spins = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
             for _ in range(3 * cpus)]
    try:
        nb = run(deck)
    finally:
        for spin in spins:
            spin.kill()
            spin.wait()
    (slept, computed) = [c.metadata["jaxdeck"] for c in nb.cells if c.cell_type == "code"]
    assert slept["others_share"] >= 0.6 / cpus, f"a spinning process should take about 1/{cpus} of the CPUs: {slept}"
    assert slept["cpu_s"] < 0.3 and computed["cpu_s"] >= 0.35, f"a sleep uses little CPU, 0.4 s of spinning about that: {slept}, {computed}"
    if os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/schedstat"):
        # with every CPU taken three times over, the computing cell's thread waited for one
        assert computed["waited_s"] >= 0.1, f"the time the spinners took from the computing cell is measured: {computed}"
        assert computed["waited_s"] <= computed["duration_s"], computed


def test_an_error_names_file_line_slide_and_exception(write_deck):
    deck = write_deck("# T\n\n---\n\n## Two\n\n```python\nx = 1\n```\n\n--\n\n## Three\n\n```python\nundefined_name\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    text = str(caught.value)
    # the fence is line 15: the statement that raised is its first line, 16
    assert caught.value.line == 16 and caught.value.slide == 3
    assert text.startswith(f"{deck}:16 (slide 3): NameError: name 'undefined_name' is not defined")


def test_an_error_names_the_line_that_raised_not_the_fence(write_deck):
    deck = write_deck("# T\n\n```python\nx = 1\ny = 2\nz = x / 0\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    assert caught.value.line == 6 and "ZeroDivisionError" in str(caught.value)
    assert "Cell In[1], line 3" in caught.value.details, "the whole traceback goes with the error"


def test_an_error_inside_a_function_names_the_line_in_the_function(write_deck):
    deck = write_deck("# T\n\n```python\nimport jax\n\n@jax.jit\ndef f(x):\n    return x.no_such_method()\n\n"
                      "f(1.0)\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    assert caught.value.line == 3 + 5 and "AttributeError" in str(caught.value)
    assert "no_such_method" in caught.value.details


def test_a_stuck_cell_says_where_the_kernel_waited(write_deck):
    deck = write_deck("# T\n\n```python timeout=3\nimport threading\n\ndef wait_forever():\n"
                      "    threading.Event().wait()\n\nwait_forever()\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    text = str(caught.value)
    assert caught.value.line == 3 and "did not finish in 3 s" in text
    assert "the kernel was in wait (threading.py:" in text, text
    assert "called from line 4 of the cell (deck line 7)" in text, text
    assert "make it faster" in text and "never comes" in text
    assert caught.value.details.startswith("The kernel's threads after 3 s")
    assert "wait_forever" in caught.value.details.split("\n\n")[1], "the main thread comes first"


def test_a_cell_past_its_timeout_fails_with_its_line(write_deck):
    deck = write_deck("# T\n\n```python timeout=2\nimport time\ntime.sleep(60)\n```\n")
    with pytest.raises(DeckError) as caught:
        run(deck)
    assert caught.value.line == 3 and "did not finish in 2 s" in str(caught.value)
    assert "the kernel was at line 2 of the cell (deck line 5)" in str(caught.value)


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
    # the fence is line 13: the assert that failed is on 14
    assert caught.value.line == 14 and caught.value.slide == 2
    import jax  # the test, not jaxdeck, may ask JAX which machine this is

    count = os.environ.get("JAXDECK_DEVICES") or jax.device_count()  # the kernel's count, not this process's
    machine = f"{count} × {jax.devices()[0].device_kind}, jax {jax.__version__}"
    assert str(caught.value).startswith(f"{deck}:14 (slide 2): the claim no longer holds on this machine ({machine}): ")
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_where_errors_are_allowed_every_failing_check_is_listed_and_the_deck_runs_on(write_deck):
    from jaxdeck.execute import errors_listed

    deck = write_deck("---\njupyter:\n  jaxdeck:\n    allow_errors: true\n---\n\n"
                      + CLAIM.format(check='assert x.dtype == jnp.float16, "expected float16"')
                      + '\n```python\ny = 2 * x\n```\n\n```python tags=["check"]\nassert y.sum() == 7, "expected 7"\n```\n')
    warnings = errors_listed(run(deck), deck)
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


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU shares need sched_setaffinity")
@pytest.mark.parametrize("own, seen", [(None, "2"), ("3", "3")])
def test_a_kernel_on_one_cpu_gets_two_threads_for_xla(write_deck, monkeypatch, own, seen):
    """On one CPU, XLA's CPU client gets a pool of one thread, and jaxlib 0.10's pure_callback
    then deadlocks (it queues the copy of its arguments behind the program waiting for it):
    NPROC=2 gives the pool a second thread; a user's own NPROC is left as it is."""
    if own is None:
        monkeypatch.delenv("NPROC", raising=False)
    else:
        monkeypatch.setenv("NPROC", own)
    deck = write_deck("# T\n\n```python\nimport os\nprint(os.environ.get('NPROC'), len(os.sched_getaffinity(0)))\n```\n")
    one = frozenset([sorted(os.sched_getaffinity(0))[0]])
    nb = execute(deck_to_notebook(deck), deck, cpus=one)
    assert nb.cells[1].outputs[0]["text"] == f"{seen} 1\n"


def test_a_pure_callback_converted_to_numpy_on_one_cpu_finishes(write_deck):
    """The cell that hung deck 11: a callback's result read back at once, on a one-CPU share."""
    deck = write_deck("# T\n\n```python timeout=60\nimport numpy as np, jax, jax.numpy as jnp\n"
                      "xs = jnp.linspace(0.0, 1.0, 200_000)\n"
                      "f = jax.jit(lambda x: jnp.tanh(jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)).sum())\n"
                      "g = jax.jit(lambda x: jnp.tanh(jnp.sin(x)).sum())\n"
                      "print(all(bool(jnp.allclose(g(xs), f(xs), rtol=1e-4)) for _ in range(100)))\n```\n")
    one = frozenset([sorted(os.sched_getaffinity(0))[0]]) if hasattr(os, "sched_getaffinity") else None
    nb = execute(deck_to_notebook(deck), deck, cpus=one)
    assert nb.cells[1].outputs[0]["text"] == "True\n"


def test_the_provenance_names_the_devices_the_cells_ran_on_as_the_kernel_says(write_deck, tmp_path, monkeypatch):
    """A deck that simulates 3 CPU devices ran on 3, whatever the machine's probe found (1 here); a
    deck that imports JAX but never starts a backend is not made to start one by the question."""
    from jaxdeck.execute import run_deck
    from jaxdeck.execute.kernel import run_fresh

    monkeypatch.delenv("JAXDECK_DEVICES", raising=False)
    three = write_deck("# T\n\n```python\nimport demos\ndemos.devices.simulate_cpu_devices(3)\n"
                       "import jax\nlen(jax.devices())\n```\n", "three.md")
    provenance = run_deck(deck_to_notebook(three), three, tmp_path / "build", cache=False).learnt.provenance
    assert (provenance["backend"], provenance["device_kind"], provenance["device_count"]) == ("cpu", "cpu", 3)

    idle = write_deck("# T\n\n```python\nimport jax\n```\n", "idle.md")
    _, kernel, _ = run_fresh(deck_to_notebook(idle), idle)
    try:
        assert kernel.devices is None
        later = deck_to_notebook(write_deck("# T\n\n```python\nfrom jax._src import xla_bridge\n"
                                            "xla_bridge.backends_are_initialized()\n```\n", "later.md"))
        kernel.run(later)
        assert [o["data"]["text/plain"] for c in later.cells if c.cell_type == "code" for o in c.outputs] == ["False"]
    finally:
        kernel.close()
