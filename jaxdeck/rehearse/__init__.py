"""`jaxdeck rehearse`: a dress rehearsal of the live talk on the machine that will present it.

The live slideshow (:mod:`jaxdeck.live`) is opened in headless Chromium and walked as a presenter
walks it, with the keys a presenter presses; what it finds is held in :mod:`.record`'s records:

- :mod:`.walk` drives the page: every slide and fragment in order, Shift+Enter on each code cell,
  the slide measured once its live outputs are in, at the deck's size and the projector's;
- with no browser (``--no-browser``, a GPU box with none) :mod:`.kernel_walk` runs the slideshow's notebook
  on the live server's kernel instead, through its REST API and websocket (:mod:`.kernel_channel`);
- :mod:`.compare` sets each live cell against the build's (time, errors, warnings; with no browser, the
  kinds of its outputs) and its budget;
- :mod:`.clock` estimates how long the talk runs;
- :mod:`.report` prints the table and writes ``build/rehearsal/NAME.json`` and ``NAME.html``.
"""

from jaxdeck.rehearse.record import CellRun, Fit, Problem, Rehearsal, SlideRun

__all__ = ["CellRun", "Fit", "Problem", "Rehearsal", "SlideRun"]
