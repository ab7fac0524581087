"""A claim about timings, held to what a busy machine can and cannot disturb.

A slide that claims "the loop compiles in flat time" or "eager JAX is behind NumPy here" reads a
clock, and a clock on a machine that another build shares can say anything for a moment. So the
check takes the slide's own figures first and, only when they do not bear the claim out, measures
again (a few times, each under a :class:`~demos._timing.load.LoadMeter`). The claim holds when one
measurement bears it out; when none does, the result says what each measurement found and how busy
the machine was meanwhile, so the failure reads as "not true here" or "not measurable now", never
as a bare ``AssertionError``.

    held = demos.timing.holds(lambda ms: ms["unrolled"] > 2 * ms["rolled"], ms, again=measure,
                              claim="unrolling costs compile time")
    assert held, held
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from .._display import Displayable, GOOD, WARN, box, esc, small
from .load import Load, LoadMeter, now

#: how many measurements a claim gets in all, the slide's own included
DEFAULT_TRIES = 3


def _said(values: Any) -> str:
    """A measurement in a few words: dicts of seconds as milliseconds, a timing as its median, a
    comparison as its ratios, the rest as they print."""
    if isinstance(values, dict):
        return "{" + ", ".join(f"{k}: {_said(v)}" for k, v in values.items()) + "}"
    if isinstance(values, float):
        return f"{values * 1e3:.3g} ms" if abs(values) < 100 else f"{values:.4g}"
    if hasattr(values, "median_s"):                      # a Timing
        return _said(float(values.median_s))
    if isinstance(getattr(values, "ratios", None), dict):  # a Comparison: what a claim reads of it
        return "ratios {" + ", ".join(f"{k}: {v:.3g}" for k, v in values.ratios.items()) + "}"
    text = str(values)
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass(repr=False)
class Held(Displayable):
    """What :func:`holds` found: truthy when a measurement bore the claim out."""

    claim: str
    measurements: list = field(default_factory=list)   # the values, the slide's first
    loads: list = field(default_factory=list)          # a Load for each (the first: the load average alone)
    held_at: int | None = None                         # which measurement bore it out (0: the slide's)

    def __bool__(self) -> bool:
        return self.held_at is not None

    @property
    def busy(self) -> bool:
        return any(load.busy for load in self.loads)

    def _text(self) -> str:
        what = f"{self.claim}: " if self.claim else ""
        if self.held_at == 0:
            return f"{what}held at the slide's measurement"
        if self.held_at is not None:
            return (f"{what}held at measurement {self.held_at + 1} of {len(self.measurements)} (the slide's "
                    f"{_said(self.measurements[0])} did not; {self.loads[0]})")
        tried = "; ".join(f"{_said(v)}" for v in self.measurements)
        others = [load for load in self.loads[1:] if load.others is not None]
        busy = (f"meanwhile other processes took {', '.join(f'{load.others:.0%}' for load in others)} of the "
                f"{others[-1].cpus} CPUs" if others else str(self.loads[-1]))
        verdict = ("the machine was busy, so rerun where it is quiet before believing it"
                   if self.busy else "the machine was quiet, so the claim does not hold here")
        return f"{what}did not hold in {len(self.measurements)} measurements ({tried}); {busy}: {verdict}"

    def _html(self) -> str:
        colour = GOOD if self else WARN
        return box(f'<div style="color:{colour}">{esc(self._text())}</div>'
                   + small(f"{len(self.measurements)} measurement(s)"))


def fastest(measurements: list) -> Any:
    """Each time at its shortest over ``measurements``: what a quiet machine would have measured, since
    other work can only make a time longer. Numbers give their minimum; a :class:`Timing` the one with
    the shortest median; a comparison (anything with a ``timings`` dict) the same comparison with each
    entry's fastest timing; dicts and tuples, each item's fastest; anything else, the first measurement's."""
    first = measurements[0]
    if all(isinstance(m, dict) for m in measurements):
        return {k: fastest([m[k] for m in measurements]) for k in first}
    if all(isinstance(m, tuple) and len(m) == len(first) for m in measurements):
        return tuple(fastest(list(items)) for items in zip(*measurements))
    if all(hasattr(m, "median_s") for m in measurements):
        return min(measurements, key=lambda timing: timing.median_s)
    if dataclasses.is_dataclass(first) and all(isinstance(getattr(m, "timings", None), dict) for m in measurements):
        return dataclasses.replace(first, timings=fastest([m.timings for m in measurements]))
    if all(isinstance(m, (int, float)) and not isinstance(m, bool) for m in measurements):
        return min(measurements)
    return first


def holds(test: Callable[[Any], bool], first: Any, again: Callable[[], Any] | None = None, *,
          tries: int = DEFAULT_TRIES, claim: str = "", times: bool = False) -> Held:
    """Whether ``test`` holds of the slide's measurement ``first`` or, failing that, of one of up to
    ``tries - 1`` new measurements by ``again()``; a :class:`Held` saying which, or what each found and
    how busy the machine was. Without ``again`` only ``first`` is judged. ``times``: the measurements
    are times (numbers, timings, comparisons, or dicts and tuples of them), so each new one is also
    judged with every time at its shortest so far (:func:`fastest`): a stall that lengthened one
    time in one measurement and another in the next then spoils neither."""
    held = Held(claim, [first], [now()])
    if test(first):
        held.held_at = 0
        return held
    for k in range(1, tries if again is not None else 1):
        with LoadMeter() as meter:
            values = again()
        held.measurements.append(values)
        held.loads.append(meter.load if meter.load is not None else now())
        if test(values) or (times and test(fastest(held.measurements))):
            held.held_at = k
            break
    return held


__all__ = ["DEFAULT_TRIES", "Held", "Load", "LoadMeter", "fastest", "holds"]
