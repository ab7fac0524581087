"""An offline install of jaxdeck for a box that brings its own JAX and CUDA (``make wheelhouse``).

A cluster's GPU node or a lab box usually has a Python with JAX and its CUDA plugin already (a
module, a container) and often no route to PyPI. This writes ``build/wheelhouse/``: the jaxdeck
wheel and every package it needs, at the versions of ``uv.lock``, as wheels for the box's Python
and platform, except JAX, jaxlib, the CUDA plugins and what JAX itself needs (NumPy, SciPy,
ml_dtypes, opt_einsum): a box with JAX has those, and the box's own are the ones that match its
CUDA. On the box, in the folder::

    python -m pip install --require-hashes --no-index --find-links . -r requirements.txt

uv resolves the set for the target (``uv pip compile --python-version --python-platform``, the
lock's versions as constraints) and pip downloads it (``--only-binary`` for the target's tags,
``--require-hashes`` with the hashes ``uv export`` gives for each locked version): a file that is
not one of the lock's is refused, whichever index served it. The folder's ``requirements.txt``
pins every wheel in it by its sha256 (the lock's; the jaxdeck wheel's as built here), so the
install on the box checks them again. ``--have FILE`` (the box's ``pip list --format=freeze``)
leaves out what the box already has at a version that fits, so the folder carries only what is
missing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from packaging.utils import parse_wheel_filename

from jaxdeck.atomic import make_folders
from jaxdeck.errors import DeckError, display_path
from jaxdeck.places import own_folder
from jaxdeck.wheelhouse_plan import EXTRAS, ROOT, UV, Pin, Target, WheelhouseError, plan, read_have, run_tool

OUT = ROOT / "build" / "wheelhouse"
#: the folder's list of its wheels, each pinned by its sha256 (what INSTALL.txt installs from)
REQUIREMENTS = "requirements.txt"
#: written into every wheelhouse this makes: only a folder that has it (and nothing but wheels and the files
#: below) is replaced by the next run; any other folder at --out is the user's, and refused
MARKER = ".jaxdeck-wheelhouse"
OWN_FILES = (MARKER, REQUIREMENTS, "INSTALL.txt")


def download(target: Target, pins: dict[str, Pin], folder: Path) -> None:
    """pip download of exactly ``pins``, binary wheels for ``target``, no dependencies of their own, each
    file checked against the lock's hashes (``--require-hashes``): one that is not the lock's is refused."""
    requirements_file = folder.parent / f".{folder.name}.requirements.txt"
    requirements_file.write_text("".join(pin.line(n) + "\n" for n, pin in sorted(pins.items())), encoding="utf-8")
    what = f"downloading wheels for Python {target.python} on {target.platform}"
    try:
        platforms = [arg for tag in target.pip_platforms() for arg in ("--platform", tag)]
        env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                   "--require-hashes", "--python-version", target.python, "--implementation", "cp", *platforms,
                   "--dest", str(folder), "-r", str(requirements_file)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            mismatch = hash_mismatch(done.stderr)
            if mismatch:
                raise WheelhouseError(f"{what}: {mismatch} is not a file of uv.lock's (its sha256 is none of the "
                                      "lock's): the index served another file at that version; use the index the "
                                      "lock was made from (PIP_INDEX_URL), or if the lock is out of date run `uv lock`")
            run_tool(command, what, env)  # says the failure as any other
    finally:
        requirements_file.unlink(missing_ok=True)


def hash_mismatch(said: str) -> str | None:
    """From pip's report of files whose hash is not among a requirement's, the first such
    requirement (``name==version``), or None when pip said no such thing."""
    if "DO NOT MATCH THE HASHES" not in said:
        return None
    found = re.search(r"^\s+(\S+==\S+)", said.split("DO NOT MATCH THE HASHES", 1)[1], re.MULTILINE)
    return found.group(1) if found else "a wheel"


def sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return "sha256:" + hashlib.file_digest(handle, "sha256").hexdigest()


def pin_folder(folder: Path, extras: tuple[str, ...] = (), lock: dict[str, Pin] | None = None) -> Path:
    """``folder/requirements.txt``: every wheel in ``folder`` pinned by its version and sha256 (jaxdeck's
    with ``extras``), for ``pip install --require-hashes``. With ``lock``, each wheel's hash must be one of
    the lock's for its version (pip checked it as it downloaded): a file swapped in since is refused."""
    lines = []
    for wheel in sorted(folder.glob("*.whl")):
        name, version, _, _ = parse_wheel_filename(wheel.name)
        digest = sha256(wheel)
        if lock is not None and name != "jaxdeck" and (name not in lock or digest not in lock[name].hashes):
            raise WheelhouseError(f"{display_path(wheel)}: its sha256 is not one of uv.lock's for {name}=={version}; "
                                  "make the wheelhouse again")
        shown = f"jaxdeck[{','.join(extras)}]" if name == "jaxdeck" and extras else name
        lines.append(Pin(str(version), (digest,)).line(shown))
    return _write(folder / REQUIREMENTS, "".join(line + "\n" for line in lines))


def install_text(target: Target, extras: tuple[str, ...], box, on_box) -> str:
    """INSTALL.txt: how the box installs from the folder, every file checked by its hash, with no network."""
    extra = f"[{','.join(extras)}]" if extras else ""
    return (f"jaxdeck{extra} for Python {target.python} on {target.platform}, offline.\n"
            "Into the box's environment (or a venv made with --system-site-packages, so the box's JAX is seen),\n"
            f"from this folder; pip checks every wheel against the sha256 that {REQUIREMENTS} gives it and refuses\n"
            "one that differs:\n\n"
            f"    python -m pip install --require-hashes --no-index --find-links . -r {REQUIREMENTS}\n\n"
            f"Left out, the box's own: {', '.join(sorted(box))} and its CUDA plugins\n"
            + (f"Left out, already on the box: {', '.join(on_box)}\n" if on_box else ""))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def build_wheel(folder: Path) -> Path:
    """The jaxdeck wheel of this checkout (theme, npm files and the built live extension inside)."""
    before = set(folder.glob("jaxdeck-*.whl"))
    run_tool([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
          "--wheel-dir", str(folder), str(ROOT)], "building the jaxdeck wheel (run `make setup` first)")
    made = set(folder.glob("jaxdeck-*.whl")) - before
    return made.pop()


def check_out(out: Path) -> None:
    """Refuse an ``out`` that making the wheelhouse afresh would delete something of the user's in: a file, or
    a folder that holds anything but a wheelhouse this made (its marker, its wheels, its two text files). An
    empty folder, or none, is fine."""
    for path in (out.parent, out):
        if (path.exists() or path.is_symlink()) and not path.is_dir():
            raise WheelhouseError(f"{display_path(path)} is a file, not a folder; choose a new "
                                  "folder for --out, or remove it")
    if not out.is_dir():
        return
    try:
        found = list(out.iterdir())
    except OSError as error:
        raise WheelhouseError(f"{display_path(out)}: {error.strerror}; choose a new folder for --out") from None
    if found and not (out / MARKER).is_file():
        raise WheelhouseError(f"{display_path(out)} holds files of its own, not a wheelhouse (no {MARKER} in it); "
                              "choose a new folder for --out, or remove it")
    for path in sorted(found):
        if path.is_symlink() or not path.is_file() or not (path.name in OWN_FILES or path.suffix == ".whl"):
            raise WheelhouseError(f"{display_path(path)} is not the wheelhouse's; move it out of the folder, or "
                                  "choose a new folder for --out")


def make(out: Path, fill: Callable[[Path], None]) -> None:
    """Make the wheelhouse ``out``: ``fill`` writes it in a folder beside ``out``, which then takes the place of
    the previous one (:func:`check_out` says which may be replaced), so that a failure keeps the previous
    one whole and nothing but a wheelhouse this made is ever deleted."""
    check_out(out)
    make_folders(out.parent)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    old, moved = None, False
    try:
        fill(staging)
        _write(staging / MARKER, "A wheelhouse made by `python -m jaxdeck.wheelhouse`: its next run replaces this "
                                 "folder whole. See INSTALL.txt.\n")
        check_out(out)  # again: nothing put there while it downloaded is deleted
        if out.is_dir():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
            out.rename(old)  # over the empty folder just made
            moved = True
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if moved and not out.exists():
            old.rename(out)
        elif old is not None:
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write(target: Target, extras: tuple[str, ...], have_file: Path | None, out: Path = OUT) -> str:
    """Make ``out`` afresh (built beside it, then moved into place); returns the summary line."""
    have = read_have(have_file) if have_file else {}
    for folder in (out.parent, out):  # none another user could swap a wheel (and its pin) in
        try:
            own_folder(folder)
        except DeckError as refused:
            raise WheelhouseError(str(refused)) from None
    check_out(out)  # before anything is resolved or downloaded
    found = {}

    def fill(staging: Path) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            found["pins"], found["box"], found["on_box"] = plan(target, extras, have, Path(scratch))
        download(target, found["pins"], staging)
        build_wheel(staging)
        pin_folder(staging, extras, found["pins"])
        _write(staging / "INSTALL.txt", install_text(target, extras, found["box"], found["on_box"]))

    make(out, fill)
    box, on_box = found["box"], found["on_box"]
    extra = f"[{','.join(extras)}]" if extras else ""
    wheels = sorted(out.glob("*.whl"))
    size = sum(w.stat().st_size for w in wheels)
    return (f"{display_path(out)}: {len(wheels)} wheels, {size / 1e6:.1f} MB, jaxdeck{extra} for Python {target.python} "
            f"on {target.platform}; left out: JAX ({', '.join(sorted(box))})"
            + (f" and {len(on_box)} packages the box has" if on_box else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxdeck.wheelhouse", description=__doc__.split("\n\n")[0])
    parser.add_argument("--python-version", default="3.12", help="the box's Python, X.Y (default 3.12)")
    parser.add_argument("--platform", default="manylinux_2_28_x86_64",
                        help="the box's platform tag (default manylinux_2_28_x86_64: glibc 2.28 or newer, x86-64)")
    parser.add_argument("--with", dest="extras", default=",".join(EXTRAS),
                        help="extras to include, comma-separated: live (present, rehearse), browser (PDFs, check, "
                             "rehearse: Playwright, 53 MB, for a box with a Chromium); default live,browser; '' for "
                             "building decks only")
    parser.add_argument("--have", type=Path, help="the box's `python -m pip list --format=freeze`: what it has is left out")
    parser.add_argument("--out", type=Path, default=OUT, help="the folder to write (default build/wheelhouse)")
    args = parser.parse_args(argv)
    extras = tuple(e for e in (x.strip() for x in args.extras.split(",")) if e)
    try:
        unknown = [e for e in extras if e not in EXTRAS]
        if unknown:
            raise WheelhouseError(f"WITH={args.extras}: no extra {unknown[0]!r}; choose from {', '.join(EXTRAS)}")
        if not re.fullmatch(r"3\.\d+", args.python_version):
            raise WheelhouseError(f"PYTHON_VERSION={args.python_version}: give the box's Python as X.Y, e.g. 3.12")
        if args.have and not args.have.is_file():
            raise WheelhouseError(f"HAVE={args.have}: no such file; on the box run "
                                  "`python -m pip list --format=freeze > have.txt` and copy it here")
        if not UV.exists():
            raise WheelhouseError("no .uv/bin/uv: run `make setup` first")
        target = Target(args.python_version, args.platform)
        target.pip_platforms()  # a wrong tag said before anything is resolved
        print(write(target, extras, args.have, args.out.absolute()))  # not resolved: a link in it is refused
    except WheelhouseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
