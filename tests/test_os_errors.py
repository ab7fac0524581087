"""An OS error a build meets (a limit of the shell, a folder it may not write) is one line naming the
file and what to do, a non-zero exit, no traceback, and nothing half-written; the shell's limits are
set for real (``ulimit`` as setrlimit in the build's process, inherited by its kernel and Chromium).
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from support import ROOT, RUN_MARK, started_by

#: a deck with slide markers (no Chromium needed for its HTML) whose one cell says that it ran
RUNS = "# Talk\n\n```python\nopen('kernel-ran', 'w').close()\nprint(6 * 7)\n```\n\n---\n\n## Two\n\nText.\n"


def build(folder: Path, *args: str, limits: dict[int, int] = {}, prefix: tuple[str, ...] = (),
          timeout: float = 300) -> tuple[subprocess.CompletedProcess, str]:
    """`python -m jaxdeck build ARGS` in ``folder`` under the shell limits ``limits`` (resource -> soft
    and hard); its IPython files in the folder (a kernel under a file-size limit would move the user's
    history aside). Returns the run and the mark every process it started carries in its environment."""
    mark = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=str(ROOT), IPYTHONDIR=str(folder / ".ipython"), **{RUN_MARK: mark})

    def limited() -> None:
        for kind, value in limits.items():
            resource.setrlimit(kind, (value, value))

    done = subprocess.run([*prefix, sys.executable, "-m", "jaxdeck", "build", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=limited)
    return done, mark


def one_line(done: subprocess.CompletedProcess) -> str:
    """The build's one error line; a warning before it (``jaxdeck: ...``: a store it could not update under the
    same limit) may be there, a traceback may not."""
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    *before, last = done.stderr.strip().splitlines()
    assert last.startswith("error: ") and all(line.startswith("jaxdeck: ") for line in before), done.stderr
    return last


def half_written(folder: Path) -> list[str]:
    return [str(p.relative_to(folder)) for p in folder.rglob("*.tmp")]


@pytest.mark.heavy
def test_a_file_size_limit_is_one_line_naming_the_file_it_stopped_and_leaves_no_partial_file(tmp_path):
    (tmp_path / "talk.md").write_text(RUNS)
    done, _ = build(tmp_path, "talk.md", limits={resource.RLIMIT_FSIZE: 100 * 1024})
    said = one_line(done)
    assert ": cannot write: File too large; " in said and "(`ulimit -f`: 100 KiB)" in said, said
    named = said.removeprefix("error: ").split(": cannot write")[0]
    assert named.startswith("build/html/") and not named.endswith(".tmp"), said  # the artefact, not its temporary
    assert half_written(tmp_path / "build") == []


@pytest.mark.heavy
def test_a_file_size_limit_too_small_for_chromium_is_one_line_before_it_starts(tmp_path):
    """Chromium's helpers die of SIGXFSZ under a small limit, and its page then never loads: said first."""
    (tmp_path / "talk.md").write_text(RUNS)
    done, mark = build(tmp_path, "--pdf", "talk.md", limits={resource.RLIMIT_FSIZE: 1000 * 1024}, timeout=120)
    said = one_line(done)
    assert said == ("error: this shell limits files to 1000 KiB (`ulimit -f`), too small for Chromium's shared "
                    "memory (64 MiB at least), so PDFs and fitted slides cannot be made; "
                    "raise it: `ulimit -f unlimited`")
    assert (tmp_path / "build" / "html" / "talk.html").is_file()  # the HTML needs no browser: it is built
    assert not (tmp_path / "build" / "pdf").exists() and half_written(tmp_path / "build") == []
    assert started_by(mark) == []


def test_an_open_file_limit_too_low_is_one_line_before_a_kernel_starts(tmp_path):
    (tmp_path / "talk.md").write_text(RUNS)
    done, mark = build(tmp_path, "talk.md", limits={resource.RLIMIT_NOFILE: 60}, timeout=120)
    assert one_line(done) == ("error: this shell lets a process open 60 files at once (`ulimit -n`), fewer than "
                              "a kernel and Chromium need (256); raise it: `ulimit -n 4096`")
    assert not (tmp_path / "kernel-ran").exists() and not (tmp_path / "build").exists()
    assert started_by(mark) == []


@pytest.mark.heavy
def test_a_folder_the_build_may_not_write_midway_is_one_line_naming_the_artefact(tmp_path):
    """As root, permissions bind only without CAP_DAC_OVERRIDE: the build runs with it dropped. The
    build folder is writable (the check before the kernel passes), the HTML's folder is not."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the build with CAP_DAC_OVERRIDE dropped")
    if not shutil.which("setpriv"):
        pytest.skip("no setpriv to drop CAP_DAC_OVERRIDE (root writes anywhere)")
    (tmp_path / "talk.md").write_text(RUNS)
    html = tmp_path / "build" / "html"
    html.mkdir(parents=True)
    html.chmod(0o555)
    try:
        done, _ = build(tmp_path, "talk.md", prefix=("setpriv", "--bounding-set=-dac_override,-dac_read_search"))
    finally:
        html.chmod(0o755)
    if done.returncode and "setpriv" in done.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {done.stderr.strip()}")
    said = one_line(done)
    assert said.startswith("error: build/html/") and ": cannot write: Permission denied; check the folder's" in said
    assert ".tmp" not in said and (tmp_path / "kernel-ran").exists()
    assert half_written(tmp_path / "build") == []


#: the OS errors a user can cause, by their names: a full or read-only disk, a limit of the shell, a folder's
#: permissions, a file where a folder goes, a link that loops
USERS = ("EROFS", "ENOSPC", "EDQUOT", "EFBIG", "EACCES", "EPERM", "EISDIR", "ENOTDIR", "EEXIST", "ENAMETOOLONG",
         "EMFILE", "ENFILE", "EIO", "ELOOP", "ESTALE")


@pytest.mark.parametrize("name", USERS)
def test_every_os_error_a_user_can_cause_is_said_with_its_file_and_what_to_do(name):
    from jaxdeck.errors import OS_ERRORS, os_error

    number = getattr(errno, name)
    said = os_error(OSError(number, os.strerror(number), "build/html/talk.html"))
    assert str(said) == (f"build/html/talk.html: {OS_ERRORS[number].doing}: {os.strerror(number)}; "
                         f"{OS_ERRORS[number].said()}")
    assert said.hint and "\n" not in str(said)


def test_an_os_error_inside_another_is_said_as_itself_and_a_bug_keeps_its_traceback():
    import zmq

    from jaxdeck.errors import os_error

    try:
        try:
            open(Path("/proc/self/no/such/file"))
        except OSError as err:
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE)) from err
    except OSError as outer:
        assert os_error(outer).message == "cannot open: Too many open files"
    assert os_error(zmq.error.ZMQError(errno.EMFILE)).message == "cannot open: Too many open files"
    try:
        try:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "build/pdf/talk.pdf")
        except OSError:
            raise RuntimeError("a library's own error, raised while it handled the OS's")
    except RuntimeError as wrapped:
        assert str(os_error(wrapped)).startswith("build/pdf/talk.pdf: cannot write: No space left on device; ")
    assert os_error(OSError(errno.ENOENT, os.strerror(errno.ENOENT), "x")) is None  # likelier a bug: a traceback
    assert os_error(ValueError("not an OS error")) is None


def test_a_deck_whose_name_is_near_the_file_systems_limit_is_one_line_saying_to_rename_it(tmp_path):
    """A deck of 245 bytes a name: its outputs' names (NAME.ipynb and the like) are at the limit of 255
    bytes a name; the line says so and what to do, and never names a temporary file."""
    name = "zz-" + "a" * 240 + ".md"
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / name).write_text("---\njupyter:\n  jaxdeck:\n    title: N\n---\n\n# N\n\ntext\n")
    done, mark = build(tmp_path, "--", f"slides/{name}")
    assert started_by(mark) == []
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert ".jdtmp-" not in lines[0] and "a" * 240 in lines[0], lines[0]
    assert lines[0].endswith("longer than the file system allows (255 bytes a name): rename the deck (or the folder) "
                             "shorter"), lines[0]
    assert not list(tmp_path.rglob("*.tmp"))
