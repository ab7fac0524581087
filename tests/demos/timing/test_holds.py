"""demos.timing.holds: a timing claim judged on the slide's figures, measured again only when they fail."""

from __future__ import annotations

import demos.timing as timing
from demos._timing import load as load_module


def test_a_claim_the_slide_bears_out_is_not_measured_again():
    calls = []
    held = timing.holds(lambda v: v > 1, 2.0, again=lambda: calls.append(1) or 0.0, claim="two is more than one")
    assert held and held.held_at == 0 and calls == []
    assert str(held) == "two is more than one: held at the slide's measurement"
    assert "held at the slide" in held._repr_html_()


def test_a_claim_is_measured_again_until_a_measurement_bears_it_out():
    values = iter([0.5, 3.0, 9.0])
    held = timing.holds(lambda v: v > 1, 0.2, again=lambda: next(values), claim="more than one")
    assert held and held.held_at == 2 and held.measurements == [0.2, 0.5, 3.0]
    assert str(held).startswith("more than one: held at measurement 3 of 3 (the slide's 200 ms did not;")
    assert all(isinstance(load, timing.Load) for load in held.loads) and len(held.loads) == 3


def test_a_claim_no_measurement_bears_out_says_each_figure_and_the_load():
    held = timing.holds(lambda ms: ms["a"] < ms["b"], {"a": 0.002, "b": 0.001}, again=lambda: {"a": 0.003, "b": 0.001},
                        tries=2, claim="a is faster")
    assert not held and held.held_at is None and len(held.measurements) == 2
    said = str(held)
    assert said.startswith("a is faster: did not hold in 2 measurements ({a: 2 ms, b: 1 ms}; {a: 3 ms, b: 1 ms})")
    assert ("the machine was busy" in said) != ("the machine was quiet" in said)


def test_without_a_way_to_measure_again_only_the_slide_is_judged():
    held = timing.holds(lambda v: v, False)
    assert not held and len(held.measurements) == 1


def test_the_load_says_which_share_of_the_cpus_other_processes_took(monkeypatch):
    machine = iter([(1_000, 4_000), (1_900, 5_000)])   # 900 busy ticks of 1000 in the window
    own = iter([100.0, 500.0])                          # 400 of them this process's own
    monkeypatch.setattr(load_module, "_machine_ticks", lambda: next(machine))
    monkeypatch.setattr(load_module, "_own_ticks", lambda: next(own))
    with timing.LoadMeter() as meter:
        pass
    assert abs(meter.load.others - 0.5) < 1e-9 and meter.load.busy
    assert f"other processes took 50% of the machine's {meter.load.cpus} CPU" in str(meter.load)


def test_without_proc_stat_only_the_load_average_is_said(monkeypatch):
    monkeypatch.setattr(load_module, "_machine_ticks", lambda: None)
    with timing.LoadMeter() as meter:
        pass
    assert meter.load.others is None
    assert "load average" in str(meter.load) or "their load unknown" in str(meter.load)


def test_times_are_also_judged_at_their_shortest_so_far():
    """A stall lengthened the small loop's compile in the slide's measurement and vmap's large one in the
    next: neither measurement bears the claim out alone, their shortest times do (a busy machine only
    makes a time longer)."""
    grows = lambda ms: ms["loop 16"] > 1.5 * ms["loop 2"] and ms["vmap 16"] < 3 * ms["vmap 2"]
    slide = {"loop 2": 5.0, "loop 16": 3.0, "vmap 2": 1.0, "vmap 16": 1.0}
    stalled = {"loop 2": 1.0, "loop 16": 3.0, "vmap 2": 1.0, "vmap 16": 9.0}
    held = timing.holds(grows, slide, again=lambda: stalled, times=True, tries=2)
    assert held and held.held_at == 1
    assert not timing.holds(grows, slide, again=lambda: stalled, tries=2), "without times, each is judged alone"


def test_timings_and_comparisons_are_said_by_what_a_claim_reads_of_them(make_timing):
    from demos.timing import Comparison

    fast, slow = make_timing("fast", 0.001), make_timing("slow", 0.004)
    held = timing.holds(lambda c: c.ratios["slow"] < 1, Comparison(timings={"fast": fast, "slow": slow}, baseline="fast"))
    assert "ratios {fast: 1, slow: 4}" in str(held)
    assert "{t: 1 ms}" in str(timing.holds(lambda t: False, {"t": fast}))


def test_the_fastest_of_comparisons_takes_each_entry_at_its_shortest(make_timing):
    from demos.timing import Comparison

    one = Comparison(timings={"a": make_timing("a", 0.009), "b": make_timing("b", 0.003)}, baseline="a")
    two = Comparison(timings={"a": make_timing("a", 0.001), "b": make_timing("b", 0.006)}, baseline="a")
    best = timing.fastest([one, two])
    assert best.ratios == {"a": 1.0, "b": 3.0} and best.baseline == "a"
    assert timing.fastest([(one["a"], 7), (one["b"], 7)])[0].median_s == 0.003
    assert timing.holds(lambda c: c.ratios["b"] > 2, one, again=lambda: two, times=True, tries=2)
