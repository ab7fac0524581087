"""A build writes nothing outside its build folder (the execution cache is inside it), on a shared box.

Each test gives the build a user of its own (HOME, IPython's, Jupyter's, matplotlib's and the XDG
folders, TMPDIR, all fresh and empty) and lists what is new afterwards. Before, the kernel wrote
every deck's code into ``IPYTHONDIR/profile_default/history.sqlite`` (mode 0644: anyone on the box
could read it), matplotlib its font list into the user's folders, and Chromium its crash reports.
The only store outside ``build/`` is the user's own notebook signatures (:mod:`jaxdeck.trust`),
which is what it is for, in a folder only they may enter.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from support import run_cli

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

#: where a user's tools write by default: each made a fresh empty folder for the build
USER_FOLDERS = ("HOME", "IPYTHONDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                "MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "TMPDIR")

DECK = """# Nothing outside

A deck whose code must stay in the deck and its build

---

## Code

```python
secret = "only in the deck"
print(secret)
```

---

## A chart

```python
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([1, 3, 2])
plt.show()
```
"""


@pytest.fixture
def short_tmp():
    """An empty private TMPDIR with a short path (Chromium's socket in it has a length limit)."""
    folder = tempfile.mkdtemp(prefix="jd-tmp-")
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def fresh_user(folder: Path, tmp: Path) -> dict[str, str]:
    """Every folder of USER_FOLDERS, empty and private, inside ``folder`` (TMPDIR: ``tmp``)."""
    env = {"TMPDIR": str(tmp)}
    for name in USER_FOLDERS[:-1]:
        path = folder / name.lower()
        path.mkdir(parents=True, mode=0o700)
        env[name] = str(path)
    return env


def everything(folder: Path) -> set[Path]:
    """Every file and folder below ``folder``."""
    found = set()
    for parent, folders, files in os.walk(folder):
        found.update(Path(parent) / name for name in folders + files)
    return found


def built_with_a_fresh_user(tmp_path: Path, tmp: Path, *options: str) -> tuple[dict[str, str], Path, list[Path]]:
    """Build the deck as a user with nothing in their folders: (their folders, the build folder, what is new)."""
    env = fresh_user(tmp_path / "user", tmp)
    project = tmp_path / "project"
    project.mkdir()
    (project / "talk.md").write_text(DECK, encoding="utf-8")
    before = everything(tmp_path)
    done = run_cli("build", "talk.md", *options, "--out", str(project / "build"), cwd=project, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "executed 2 cells" in done.stdout  # a kernel ran them: no cache anywhere to reuse
    return env, project / "build", sorted(everything(tmp_path) - before)


@pytest.mark.parametrize("options", [(), ("--pdf",)], ids=["kernel", "kernel-and-chromium"])
def test_a_build_leaves_new_files_only_in_its_build_folder(tmp_path, short_tmp, monkeypatch, options):
    from jaxdeck import trust
    from jaxdeck.execute.cache import ExecutionCache

    env, build, new = built_with_a_fresh_user(tmp_path, short_tmp, *options)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    signatures = trust.store()  # the user's own store of signatures, where this user's Jupyter keeps data
    outside = [p for p in new if not p.is_relative_to(build) and not p.is_relative_to(signatures)
               and p != signatures.parent]
    assert outside == [], "written outside build/: " + ", ".join(map(str, outside))
    assert not [p for p in new if p.name == "history.sqlite"]
    assert any(p.is_relative_to(ExecutionCache(build).folder) and p.suffix == ".json" for p in new)
    assert stat.S_IMODE(signatures.stat().st_mode) == 0o700
    assert list(short_tmp.iterdir()) == []  # the kernel's folder (its connection file), Chromium's profile: gone
    fonts = [p for p in new if p.name.startswith("fontlist")]  # matplotlib's, made once: kept for the next build
    assert fonts and all(p.is_relative_to(build / "cache") for p in fonts)


def test_a_kernel_of_the_live_server_keeps_no_history(tmp_path, short_tmp, monkeypatch):
    """The live server's kernels are Jupyter's own python3 kernel, started with the server's environment."""
    from jupyter_client.manager import start_new_kernel

    from jaxdeck.live.home import server_env

    user = fresh_user(tmp_path / "user", short_tmp)
    for name, value in user.items():
        monkeypatch.setenv(name, value)
    before = everything(tmp_path / "user")
    home = tmp_path / "server"
    home.mkdir(mode=0o700)
    env = server_env(home, tmp_path)
    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(tmp_path))
    try:
        reply = kc.execute_interactive("secret = 'typed live'\nimport IPython",
                                       user_expressions={"history": "get_ipython().history_manager.enabled"},
                                       timeout=60)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert reply["content"]["status"] == "ok"
    assert reply["content"]["user_expressions"]["history"]["data"]["text/plain"] == "False"
    assert not list(tmp_path.rglob("history.sqlite"))
    assert everything(tmp_path / "user") == before
