"""A Chromium that starts while the decks execute, and prints their PDFs when asked.

Playwright's objects belong to the thread that made them, so the browser lives in
its own thread for its whole life; the build hands it jobs through a queue. Starting
it at the beginning of a build hides its launch behind the kernel's work. A deck whose
page never answers ends that browser (:class:`jaxdeck.browser.Deadline`): the deck fails,
and the next deck is printed by a browser started afresh. After a stop signal the build
waits for the printer only briefly: what it waits on was killed with the browser.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from jaxdeck.decks import Outputs
from jaxdeck.stopping import stopping

#: seconds a build that is being stopped waits for the printer to close its browser
STOPPING_S = 0.5

if TYPE_CHECKING:  # the export module (and Playwright) is imported when a printer starts
    from jaxdeck.pdf.export import Printed
    from jaxdeck.pdf.layout import HandoutFlags


class BackgroundPrinter:
    """``print_pdfs(nb, html, outputs[, parts, flags])`` in a browser started in the background; ``close()``
    when done."""

    def __init__(self):
        # imported here, in the caller's thread: jupyter_client's modules import each other, and
        # imported from two threads at once (this one's and the build's) Python fails one with a deadlock
        from jaxdeck import browser
        from jaxdeck.pdf import export as pdf  # noqa: F401

        self._jobs: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="jaxdeck-printer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from jaxdeck.browser import alive, chromium
        from jaxdeck.pdf.export import export_pdfs

        try:
            while True:
                with chromium() as browser:
                    while True:
                        job = self._jobs.get()
                        if job is None:
                            return
                        nb, html, outputs, parts, flags, answer = job
                        try:
                            answer.put((True, export_pdfs(nb, html, outputs, browser=browser, parts=parts,
                                                          flags=flags)))
                        except BaseException as err:  # handed to the caller's thread
                            answer.put((False, err))
                        if not alive(browser):  # a stuck page ended it: the next deck gets a browser of its own
                            break
        except BaseException as err:  # no browser: every job gets the reason
            while (job := self._jobs.get()) is not None:
                job[-1].put((False, err))

    def print_pdfs(self, nb, html: Path, outputs: Outputs, parts: tuple[str, ...] = ("pdf", "handout"),
                   flags: HandoutFlags | None = None) -> Printed:
        """``export_pdfs`` in the printer's browser: the paths written and the seconds of each step."""
        answer: queue.Queue = queue.Queue(maxsize=1)
        self._jobs.put((nb, html, outputs, parts, flags, answer))
        ok, value = answer.get()
        if not ok:
            raise value
        return value

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=STOPPING_S if stopping() else 60)

    def __enter__(self) -> "BackgroundPrinter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
