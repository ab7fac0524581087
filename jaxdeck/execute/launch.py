"""The deck kernel's entry point: ipykernel's own, able to say where it is when a cell runs too long.

Run as a script (``python .../launch.py -f CONNECTION``), not as part of the jaxdeck package, so
the kernel imports nothing of jaxdeck. With ``JAXDECK_STACKS=FILE`` in its environment, SIGUSR2
makes the kernel write every thread's Python stack to FILE (``faulthandler``, which answers even
while the main thread waits in native code holding no lock Python could take). A build that
gives up on a cell asks first, so the timeout names the line the kernel was on.
"""

import faulthandler
import os
import signal
import sys
from pathlib import Path

STACKS_ENV = "JAXDECK_STACKS"


def main() -> None:
    stacks = os.environ.pop(STACKS_ENV, None)
    if stacks and hasattr(signal, "SIGUSR2"):
        # kept open for the kernel's life: faulthandler writes to its descriptor from the signal handler
        stream = open(stacks, "a", encoding="utf-8")
        faulthandler.register(signal.SIGUSR2, file=stream, all_threads=True)
    # as ipykernel_launcher: this script's folder off the path; the kernel adds its working folder back
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path(__file__).resolve().parent):
        del sys.path[0]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
