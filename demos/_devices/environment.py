"""Settings that must happen before JAX starts its backend: the shared-GPU memory default, applied on
import, the device count ``JAXDECK_DEVICES`` asks for, and the calls that set either
(:func:`gpu_memory`, :func:`simulate_cpu_devices`), each saying whether it can still take effect.

Importing this module never starts JAX's backend: it has to be able to run first.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

from .._display import GOOD, WARN, Displayable, box, esc

PREALLOCATE = "XLA_PYTHON_CLIENT_PREALLOCATE"
MEM_FRACTION = "XLA_CLIENT_MEM_FRACTION"
# The old name still works alone but is deprecated; jaxlib raises if both are set.
OLD_MEM_FRACTION = "XLA_PYTHON_CLIENT_MEM_FRACTION"
ALLOCATOR = "XLA_PYTHON_CLIENT_ALLOCATOR"
#: the override of every deck's device count (a whole number from 1 up)
DEVICES_ENV = "JAXDECK_DEVICES"
#: the variable behind ``jax.config.update("jax_num_cpu_devices", n)``
NUM_CPU_ENV = "JAX_NUM_CPU_DEVICES"


def backend_initialized() -> bool:
    """True once JAX has created a backend client (after which XLA flags and env vars are fixed)."""
    if "jax" not in sys.modules:
        return False
    try:
        from jax._src import xla_bridge
    except Exception:  # pragma: no cover - very old/new layouts
        return True
    probe = getattr(xla_bridge, "backends_are_initialized", None)
    if probe is not None:
        return bool(probe())
    return bool(getattr(xla_bridge, "_backends", {}))  # pragma: no cover


def requested_devices() -> int | None:
    """The device count ``JAXDECK_DEVICES`` asks for (None when unset); ValueError when it is not a count."""
    raw = os.environ.get(DEVICES_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{DEVICES_ENV} must be a whole number of devices from 1 up, got {raw!r}")
    return int(raw)


# Shared GPU boxes: JAX preallocates 75 % of GPU memory by default, which starves every other
# kernel on the machine. Unless the user decided otherwise, switch that off before JAX starts.
if not backend_initialized() and PREALLOCATE not in os.environ:
    os.environ[PREALLOCATE] = "false"

# A device-count rehearsal reaches a deck that never asks for devices, too.
if not backend_initialized() and requested_devices() is not None:
    os.environ[NUM_CPU_ENV] = str(requested_devices())
    if "jax" in sys.modules:
        sys.modules["jax"].config.update("jax_num_cpu_devices", requested_devices())


@dataclass(repr=False)
class EnvSetting(Displayable):
    """What a pre-start setting did: the variables set, and whether they can still take effect."""

    what: str
    variables: dict
    effective: bool
    advice: str = ""
    code: tuple = ()

    def _text(self) -> str:
        lines = [f"{self.what}: " + ("will take effect when JAX starts" if self.effective else "NOT in effect")]
        lines += [f"  {line}" for line in self.code]
        lines += [f"  {k}={v}" for k, v in self.variables.items()]
        if self.advice:
            lines.append(self.advice)
        return "\n".join(lines)

    def _html(self) -> str:
        colour = GOOD if self.effective else WARN
        status = "will take effect when JAX starts" if self.effective else "NOT in effect"
        rows = "".join(f"<div><code>{esc(line)}</code></div>" for line in self.code)
        rows += "".join(f"<div><code>{esc(k)}={esc(v)}</code></div>" for k, v in self.variables.items())
        advice = f'<div style="color:{WARN};font-weight:bold">{esc(self.advice)}</div>' if self.advice else ""
        return box(f'<div>{esc(self.what)}: <b style="color:{colour}">{esc(status)}</b></div>{rows}{advice}')


_RESTART = "Restart the kernel and run this cell before anything else that uses JAX."


def gpu_memory(preallocate: bool = False, fraction: float | None = None, allocator: str | None = None) -> EnvSetting:
    """Set JAX's GPU memory policy explicitly; call before JAX starts.

    Sets ``XLA_PYTHON_CLIENT_PREALLOCATE``, ``XLA_CLIENT_MEM_FRACTION`` (the current name:
    ``XLA_PYTHON_CLIENT_MEM_FRACTION`` is deprecated, and is removed here because jaxlib
    refuses both at once) and ``XLA_PYTHON_CLIENT_ALLOCATOR``.

    ``preallocate=False`` allocates on demand (good on a shared box); ``fraction`` caps the
    share of GPU memory JAX may take (e.g. 0.5); ``allocator='platform'`` frees memory
    eagerly (slow, but exact usage). Overrides whatever was set before.
    """
    if fraction is not None and not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
    env = {PREALLOCATE: "true" if preallocate else "false"}
    if fraction is not None:
        env[MEM_FRACTION] = f"{fraction:g}"
        os.environ.pop(OLD_MEM_FRACTION, None)  # setting both names makes jaxlib raise
    if allocator is not None:
        env[ALLOCATOR] = allocator
    os.environ.update(env)
    live = not backend_initialized()
    return EnvSetting("GPU memory settings", env, live, "" if live else "JAX has already started. " + _RESTART)


def simulate_cpu_devices(n: int = 8, *, cpu_only: bool = False, strict: bool = False) -> EnvSetting:
    """Make JAX see ``n`` CPU devices, for pmap/sharding demos on one machine.

    This is ``jax.config.update("jax_num_cpu_devices", n)``, and like it must run before JAX
    starts its backend (first array or ``jax.devices()``). ``JAXDECK_DEVICES`` in the
    environment wins over ``n``, so a whole talk can be rehearsed at another device count.
    If it is too late and the count differs, this says clearly that the kernel must be
    restarted (a warning, or RuntimeError with ``strict=True``). ``cpu_only=True`` also hides
    GPUs/TPUs so that ``jax.devices()`` is the simulated CPU devices.
    """
    if int(n) < 1:
        raise ValueError(f"need at least one device, got {n!r}")
    asked = int(n)
    override = requested_devices()
    n = override or asked
    what = f"{n} simulated CPU devices" + (f" ({DEVICES_ENV}={override}, not the deck's {asked})"
                                           if override and override != asked else "")
    import jax

    if backend_initialized():
        have = len(jax.devices("cpu"))
        platform_ok = (not cpu_only) or jax.default_backend() == "cpu"
        if have == n and platform_ok:
            return EnvSetting(what, {"jax.devices('cpu')": f"{have} devices"}, True)
        msg = (f"JAX has already started with {have} CPU device(s) on backend '{jax.default_backend()}', "
               f"so simulate_cpu_devices({n}) cannot take effect. " + _RESTART)
        if strict:
            raise RuntimeError(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=2)
        return EnvSetting(what, {NUM_CPU_ENV: os.environ.get(NUM_CPU_ENV, "")}, False,
                          "Restart the kernel (Kernel → Restart), then run this cell first.")
    jax.config.update("jax_num_cpu_devices", n)
    os.environ[NUM_CPU_ENV] = str(n)  # the same for subprocesses this kernel starts
    code = [f'jax.config.update("jax_num_cpu_devices", {n})']
    if cpu_only:
        jax.config.update("jax_platforms", "cpu")
        os.environ["JAX_PLATFORMS"] = "cpu"
        code.append('jax.config.update("jax_platforms", "cpu")')
    return EnvSetting(what, {}, True, code=tuple(code))
