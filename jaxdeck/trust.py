"""Which executed notebooks the presenter's own builds made, so that the live slideshow may show
their outputs as built (HTML, SVG, JavaScript) and sanitise any other's.

A build signs the notebook it writes with Jupyter's own notary (``nbformat.sign``: an HMAC with a
secret only this user can read) in a store of jaxdeck's own under the user's Jupyter data folder;
``present`` trusts a build's outputs only when that signature holds. A notebook from elsewhere
(``--frozen``, a ``build/`` copied from another machine, an edited file) is not signed here, and
JupyterLab shows it sanitised: its text, never its scripts.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def store() -> Path:
    """Where this user's signatures are kept (in the Jupyter data folder of the current environment)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jaxdeck-trust"


def _notary(folder: str | Path | None):
    from nbformat.sign import NotebookNotary

    folder = Path(folder) if folder else store()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return NotebookNotary(data_dir=str(folder))


def sign(nb, folder: str | Path | None = None) -> bool:
    """Record ``nb`` (as it is written) as this user's own; False when the store cannot be written."""
    try:
        _notary(folder).sign(nb)
        return True
    except Exception as err:  # a read-only home, a locked store: the talk's outputs are shown sanitised
        log.warning("jaxdeck: cannot sign %s (%s)", getattr(nb, "metadata", {}).get("title", "a notebook"), err)
        return False


def signed(nb, folder: str | Path | None = None) -> bool:
    """Whether ``nb`` is, byte for byte in what it shows, one this user's builds signed."""
    try:
        return bool(_notary(folder).check_signature(nb))
    except Exception:
        return False
