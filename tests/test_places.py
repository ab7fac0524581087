"""A build folder is the presenter's own: a link, a folder of another user's, or one that group or
others may write in, at any level a build writes in, is refused in one line before anything is
written; the folders a build makes are 0755 or stricter whatever the umask. Real builds, by the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from support import ROOT

#: every test here runs the command line on a deck, a build or two each: make test runs them, test-quick does not
pytestmark = pytest.mark.heavy

DECK = "---\ntitle: Ours\n---\n\n# A slide\n\nSome words.\n"
OTHER = ("setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups")
as_root = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                             reason="needs root and setpriv to act as another user")


def jaxdeck(folder: Path, *args: str, umask: int = 0o022, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m jaxdeck ARGS`` in ``folder`` under ``umask``, as its presenter runs it."""
    return subprocess.run([sys.executable, "-m", "jaxdeck", *args], cwd=folder, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), umask=umask, timeout=timeout)


@pytest.fixture
def talk(tmp_path) -> Path:
    (tmp_path / "talk.md").write_text(DECK, encoding="utf-8")
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    return tmp_path


def refused(done: subprocess.CompletedProcess) -> str:
    """The one line a refused build says (exit 1, no traceback)."""
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    return done.stderr.strip()


def test_a_build_folder_that_is_a_link_is_refused_and_nothing_written_through_it(talk, tmp_path_factory):
    theirs = tmp_path_factory.mktemp("theirs")
    (talk / "build").symlink_to(theirs)
    said = refused(jaxdeck(talk, "build", "talk.md"))
    assert said == (f"error: build is a symbolic link (to {theirs}); remove it, or pass --out to a folder "
                    "of your own")
    assert list(theirs.iterdir()) == []


@pytest.mark.parametrize("inside", ["html", "html/assets", "cache", "pdf"])
def test_a_folder_inside_it_that_is_a_link_is_refused(talk, tmp_path_factory, inside):
    assert jaxdeck(talk, "build", "talk.md").returncode == 0
    theirs = tmp_path_factory.mktemp("theirs")
    place = talk / "build" / inside
    if place.exists():
        shutil.rmtree(place)
    place.symlink_to(theirs)
    for verb in ("build", "pdf"):
        said = refused(jaxdeck(talk, verb, "--force", "talk.md"))
        assert said.startswith(f"error: build/{inside} is a symbolic link (to {theirs})"), said
    assert list(theirs.iterdir()) == []


@pytest.mark.parametrize("inside, mode, who", [("", 0o775, "group"), ("/notebooks", 0o757, "others"),
                                               ("/html/assets/reveal.js/dist", 0o777, "group and others")])
def test_a_folder_group_or_others_may_write_in_is_refused(talk, inside, mode, who):
    assert jaxdeck(talk, "build", "talk.md").returncode == 0
    folder = Path("build" + inside)
    (talk / folder).chmod(mode)
    said = refused(jaxdeck(talk, "build", "--force", "talk.md"))
    assert said == (f"error: {folder} is writable by {who} (mode {mode:04o}); run `chmod go-w {folder}`, "
                    "or pass --out to a folder of your own")
    (talk / folder).chmod(0o755)
    assert jaxdeck(talk, "build", "--force", "talk.md").returncode == 0


@as_root
@pytest.mark.parametrize("folder", ["build", "build/html"])
def test_a_folder_of_another_user_is_refused(talk, folder):
    assert jaxdeck(talk, "build", "talk.md").returncode == 0
    os.chown(talk / folder, 65534, -1)
    said = refused(jaxdeck(talk, "build", "--force", "talk.md"))
    assert said.startswith(f"error: {folder} is owned by another user (nobody); "), said


@as_root
def test_a_link_another_user_planted_in_a_shared_project_is_not_followed():
    """The attack itself: a project folder every user may write in, where another user (nobody) puts
    ``build -> their folder`` before the presenter's first build."""
    project = Path(tempfile.mkdtemp(prefix="jaxdeck-shared-project-"))
    theirs = Path(tempfile.mkdtemp(prefix="jaxdeck-their-folder-"))
    try:
        project.chmod(0o777)
        (project / "talk.md").write_text(DECK, encoding="utf-8")
        shutil.copy(ROOT / "jupytext.toml", project / "jupytext.toml")
        os.chown(theirs, 65534, 65534)
        planted = subprocess.run([*OTHER, "ln", "-s", str(theirs), str(project / "build")], capture_output=True,
                                 text=True)
        assert planted.returncode == 0, planted.stderr
        assert os.lstat(project / "build").st_uid == 65534
        said = refused(jaxdeck(project, "build", "talk.md"))
        assert said.startswith(f"error: build is a symbolic link (to {theirs}); "), said
        assert list(theirs.iterdir()) == []
    finally:
        shutil.rmtree(project, ignore_errors=True)
        shutil.rmtree(theirs, ignore_errors=True)


def test_the_folders_a_build_makes_are_its_own_whatever_the_umask(talk):
    """Under umask 002 (a user-private group's usual one) a build's folders are 0755 all the same, so the
    next build, which refuses folders group may write in, finds them its own."""
    for args in (("talk.md",), ("--force", "talk.md")):
        done = jaxdeck(talk, "build", *args, umask=0o002)
        assert done.returncode == 0, done.stderr
    folders = [talk / "build", *(talk / "build").rglob("*")]
    loose = [f"{p.relative_to(talk)} {p.stat().st_mode & 0o777:o}" for p in folders
             if p.is_dir() and p.stat().st_mode & 0o022]
    assert not loose
    assert (talk / "build" / "html" / "assets" / "reveal.js" / "dist").is_dir()


#: the commands that write in the build folder without a build, each as it would start and keep running
LIVE = {"present": ["present", "--no-browser", "talk.md"], "preview": ["preview", "--no-browser", "talk.md"],
        "rehearse": ["rehearse", "--no-browser", "talk.md"],
        "bench": ["bench", "--no-first-run", "--no-generated", "--no-stock", "--no-harness", "--no-make", "--no-live",
                  "talk.md"]}


def starts(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m jaxdeck ARGS``; one that runs on (a server that was not refused) is killed after 60 s, and
    what it said is returned with exit code None."""
    try:
        return jaxdeck(folder, *args, timeout=60)
    except subprocess.TimeoutExpired as ran_on:
        return subprocess.CompletedProcess(ran_on.cmd, None, ran_on.stdout or "", ran_on.stderr or "")


@pytest.mark.parametrize("command", sorted(LIVE))
def test_the_live_commands_refuse_a_build_folder_that_is_a_link_before_they_start(talk, tmp_path_factory, command):
    theirs = tmp_path_factory.mktemp("theirs")
    (talk / "build").symlink_to(theirs)
    said = refused(starts(talk, *LIVE[command]))
    assert said == (f"error: build is a symbolic link (to {theirs}); remove it, or pass --out to a folder "
                    "of your own")
    assert list(theirs.iterdir()) == []


@pytest.mark.parametrize("command, inside", [("preview", "preview"), ("rehearse", "rehearsal"), ("bench", "bench")])
def test_the_folder_a_live_command_writes_in_may_not_be_a_link(talk, tmp_path_factory, command, inside):
    theirs = tmp_path_factory.mktemp("theirs")
    (talk / "build").mkdir()
    (talk / "build" / inside).symlink_to(theirs)
    said = refused(starts(talk, *LIVE[command]))
    assert said.startswith(f"error: build/{inside} is a symbolic link (to {theirs})"), said
    assert list(theirs.iterdir()) == []
