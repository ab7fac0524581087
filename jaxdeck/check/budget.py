"""Which code cells a deck's per-cell budget holds: one rule for ``check`` (the build's times)
and ``rehearse`` (the live times), in a module of its own so that a rehearsal with no browser
reads it without importing the browser that ``check``'s other checks drive."""

from __future__ import annotations

SLOW_TAG = "slow"
#: the deck's imports and configuration, which the presenter runs before the talk starts: what
#: `import jax` and a backend's start cost is the machine's, not a demo's, so no budget applies
SETUP_TAG = "setup"


def held_to_budget(tags) -> bool:
    """Whether a code cell with these tags must finish within the deck's per-cell budget."""
    return SLOW_TAG not in tags and SETUP_TAG not in tags
