"""The one atomic writer: whole files or the old ones, never a half-written file or a stray temporary."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

import pytest

from jaxdeck.atomic import copy_file, write_text
from jaxdeck.html.assets import install_assets


def test_copy_file_copies_bytes_and_times_and_leaves_no_temporary(tmp_path):
    source = tmp_path / "a.bin"
    source.write_bytes(os.urandom(3 << 20))
    os.utime(source, (1_600_000_000, 1_600_000_000))
    target = copy_file(source, tmp_path / "out" / "deep" / "a.bin")
    assert target.read_bytes() == source.read_bytes()
    assert target.stat().st_mtime == source.stat().st_mtime
    assert [p.name for p in target.parent.iterdir()] == ["a.bin"]


def test_a_failed_copy_keeps_the_old_file(tmp_path):
    target = write_text(tmp_path / "t.css", "old")
    with pytest.raises(FileNotFoundError):
        copy_file(tmp_path / "missing.css", target)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.css"]


def test_concurrent_copies_to_one_target_all_succeed_whole(tmp_path):
    sources = []
    for k in range(6):
        source = tmp_path / f"s{k}"
        source.write_bytes(bytes([k]) * (1 << 20))
        sources.append(source)
    target = tmp_path / "out" / "t"
    errors = []

    def copy(source):
        try:
            for _ in range(5):
                copy_file(source, target)
        except BaseException as err:  # noqa: BLE001 - collected for the assertion
            errors.append(err)

    threads = [threading.Thread(target=copy, args=(s,)) for s in sources]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    data = target.read_bytes()
    assert len(data) == 1 << 20 and len(set(data)) == 1
    assert [p.name for p in target.parent.iterdir()] == ["t"]


def test_concurrent_asset_installs_into_one_folder(tmp_path):
    errors = []

    def install():
        try:
            install_assets(tmp_path)
        except BaseException as err:  # noqa: BLE001 - collected for the assertion
            errors.append(err)

    threads = [threading.Thread(target=install) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert (tmp_path / "assets/reveal.js/dist/reveal.js").is_file()
    assert not [p for p in (tmp_path / "assets").rglob("*.tmp")]


KILLED_MID_WRITE = """
import os, signal, sys
from jaxdeck.atomic import _replacing
from pathlib import Path
with _replacing(Path(sys.argv[1])) as handle:
    handle.write(b"half of a deck " * 100_000)
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.heavy
def test_the_next_build_removes_what_a_writer_killed_mid_write_left_and_nothing_in_progress(tmp_path):
    import subprocess
    import sys

    from support import ROOT, run_cli

    (tmp_path / "talk.md").write_text("# A talk\n\nNo code.\n")
    out = tmp_path / "build"
    for target in (out / "html" / "talk.html", out / "cache" / "entry.json"):
        killed = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, str(target)], cwd=ROOT,
                                env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert killed.returncode == -9
    left = sorted(p.name for p in out.rglob("*.tmp"))
    assert len(left) == 2 and not (out / "html" / "talk.html").exists()
    # a write in progress beside the build (this process's) stays, as does a file of the user's
    (out / "html" / f".notes.txt.{os.getpid()}.jdtmp-abcd1234.tmp").write_text("being written")
    (out / "html" / "mine.tmp").write_text("not jaxdeck's")
    done = run_cli("build", "talk.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.rglob("*.tmp")) == [f".notes.txt.{os.getpid()}.jdtmp-abcd1234.tmp", "mine.tmp"]
    assert (out / "html" / "talk.html").is_file()


@contextlib.contextmanager
def mounted(folder, options: str):
    """A real tmpfs at ``folder`` (root only; skipped with the reason elsewhere), 0755 as a build folder
    of one's own is (a tmpfs is 1777 unless told: a build refuses a folder others may write in)."""
    import subprocess

    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs (a read-only or full file system)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"{options},mode=0755", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


RUNS = "# Talk\n\n```python\nopen('kernel-ran', 'w').close()\nprint(6 * 7)\n```\n"


def test_a_read_only_build_folder_is_one_line_before_the_kernel_runs(tmp_path):
    from support import run_cli

    (tmp_path / "talk.md").write_text(RUNS)
    with mounted(tmp_path / "build", "ro,size=1m"):
        done = run_cli("build", "talk.md", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: build: cannot write: Read-only file system; "
                                   "the file system is read-only: build into a writable folder with --out")
    assert not (tmp_path / "kernel-ran").exists()


@pytest.mark.heavy
def test_a_full_disk_is_one_line_and_leaves_no_partial_file(tmp_path):
    from support import run_cli

    (tmp_path / "talk.md").write_text(RUNS)
    with mounted(tmp_path / "build", "size=200k") as out:
        done = run_cli("build", "talk.md", cwd=tmp_path)
        left = [p.name for p in out.rglob("*") if p.is_file() and (p.name.endswith(".tmp") or p.stat().st_size == 0)]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().startswith("error: ") and "\n" not in done.stderr.strip()
    assert "No space left on device; free some space" in done.stderr
    assert left == []  # no half-written artefact, no temporary file


@pytest.mark.heavy
def test_a_file_where_a_build_folder_goes_is_one_line(tmp_path):
    from support import run_cli

    (tmp_path / "talk.md").write_text(RUNS)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "html").write_text("not a folder")
    done = run_cli("build", "talk.md", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.strip() == (
        "error: build/html: cannot write: Not a directory; a file is where a folder goes: remove it, "
        "or build elsewhere with --out")
    assert not (tmp_path / "kernel-ran").exists()


@pytest.mark.heavy
def test_a_folder_where_an_artefact_goes_is_one_line_naming_it(tmp_path):
    from support import run_cli

    (tmp_path / "talk.md").write_text(RUNS)
    (tmp_path / "build" / "html" / "talk.html").mkdir(parents=True)
    done = run_cli("build", "talk.md", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.strip() == (
        "error: build/html/talk.html: cannot write: Is a directory; a folder is where a file goes: remove it, "
        "or build elsewhere with --out")
    assert not list((tmp_path / "build").rglob("*.tmp"))


@pytest.mark.heavy
def test_a_build_folder_without_write_permission_is_one_line_before_the_kernel_runs(tmp_path):
    """As root, permissions bind only without CAP_DAC_OVERRIDE: the build runs with it dropped."""
    import shutil
    import subprocess
    import sys

    from support import ROOT

    (tmp_path / "talk.md").write_text(RUNS)
    (tmp_path / "build").mkdir()
    (tmp_path / "build").chmod(0o555)
    command = [sys.executable, "-m", "jaxdeck", "build", "talk.md"]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root, and no setpriv to drop CAP_DAC_OVERRIDE (root writes anywhere)")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    try:
        done = subprocess.run(command, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              capture_output=True, text=True, timeout=300)
    finally:
        (tmp_path / "build").chmod(0o755)
    if done.returncode and "setpriv" in done.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {done.stderr.strip()}")
    assert done.returncode == 1 and done.stderr.strip() == (
        "error: build: cannot write: Permission denied; check the folder's permissions, or build elsewhere with --out")
    assert not (tmp_path / "kernel-ran").exists()


def test_a_file_whose_name_is_near_the_file_systems_limit_is_written_through_a_short_temporary_name(tmp_path):
    """The temporary file is never named after its target: a target of 250 bytes, 5 short of the limit,
    is written, and a killed writer's short-named leftover is still swept."""
    from jaxdeck.atomic import MARK, sweep, write_bytes

    target = tmp_path / ("a" * 244 + ".ipynb")
    assert len(target.name.encode()) == 250
    write_bytes(target, b"whole")
    assert target.read_bytes() == b"whole"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = tmp_path / f".{int(dead.stdout)}{MARK}abcd1234.tmp"
    leftover.write_text("cut short")
    assert sweep(tmp_path) == [leftover]
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
