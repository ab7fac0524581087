"""Claim checks: code cells tagged ``check`` that assert what their slide claims.

A check runs wherever its deck runs (build, preview, live slideshow), right after
the cell it follows, and is shown nowhere: not on a slide, in the HTML, the PDFs or the
handout. When one fails, the claim is no longer true on the machine the deck ran on, so the
build stops with one line naming the deck's line, the slide and that machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: the cell tag
CHECK = "check"

#: evaluated in the kernel after a run: the backend, device kind and device count the deck's outputs came
#: from (a deck may simulate 8 CPU devices where the machine shows 1), or None where the deck never started
#: a JAX backend (never started here: that would fix the devices the next cell asks for)
DEVICES_EXPRESSION = (
    "(lambda modules: (lambda jax, bridge: {'backend': jax.default_backend(), 'device_kind': jax.devices()[0]"
    ".device_kind, 'device_count': len(jax.devices())} if getattr(bridge, 'backends_are_initialized', lambda: "
    "bool(getattr(bridge, '_backends', None)))() else None)(modules['jax'], modules['jax._src.xla_bridge'])"
    " if 'jax' in modules and 'jax._src.xla_bridge' in modules else None)(__import__('sys').modules)"
)

#: evaluated in the kernel after a check fails (jaxdeck never imports JAX itself)
MACHINE_EXPRESSION = (
    "(lambda jax: f'{len(jax.devices())} × {jax.devices()[0].device_kind}, jax {jax.__version__}')"
    "(__import__('jax'))"
)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def is_check(cell: Any) -> bool:
    """Whether a cell (an nbformat node or a plain dict) is a claim check."""
    if _get(cell, "cell_type") != "code":
        return False
    tags = _get(_get(cell, "metadata") or {}, "tags") or []
    if isinstance(tags, str):
        tags = [tags]
    return CHECK in {str(tag).strip().lower() for tag in tags}


def failure(machine: str | None, ename: str | None, evalue: str | None) -> str:
    """The message of a failed check: what no longer holds, where, and the assertion's own words."""
    said = (evalue or "").strip().splitlines()
    message = said[0] if said else ""
    if ename and ename != "AssertionError":
        message = f"{ename}: {message}" if message else ename
    message = message or "an assertion without a message failed (give the assert a message saying what was expected)"
    where = f" ({machine})" if machine else ""
    return f"the claim no longer holds on this machine{where}: {message}"
