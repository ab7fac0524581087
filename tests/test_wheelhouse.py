"""make wheelhouse: an offline install for a box that brings its own JAX.

The folder is made for this machine's Python and platform (uv resolves, pip downloads from the
package index), then a fresh virtual environment that holds only a JAX installs jaxdeck from it
with ``--no-index`` (and, where this user may, in a network namespace with no network at all)
and builds a deck. What the box's JAX brings is never in the folder; what the box has (``--have``)
is left out where its version fits. Every file is pinned by its hash: a download that is not the
lock's file is refused, and so is a wheel changed in the folder afterwards, by the install that
INSTALL.txt says (those tests make their wheels here and need no network).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from jaxdeck import wheelhouse, wheelhouse_plan
from jaxdeck.wheelhouse_plan import Pin, Target, WheelhouseError

ROOT = Path(__file__).resolve().parent.parent
HERE = Target(f"{sys.version_info.major}.{sys.version_info.minor}", "manylinux_2_28_x86_64")
JAX_OWN = ("jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "opt_einsum")
DECK = """\
---
title: On the box
---

# The box's own JAX

```python
import jax, jax.numpy as jnp
print("devices", jax.devices()[0].platform, float(jnp.arange(4.0).sum()))
```

```python tags=["check"]
assert jax.__version__ == "{version}", "the deck runs on the box's JAX"
```
"""


def test_a_platform_tag_stands_for_every_older_glibc_pip_may_see():
    tags = Target("3.12", "manylinux_2_28_x86_64").pip_platforms()
    assert tags[0] == "manylinux_2_28_x86_64" and "manylinux_2_17_x86_64" in tags
    assert {"manylinux2014_x86_64", "manylinux1_x86_64"} <= set(tags)
    assert Target("3.12", "manylinux_2_28_aarch64").markers()["platform_machine"] == "aarch64"


@pytest.mark.parametrize("args, said", [
    (["--with", "lve"], "no extra 'lve'; choose from live, browser"),
    (["--python-version", "312"], "give the box's Python as X.Y"),
    (["--platform", "win_amd64"], "give a manylinux tag"),
    (["--have", "no-such-file.txt"], "no such file; on the box run `python -m pip list --format=freeze"),
])
def test_a_wrong_argument_is_one_line(args, said, tmp_path, capsys):
    assert wheelhouse.main([*args, "--out", str(tmp_path / "wh")]) == 1
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "wh").exists()


def test_a_wheelhouse_is_not_written_through_a_link(tmp_path, capsys):
    """A ``build -> their folder`` another user planted: the wheels (and the pins that check them) would be
    theirs to swap before the folder is copied to the box."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (tmp_path / "build").symlink_to(theirs)
    out = tmp_path / "build" / "wheelhouse"
    assert wheelhouse.main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == (f"error: {out.parent} is a symbolic link (to {theirs}); remove it, or pass --out to a folder "
                   "of your own\n")
    assert list(theirs.iterdir()) == []


def no_network(monkeypatch) -> None:
    """uv and pip told to reach no index (and an index URL on a port nothing listens on): a run that got as
    far as resolving or downloading fails there, with another message."""
    monkeypatch.setenv("UV_OFFLINE", "1")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("UV_INDEX_URL", "http://127.0.0.1:9/simple")


def users_folder(folder: Path) -> dict[str, str]:
    """A folder of the user's (a notebook kept from a GPU box, a README): path -> text."""
    files = {"h100/talk.ipynb": "kept notebook from the GPU box\n", "README.md": "notes\n"}
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return files


def still_there(folder: Path, files: dict[str, str]) -> bool:
    return all((folder / name).read_text(encoding="utf-8") == text for name, text in files.items())


def test_an_out_folder_of_the_user_s_is_refused_before_anything_is_downloaded(tmp_path, monkeypatch):
    """``--out gpu`` for ``--out build/gpu``: the folder is the user's, not a wheelhouse to replace. Run with
    no network at all: the refusal comes before uv or pip is asked for anything."""
    precious = tmp_path / "precious"
    files = users_folder(precious)
    no_network(monkeypatch)
    done = subprocess.run(offline([sys.executable, "-m", "jaxdeck.wheelhouse", "--with", "", "--out", str(precious)]),
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == ("error: precious holds files of its own, not a wheelhouse (no .jaxdeck-wheelhouse "
                           "in it); choose a new folder for --out, or remove it\n"), done.stderr
    assert still_there(precious, files) and sorted(p.name for p in tmp_path.iterdir()) == ["precious"]


def test_out_dot_in_a_checkout_is_refused_and_nothing_is_deleted(tmp_path, monkeypatch, capsys):
    checkout = tmp_path / "talk"
    (checkout / "slides").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "Makefile"):
        shutil.copy(ROOT / name, checkout / name)
    (checkout / "slides" / "talk.md").write_text(DECK, encoding="utf-8")
    before = sorted(str(p.relative_to(checkout)) for p in checkout.rglob("*"))
    monkeypatch.chdir(checkout)
    no_network(monkeypatch)
    assert wheelhouse.main(["--with", "", "--out", "."]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: . holds files of its own, not a wheelhouse") and err.count("\n") == 1, err
    assert sorted(str(p.relative_to(checkout)) for p in checkout.rglob("*")) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["talk"]


def test_an_out_that_is_a_file_is_refused_before_anything_is_downloaded(tmp_path, monkeypatch, capsys):
    taken = tmp_path / "wheelhouse"
    taken.write_text("a file of the user's\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    no_network(monkeypatch)
    assert wheelhouse.main(["--with", "", "--out", str(taken)]) == 1
    assert wheelhouse.main(["--with", "", "--out", str(taken / "inside")]) == 1
    err = capsys.readouterr().err
    assert err == ("error: wheelhouse is a file, not a folder; choose a new folder for --out, or remove it\n" * 2), err
    assert taken.read_text(encoding="utf-8") == "a file of the user's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wheelhouse"]


def test_a_have_file_that_is_not_utf8_text_is_one_line(tmp_path, monkeypatch, capsys):
    have = tmp_path / "have.txt"
    have.write_bytes(b"\xff\xfe\x00garbage==\n===\n")
    monkeypatch.chdir(tmp_path)
    no_network(monkeypatch)
    assert wheelhouse.main(["--have", str(have), "--out", str(tmp_path / "wh")]) == 1
    err = capsys.readouterr().err
    assert err == ("error: have.txt: not UTF-8 text (byte 0xff at 0); on the box run "
                   "`python -m pip list --format=freeze > have.txt` and copy it here as it is\n"), err
    assert not (tmp_path / "wh").exists()


def test_a_have_file_line_without_a_name_or_a_version_is_named(tmp_path):
    have = tmp_path / "have.txt"
    for number, text in ((2, "numpy==2.4.6\n===\n"), (1, "jax==notaversion\n")):
        have.write_text(text, encoding="utf-8")
        with pytest.raises(WheelhouseError, match=rf"have.txt:{number}: expected NAME==VERSION"):
            wheelhouse_plan.read_have(have)


def fill_with(*names: str):
    """The filling of a wheelhouse: a wheel made here for each of ``names``, pinned (no index asked)."""
    def fill(folder: Path) -> None:
        for name in names:
            wheel(folder, name, "1.0")
        wheelhouse.pin_folder(folder)
    return fill


def test_a_previous_wheelhouse_is_replaced_whole_and_only_it(tmp_path):
    out = tmp_path / "build" / "wheelhouse"
    wheelhouse.make(out, fill_with("tinyone"))
    assert sorted(p.name for p in out.iterdir()) == [wheelhouse.MARKER, "requirements.txt",
                                                     "tinyone-1.0-py3-none-any.whl"]
    wheelhouse.make(out, fill_with("tinytwo"))  # the tool's own folder: replaced, nothing left beside it
    assert sorted(p.name for p in out.iterdir()) == [wheelhouse.MARKER, "requirements.txt",
                                                     "tinytwo-1.0-py3-none-any.whl"]
    assert [p.name for p in out.parent.iterdir()] == ["wheelhouse"]

    def fails(folder: Path) -> None:
        fill_with("tinythree")(folder)
        raise WheelhouseError("the download failed")
    with pytest.raises(WheelhouseError, match="the download failed"):
        wheelhouse.make(out, fails)  # the previous one is kept as it was
    assert (out / "tinytwo-1.0-py3-none-any.whl").is_file() and not (out / "tinythree-1.0-py3-none-any.whl").exists()
    assert [p.name for p in out.parent.iterdir()] == ["wheelhouse"]

    (out / "notes.md").write_text("the user's, put in the wheelhouse\n", encoding="utf-8")
    with pytest.raises(WheelhouseError, match=r"wheelhouse/notes.md is not the wheelhouse's; move it out of "
                                                         r"the folder, or choose a new folder for --out"):
        wheelhouse.make(out, fill_with("tinythree"))
    assert (out / "notes.md").is_file() and (out / "tinytwo-1.0-py3-none-any.whl").is_file()
    assert [p.name for p in out.parent.iterdir()] == ["wheelhouse"]


def test_a_have_file_line_that_is_not_name_version_is_named(tmp_path):
    have = tmp_path / "have.txt"
    have.write_text("numpy==2.4.6\njupyterlab\n", encoding="utf-8")
    with pytest.raises(WheelhouseError, match=r"have.txt:2: expected NAME==VERSION"):
        wheelhouse_plan.read_have(have)


@pytest.mark.heavy
def test_what_the_box_has_is_left_out_where_it_fits_and_the_box_jax_never_goes_in(tmp_path):
    pygments, pyyaml = metadata.version("pygments"), metadata.version("pyyaml")
    download, box, on_box = wheelhouse_plan.plan(HERE, ("live",), {"pygments": pygments, "pyyaml": "5.1"}, tmp_path)
    assert "pygments" in on_box and "pygments" not in download
    assert download["pyyaml"].version == pyyaml  # 5.1 is older than jaxdeck asks for: the lock's goes in
    assert {"jupyterlab", "jupyterlab-rise", "nbclient", "jupytext", "ipykernel"} <= set(download)
    assert "playwright" not in download  # the browser extra was not asked for
    assert {canonicalize_name(n) for n in JAX_OWN} <= set(box)
    assert not any(n.startswith(("jax", "nvidia-")) for n in download), download


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A wheelhouse for this machine's Python, building decks only (no extras)."""
    out = tmp_path_factory.mktemp("wheelhouse") / "wheelhouse"
    assert wheelhouse.main(["--python-version", HERE.python, "--platform", HERE.platform, "--with", "",
                            "--out", str(out)]) == 0
    return out


def jax_only_venv(folder: Path) -> Path:
    """A fresh venv whose only packages are JAX and what JAX needs (this venv's copies, seen through a .pth)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder], check=True)
    site = Path(subprocess.run([folder / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    own = folder / "jax-only"
    here = Path(sysconfig.get_paths()["purelib"])
    for name in JAX_OWN:
        dist = metadata.distribution(name)
        for entry in {Path(str(f)).parts[0] for f in dist.files or []} - {".."}:
            if (here / entry).exists() and not (own / entry).exists():
                own.mkdir(exist_ok=True)
                (own / entry).symlink_to(here / entry)
    (site / "jax-only.pth").write_text(f"{own}\n", encoding="utf-8")
    return folder / "bin" / "python"


def offline(command: list) -> list:
    """``command`` in a network namespace of its own (no network at all) where this user may make one."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n", *command]
    return command


@pytest.mark.heavy
def test_the_folder_holds_jaxdeck_and_its_packages_but_not_jax(built):
    names = {canonicalize_name(p.name.split("-")[0]) for p in built.glob("*.whl")}
    assert {"jaxdeck", "jupytext", "nbclient", "nbconvert", "ipykernel", "matplotlib"} <= names
    assert not names & {canonicalize_name(n) for n in JAX_OWN}, names
    assert not names & {"playwright", "jupyterlab", "jupyterlab-rise"}, names
    pinned = (built / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert sorted(line.split("==")[0] for line in pinned) == sorted(
        canonicalize_name(p.name.split("-")[0]) for p in built.glob("*.whl"))
    for wheel in built.glob("*.whl"):
        assert sum(f"--hash={wheelhouse.sha256(wheel)}" in line for line in pinned) == 1, wheel.name
    assert ("python -m pip install --require-hashes --no-index --find-links . -r requirements.txt"
            in (built / "INSTALL.txt").read_text(encoding="utf-8"))
    assert (built / wheelhouse.MARKER).is_file()  # the next run may replace it


@pytest.mark.heavy
def test_a_venv_with_only_jax_installs_from_it_offline_and_builds_a_deck(built, tmp_path):
    python = jax_only_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PIP_CONFIG_FILE=os.devnull)
    install = subprocess.run(offline([sys.executable, "-m", "pip", "--python", python, *documented(built)[3:],
                                      "--quiet"]), cwd=built, env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    talk = tmp_path / "talk"
    talk.mkdir()
    (talk / "box.md").write_text(DECK.replace("{version}", metadata.version("jax")), encoding="utf-8")
    done = subprocess.run(offline([python, "-m", "jaxdeck", "build", "box.md"]), cwd=talk, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "devices cpu 6.0" in (talk / "build" / "notebooks" / "box.ipynb").read_text(encoding="utf-8")
    assert (talk / "build" / "html" / "box.html").is_file()

    # what the extras bring says so in one line, naming the extra
    for verb, extra in (("pdf", "jaxdeck[browser]"), ("present", "jaxdeck[live]")):
        said = subprocess.run(offline([python, "-m", "jaxdeck", verb, "box.md", *(["--no-browser"] if verb == "present" else [])]),
                              cwd=talk, env=env, capture_output=True, text=True, timeout=120)
        assert said.returncode == 1, (verb, said.stdout, said.stderr)
        assert f"pip install '{extra}'" in said.stderr and "Traceback" not in said.stderr, (verb, said.stderr)


# ------------------------------------------------------------------ every file pinned by its hash, offline


def wheel(folder: Path, name: str, version: str, text: str = "VALUE = 1\n") -> Path:
    """A real wheel of a pure package ``name`` (one module), made here: no index is asked for it."""
    info = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": text.encode(),
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
                     f"{len(data)}\n" for path, data in files.items()) + f"{info}/RECORD,,\n"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for inner, data in {**files, f"{info}/RECORD": record.encode()}.items():
            archive.writestr(inner, data)
    return path


def documented(folder: Path) -> list[str]:
    """The install command INSTALL.txt gives, as words (``python -m pip install ...``)."""
    text = (folder / "INSTALL.txt").read_text(encoding="utf-8")
    return next(line.split() for line in text.splitlines() if line.strip().startswith("python -m pip install"))


def pip_offline() -> dict[str, str]:
    return dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PIP_CONFIG_FILE=os.devnull)


@pytest.fixture
def folder(tmp_path) -> Path:
    """A wheelhouse of two wheels made here, pinned and described as ``make wheelhouse`` does it."""
    folder = tmp_path / "wheelhouse"
    folder.mkdir()
    wheel(folder, "tinyone", "1.0")
    wheel(folder, "tinytwo", "2.5")
    wheelhouse.pin_folder(folder)
    (folder / "INSTALL.txt").write_text(wheelhouse.install_text(HERE, (), ["jax"], []), encoding="utf-8")
    return folder


def test_the_requirements_and_install_text_pin_every_wheel_by_its_hash(folder):
    pinned = (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert pinned == [f"tinyone==1.0 --hash={wheelhouse.sha256(folder / 'tinyone-1.0-py3-none-any.whl')}",
                      f"tinytwo==2.5 --hash={wheelhouse.sha256(folder / 'tinytwo-2.5-py3-none-any.whl')}"]
    assert documented(folder) == ["python", "-m", "pip", "install", "--require-hashes", "--no-index",
                                  "--find-links", ".", "-r", "requirements.txt"]


def test_a_wheel_changed_in_the_folder_is_refused_by_the_install_it_documents(folder, tmp_path):
    command = offline([sys.executable, *documented(folder)[1:]])
    done = subprocess.run([*command, "--target", tmp_path / "first"], cwd=folder, env=pip_offline(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "first" / "tinytwo" / "__init__.py").is_file()

    wheel(folder, "tinytwo", "2.5", "import os; os.system('id')\n")  # the same name, other bytes
    done = subprocess.run([*command, "--target", tmp_path / "second"], cwd=folder, env=pip_offline(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "DO NOT MATCH THE HASHES" in done.stderr and "tinytwo==2.5" in done.stderr, done.stderr
    assert not (tmp_path / "second" / "tinytwo").exists()


def test_a_download_that_is_not_the_lock_s_file_is_refused_in_one_line(tmp_path, monkeypatch):
    """Another index serves a wheel of the locked version with other bytes: pip, told the lock's hash,
    refuses it, and the wheelhouse says so in one line (a folder here stands for that index)."""
    locked = wheel(tmp_path, "tinyone", "1.0")
    pin = Pin("1.0", (wheelhouse.sha256(locked),))
    index = tmp_path / "index"
    index.mkdir()
    wheel(index, "tinyone", "1.0", "STOLEN = 1\n")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    dest = tmp_path / "wheelhouse"
    dest.mkdir()
    with pytest.raises(WheelhouseError) as refused:
        wheelhouse.download(HERE, {"tinyone": pin}, dest)
    said = str(refused.value)
    assert "tinyone==1.0 is not a file of uv.lock's" in said and "\n" not in said, said
    assert list(dest.iterdir()) == []

    shutil.copy(locked, index / locked.name)  # the lock's own file: taken
    wheelhouse.download(HERE, {"tinyone": pin}, dest)
    assert [p.name for p in dest.iterdir()] == [locked.name]


def test_a_wheel_whose_hash_is_not_the_lock_s_is_not_pinned(folder):
    lock = {"tinyone": Pin("1.0", ("sha256:" + "0" * 64,)),
            "tinytwo": Pin("2.5", (wheelhouse.sha256(folder / "tinytwo-2.5-py3-none-any.whl"),))}
    with pytest.raises(WheelhouseError, match=r"tinyone-1.0-py3-none-any.whl: its sha256 is not one of "
                                                         r"uv.lock's for tinyone==1.0; make the wheelhouse again"):
        wheelhouse.pin_folder(folder, (), lock)


def test_the_lock_gives_every_pin_its_hashes():
    pins = wheelhouse_plan.locked(HERE)
    assert {"nbclient", "jupytext", "pyyaml"} <= set(pins)
    assert all(pin.hashes and all(h.startswith("sha256:") and len(h) == 71 for h in pin.hashes)
               for pin in pins.values()), [n for n, pin in pins.items() if not pin.hashes]
