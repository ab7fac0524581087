import sys

# `import jupytext` also imports its Jupyter contents managers, and with them jupyter_server's (0.15 s of
# every command that reads a deck). Only the live Jupyter server uses them, and it runs in a process of
# its own (python -m jaxdeck.live.jupyter); here jupytext leaves them out, as it does where
# jupyter_server is not installed.
for _name in ("jupytext.sync_contentsmanager", "jupytext.async_contentsmanager"):
    sys.modules.setdefault(_name, None)

from jaxdeck.cli import main  # noqa: E402

sys.exit(main())
