"""Which implicit transfer ``jax.transfer_guard`` refused, read from its error so a slide need not."""

from __future__ import annotations

import re


def flagged_transfer(thunk) -> str | None:
    """Run ``thunk()`` under the caller's ``jax.transfer_guard``; the direction of the implicit
    transfer the guard refused (``"host-to-device"``, ``"device-to-host"``, ``"device-to-device"``),
    ``None`` when it ran. The guard says which only in its error's text, which this reads so a
    slide need not; any other error goes through."""
    import jax

    try:
        thunk()
    except jax.errors.JaxRuntimeError as err:
        said = re.search(r"Disallowed (\S+) transfer", str(err))
        if said is None:
            raise
        return said.group(1)
    return None
