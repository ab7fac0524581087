"""The locked environment: ranges in pyproject.toml, exact versions in uv.lock, requirements.lock exported from it.

These run the uv that `make` bootstraps (.uv/bin/uv, the version pyproject.toml requires),
offline: nothing here downloads a package.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".uv" / "bin" / "uv"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# what `make` installs beside the package (the Makefile's OWN_EXTRAS)
OWN = ("--extra", "live", "--extra", "browser", "--extra", "dev")

pytestmark = pytest.mark.skipif(not UV.exists(), reason="no .uv/bin/uv: `make setup` bootstraps it (INSTALLER=pip does not)")


def uv(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UV_")}
    done = subprocess.run([str(UV), *args], cwd=ROOT, env=dict(env, UV_OFFLINE="1"), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"uv {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def requirements() -> list[str]:
    project = PYPROJECT["project"]
    return [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]


def test_the_package_asks_for_compatible_ranges_not_exact_versions():
    pinned = [r for r in requirements() if "==" in r]
    assert not pinned, f"exact versions belong in uv.lock, ranges in pyproject.toml: {pinned}"
    unbounded = [r for r in requirements() if not re.search(r"<\d", r) and not r.startswith(("setuptools", "pip"))]
    assert not unbounded, f"each requirement should stop below the next incompatible release: {unbounded}"


def test_the_lock_agrees_with_pyproject_and_the_bootstrapped_uv():
    uv("lock", "--check")
    version = uv("--version").stdout.split()[1]
    assert PYPROJECT["tool"]["uv"]["required-version"] == f"=={version}"
    assert f"UV_VERSION := {version}\n" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_requirements_lock_is_the_lock_exported_for_pip():
    exported = uv("export", "--frozen", *OWN, "--no-emit-project").stdout
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("#")]  # noqa: E731
    assert strip((ROOT / "requirements.lock").read_text(encoding="utf-8")) == strip(exported), \
        "requirements.lock is stale: run `make lock`"


def test_the_venv_holds_exactly_the_locked_versions():
    done = uv("sync", "--frozen", "--dry-run", *OWN)
    changes = [line for line in done.stderr.splitlines() if line.strip()[:2] in ("+ ", "- ")]
    assert not changes, "the .venv differs from uv.lock:\n" + "\n".join(changes)


@pytest.mark.parametrize("extra, plugin", [("cuda", "jax-cuda12-plugin"), ("cuda13", "jax-cuda13-plugin")])
def test_the_gpu_extras_resolve_from_the_lock_without_downloading(extra, plugin):
    done = uv("sync", "--frozen", "--dry-run", *OWN, "--extra", extra)
    jax = metadata.version("jax")  # the lock's JAX for this Python
    planned = done.stderr
    assert f"+ {plugin}=={jax}" in planned, planned
    assert re.search(r"\+ nvidia-cublas(-cu12)?==", planned), planned  # CUDA 13 drops the suffix


def test_make_installs_the_extras_the_tests_expect():
    assert f"OWN_EXTRAS := {' '.join(OWN[1::2])}\n" in (ROOT / "Makefile").read_text(encoding="utf-8")


def locked(name: str) -> dict[str, list[str]]:
    """version -> the Pythons it is locked for (its resolution markers, [] for all)."""
    return {p["version"]: p.get("resolution-markers", []) for p in
            tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))["package"] if p["name"] == name}


def test_the_range_admits_every_jax_from_the_oldest_supported_and_the_lock_has_the_newest_for_each_python():
    ranges = {Requirement(r).name: Requirement(r).specifier for r in PYPROJECT["project"]["dependencies"]}
    assert "0.10.2" in ranges["jax"] and "0.10.1" not in ranges["jax"]
    assert all(v in ranges["jax"] and v in ranges["jaxlib"] for v in ("0.11.2", "0.12.0"))
    jax = locked("jax")
    newest = max(jax, key=Version)
    assert Version(newest) >= Version("0.12"), jax
    assert any("3.12" in marker for marker in jax[newest]), jax[newest]  # JAX 0.11 and newer need Python 3.12
    assert any("< '3.12'" in marker for marker in jax.get("0.10.2", [])), jax  # the newest for Python 3.11
    assert set(locked("jaxlib")) == set(jax)
