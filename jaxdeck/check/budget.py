"""Which code cells a deck's per-cell budget holds: one rule for ``check`` (the build's times)
and ``rehearse`` (the live times), in a module of its own so that a rehearsal with no browser
reads it without importing the browser that ``check``'s other checks drive."""

from __future__ import annotations

SLOW_TAG = "slow"
#: the deck's imports and configuration, which the presenter runs before the talk starts: what
#: `import jax` and a backend's start cost is the machine's, not a demo's, so no budget applies
SETUP_TAG = "setup"


#: other processes took more than this share of the CPUs while a cell ran: its time is not all its own
BUSY_SHARE = 0.25


def held_to_budget(tags) -> bool:
    """Whether a code cell with these tags must finish within the deck's per-cell budget."""
    return SLOW_TAG not in tags and SETUP_TAG not in tags


def judged_seconds(duration: float, others: float | None, cpu_s: float | None = None,
                   waited_s: float | None = None) -> float:
    """The time a cell is held to its budget by. On a quiet machine, its time. When other processes took
    more than :data:`BUSY_SHARE` of the CPUs meanwhile (another build beside this one), its time less
    what they took from it: where the kernel's threads' waits for a CPU were measured (``waited_s``, the
    longest, Linux's run queue), that time; else an estimate from their share of the time the cell was
    computing (``cpu_s``, the kernel's own CPU time, up to the whole time; a cell that sleeps or waits
    lost nothing to them). Said as an estimate: the machine's slowness is not the cell's."""
    if others is None or others <= BUSY_SHARE:
        return duration
    if waited_s is not None:
        return max(0.0, duration - waited_s)
    computing = 1.0 if cpu_s is None or duration <= 0 else min(1.0, cpu_s / duration)
    return duration * (1.0 - others * computing)


def busy_words(duration: float, others: float | None, cpu_s: float | None = None,
               waited_s: float | None = None) -> str:
    """`` (other processes took 48% of the CPUs meanwhile: about 1.35 s on a quiet machine)``, or ""."""
    if others is None or others <= BUSY_SHARE:
        return ""
    return (f" (other processes took {others:.0%} of the CPUs meanwhile: about "
            f"{judged_seconds(duration, others, cpu_s, waited_s):.2f} s on a quiet machine)")
