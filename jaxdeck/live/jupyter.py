"""``python -m jaxdeck.live.jupyter``: Jupyter's server, started through jaxdeck so that it
starts without jsonschema's slow IRI checker (see ``jaxdeck/__init__.py``)."""

import jaxdeck  # noqa: F401  (before anything imports jsonschema)
from jupyter_server.serverapp import main

if __name__ == "__main__":
    main()
