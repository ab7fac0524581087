"""Headline-figure verdicts: computed from the measured ratios, never written by hand.

For each headline figure of CURRICULUM.md the deck's reference figures are listed here; the
tests build a comparison from synthetic timings and check that the verdict follows the
ratios: equal ratios reproduce, and moving one reference figure (or one measurement) out of
the tolerance flips the verdict and names the entry. A last check keeps this table in step
with the decks, so a deck cannot change its reference figures without this file noticing.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from demos._display import parse_seconds
from demos._timing.measure import budget_scale
from demos.timing import Verdict, compare, verdict_from_ratios

SLIDES = Path(__file__).resolve().parents[3] / "slides"

# figure id -> (deck, baseline, {entry: the seed's figure as the deck writes it}, strings in that deck)
HEADLINES = {
    "seed 000 tiny matmul": ("01-jax-is-not-numpy.md", "NumPy",
                             {"NumPy": "1.17 µs", "JAX eager": "7.27 µs"}, ['"1.17 µs"', '"7.27 µs"']),
    "seed 001 row-normalise": ("01-jax-is-not-numpy.md", "JAX eager",
                               {"JAX eager": "426 ms", "JAX jit": "218 ms"},
                               ["\"426 ms\"", "\"218 ms\""]),
    "seed 002 three ops": ("01-jax-is-not-numpy.md", "JAX eager",
                           {"JAX eager": "13.6 µs", "JAX jit": "3.72 µs"}, ['"13.6 µs"', '"3.72 µs"']),
    "seed 004 randn": ("01-jax-is-not-numpy.md", "plain",
                       {"plain": 1.03 / 5000, "jit": 0.78 / 5000}, ["1.03 / 5000", "0.78 / 5000"]),
    "seed 004 sum of range": ("01-jax-is-not-numpy.md", "Python",
                              {"Python": 3.05 / 5000, "JAX": 0.447 / 5000, "JAX jit": 0.148 / 5000,
                               "closed form": 0.00086 / 5000}, ["[3.05, 0.447, 0.148, 0.00086]"]),
    "seed 004 spectral radius": ("04-vmap.md", "looped",
                                 {"looped": 10.5 / 5000, "jit looped": 1.72 / 5000, "vmap": 3.65 / 5000,
                                  "jit vmap": 0.99 / 5000}, ["[10.5 / 5000, 1.72 / 5000, 3.65 / 5000, 0.99 / 5000]"]),
    "seed 004 MLP 1 vs 2 devices": ("05-many-devices.md", "jit, 1 device",
                                    {"jit, 1 device": 7.87 / 10_000, "pmap, params sent": 7.31 / 10_000},
                                    ["7.87 / 10_000", "7.31 / 10_000"]),
}


def _seconds(reference: dict) -> dict:
    return {k: parse_seconds(v) for k, v in reference.items()}


@pytest.mark.parametrize("figure", list(HEADLINES))
def test_matching_ratios_reproduce_on_any_machine(figure, make_comparison):
    _, baseline, reference, _ = HEADLINES[figure]
    ref = _seconds(reference)
    # our machine is 37 times faster overall: absolute times differ, ratios agree
    measured = {k: v / 37 for k, v in ref.items()}
    v = make_comparison(baseline, reference, measured).verdict()
    assert v.reproduced is True
    assert str(v).startswith("reproduced")


def _agreeing(figure):
    """A figure's baseline, reference, reference seconds, a measurement 37 times faster, and one entry to move."""
    _, baseline, reference, _ = HEADLINES[figure]
    ref = _seconds(reference)
    return baseline, reference, ref, {k: v / 37 for k, v in ref.items()}, next(k for k in reference if k != baseline)


@pytest.mark.parametrize("figure", list(HEADLINES))
def test_changing_one_reference_figure_changes_the_verdict(figure, make_comparison):
    baseline, reference, ref, measured, moved = _agreeing(figure)
    for factor in (2.5, 1 / 2.5):
        changed = dict(reference, **{moved: ref[moved] * factor})
        v = make_comparison(baseline, changed, measured).verdict()
        assert v.reproduced is False
        text = str(v)
        assert text.startswith("not reproduced: ") and moved in text
        # the reason carries the two computed ratios of the moved entry
        row = next(r for r in v.rows if r.name == moved)
        assert row.apart == pytest.approx(2.5)
    # inside the tolerance it still reproduces, unless the move turned a speed-up into a slow-down
    side = lambda r: 0 if 0.95 <= r <= 1.05 else (1 if r > 1 else -1)  # noqa: E731
    ours = measured[moved] / measured[baseline]
    for factor in (1.9, 1 / 1.9):
        theirs = ref[moved] * factor / ref[baseline]
        v = make_comparison(baseline, dict(reference, **{moved: ref[moved] * factor}), measured).verdict()
        assert v.reproduced is (side(theirs) in (0, side(ours)))


@pytest.mark.parametrize("figure", list(HEADLINES))
def test_changing_one_measurement_changes_the_verdict(figure, make_comparison):
    baseline, reference, ref, measured, moved = _agreeing(figure)
    measured[moved] *= 3
    v = make_comparison(baseline, reference, measured).verdict()
    assert v.reproduced is False and moved in v.reason


@pytest.mark.parametrize("figure", list(HEADLINES))
def test_the_decks_still_use_these_reference_figures(figure):
    deck, baseline, _, strings = HEADLINES[figure]
    text = (SLIDES / deck).read_text()
    for s in strings:
        assert s in text, f"{deck} no longer has {s} for {figure}: update HEADLINES"
    assert "compare(" in text


def test_tolerance_is_a_factor_in_both_directions():
    ours = {"a": 1.0, "b": 3.0}
    assert verdict_from_ratios(ours, {"a": 1.0, "b": 1.5}, "a").reproduced is True  # 2x apart: the edge
    assert verdict_from_ratios(ours, {"a": 1.0, "b": 1.4}, "a").reproduced is False
    assert verdict_from_ratios(ours, {"a": 1.0, "b": 6.0}, "a").reproduced is True
    assert verdict_from_ratios(ours, {"a": 1.0, "b": 6.1}, "a").reproduced is False
    assert verdict_from_ratios(ours, {"a": 1.0, "b": 1.4}, "a", tolerance=3).reproduced is True
    with pytest.raises(ValueError):
        verdict_from_ratios(ours, {"a": 1.0, "b": 1.0}, "a", tolerance=0.5)


def test_a_flipped_direction_is_said_in_words():
    v = verdict_from_ratios({"np": 1.0, "jit": 0.5}, {"np": 1.0, "jit": 1.6}, "np", "seed 9")
    assert v.reproduced is False
    assert "jit is 2.00× faster than np here but 1.60× slower in seed 9" in v.reason


def test_a_speed_up_must_stay_a_speed_up():
    """Within the tolerance but the other way round is not a reproduction."""
    v = verdict_from_ratios({"base": 1, "jit": 1.3}, {"base": 1, "jit": 0.75}, "base")
    assert v.rows[0].apart < 2
    assert v.reproduced is False
    assert str(v).startswith("not reproduced: jit is 1.30× slower than base here but 1.33× faster")
    level = verdict_from_ratios({"base": 1, "jit": 1.0}, {"base": 1, "jit": 0.6}, "base")
    assert level.reproduced is False and "level with base here" in level.reason
    # a reference level with its baseline leaves the direction to the tolerance
    assert verdict_from_ratios({"base": 1, "jit": 0.8}, {"base": 1, "jit": 1.0}, "base").reproduced is True


def test_a_reproduction_says_it_is_agreement_within_a_factor():
    v = verdict_from_ratios({"base": 1, "jit": 0.5}, {"base": 1, "jit": 0.4}, "base", "seed 1")
    assert str(v).startswith("reproduced within 2×: every ratio to base points the way seed 1's does")


def test_no_reference_ratio_gives_no_verdict():
    v = verdict_from_ratios({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": None}, "a")
    assert v.reproduced is None and str(v).startswith("no verdict")
    # entries without a reference figure (e.g. an extra float32 NumPy row) are left out
    v = verdict_from_ratios({"a": 1.0, "b": 2.0, "c": 50.0}, {"a": 1.0, "b": 2.0, "c": None}, "a")
    assert v.reproduced is True and [r.name for r in v.rows] == ["b"]


def test_verdict_is_shown_in_text_html_and_dict(make_comparison):
    c = make_comparison("x", {"x": "1 s", "y": "2 s"}, {"x": 0.1, "y": 0.9})
    assert isinstance(c.verdict(), Verdict)
    assert "not reproduced: y takes 9.00× x's time here, 2.00× in the seed" in str(c)
    html = c._repr_html_()
    assert 'class="verdict"' in html and "not reproduced" in html
    assert c.to_dict()["verdict"]["reproduced"] is False
    view = c.compact()
    assert "not reproduced" in view._repr_html_() and "not reproduced" in str(view)


def test_one_stray_repeat_does_not_make_a_timing_noisy(make_timing):
    """The median ignores one slow repeat (a GC pause, another process), so the noise test does too."""
    stray = dataclasses.replace(make_timing("s", 1.0), times_s=(1.0, 1.0, 1.1, 1.0, 0.9, 1.0, 40.0))
    assert stray.std_s > stray.median_s and not stray.noisy
    spread = dataclasses.replace(make_timing("w", 1.0), times_s=(1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0))
    assert spread.noisy and spread.iqr_s == 4.0


def test_noisy_rows_are_flagged_and_remeasured(make_timing):
    assert make_timing("n", 1.0, spread=1.5).noisy
    assert not make_timing("q", 1.0, spread=0.1).noisy
    calls = []

    def stalls_at_first():
        """One call per repeat: in the first measurement repeats 2, 4 and 6 sleep 0.2 s, so its middle half
        spreads over 0.2 s around a median of microseconds; no call after that sleeps."""
        calls.append(1)
        if len(calls) in (3, 5, 7):
            time.sleep(0.2)

    once = dict(warmup=1, repeat=7, number=1, budget_s=None)  # a warm-up call and seven repeats of one call
    c = compare({"a": stalls_at_first}, **once, remeasure=2.0)
    assert len(calls) == 2 * (1 + 7), "the noisy row was measured once more"
    assert c["a"].budget_s == pytest.approx(0.2 * 7 * 2.0 * budget_scale()), "the second, longer measurement is kept"
    assert len(c["a"].times_s) == 7 and any(n.startswith("re-measured with a") for n in c["a"].notes)
    calls.clear()
    kept = compare({"a": stalls_at_first}, **once, remeasure=0)
    assert len(calls) == 1 + 7 and kept["a"].noisy and not any("re-measured" in n for n in kept["a"].notes)
