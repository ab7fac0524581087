"""``jaxdeck present --stop``: the detached present recorded in the build folder (:mod:`jaxdeck.live.detached`)
stopped, with its server and kernels, or, when it was killed, the server it left running.

A recorded pid is signalled only while its start time still matches (:class:`~jaxdeck.live.identity.Identity`):
a record outlives its process, and the pid goes to another. SIGTERM to the present stops the server and
its kernels as Ctrl-C would; a killed present's server gets SIGTERM, then SIGKILL with its kernels and
what they started, and its private folder (the one it was started with, and only that) is removed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from pathlib import Path

from jaxdeck.errors import DeckError
from jaxdeck.live.detached import command, holder, private_folder, read, state_path
from jaxdeck.live.identity import Identity
from jaxdeck.orphans import remove_private
from jaxdeck.stopping import MARKER, end_tree, marked

#: how the server's private folder is named (tempfile.mkdtemp in jaxdeck.live.server.start_server)
HOME_PREFIX = "jaxdeck-jupyter-"
#: seconds the Jupyter server of a killed present gets to shut its kernels down before SIGKILL
SERVER_WAIT = 5.0


def stop(out: Path, timeout: float = 60) -> str:
    """Stop the detached ``present`` recorded under ``out`` (or the server it left when it was killed); what it did."""
    out = Path(out)
    nothing = DeckError(None, None, "no detached present is running here", f"start one: {command('--detach', out=out)}")
    if private_folder(out, create=False) is None:
        raise nothing
    try:
        state = read(out)
    except DeckError as err:
        state_path(out).unlink(missing_ok=True)
        said = err.message.replace("is stale", "was stale")
        raise DeckError(err.path, None, f"{said}; signalled nothing, removed it",
                        f"if a present still runs, end it by hand; start one: {command('--detach', out=out)}") from None
    if state is None:
        starting = holder(out)
        if starting is None:
            raise nothing
        return f"stopped the detached present (pid {stop_present(starting, timeout, out)}) as it started"
    if state.present.alive():
        stop_present(state.present, timeout, out)
        if state.server is not None and state.server.alive():  # not expected: the present stops its server
            stop_server(state.server, state.home)
        state_path(out).unlink(missing_ok=True)
        return f"stopped the detached present (pid {state.present.pid}), its server and its kernels"
    if state.server is not None and state.server.alive():
        stop_server(state.server, state.home)
        state_path(out).unlink(missing_ok=True)
        return (f"the detached present (pid {state.present.pid}) had been killed: stopped the Jupyter server it left "
                f"running (pid {state.server.pid}) and its kernels")
    state_path(out).unlink(missing_ok=True)
    raise DeckError(state_path(out), None, f"no detached present is running here: the record was stale (pid "
                                           f"{state.present.pid} is gone or is another process now); "
                                           "signalled nothing, removed it",
                    f"start one: {command('--detach', out=out)}")


def stop_present(present: Identity, timeout: float, out: Path) -> int:
    """SIGTERM to the detached present (it stops its server and kernels as on Ctrl-C) and a wait for it; its pid."""
    import psutil

    process = present.process()
    if process is None:
        return present.pid
    with contextlib.suppress(psutil.NoSuchProcess):
        process.send_signal(signal.SIGTERM)  # as `kill` would: the server and its kernels stop, its folder goes
    if not present.gone(timeout):
        raise DeckError(None, None, f"the detached present (pid {present.pid}) did not stop within {timeout:.0f} s",
                        f"end it by hand: kill -9 {present.pid}, then {command('--stop', out=out)} for its server")
    return present.pid


def stop_server(server: Identity, home: str | None) -> None:
    """Stop the Jupyter server a killed present left: SIGTERM (it shuts its kernels down), then SIGKILL to
    what is left of it, of its kernels and of what they started; last, its private folder."""
    import psutil

    process = server.process()
    if process is None:
        return
    try:
        own_home = process.environ().get(MARKER)  # the folder it was started with: only that one is removed
        kernels = process.children(recursive=True)
    except psutil.Error:
        own_home, kernels = None, []
    own_home = own_home if own_home and own_home == home and Path(own_home).name.startswith(HOME_PREFIX) else None
    with contextlib.suppress(psutil.Error):
        process.send_signal(signal.SIGTERM)
    server.gone(SERVER_WAIT)
    escaped = marked(own_home) if own_home else []
    end_tree(process if process.is_running() else None, known=[*kernels, *escaped], grace=None, wait=5)
    if own_home:
        with contextlib.suppress(OSError):
            info = os.lstat(own_home)
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
                remove_private(own_home)
