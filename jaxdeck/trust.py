"""Which outputs the presenter's own builds made, so that a page may show them as built (HTML, SVG,
JavaScript) and sanitise any other's (slides/README.md, "Raw HTML and outputs").

A build signs the notebook it writes, and the execution cache each entry it stores, with a secret
only this user can read: Jupyter's notary's (``nbformat.sign``), in a store of jaxdeck's own under
the user's Jupyter data folder. The digest is an HMAC of one spelling of the content (the notebook
as nbformat writes it, an entry as sorted JSON): Jupyter's own digest runs a notebook's strings
together with nothing between them, so text could move from one field into the next (a printed
``<script>`` into an HTML output) and keep the signature. A notebook's digest goes into the
notary's database; an entry carries its own. ``present`` trusts a build's outputs only when the
signature holds, and the cache reuses only entries whose signature holds. A notebook from elsewhere
(``--frozen`` with a notebook not signed here, a ``build/`` copied from another machine, an edited
file) is not signed here, and is shown sanitised: its text, never its scripts.
"""

from __future__ import annotations

import hmac
import json
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


def _digest(notary, text: str) -> str:
    return hmac.new(notary.secret, text.encode("utf-8"), notary.digestmod).hexdigest()


def _written(nb) -> str:
    """The notebook as nbformat writes it (less its transient keys): what a reader of the file gets back."""
    import nbformat

    return nbformat.writes(nb)


def _title(nb) -> str:
    return getattr(nb, "metadata", {}).get("title", "a notebook")


def sign(nb, folder: str | Path | None = None, written: str | None = None) -> bool:
    """Record ``nb`` (as it is written) as this user's own; False when the store cannot be written.

    ``written``: ``nbformat.writes(nb)``, where the caller has it already (it costs a deck's rebuild 30 ms)."""
    try:
        notary = _notary(folder)
        notary.store.store_signature(_digest(notary, written if written is not None else _written(nb)),
                                     notary.algorithm)
        return True
    except Exception as err:  # a read-only home, a locked store: the talk's outputs are shown sanitised
        log.warning("jaxdeck: cannot sign %s (%s)", _title(nb), err)
        return False


def signed(nb, folder: str | Path | None = None) -> bool:
    """Whether ``nb`` is, byte for byte as written, one this user's builds signed."""
    try:
        notary = _notary(folder)
        return bool(notary.store.check_signature(_digest(notary, _written(nb)), notary.algorithm))
    except Exception:
        return False


def signed_file(path: str | Path, folder: str | Path | None = None) -> bool:
    """Whether the notebook at ``path`` is one this user's builds signed (False when it cannot be read)."""
    import nbformat

    try:
        return signed(nbformat.read(path, as_version=4), folder)
    except Exception:
        return False


def _sorted_json(record: dict) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def signature(record: dict, folder: str | Path | None = None) -> str | None:
    """This user's signature of a JSON ``record`` (a cache entry); None when the store cannot be read."""
    try:
        return _digest(_notary(folder), _sorted_json(record))
    except Exception as err:
        log.warning("jaxdeck: cannot sign a cache entry (%s)", err)
        return None


def signature_holds(record: dict, given: object, folder: str | Path | None = None) -> bool:
    """Whether ``given`` is this user's signature of ``record``."""
    expected = signature(record, folder)
    return isinstance(given, str) and expected is not None and hmac.compare_digest(expected, given)
