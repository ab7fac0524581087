"""Where the live server listens: a loopback address, and a port jaxdeck binds once and hands to Jupyter.

A port found free and let go is free only for that moment: another process may take it while
Jupyter starts (seconds of imports), and Jupyter would then fail, or move to another port. So
:func:`bind` binds the listening sockets itself, as Jupyter would (tornado's ``bind_sockets``: both
families for ``localhost``, ``SO_REUSEADDR``), ``--port 0`` letting the system choose; the server
process inherits them (their descriptors in :data:`LISTEN_FDS`) and listens on them
(:func:`handed_sockets`, read by :mod:`jaxdeck.live.jupyter`). The port is never free between
being chosen and being served; a port the presenter chose that is taken is a one-line error.
"""

from __future__ import annotations

import ipaddress
import os
import socket

from jaxdeck.errors import DeckError

LOOPBACK = "127.0.0.1"
#: in the server's environment: the descriptors of the sockets it listens on, bound by :func:`bind`
LISTEN_FDS = "JAXDECK_LISTEN_FDS"


def is_loopback(ip: str) -> bool:
    if ip in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def bind(ip: str, port: int) -> list[socket.socket]:
    """Listening sockets on ``ip:port`` (``port`` 0: one the system chooses, the same for each family),
    bound as Jupyter binds (tornado), or a DeckError when the port is taken.

    Connections of a server stopped a moment ago, left in TIME_WAIT, do not count (``SO_REUSEADDR``);
    a socket listening on the port does."""
    from tornado.netutil import bind_sockets  # Jupyter's own: the live extra has it

    try:
        return bind_sockets(port, ip)  # as ServerApp.ip gives it to tornado ("": every address)
    except OSError:
        raise DeckError(None, None, f"port {port} on {ip} is in use",
                        "stop what uses it or pick another: make present PORT=8889 (--port 0: any free port)") from None


def check_port(ip: str, port: int) -> None:
    """A DeckError when ``port`` is taken, as :func:`bind` says it (the port is let go again)."""
    for bound in bind(ip, port):
        bound.close()


def handed_sockets() -> list[socket.socket]:
    """In the server's process: the listening sockets its starter bound (:data:`LISTEN_FDS`), taken out of
    the environment so that no kernel inherits the names; none when it was started otherwise."""
    given = os.environ.pop(LISTEN_FDS, "")
    found = []
    for fd in filter(None, given.split(",")):
        handed = socket.socket(fileno=int(fd))
        handed.setblocking(False)
        found.append(handed)
    return found


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
