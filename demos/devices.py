"""Which machine the talk is running on, and settings that must happen before JAX starts.

``banner()`` shows backend, devices, memory and versions; ``pick()`` scales problem sizes to
the backend; ``simulate_cpu_devices()`` prepares multi-device demos on one CPU;
``gpu_memory()`` keeps a shared GPU box usable (no full preallocation by default).

``JAXDECK_DEVICES=N`` in the environment makes every deck see N CPU devices, whatever count
the deck itself asks for: a rehearsal of how the talk behaves on a box with N accelerators.

Importing this module never starts JAX's backend: everything that must happen before the
backend exists has to be able to run first.
"""

from __future__ import annotations

import functools
import os
import platform
import sys
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ._display import GOOD, WARN, Displayable, box, esc, fmt_bytes, html_table, small

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


# ---------------------------------------------------------------------------- environment

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


# ---------------------------------------------------------------------------- facts

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


def _host_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


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


# ---------------------------------------------------------------------------- banner

@dataclass(repr=False)
class Banner(Displayable):
    """Facts about the machine the demos run on (see :func:`banner`)."""

    backend: str
    device_kind: str
    device_count: int
    memory: str
    versions: dict
    host: str
    xla_flags: str = ""
    memory_policy: str = ""
    timestamp: str = ""
    devices: list = field(default_factory=list)

    def rows(self) -> list[tuple[str, str]]:
        rows = [
            ("backend", self.backend),
            ("devices", f"{self.device_count} × {self.device_kind}"),
            ("memory", self.memory),
            ("host", self.host),
            ("versions", ", ".join(f"{k} {v}" for k, v in self.versions.items())),
        ]
        if self.memory_policy:
            rows.append(("GPU memory", self.memory_policy))
        if self.xla_flags:
            rows.append(("XLA_FLAGS", self.xla_flags))
        return rows

    def _text(self) -> str:
        width = max(len(k) for k, _ in self.rows())
        return "\n".join(f"{k.ljust(width)}  {v}" for k, v in self.rows())

    def _html(self) -> str:
        return box(html_table(["", ""], self.rows()) + small(f"as of {self.timestamp}"), title="JAX backend")


def banner() -> Banner:
    """Backend, device kind and count, memory where known, host and versions (starts JAX)."""
    import jax

    devices = jax.devices()
    backend, kind, count = describe_devices(devices)
    limits = []
    for d in devices:
        try:
            stats = d.memory_stats() or {}
        except Exception:
            stats = {}
        if stats.get("bytes_limit"):
            limits.append(stats["bytes_limit"])
    if limits:
        memory = f"{fmt_bytes(limits[0])} per device (JAX's limit)"
    else:
        memory = f"{fmt_bytes(_host_memory())} host RAM (shared by the CPU devices)"
    policy = ""
    if backend != "cpu":
        policy = f"{PREALLOCATE}={os.environ.get(PREALLOCATE, 'true (JAX default)')}"
        for name in (MEM_FRACTION, OLD_MEM_FRACTION):
            if os.environ.get(name):
                policy += f", {name}={os.environ[name]}"
    return Banner(backend=backend, device_kind=kind, device_count=count, memory=memory, versions=versions(),
                  host=host_cpu(), xla_flags=os.environ.get("XLA_FLAGS", ""), memory_policy=policy,
                  timestamp=utc_now(), devices=[str(d) for d in devices])


# ---------------------------------------------------------------------------- implicit transfers

def flagged_transfer(thunk) -> str | None:
    """Run ``thunk()`` under the caller's ``jax.transfer_guard``; the direction of the implicit
    transfer the guard refused (``"host-to-device"``, ``"device-to-host"``, ``"device-to-device"``),
    ``None`` when it ran. The guard says which only in its error's text, which this reads so a
    slide need not; any other error goes through."""
    import re

    import jax

    try:
        thunk()
    except jax.errors.JaxRuntimeError as err:
        said = re.search(r"Disallowed (\S+) transfer", str(err))
        if said is None:
            raise
        return said.group(1)
    return None


# ---------------------------------------------------------------------------- measured and chosen devices

from ._devices.balance import Balance, balance, matmul_precision_label  # noqa: E402 (they use pick, above)
