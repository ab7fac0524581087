"""Stage 2, execute: a slideshow notebook -> the executed notebook, from a kernel or the cache.

``kernel`` runs the cells in a real Jupyter kernel (nbclient); ``cache`` stores and reuses
outputs keyed by the code cells and the kernel's environment; ``fingerprint`` learns that
environment and the provenance recorded with every executed notebook.
"""

from __future__ import annotations

from pathlib import Path

from jaxdeck.decks import BUILD


def execute_cached(nb, deck: Path, root: Path = BUILD, *, timeout: float | None = None,
                   on_cell=None, cache: bool = True, frozen: str | Path | None = None, cpus=None):
    """The executed notebook: from frozen outputs, from the cache, or from a real kernel run
    (on the CPUs ``cpus``, when decks are built side by side; the share goes into the provenance)."""
    from jaxdeck.execute import fingerprint
    from jaxdeck.execute.cache import ExecutionCache, cache_key, reuse_outputs
    from jaxdeck.execute.kernel import execute

    if frozen is not None:
        return reuse_outputs(nb, frozen, deck)
    store = ExecutionCache(root) if cache else None
    env = fingerprint.known_environment(root)
    if env is None and store is not None and store.has_entries():
        env = fingerprint.environment(root)  # an entry may match: learn the environment before running anything
    if store is not None and env is not None:
        key, hit = store.lookup(nb, env)
        if hit is not None:
            return hit
    pending = fingerprint.Pending(root) if env is None else None  # overlaps the kernel's run
    executed = execute(nb, deck, timeout=timeout, on_cell=on_cell, cpus=cpus)
    env = env if env is not None else pending.result()
    info = executed.metadata.setdefault("jaxdeck_build", {})
    info["provenance"] = fingerprint.provenance(env, info.get("executed_at"))
    if info.get("cpu_share"):
        info["provenance"]["cpu_share"] = info["cpu_share"]
    info["cache"] = "miss" if store is not None else "off"
    if store is not None and "error" not in env:
        key = cache_key(nb, env)
        info["cache_key"] = key
        store.put(key, executed, deck=str(deck))
    return executed
