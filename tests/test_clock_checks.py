"""The checks that read a clock (tests/clock_checks.py): found in each check's code, left out of the device
and version matrices alone, and named at the end of the run that left them out."""

from __future__ import annotations

import subprocess
import sys

import jupytext
import pytest

from clock_checks import decks_without_clock_checks, reads_a_clock, without_clock_checks
from support import ROOT
from jaxdeck.claims import is_check
from jaxdeck.read import deck_to_notebook

EXAMPLE = ROOT / "slides" / "example.md"


def test_a_check_reads_a_clock_when_it_calls_holds_or_a_clock_itself():
    assert reads_a_clock("held = demos.timing.holds(lambda t: t < 1, t, again=again)\nassert held, held")
    assert reads_a_clock("s0 = time.perf_counter()\nassert time.perf_counter() - s0 < 1")
    assert reads_a_clock("from timeit import timeit\nassert timeit(f, number=3) < 1")
    assert not reads_a_clock("assert jnp.allclose(y, 2 * x), 'the gradient of x squared'")
    assert not reads_a_clock("assert c['flops'] == 3, 'holds'  # a word, not a call")
    assert not reads_a_clock("%timeit f()")  # a magic is not Python: nothing to judge apart


def test_the_example_deck_leaves_out_its_timing_claim_alone(tmp_path):
    nb = deck_to_notebook(EXAMPLE)
    kept, left_out = without_clock_checks(nb, EXAMPLE)
    assert left_out == ["example.md:147"]
    assert sum(map(is_check, kept.cells)) == sum(map(is_check, nb.cells)) - 1 >= 1  # every other check stays
    copies, said = decks_without_clock_checks([EXAMPLE], tmp_path)
    assert said == {EXAMPLE: left_out} and copies == [tmp_path / "slides" / "example.md"]
    written, source = jupytext.read(copies[0]), jupytext.read(EXAMPLE)
    assert [c.source for c in written.cells] == [c.source for c in source.cells if not (is_check(c) and reads_a_clock(c.source))]


@pytest.mark.heavy
@pytest.mark.devices
def test_the_device_matrix_names_the_checks_it_left_out(tmp_path):
    """The device matrix run on the example deck at 2 devices: it passes with every other check run, and the
    run's summary names the one check it left out."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "tests/test_device_counts.py", "-k", "example-2", "--basetemp", str(tmp_path / "run")],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout, done.stdout
    summary = done.stdout.split("clock-reading checks left out of the matrices", 1)
    assert len(summary) == 2, done.stdout
    assert "example.md:147  (left out at example-2)" in summary[1], done.stdout
