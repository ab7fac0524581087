"""This process's soft limits, as ``ulimit`` shows them: read by the errors that name a limit in force
(a full ``ulimit -f``, too few files) and by :mod:`jaxdeck.limits`' checks, so it imports nothing of
jaxdeck's (errors are the floor)."""

from __future__ import annotations


def soft_limit(resource: str) -> int | None:
    """This process's soft limit ``resource`` (``"nofile"``, ``"fsize"``), None when unlimited or unknown (not POSIX)."""
    try:
        import resource as rlimits
    except ImportError:
        return None
    soft, _hard = rlimits.getrlimit(getattr(rlimits, f"RLIMIT_{resource.upper()}"))
    return None if soft == rlimits.RLIM_INFINITY else soft


def said(resource: str) -> str | None:
    """The soft limit as ``ulimit`` shows it (``ulimit -f`` counts KiB), None when there is none."""
    limit = soft_limit(resource)
    if limit is None:
        return None
    return f"{limit // 1024} KiB" if resource == "fsize" else str(limit)
