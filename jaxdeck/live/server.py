"""Live presenting: a Jupyter server with RISE and jupytext that opens a deck as a slideshow.

The server (JupyterLab 4's server with the jupyterlab-rise and jupytext extensions) is
a subprocess bound to 127.0.0.1 with a random token, its root the repository, and
its contents manager :class:`jaxdeck.live.contents.DeckContentsManager`: the Markdown deck
opens as its slideshow notebook with the outputs of the last build, and saving in
Jupyter writes the Markdown back with plain jupytext. The slideshow URL is
``http://127.0.0.1:PORT/rise/slides/NAME.md?token=TOKEN``.

The server loads our JupyterLab extension for RISE's page from ``labextensions/`` (built by
``make`` from ``extension/``) and refuses to start without it (:func:`check_extension`).

Kernels inherit the server's environment, which gets the GPU settings the build uses
(:func:`jaxdeck.execute.kernel.kernel_env`: no full-memory preallocation on a shared GPU box,
unless the user set ``XLA_PYTHON_CLIENT_PREALLOCATE`` already). jaxdeck itself never
imports JAX: it only starts processes.

Stopping: :meth:`Server.stop` asks the server to shut down (SIGTERM: Jupyter shuts its
kernels down) and gives it :data:`STOP_WAIT` seconds; what is left then is SIGKILLed: the
descendants recorded by :meth:`Server.track` (the kernels), and the server's process group
if it still does not exit. Jupyter starts each kernel in a session of its own, so the
process group alone does not reach them, and once the server is gone they are no longer its
children either: that is why they are recorded beforehand. Last, the private temporary
folder (``Server.home``, with the token's config) is removed.

:class:`jaxdeck.stop_signals.StopSignals` (one per process, :data:`~jaxdeck.stop_signals.STOP`) turns SIGINT, SIGTERM and SIGHUP into
:class:`Stopped` so that a caller's ``finally: server.stop()`` runs; it raises at most once,
so a second signal during the shutdown cannot cut it short.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psutil

from jaxdeck.atomic import create_private
from jaxdeck.errors import DeckError, display_path
from jaxdeck.html.assets import npm_root
from jaxdeck import trust
from jaxdeck.orphans import private_folder
from jaxdeck.stop_signals import STOP
from jaxdeck.stopping import MARKER, Stopped, end_tree, marked
from jaxdeck.execute import kernel_env, own_folders, pools_env

LOOPBACK = "127.0.0.1"
#: where the server looks for prebuilt JupyterLab extensions besides the environment's: ours,
#: built by `make` from jaxdeck/live/extension/ (a wheel carries it built)
LABEXTENSIONS = Path(__file__).resolve().parent / "labextensions"
EXTENSION = LABEXTENSIONS / "jaxdeck-live"


#: every kernel the server starts (the slideshow's, a rehearsal's) listens on local sockets, as a
#: build's does (:mod:`jaxdeck.execute.kernel`), not on TCP ports any user of the box could reach: each
#: kernel's sockets are named after its connection file (jupyter_client's default for ``ipc``), which
#: Jupyter writes to its runtime folder, ``runtime/`` in the server's private folder (0700)
KERNEL_SOCKETS = ("--KernelManager.transport=ipc",) if sys.platform.startswith("linux") else ()
#: the longest path a local socket may have (``sun_path``, less its closing NUL)
SOCKET_PATH_MAX = 107
#: what jupyter_client adds to the runtime folder for a kernel's socket: ``/kernel-UUID-ipc-N``
SOCKET_NAME = len("/kernel-00000000-0000-0000-0000-000000000000-ipc-10")

#: seconds Jupyter gets to shut down with its kernels before what is left is SIGKILLed
#: (an idle kernel takes well under one; a killed kernel loses nothing a shutdown would keep)
STOP_WAIT = 2.0

def is_loopback(ip: str) -> bool:
    if ip in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def free_port(ip: str = LOOPBACK) -> int:
    with socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET) as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


def check_port(ip: str, port: int) -> None:
    """A DeckError when ``port`` is taken (Jupyter would silently move to another one).

    Bound as Jupyter (tornado) binds, with SO_REUSEADDR: connections of a server stopped a
    moment ago, left in TIME_WAIT, do not count; a socket listening on the port does.
    """
    with socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET) as s:
        if os.name == "posix":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((ip if ip not in ("", "0.0.0.0", "::") else ip, port))
        except OSError:
            raise DeckError(None, None, f"port {port} on {ip} is in use",
                            "stop what uses it or pick another: make present PORT=8889 (--port 0: any free port)") from None


def check_loopback(ip: str = LOOPBACK) -> None:
    """A DeckError when this machine cannot connect to itself on ``ip`` (its loopback interface down,
    or connections to it refused): said at once, not as a server that never answers."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    try:
        with socket.socket(family) as listening, socket.socket(family) as client:
            listening.bind((ip, 0))
            listening.listen(1)
            client.settimeout(5)
            client.connect(listening.getsockname()[:2])
    except OSError as err:
        raise DeckError(None, None, f"this machine cannot connect to itself on {ip} ({err.strerror or err}): "
                        "the loopback interface is down or blocked, so no browser could reach the server",
                        "bring it up (sudo ip link set lo up) or allow connections to 127.0.0.1") from None


@dataclass
class Server:
    """A started Jupyter server; ``stop()`` shuts it and its kernels down and removes ``home``."""

    process: subprocess.Popen
    ip: str
    port: int
    token: str
    root: Path
    log_path: Path
    home: Path
    log_file: object = field(default=None, repr=False)
    #: the server's descendants seen so far (kernels and their children); see track()
    descendants: set = field(default_factory=set, repr=False)

    @property
    def base(self) -> str:
        host = LOOPBACK if self.ip in ("0.0.0.0", "", "::") else self.ip
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"

    def relative(self, deck: str | Path) -> str:
        deck = Path(deck).resolve()
        try:
            return deck.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            raise DeckError(deck, None, "the deck is outside the folder the server serves",
                            f"put it under {self.root}") from None

    def slideshow_url(self, deck: str | Path) -> str:
        """RISE's standalone slideshow of ``deck`` (jupyterlab-rise's ``/rise/PATH`` route)."""
        return f"{self.base}/rise/{quote(self.relative(deck))}?token={self.token}"

    def api(self, path: str) -> str:
        return f"{self.base}/api/{path.lstrip('/')}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def track(self) -> None:
        """Record the server's live descendants (call it now and then, and before stopping).

        Kernels run in sessions of their own, and once the server is gone they are no longer
        its children: only this record lets :meth:`stop` find one the server left behind.
        psutil processes compare by pid and start time, so a reused pid is never mistaken.
        """
        if self.process.poll() is not None:  # exited and reaped: its pid may be another process's
            return
        try:
            children = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.Error:
            return
        self.descendants = {p for p in self.descendants if p.is_running()} | set(children)

    def stop(self, timeout: float = STOP_WAIT) -> None:
        """Stop the server and everything it started, then remove ``home``; safe to call again.

        SIGTERM to the server (Jupyter shuts its kernels down) and up to ``timeout`` seconds
        for it to exit. If it has not: SIGKILL to its recorded descendants (a kernel that does
        not go is what a shutdown waits on; the server, still alive, reaps them), a second for
        it to finish, else SIGKILL to it, its process group and what it started. Last, SIGKILL to
        every recorded descendant still alive (kernels have sessions of their own) and a wait for
        them. All three go through :func:`jaxdeck.stopping.end_tree`.
        """
        self.track()
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            if not self._exited(timeout):
                end_tree(known=self.descendants, grace=None, wait=0)
                if not self._exited(1):
                    end_tree(self.process.pid, grace=None, wait=0)
                    self.process.wait(5)
        # and what a kernel's cells started that left its tree (a double fork, a session of its own)
        end_tree(known=self.descendants | set(marked(str(self.home))), grace=None, wait=5)
        self.descendants = set()
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None
        shutil.rmtree(self.home, ignore_errors=True)

    def _exited(self, timeout: float) -> bool:
        try:
            self.process.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


#: RISE defaults for decks: a theme with no web fonts (the venue may have no network),
#: slide numbers, top-aligned slides. A deck's own `rise:` header still wins.
RISE_SETTINGS = {"theme": "white", "center": False, "slideNumber": "c/t",
                 "transition": "none"}

def check_installed() -> None:
    """A DeckError unless Jupyter's server and RISE are installed (the ``live`` extra, which `make` installs)."""
    import importlib.util

    missing = [name for name in ("jupyter_server", "jupyterlab", "jupyterlab_rise") if importlib.util.find_spec(name) is None]
    if missing:
        raise DeckError(None, None, f"the live slideshow needs JupyterLab and RISE ({', '.join(missing)} not installed)",
                        "pip install 'jaxdeck[live]' (make installs it)")


def check_extension(folder: Path | None = None) -> None:
    """A DeckError unless our built extension is in ``folder``: without it RISE would still show the
    deck, with no columns, notes, presenter keys or widgets, and nothing would say why."""
    folder = EXTENSION if folder is None else folder
    try:
        load = json.loads((folder / "package.json").read_text(encoding="utf-8"))["jupyterlab"]["_build"]["load"]
        built = (folder / load).is_file()
    except (OSError, ValueError, KeyError, TypeError):
        built = False
    if not built:
        raise DeckError(None, None, f"the live slideshow's extension is not built ({display_path(folder)})",
                        "run `make` (it builds jaxdeck/live/extension)")


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


def start_server(root: str | Path = ".", *, port: int = 0, ip: str = LOOPBACK, allow_remote: bool = False,
                 decks_dir: str = "slides", build_dir: str = "build", log_path: str | Path | None = None,
                 timeout: float = 90) -> Server:
    """Start Jupyter (RISE + jupytext + jaxdeck's contents manager) on ``ip:port`` and wait for it."""
    root = Path(root).resolve()
    if not is_loopback(ip) and not allow_remote:
        raise DeckError(None, None, f"refusing to listen on {ip}, which is not a loopback address",
                        "use an SSH port forward instead (see README), or pass --allow-remote if you really mean it")
    check_installed()
    check_extension()
    if is_loopback(ip):
        check_loopback(LOOPBACK if ip == "localhost" else ip)
    if port == 0:
        port = free_port(ip if is_loopback(ip) else LOOPBACK)
    else:
        check_port(ip, port)
    token = secrets.token_urlsafe(32)
    command = [
        sys.executable, "-m", "jaxdeck.live.jupyter",
        f"--ServerApp.ip={ip}", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}", "--ServerApp.open_browser=False",
        "--PasswordIdentityProvider.allow_password_change=False",
        "--ServerApp.contents_manager_class=jaxdeck.live.contents.DeckContentsManager",
        f"--DeckContentsManager.decks_dir={decks_dir}", f"--DeckContentsManager.build_dir={build_dir}",
        # the presenter's own signatures (the server's Jupyter folders are temporary): outputs built here
        f"--DeckContentsManager.trust_dir={trust.store()}",
        "--ServerApp.allow_remote_access=" + ("True" if allow_remote else "False"),
        f"--RiseApp.extra_labextensions_path={LABEXTENSIONS}",
        # the chalkboard's script, stylesheet and pictures at BASE/static/chalkboard/ (contents.CHALKBOARD_SCRIPT)
        f"--ServerApp.extra_static_paths={npm_root() / 'reveal.js-plugins'}",
        f"--LabApp.extra_labextensions_path={LABEXTENSIONS}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        *KERNEL_SOCKETS,
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers on GPU boxes often run as root
    home = log_file = server = None
    try:
        home = Path(private_folder("jaxdeck-jupyter-"))  # only the presenter may enter it
        log_path = Path(log_path) if log_path else home / "server.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        # the log prints the URL with its token: a new file, readable by the presenter alone from its
        # first byte (an old one at that path, which someone may hold open, is replaced, not reused)
        log_file = os.fdopen(create_private(log_path), "w", encoding="utf-8")
        env = server_env(home, root)
        check_socket_room(home / "runtime")
        command.append(f"--RiseApp.labextensions_path={rise_labextensions(home)}")
        # the token reaches the server in a file only the presenter can read, never on its command
        # line, which any user of a shared GPU box can list with `ps`
        env["JUPYTER_TOKEN_FILE"] = str(private_file(home / "token", token))
        with STOP.hold():  # a stop signal waits until there is a Server to stop the process by
            process = subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.DEVNULL,
                                       stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
            server = Server(process, ip, port, token, root, log_path, home, log_file)
        deadline = time.monotonic() + timeout
        while True:
            if not server.alive():
                reason = last_line(log_path)
                server.stop()
                raise DeckError(None, None, f"the Jupyter server stopped at start (exit {process.returncode}): {reason}",
                                "run again with --log FILE and read the log")
            try:
                request = urllib.request.Request(server.api("status"), headers={"Authorization": f"token {token}"})
                with urllib.request.urlopen(request, timeout=5) as response:
                    if response.status == 200:
                        json.load(response)
                        return server
            except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                server.stop()
                raise DeckError(None, None, f"the Jupyter server did not answer within {timeout:.0f} s",
                                "run again with --log FILE and read the log")
            time.sleep(0.25)
    except BaseException:
        # not started after all (an error, Ctrl-C, a stop signal): leave nothing behind. STOP
        # raises at most once, so a Stopped can cut this cleanup short once at most: run it again.
        while True:
            try:
                if server is not None:
                    server.stop()
                else:
                    if log_file is not None:
                        log_file.close()
                    if home is not None:
                        shutil.rmtree(home, ignore_errors=True)
                break
            except Stopped:
                continue
        raise


def last_line(path: Path) -> str:
    try:
        lines = [line for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1].strip() if lines else ""
