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

import pytest

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".uv" / "bin" / "uv"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

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
    exported = uv("export", "--frozen", "--extra", "dev", "--no-emit-project").stdout
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("#")]  # noqa: E731
    assert strip((ROOT / "requirements.lock").read_text(encoding="utf-8")) == strip(exported), \
        "requirements.lock is stale: run `make lock`"


def test_the_venv_holds_exactly_the_locked_versions():
    done = uv("sync", "--frozen", "--dry-run", "--extra", "dev")
    changes = [line for line in done.stderr.splitlines() if line.strip()[:2] in ("+ ", "- ")]
    assert not changes, "the .venv differs from uv.lock:\n" + "\n".join(changes)


@pytest.mark.parametrize("extra, plugin", [("cuda", "jax-cuda12-plugin"), ("cuda13", "jax-cuda13-plugin")])
def test_the_gpu_extras_resolve_from_the_lock_without_downloading(extra, plugin):
    done = uv("sync", "--frozen", "--dry-run", "--extra", "dev", "--extra", extra)
    jax = next(p["version"] for p in tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))["package"]
               if p["name"] == "jax")
    planned = done.stderr
    assert f"+ {plugin}=={jax}" in planned, planned
    assert re.search(r"\+ nvidia-cublas(-cu12)?==", planned), planned  # CUDA 13 drops the suffix
