"""Opening the user's browser at a URL that holds a token, without the token on any command line.

A browser is started with its URL on its command line, which every user of the box can read
with ``ps``. It is given instead a page that only this user may read, in a folder only this
user may enter, which sends it on to the URL. ``preview`` and ``present`` open their pages so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from html import escape
from pathlib import Path
from string import Template

from jaxdeck.orphans import let_go

#: the page a browser is opened at, which sends it on to the URL with the token
PAGE = Path(__file__).resolve().parent / "templates" / "open.html"


class Opener:
    """The forwarding page's private folder under the build folder ``out`` (mode 0700; under the
    build folder rather than /tmp, which a sandboxed (snap) browser cannot see), removed by
    :meth:`close`, when the server it leads to stops."""

    def __init__(self, out: Path, name: str):
        out.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f".{name}-open-", dir=out))

    def page(self, url: str, what: str) -> Path:
        """The page that sends the browser on to ``url`` (``what``: its title), created 0600."""
        page = self.folder / "open.html"
        text = Template(PAGE.read_text(encoding="utf-8")).substitute(url=escape(url, quote=True), what=escape(what))
        with os.fdopen(os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as out:
            out.write(text)
        return page

    def open(self, url: str, what: str) -> None:
        """Open the user's browser at ``url`` through :meth:`page`, from a short-lived helper process.

        A browser started by this process would be its child, and ended with it on Ctrl-C;
        started by a helper that exits at once, it belongs to the user's session instead.
        """
        helper = subprocess.Popen([sys.executable, "-c", "import sys, webbrowser; webbrowser.open(sys.argv[1])",
                                   self.page(url, what).resolve().as_uri()],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True, env={**os.environ, **let_go()})  # the browser outlives us
        try:
            helper.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a browser in the terminal, say: it runs on, and ends with the server
            pass

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
