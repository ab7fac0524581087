"""The first slide's proof of where the demos ran: backend, devices, memory, host and versions."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .._display import Displayable, box, fmt_bytes, html_table, small
from .environment import MEM_FRACTION, OLD_MEM_FRACTION, PREALLOCATE
from .facts import describe_devices, host_cpu, utc_now, versions


def _host_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


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
