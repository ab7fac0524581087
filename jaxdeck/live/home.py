"""The live server's private folder (``Server.home``, 0700): its settings, and the environment that keeps
Jupyter and its kernels in it.

Jupyter's config, data and runtime folders, JupyterLab's settings and workspaces, IPython's profile
and matplotlib's cache are all in the folder, not the presenter's own: RISE's settings for decks
(:data:`RISE_SETTINGS`), the front ends RISE's page leaves out (:func:`rise_labextensions`), the
token's file (:func:`private_file`), and the kernels' local sockets, whose paths must fit
(:func:`check_socket_room`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from jaxdeck.errors import DeckError
from jaxdeck.execute import kernel_env, own_folders, pools_env
from jaxdeck.stopping import MARKER

#: every kernel the server starts (the slideshow's, a rehearsal's) listens on local sockets, as a
#: build's does (:mod:`jaxdeck.execute.kernel`), not on TCP ports any user of the box could reach: each
#: kernel's sockets are named after its connection file (jupyter_client's default for ``ipc``), which
#: Jupyter writes to its runtime folder, ``runtime/`` in the server's private folder (0700)
KERNEL_SOCKETS = ("--KernelManager.transport=ipc",) if sys.platform.startswith("linux") else ()
#: the longest path a local socket may have (``sun_path``, less its closing NUL)
SOCKET_PATH_MAX = 107
#: what jupyter_client adds to the runtime folder for a kernel's socket: ``/kernel-UUID-ipc-N``
SOCKET_NAME = len("/kernel-00000000-0000-0000-0000-000000000000-ipc-10")

#: RISE defaults for decks: a theme with no web fonts (the venue may have no network),
#: slide numbers, top-aligned slides. A deck's own `rise:` header still wins.
RISE_SETTINGS = {"theme": "white", "center": False, "slideNumber": "c/t",
                 "transition": "none"}


def write_live_settings(home: Path) -> None:
    """RISE's settings, in the server's private config folders."""
    settings = home / "config" / "lab" / "user-settings" / "jupyterlab-rise"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps(RISE_SETTINGS, indent=2))
    # jupytext's front-end asks for JupyterLab ^4.6 and RISE's page carries 4.3: it has nothing
    # to add to a slideshow (the server-side contents manager does jupytext's work), so it stays off.
    labconfig = home / "config" / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": {"jupyterlab-jupytext": True}}))
    # the pages' language: English, which JupyterLab has built in. Left to the server's locale, a
    # machine with LANG=C asks for a language pack "C", and the page warns that it is not valid.
    translation = home / "config" / "lab" / "user-settings" / "@jupyterlab" / "translation-extension"
    translation.mkdir(parents=True, exist_ok=True)
    (translation / "plugin.jupyterlab-settings").write_text(json.dumps({"locale": "en"}))


#: front ends installed for JupyterLab's page that RISE's page does not load. A disabled extension's
#: code still loads (only its plugins stay off), and each asks the page's shared modules for the
#: versions of the JupyterLab it was built for (jupytext's for 4.6, the MathJax 3 extension's for
#: JupyterLab 3), which RISE's page, a JupyterLab 4.3 application, does not have: one console
#: warning per module. Neither has anything for a slideshow: the contents manager does jupytext's
#: work, and RISE's page typesets math with JupyterLab 4's own MathJax.
NOT_ON_SLIDES = ("jupyterlab-jupytext", "@jupyterlab/mathjax3-extension")


def rise_labextensions(home: Path) -> Path:
    """The federated extensions RISE's page loads: the installed ones less :data:`NOT_ON_SLIDES`, as
    links in a folder of the server's own (``RiseApp.labextensions_path``; their files are still
    served from where they are installed)."""
    from jupyter_core.paths import ENV_JUPYTER_PATH, SYSTEM_JUPYTER_PATH

    folder = home / "rise-labextensions"
    folder.mkdir(parents=True, exist_ok=True)
    extra = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    for base in [Path(p) / "labextensions" for p in [*extra, *ENV_JUPYTER_PATH, *SYSTEM_JUPYTER_PATH]]:
        for package in [*base.glob("*/package.json"), *base.glob("@*/*/package.json")]:
            name = package.parent.relative_to(base).as_posix()
            link = folder / name
            if name in NOT_ON_SLIDES or link.exists():
                continue  # left out, or found first in a folder before this one
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(package.parent.resolve(), target_is_directory=True)
    return folder


def private_file(path: Path, text: str) -> Path:
    """``text`` written to ``path``, readable and writable by this user only from the moment it exists."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as out:
        out.write(text)
    return path


def server_env(home: Path, root: Path) -> dict[str, str]:
    """The server's (and so the kernels') environment: GPU settings, and no user Jupyter config."""
    env = dict(os.environ)
    env.update(kernel_env())  # XLA_PYTHON_CLIENT_PREALLOCATE=false unless already set
    env.update(pools_env())  # no hang of a callback on a one-CPU box
    env[MARKER] = str(home)  # inherited by every kernel and all it starts: Server.stop finds them by it
    env.update(own_folders(home))  # IPython's profile (no history) and matplotlib's cache: in home, not the user's
    for name in ("config", "data", "runtime"):
        (home / name).mkdir(mode=0o700, parents=True, exist_ok=True)
    env["JUPYTER_CONFIG_DIR"] = str(home / "config")
    env["JUPYTER_DATA_DIR"] = str(home / "data")
    env["JUPYTER_RUNTIME_DIR"] = str(home / "runtime")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(home / "config" / "lab" / "user-settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(home / "config" / "lab" / "workspaces")
    write_live_settings(home)
    for name in ("JUPYTER_TOKEN", "JUPYTER_TOKEN_FILE", "JUPYTER_PASSWORD"):
        env.pop(name, None)
    # the kernel runs in the deck's folder: `import demos` must find the repository's package
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def check_socket_room(runtime: Path) -> None:
    """A DeckError when a kernel's local sockets in ``runtime`` would have paths longer than the system
    allows (a long ``TMPDIR``): said before the server starts, not as a kernel that never answers."""
    if KERNEL_SOCKETS and len(os.fsencode(runtime)) + SOCKET_NAME > SOCKET_PATH_MAX:
        raise DeckError(None, None, f"the temporary folder {runtime.parent.parent} has too long a path for "
                        "the live kernel's local sockets", "set TMPDIR to a short folder, e.g. TMPDIR=/tmp")
