"""The environment probe's answer, remembered in build/cache/env: a later process (a prose edit's
rebuild) reuses it without a subprocess, and asks the probe again when what it is keyed on changed:
an installed JAX of another version, another interpreter, a JAX variable."""

from __future__ import annotations

import os
from importlib import metadata

import pytest

from jaxdeck.execute import fingerprint


@pytest.fixture
def probes(monkeypatch):
    """The probe's runs (none of them a subprocess here), each answering as JAX on a CPU would."""
    runs = []

    def probe():
        runs.append(1)
        return {"python": "3.12.1", "implementation": "CPython", "jax": "0.4.30", "jaxlib": "0.4.30",
                "numpy": "2.0.0", "backend": "cpu", "device_kind": "cpu", "device_count": 1}

    monkeypatch.setattr(fingerprint, "probe", probe)
    fingerprint.forget()
    yield runs
    fingerprint.forget()


def test_a_later_process_reuses_the_answer_and_a_changed_environment_asks_again(probes, tmp_path, monkeypatch):
    root = tmp_path / "build"
    first = fingerprint.environment(root)
    assert len(probes) == 1 and list((root / "cache" / "env").glob("*.json"))
    fingerprint.forget()  # as a new process
    assert fingerprint.known_environment(root) == first
    assert fingerprint.environment(root) == first and len(probes) == 1

    stock = metadata.version

    def upgraded(name):  # JAX reinstalled at another version
        return "0.9.9" if name == "jax" else stock(name)

    monkeypatch.setattr(fingerprint.metadata, "version", upgraded)
    fingerprint.forget()
    assert fingerprint.known_environment(root) is None
    fingerprint.environment(root)
    assert len(probes) == 2
    monkeypatch.setattr(fingerprint.metadata, "version", stock)

    interpreter = fingerprint.sys.executable
    monkeypatch.setattr(fingerprint.sys, "executable", str(tmp_path / "other-venv" / "bin" / "python"))
    fingerprint.forget()
    assert fingerprint.known_environment(root) is None
    fingerprint.environment(root)
    assert len(probes) == 3
    monkeypatch.setattr(fingerprint.sys, "executable", interpreter)

    flags = os.environ.get("XLA_FLAGS")
    monkeypatch.setenv("XLA_FLAGS", f"{flags or ''} --xla_cpu_enable_fast_math=false".strip())
    fingerprint.forget()
    assert fingerprint.known_environment(root) is None
    if flags is None:
        monkeypatch.delenv("XLA_FLAGS")
    else:
        monkeypatch.setenv("XLA_FLAGS", flags)
    fingerprint.forget()  # each environment's answer is kept: back to the first, no probe
    assert fingerprint.environment(root) == first and len(probes) == 3
