"""jaxdeck.check.budget: which cells a budget holds, and how a cell timed on a busy machine is judged."""

from __future__ import annotations

import pytest

from jaxdeck.check.budget import BUSY_SHARE, busy_words, held_to_budget, judged_seconds


def test_slow_and_setup_cells_are_not_held_to_the_budget():
    assert held_to_budget([]) and held_to_budget(["check"])
    assert not held_to_budget(["slow"]) and not held_to_budget(["setup", "remove-cell"])


@pytest.mark.parametrize("others", [None, 0.0, BUSY_SHARE])
def test_a_cell_timed_on_a_quiet_machine_is_judged_by_its_time(others):
    assert judged_seconds(2.5, others) == 2.5 and busy_words(2.5, others) == ""


def test_a_cell_timed_beside_other_work_is_judged_by_what_is_left_of_its_time():
    assert judged_seconds(2.6, 0.5) == pytest.approx(1.3)
    assert busy_words(2.6, 0.5) == " (other processes took 50% of the CPUs meanwhile: about 1.30 s on a quiet machine)"


def test_a_cell_that_waited_rather_than_computed_lost_nothing_to_other_work():
    assert judged_seconds(0.6, 0.9, cpu_s=0.0) == pytest.approx(0.6)     # a sleep: nobody took its time
    assert judged_seconds(2.0, 0.5, cpu_s=1.0) == pytest.approx(1.5)     # computing half the time
    assert judged_seconds(2.0, 0.5, cpu_s=3.0) == pytest.approx(1.0)     # two threads busy: the whole time


def test_a_cell_is_given_back_the_time_it_waited_for_a_cpu_where_that_was_measured():
    """Three cores' worth of other work on two: the kernel's thread ran 0.7 s of its 3.3 s and waited
    2.6 s for a CPU. Its share of the time computing (21%) says little; the wait is what it lost."""
    assert judged_seconds(3.32, 0.89, cpu_s=0.71, waited_s=2.6) == pytest.approx(0.72)
    assert busy_words(3.32, 0.89, cpu_s=0.71, waited_s=2.6) == (
        " (other processes took 89% of the CPUs meanwhile: about 0.72 s on a quiet machine)")
    assert judged_seconds(3.32, 0.1, cpu_s=0.71, waited_s=2.6) == 3.32   # a quiet machine: the time as it is
    assert judged_seconds(1.0, 0.9, cpu_s=0.1, waited_s=0.0) == 1.0     # nothing waited: nothing given back
