"""What demo cells import: honest timing, visible tracing, jaxpr/HLO display, devices, widgets.

``import demos`` is cheap and does not start JAX: submodules load on first use
(``demos.timing``, ``demos.tracing``, ``demos.jaxpr``, ``demos.devices``, ``demos.widgets``),
so ``demos.devices.simulate_cpu_devices(8)`` can still run before JAX's backend exists.
``%load_ext demos`` adds the ``%jaxtime`` / ``%%jaxtime`` magics.
"""

import importlib

from . import devices  # noqa: F401  (applies the shared-GPU memory default before JAX starts)

__version__ = "0.6.0"

_SUBMODULES = ("timing", "tracing", "jaxpr", "devices", "widgets", "magics", "calibration")
__all__ = list(_SUBMODULES) + ["load_ipython_extension"]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'demos' has no attribute {name!r}")


def load_ipython_extension(ipython):
    """``%load_ext demos``: register ``%jaxtime`` / ``%%jaxtime``."""
    from .magics import JaxTimeMagics

    ipython.register_magics(JaxTimeMagics)
