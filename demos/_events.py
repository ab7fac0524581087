"""Count JAX's own trace/lower/compile events while a block runs (via ``jax.monitoring``).

Timing uses this to say whether a compile really happened (or was a cache hit) and to flag
compilations that sneak into a measured loop; it is JAX reporting on itself, not a guess.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

TRACE = "/jax/core/compile/jaxpr_trace_duration"
LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"

_lock = threading.Lock()
_active: list["CompileEvents"] = []
_installed = False


def _listener(event: str, duration: float, **kwargs) -> None:
    if not _active or event not in (TRACE, LOWER, COMPILE):
        return
    name = str(kwargs.get("fun_name", "?"))
    for rec in list(_active):
        rec.events.append((event, name, float(duration)))


def _install() -> None:
    global _installed
    with _lock:
        if not _installed:
            import jax.monitoring

            jax.monitoring.register_event_duration_secs_listener(_listener)
            _installed = True


@dataclass
class CompileEvents:
    """``with CompileEvents() as ev: ...`` then ``ev.compiles``, ``ev.compiled_names``, ``ev.seconds(TRACE)``."""

    events: list = field(default_factory=list)

    def __enter__(self) -> "CompileEvents":
        _install()
        _active.append(self)
        return self

    def __exit__(self, *exc) -> None:
        if self in _active:
            _active.remove(self)

    def _of(self, kind: str) -> list:
        return [e for e in self.events if e[0] == kind]

    @property
    def compiles(self) -> int:
        return len(self._of(COMPILE))

    @property
    def compiled_names(self) -> list[str]:
        return [e[1] for e in self._of(COMPILE)]

    def seconds(self, kind: str) -> float:
        """Total duration JAX reported for one kind of event (TRACE, LOWER or COMPILE)."""
        return sum(e[2] for e in self._of(kind))
