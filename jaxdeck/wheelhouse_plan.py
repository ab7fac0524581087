"""What a wheelhouse holds for a box (:mod:`jaxdeck.wheelhouse`): the versions of ``uv.lock``, with their
hashes, of every package jaxdeck needs on the box's Python and platform, less JAX and what JAX needs
(the box's own), and less what the box already has at a version that fits.

uv resolves the set for the target (``uv pip compile --python-version --python-platform``, the lock's
versions as constraints); ``uv export`` gives each locked version's hashes. A package the set needs at a
version the lock does not have has no hash to check it by, and is refused.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from jaxdeck.errors import display_path

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".uv" / "bin" / "uv"
# the box's own: JAX and its compiled parts, whatever CUDA/ROCm/TPU plugin it has
BOX_OWN = re.compile(r"^(jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|jax-rocm\d+-(plugin|pjrt)|libtpu|nvidia-.*)$")
EXTRAS = ("live", "browser")


class WheelhouseError(Exception):
    """One line for the user: what failed and what to do."""


@dataclass(frozen=True)
class Pin:
    """A package's version in ``uv.lock`` and the hashes of its files there (``sha256:HEX``)."""

    version: str
    hashes: tuple[str, ...] = ()

    def line(self, name: str) -> str:
        """The pin as a requirements line that pip checks in ``--require-hashes`` mode."""
        return f"{name}=={self.version}" + "".join(f" --hash={h}" for h in self.hashes)


@dataclass(frozen=True)
class Target:
    """The box: its Python (``3.12``) and platform tag (``manylinux_2_28_x86_64``)."""

    python: str
    platform: str

    def _tag(self) -> tuple[int, int, str]:
        """(glibc major, glibc minor, architecture) of the manylinux tag."""
        match = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", self.platform)
        if not match:
            raise WheelhouseError(f"PLATFORM={self.platform}: give a manylinux tag such as manylinux_2_28_x86_64")
        return int(match.group(1)), int(match.group(2)), match.group(3)

    @property
    def uv_platform(self) -> str:
        """uv's spelling of the platform: ``x86_64-manylinux_2_28``."""
        major, minor, arch = self._tag()
        return f"{arch}-manylinux_{major}_{minor}"

    def markers(self) -> dict[str, str]:
        """The environment markers of the box, for the lock's per-Python and per-platform lines."""
        return {"python_version": self.python, "python_full_version": f"{self.python}.0", "sys_platform": "linux",
                "platform_system": "Linux", "platform_machine": self._tag()[2], "os_name": "posix",
                "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}

    def pip_platforms(self) -> list[str]:
        """Every platform tag a wheel for this glibc may carry (pip matches them one by one)."""
        major, minor, arch = self._tag()
        tags = [f"manylinux_{major}_{n}_{arch}" for n in range(minor, 4, -1)]
        legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
        return tags + [f"{name}_{arch}" for glibc, name in legacy.items() if minor >= glibc]


def run_tool(command: list[str], what: str, env: dict | None = None) -> str:
    """``command``'s output, run in the checkout; its failure as a WheelhouseError naming ``what`` and its last lines."""
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-3:]
        raise WheelhouseError(f"{what} failed: {' / '.join(line.strip() for line in last)}")
    return done.stdout


def _uv_env() -> dict:
    return dict(os.environ, UV_PYTHON_DOWNLOADS="never")


def requirements(extras: tuple[str, ...]) -> list[Requirement]:
    """jaxdeck's own requirements with ``extras``, less the box's own packages."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *(r for extra in extras for r in project["optional-dependencies"][extra])]
    return [r for r in map(Requirement, wanted) if not BOX_OWN.match(canonicalize_name(r.name))]


def locked(target: Target) -> dict[str, Pin]:
    """name -> version and hashes, for every package the lock installs on ``target`` with ``make``'s extras
    (``uv export`` writes every platform's; the markers of ``target`` pick its own)."""
    exported = run_tool([str(UV), "export", "--frozen", "--no-emit-project", "--no-header", "--no-annotate",
                     *(f"--extra={e}" for e in (*EXTRAS, "dev"))], "uv export", _uv_env())
    pins = {}
    # a requirement and its hashes span lines that end in a backslash
    for line in exported.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "-")):
            requirement, *hashes = (part.strip() for part in line.split("--hash="))
            requirement = Requirement(requirement)
            if requirement.marker is None or requirement.marker.evaluate(target.markers()):
                pins[canonicalize_name(requirement.name)] = Pin(str(requirement.specifier).removeprefix("=="),
                                                                tuple(hashes))
    return pins


def locked_pins(target: Target) -> dict[str, str]:
    """name -> version for every package the lock installs on ``target`` with ``make``'s extras."""
    return {name: pin.version for name, pin in locked(target).items()}


def resolve(target: Target, wanted: list[str], constraints: dict[str, str], prefer: dict[str, str],
            scratch: Path) -> dict[str, str]:
    """uv's resolution of ``wanted`` for ``target``: name -> version. ``constraints`` pin versions;
    ``prefer`` names versions to take where they fit (the box's own)."""
    (scratch / "in.txt").write_text("\n".join(wanted) + "\n", encoding="utf-8")
    (scratch / "constraints.txt").write_text("".join(f"{n}=={v}\n" for n, v in constraints.items()), encoding="utf-8")
    out = scratch / "out.txt"
    out.write_text("".join(f"{n}=={v}\n" for n, v in prefer.items()), encoding="utf-8")  # uv prefers these
    run_tool([str(UV), "pip", "compile", "--quiet", "--no-header", "--no-annotate", "--python-version", target.python,
          "--python-platform", target.uv_platform, "-c", str(scratch / "constraints.txt"), "-o", str(out),
          str(scratch / "in.txt")], f"resolving for Python {target.python} on {target.platform}", _uv_env())
    resolved = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", "-", " ")):
            requirement = Requirement(line.split(" #")[0])
            resolved[canonicalize_name(requirement.name)] = str(requirement.specifier).removeprefix("==")
    return resolved


def read_have(path: Path) -> dict[str, str]:
    """The box's packages from ``pip list --format=freeze`` (or ``pip freeze``): name -> version."""
    have = {}
    again = "on the box run `python -m pip list --format=freeze > have.txt` and copy it here as it is"
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise WheelhouseError(f"{display_path(path)}: not UTF-8 text (byte {error.object[error.start]:#x} at "
                              f"{error.start}); {again}") from None
    except OSError as error:
        raise WheelhouseError(f"{display_path(path)}: {error.strerror}; {again}") from None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line or line.startswith("-"):
            continue
        name, sep, version = (part.strip() for part in line.partition("=="))
        if not (sep and re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", name) and _version(version)):
            raise WheelhouseError(f"{path}:{number}: expected NAME==VERSION, as `python -m pip list --format=freeze` "
                                  "prints on the box")
        have[canonicalize_name(name)] = version
    return have


def _version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def plan(target: Target, extras: tuple[str, ...], have: dict[str, str], scratch: Path) -> tuple[dict, dict, list]:
    """(to download: name -> the lock's Pin, kept out as the box's JAX: name -> version, kept out as already
    on the box: names). A package to download at a version the lock does not have (one that only a box's
    own version of another asks for) has no hash to check it by: a WheelhouseError says so."""
    lock = locked(target)
    pins = {name: pin.version for name, pin in lock.items()}
    wanted = [str(r) for r in requirements(extras)]
    jax = resolve(target, [f"jax=={pins['jax']}"], {}, {}, scratch)  # what a box with JAX has
    jax_own = {n: v for n, v in jax.items() if n != "jax"} | {"jax": pins["jax"]}
    constraints = {n: v for n, v in pins.items() if n not in have and n not in jax_own}
    prefer = {n: v for n, v in have.items() if not BOX_OWN.match(n)}
    resolved = resolve(target, wanted, constraints, prefer, scratch)
    misfits = {n: pins[n] for n, v in resolved.items() if n in have and have[n] != v and n in pins}
    if misfits:  # where the box's version does not fit, the lock's (the one the tests ran with), not the newest
        resolved = resolve(target, wanted, constraints | misfits, prefer, scratch)
    on_box = {n: v for n, v in resolved.items() if n not in jax_own and have.get(n) == v}
    download = {n: v for n, v in resolved.items() if n not in jax_own and not BOX_OWN.match(n) and n not in on_box}
    unlocked = sorted(f"{n}=={v}" for n, v in download.items() if pins.get(n) != v)
    if unlocked:
        raise WheelhouseError(f"{', '.join(unlocked)}: not in uv.lock, so no hash to check the download by (the box's "
                              "packages ask for it); leave those packages out of HAVE, or add it to the project "
                              "and run `uv lock`")
    return {n: lock[n] for n in download}, jax_own, sorted(on_box)
