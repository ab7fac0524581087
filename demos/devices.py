"""Which machine the talk is running on, and settings that must happen before JAX starts.

``banner()`` shows backend, devices, memory and versions; ``pick()`` scales problem sizes to
the backend; ``simulate_cpu_devices()`` prepares multi-device demos on one CPU;
``gpu_memory()`` keeps a shared GPU box usable (no full preallocation by default).

``JAXDECK_DEVICES=N`` in the environment makes every deck see N CPU devices, whatever count
the deck itself asks for: a rehearsal of how the talk behaves on a box with N accelerators.

Importing this module never starts JAX's backend: everything that must happen before the
backend exists has to be able to run first.

This module is the public face; the pieces live in ``demos._devices``: ``environment`` (the
settings before JAX starts, applied on import), ``facts`` (host, versions, devices, ``pick``),
``banner``, ``transfers`` (:func:`flagged_transfer`) and ``balance`` (the machine's balance, measured).
"""

from __future__ import annotations

from ._devices.environment import (
    ALLOCATOR,
    DEVICES_ENV,
    MEM_FRACTION,
    NUM_CPU_ENV,
    OLD_MEM_FRACTION,
    PREALLOCATE,
    EnvSetting,
    backend_initialized,
    gpu_memory,
    requested_devices,
    simulate_cpu_devices,
)
from ._devices.balance import Balance, balance, matmul_precision_label
from ._devices.banner import Banner, banner
from ._devices.facts import describe_devices, host_cpu, pick, utc_now, versions
from ._devices.transfers import flagged_transfer

__all__ = [  # the variables' names above (PREALLOCATE, ...) are importable too
    "Balance", "Banner", "EnvSetting", "backend_initialized", "balance", "banner", "describe_devices",
    "flagged_transfer", "gpu_memory", "host_cpu", "matmul_precision_label", "pick", "requested_devices",
    "simulate_cpu_devices", "utc_now", "versions",
]
