"""A private folder is removed with its owner record last, so that one a process still writes into is swept later
instead of being kept for good; the sweep takes what is surely left behind and nothing else."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxdeck.watchdog import OWNER, UNRECORDED_S, remove_private, sweep, write_owner

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="owner records are read from /proc")


@contextlib.contextmanager
def unremovable(path: Path):
    """Inside, the file ``path`` cannot be removed: immutable for root (whom permissions do not stop), its
    folder read-only for anyone else, as a file a closing process still holds or rewrites would be."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("root needs chattr (e2fsprogs) to make a file that cannot be removed")
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if done.returncode:
            pytest.skip(f"this file system takes no immutable flag: {done.stderr.strip()}")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.parent.chmod(0o500)
        try:
            yield
        finally:
            path.parent.chmod(0o700)


@pytest.fixture
def ended_owner():
    """The pid of a process that ran long enough to be recorded, then ended: its folders are left behind."""
    holder = subprocess.Popen(["sleep", "1000"])
    yield holder
    holder.kill()
    holder.wait()


def private(tmp: Path, name: str, owner: int) -> Path:
    folder = tmp / name
    (folder / "profile" / "deep").mkdir(parents=True)
    (folder / "profile" / "deep" / "file").write_text("x")
    (folder / "connection.json").write_text("{}")
    write_owner(folder, owner)
    return folder


def test_a_private_folder_goes_whole_and_twice_is_harmless(tmp_path):
    folder = private(tmp_path, "jaxdeck-kernel-mine", os.getpid())
    assert remove_private(folder) is True
    assert not folder.exists()
    assert remove_private(folder) is True


def test_a_folder_that_cannot_be_emptied_keeps_its_record_and_a_later_sweep_removes_it(tmp_path, ended_owner):
    folder = private(tmp_path, "jaxdeck-chromium-busy", ended_owner.pid)
    held = folder / "profile" / "deep" / "file"
    with unremovable(held):
        assert remove_private(folder) is False
        assert (folder / OWNER).read_text().split()[0] == str(ended_owner.pid)  # kept, for the sweep
        assert held.exists() and not (folder / "connection.json").exists()  # the rest went
    ended_owner.kill()
    ended_owner.wait()
    assert sweep(str(tmp_path)) == [str(folder)]
    assert not folder.exists()


def test_the_sweep_leaves_a_live_owners_folder_and_a_fresh_unrecorded_one(tmp_path, ended_owner):
    live = private(tmp_path, "jaxdeck-jupyter-live", ended_owner.pid)
    fresh = tmp_path / "jaxdeck-kernel-fresh"  # its maker may be about to write the record
    forgotten = tmp_path / "jaxdeck-kernel-forgotten"  # no record, untouched for over a day
    for folder in (fresh, forgotten):
        folder.mkdir()
        (folder / "file").write_text("x")
    long_ago = time.time() - UNRECORDED_S - 60
    os.utime(forgotten, (long_ago, long_ago))
    other = tmp_path / "elsewhere-kernel"  # not a private folder by name
    other.mkdir()
    os.utime(other, (long_ago, long_ago))
    assert sweep(str(tmp_path)) == [str(forgotten)]
    assert live.exists() and fresh.exists() and other.exists()


def test_a_private_folder_swapped_for_a_link_leads_the_removal_nowhere_else(tmp_path):
    """In a temporary folder others may write (no sticky bit), the folder can be swapped for a link between
    the sweep's look and the removal: what the link points at is left whole."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    (elsewhere / "data.txt").write_text("precious")
    link = tmp_path / "jaxdeck-kernel-swapped"
    link.symlink_to(elsewhere)
    assert remove_private(link) is False
    assert (elsewhere / "data.txt").read_text() == "precious" and (elsewhere / "keep").is_dir()


@pytest.mark.timeout(30)  # a hang guard: a FIFO as the record once blocked the read for ever
def test_a_record_that_is_a_fifo_neither_blocks_nor_keeps_the_folder(tmp_path):
    folder = tmp_path / "jaxdeck-kernel-fifo"
    folder.mkdir()
    os.mkfifo(folder / OWNER)
    (folder / "file").write_text("x")
    assert remove_private(folder) is True
    assert not folder.exists()
