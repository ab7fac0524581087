"""Facts about the machine the demos run on: the host's CPU, the versions, the time, the devices,
and a size chosen per backend. Reading them never changes a setting."""

from __future__ import annotations

import functools
import os
import platform
from datetime import datetime, timezone


@functools.lru_cache(maxsize=1)
def host_cpu() -> str:
    """The host CPU model and core count, e.g. ``'Intel(R) Xeon(R) Processor, 2 cores'``."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    model = model or platform.processor() or platform.machine() or "unknown CPU"
    return f"{model}, {os.cpu_count()} cores"


def versions() -> dict:
    """jax, jaxlib, numpy and Python versions (imports JAX, does not start a backend)."""
    import jax
    import jaxlib
    import numpy

    return {
        "jax": jax.__version__,
        "jaxlib": getattr(jaxlib, "__version__", "?"),
        "numpy": numpy.__version__,
        "python": platform.python_version(),
    }


def utc_now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def describe_devices(devices) -> tuple[str, str, int]:
    """(backend, device kind, count) for a collection of JAX devices."""
    devices = list(devices)
    if not devices:
        return "host", "host CPU", 0
    kinds = sorted({d.device_kind for d in devices})
    return devices[0].platform, " + ".join(kinds), len(devices)


def pick(cpu=None, gpu=None, tpu=None, *, default=None, backend: str | None = None):
    """Return the value for the current default backend, e.g. ``n = pick(cpu=2_000, gpu=20_000)``.

    A TPU falls back to the GPU value and a GPU to the TPU value; the CPU never falls back to
    an accelerator size (it would be too slow), it uses ``default`` instead.
    """
    if backend is None:
        import jax

        backend = jax.default_backend()
    kind = {"cuda": "gpu", "rocm": "gpu", "metal": "gpu"}.get(backend, backend)
    table = {"cpu": cpu, "gpu": gpu, "tpu": tpu}
    order = {"cpu": ["cpu"], "gpu": ["gpu", "tpu"], "tpu": ["tpu", "gpu"]}.get(kind, [kind])
    for key in order:
        if table.get(key) is not None:
            return table[key]
    if default is not None:
        return default
    raise ValueError(f"pick() has no value for backend '{backend}'; pass {kind}=... or default=...")
