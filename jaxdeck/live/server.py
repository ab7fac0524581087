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
(:func:`jaxdeck.execute.spec.kernel_env`: no full-memory preallocation on a shared GPU box,
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

import json
import os
import secrets
import signal
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
from jaxdeck.live.home import KERNEL_SOCKETS, check_socket_room, private_file, rise_labextensions, server_env
from jaxdeck.live.listening import LISTEN_FDS, LOOPBACK, bind, check_loopback, is_loopback
from jaxdeck.orphans import private_folder, remove_private
from jaxdeck.stop_signals import STOP
from jaxdeck.stopping import Stopped, end_tree, marked

#: where the server looks for prebuilt JupyterLab extensions besides the environment's: ours,
#: built by `make` from jaxdeck/live/extension/ (a wheel carries it built)
LABEXTENSIONS = Path(__file__).resolve().parent / "labextensions"
EXTENSION = LABEXTENSIONS / "jaxdeck-live"


#: seconds Jupyter gets to shut down with its kernels before what is left is SIGKILLed
#: (an idle kernel takes well under one; a killed kernel loses nothing a shutdown would keep)
STOP_WAIT = 2.0

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
        remove_private(self.home)

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
    token = secrets.token_urlsafe(32)
    command = [
        sys.executable, "-m", "jaxdeck.live.jupyter",
        f"--ServerApp.ip={ip}", "--ServerApp.port_retries=0",
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
    # bound here, the port chosen by the system when it is 0, and held until the server listens on these
    # very sockets: no other process can take the port while Jupyter starts (listening.py)
    sockets = bind(ip, port)
    port = sockets[0].getsockname()[1]
    command.append(f"--ServerApp.port={port}")
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
        env[LISTEN_FDS] = ",".join(str(bound.fileno()) for bound in sockets)
        with STOP.hold():  # a stop signal waits until there is a Server to stop the process by
            process = subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.DEVNULL,
                                       stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
                                       pass_fds=[bound.fileno() for bound in sockets])
            server = Server(process, ip, port, token, root, log_path, home, log_file)
        for bound in sockets:
            bound.close()  # the server's own now: once it is gone, nothing holds the port
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
                        remove_private(home)
                break
            except Stopped:
                continue
        raise
    finally:
        for bound in sockets:
            bound.close()


def last_line(path: Path) -> str:
    try:
        lines = [line for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1].strip() if lines else ""
