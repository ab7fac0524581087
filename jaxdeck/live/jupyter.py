"""``python -m jaxdeck.live.jupyter``: Jupyter's server, started through jaxdeck so that it
starts without jsonschema's slow IRI checker (see ``jaxdeck/__init__.py``), and listens on the
sockets its starter bound for it (:mod:`jaxdeck.live.listening`)."""

import jaxdeck  # noqa: F401  (before anything imports jsonschema)
from jupyter_server.serverapp import ServerApp

from jaxdeck.live.listening import handed_sockets


class HandedServerApp(ServerApp):
    """Jupyter's server on the listening sockets handed to it, when there are: their port is the one it
    serves on, held from the moment it was chosen, so it neither looks for a free one nor binds again.
    (Both steps are ServerApp's port finding and binding, which subclasses override to the same end.)"""

    _handed: list = []

    def _find_http_port(self) -> None:
        self._handed = handed_sockets()
        if not self._handed:
            super()._find_http_port()
            return
        self.port = self._handed[0].getsockname()[1]

    def _bind_http_server_tcp(self) -> bool:
        if not self._handed:
            return super()._bind_http_server_tcp()
        self.http_server.add_sockets(self._handed)
        return True


main = HandedServerApp.launch_instance

if __name__ == "__main__":
    main()
