"""The kernel a deck runs in, as jupyter_client starts it: this interpreter's ipykernel through
``launch.py``, its environment (the device count, XLA's pools, no GPU preallocation) and the private
folders its libraries write in. The build's kernel (:mod:`jaxdeck.execute.kernel`) and the live
server's (:mod:`jaxdeck.live.server`) are started from it alike."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from jaxdeck.errors import DeckError
from jaxdeck.stopping import MARKER

KERNEL_NAME = "jaxdeck"
#: the kernel's entry point (ipykernel's, able to tell where it is stuck) and where it writes its stacks
LAUNCHER = Path(__file__).with_name("launch.py")
STACKS_ENV, STACKS_FILE = "JAXDECK_STACKS", "stacks.txt"


#: IPython keeps no history of what a deck's kernel runs (a world-readable ``history.sqlite`` in the
#: user's home otherwise): the deck's code is in the deck and its build, nowhere else
NO_HISTORY = "--HistoryManager.enabled=False"


def quiet_ipython(folder: str | Path) -> Path:
    """An IPython folder inside ``folder`` whose kernels keep no history: the setting is in the profile's
    kernel config, so it holds for kernels whose command line is not ours too (the live server's)."""
    from jaxdeck.atomic import write_text

    ipython = Path(folder) / "ipython"
    write_text(ipython / "profile_default" / "ipython_kernel_config.json",
               json.dumps({"HistoryManager": {"enabled": False}}))
    return ipython


def own_folders(folder: str | Path, caches: str | Path | None = None) -> dict[str, str]:
    """Environment that keeps what a kernel's libraries write inside ``folder`` (the kernel's own,
    private and removed with it) rather than the user's home: IPython's profile, and matplotlib's
    font cache, in ``caches`` when given (the build's cache: made once, kept between builds).

    Neither library then reads the user's own settings (IPython startup files, a matplotlibrc in
    the home folder; one beside the deck still counts): a deck runs alike for anyone who builds it.
    """
    home = Path(caches).resolve() if caches else Path(folder)  # the kernel runs in the deck's folder
    return {"IPYTHONDIR": str(quiet_ipython(folder)), "MPLCONFIGDIR": str(home / "matplotlib")}


#: the device count every deck is run at, whatever it asks for (``demos.devices`` reads it too)
DEVICES_ENV = "JAXDECK_DEVICES"


def requested_devices() -> int | None:
    """``JAXDECK_DEVICES`` as a count, None when unset; a DeckError when it is not a count."""
    raw = os.environ.get(DEVICES_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise DeckError(None, None, f"{DEVICES_ENV} must be a whole number of devices from 1 up, got {raw!r}",
                        f"e.g. {DEVICES_ENV}=8 to run every deck on 8 simulated devices, or unset it")
    return int(raw)


def kernel_env() -> dict[str, str]:
    """Environment additions for the kernel: a shared GPU box is never fully preallocated, and
    ``JAXDECK_DEVICES=N`` becomes N CPU devices (``jax_num_cpu_devices``) for every deck."""
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),
           "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    devices = requested_devices()
    if devices is not None:
        env["JAX_NUM_CPU_DEVICES"] = str(devices)
    return env


def pools_env(cpus=None) -> dict[str, str]:
    """``NPROC=2`` for a kernel that may run on one CPU only (``taskset -c 0``, a one-core share).

    XLA sizes its CPU client's thread pool by the CPUs the process may use, and jaxlib 0.10
    runs a ``pure_callback``'s copy of its arguments on that pool: with one thread, busy running
    the program that waits for the callback, the copy never runs and the kernel hangs for good
    (about one fresh build in two of deck 11 on one busy core). XLA reads ``NPROC`` as the pool's
    size, so two threads share the one CPU and the copy gets its turn. A user's own ``NPROC`` wins.
    """
    if "NPROC" in os.environ:
        return {}
    if cpus is None:
        cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    return {"NPROC": "2"} if len(cpus) < 2 else {}


def this_python_kernels(marker: str = "", cpus=None, caches: str | Path | None = None):
    """A kernel spec manager giving the ipykernel of jaxdeck's interpreter, with ``marker`` as its MARKER
    (the kernel's private folder, where its libraries write: :func:`own_folders`, with ``caches``),
    for a kernel that runs on ``cpus`` (None: this process's). The kernel keeps no history."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class ThisPythonKernels(KernelSpecManager):
        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(
                argv=[sys.executable, str(LAUNCHER), "-f", "{connection_file}", NO_HISTORY],
                display_name=f"Python {sys.version_info.major}.{sys.version_info.minor} (jaxdeck)",
                language="python",
                env={**kernel_env(), **pools_env(cpus), MARKER: marker, **own_folders(marker, caches),
                     STACKS_ENV: os.path.join(marker, STACKS_FILE)} if marker else {**kernel_env(), **pools_env(cpus)},
            )

    return ThisPythonKernels()


def import_kernel_libraries() -> None:
    """Import nbclient and jupyter_client in the calling thread.

    jupyter_client's modules import each other; imported from two threads at once (the
    kernel's, and the main thread importing nbconvert) Python finds an import deadlock and
    fails one of them. Imported before the kernel's thread starts, they are only looked up there.
    """
    import jupyter_client.kernelspec  # noqa: F401
    import jupyter_client.manager  # noqa: F401
    import nbclient  # noqa: F401
    import nbclient.exceptions  # noqa: F401
    import nbformat.v4  # noqa: F401
