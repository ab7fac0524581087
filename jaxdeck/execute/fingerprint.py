"""What the kernel environment is, without importing JAX in jaxdeck.

The execution cache is keyed on the kernel environment: Python, jax/jaxlib and
numpy versions, the JAX backend and device kind, and the environment variables
that steer JAX/XLA. Versions, backend and device come from a small subprocess
run with this very interpreter and the kernel's environment (``sys.executable -c``),
because jaxdeck itself never imports JAX.

That probe costs about a second (it imports JAX), so its answer is remembered:

- per process, in memory;
- per machine state, in ``build/cache/env/CHEAP.json``, where CHEAP hashes what
  can be learned for free (interpreter, installed distribution versions, JAX/XLA
  environment variables, GPU device nodes, host name). Any change there runs the
  probe again; ``make clean`` forgets it with the rest of the cache.

The demos package's version is read by parsing ``demos/__init__.py`` (never imported).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import socket
import subprocess
import sys
import threading
from datetime import datetime
from importlib import metadata, util
from pathlib import Path

from jaxdeck.atomic import write_text
from jaxdeck.stopping import WAKE_S

#: distributions whose versions can change what a cell prints
DISTRIBUTIONS = ("jax", "jaxlib", "numpy", "ml_dtypes", "jax-cuda12-plugin", "jax-cuda12-pjrt",
                 "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-rocm-plugin", "libtpu", "ipykernel")
#: environment variables that steer JAX/XLA (besides any JAX_* / XLA_* one)
ENV_NAMES = ("JAXDECK_DEVICES", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
             "TPU_VISIBLE_CHIPS", "OMP_NUM_THREADS", "DEMOS_TIMING_BUDGET_SCALE")
#: fingerprint fields that key the cache (the rest is provenance only)
KEY_FIELDS = ("python", "implementation", "jax", "jaxlib", "numpy", "backend", "device_kind", "env")

PROBE = r"""
import json, platform
out = {"python": platform.python_version(), "implementation": platform.python_implementation(),
       "numpy": None, "jax": None, "jaxlib": None, "backend": None, "device_kind": None, "device_count": 0}
try:
    import numpy
    out["numpy"] = numpy.__version__
except Exception:
    pass
try:
    import jax, jaxlib
    out["jax"] = jax.__version__
    out["jaxlib"] = getattr(jaxlib, "__version__", None) or __import__("jaxlib.version").version.__version__
    out["backend"] = jax.default_backend()
    devices = jax.devices()
    out["device_kind"] = devices[0].device_kind if devices else None
    out["device_count"] = len(devices)
except Exception as err:
    out["error"] = f"{type(err).__name__}: {err}"
print("JAXDECK-PROBE " + json.dumps(out))
"""

_memory: dict[str, dict] = {}
_lock = threading.Lock()


def kernel_environment_variables() -> dict[str, str]:
    """The JAX/XLA-relevant variables the kernel will see (with jaxdeck's kernel defaults)."""
    from jaxdeck.execute.spec import kernel_env

    env = dict(os.environ)
    env.update(kernel_env())
    return {k: v for k, v in sorted(env.items()) if steers_jax(k)}


def steers_jax(name: str) -> bool:
    """Whether an environment variable changes what JAX does in the kernel (so it keys the cache)."""
    return name.startswith(("JAX_", "XLA_", "TF_CPP_")) or name in ENV_NAMES


def _versions() -> dict[str, str | None]:
    found = {}
    for name in DISTRIBUTIONS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def _gpu_nodes() -> list[str]:
    names = []
    for folder, prefixes in (("/dev", ("nvidia", "kfd", "accel", "vfio")), ("/proc/driver/nvidia/gpus", ("",))):
        try:
            names += [f"{folder}/{n}" for n in sorted(os.listdir(folder)) if n.startswith(prefixes)]
        except OSError:
            continue
    return names


def accelerator_nodes() -> list[str]:
    """The GPU/TPU device files this machine has (/dev/nvidia*, /dev/accel*, ...): none on a CPU-only one."""
    return [n for n in _gpu_nodes() if not n.endswith(("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"))]


def cheap_signature() -> dict:
    """Everything that can be learned without starting JAX (milliseconds)."""
    return {
        "executable": sys.executable,
        "python": platform.python_version(),
        "distributions": _versions(),
        "env": kernel_environment_variables(),
        "gpu_nodes": _gpu_nodes(),
        "hostname": socket.gethostname(),
    }


def machine_signature() -> dict:
    """The cheap signature without importing the kernel's launcher: what a no-op build compares.

    The JAX/XLA variables are taken as the environment holds them; the kernel's defaults
    on top of them come from code, so that code's digest stands in for them.
    """
    try:
        launcher = hashlib.sha256((Path(__file__).parent / "kernel.py").read_bytes()).hexdigest()
    except OSError:
        launcher = None
    return {
        "executable": sys.executable,
        "python": platform.python_version(),
        "distributions": _versions(),
        "env": {k: v for k, v in sorted(os.environ.items()) if steers_jax(k)},
        "launcher": launcher,
        "gpu_nodes": _gpu_nodes(),
        "hostname": socket.gethostname(),
    }


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _memo_path(root: Path, cheap: str) -> Path:
    return Path(root) / "cache" / "env" / f"{cheap[:32]}.json"


def probe() -> dict:
    """Run the probe subprocess (same interpreter, the kernel's environment variables)."""
    from jaxdeck.execute.spec import kernel_env

    env = dict(os.environ)
    env.update(kernel_env())
    try:
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
        line = next((l for l in done.stdout.splitlines() if l.startswith("JAXDECK-PROBE ")), None)
        answer = json.loads(line.split(" ", 1)[1]) if line else {"error": (done.stderr or "no answer").strip()[-300:]}
    except (OSError, subprocess.SubprocessError, ValueError) as err:
        answer = {"error": f"{type(err).__name__}: {err}"}
    answer.setdefault("python", platform.python_version())
    answer.setdefault("implementation", platform.python_implementation())
    return answer


def known_environment(root: Path) -> dict | None:
    """The fingerprint if it is already known (this process or build/cache/env), else None."""
    cheap = cheap_signature()
    key = digest(cheap)
    with _lock:
        found = _memory.get(key)
    if found is not None:
        return found
    try:
        stored = json.loads(_memo_path(root, key).read_text())
        if stored.get("cheap") == key and isinstance(stored.get("fingerprint"), dict):
            with _lock:
                _memory[key] = stored["fingerprint"]
            return stored["fingerprint"]
    except (OSError, ValueError):
        pass
    return None


def environment(root: Path) -> dict:
    """The kernel environment's fingerprint: versions, backend, device kind, host, JAX/XLA variables."""
    found = known_environment(root)
    if found is not None:
        return found
    cheap = cheap_signature()
    key = digest(cheap)
    answer = probe()
    answer["env"] = cheap["env"]
    answer["hostname"] = cheap["hostname"]
    if "error" not in answer:  # a failed probe is never remembered on disk
        try:
            write_text(_memo_path(root, key), json.dumps({"cheap": key, "signature": cheap, "fingerprint": answer},
                                                         indent=1, sort_keys=True))
        except OSError:
            pass
    with _lock:
        _memory[key] = answer
    return answer


class Pending:
    """The fingerprint computed in a background thread (overlaps the kernel's work)."""

    def __init__(self, root: Path):
        self._result: dict | None = None
        self._thread = threading.Thread(target=self._run, args=(root,), daemon=True)
        self._thread.start()

    def _run(self, root: Path) -> None:
        try:
            self._result = environment(root)
        except Exception as err:  # pragma: no cover - defensive: never break a build over provenance
            self._result = {"error": f"{type(err).__name__}: {err}"}

    def result(self) -> dict:
        while self._thread.is_alive():
            self._thread.join(WAKE_S)  # in short waits, as stopping.result waits (a stop signal is taken within one)
        return self._result or {}


def forget() -> None:
    """Drop the in-process memory (tests that change the environment)."""
    with _lock:
        _memory.clear()


def key_part(fingerprint: dict) -> dict:
    """The fields of a fingerprint that key the execution cache."""
    return {k: fingerprint.get(k) for k in KEY_FIELDS}


def demos_version() -> str | None:
    """``demos.__version__`` parsed from its source without importing it (None where there is no ``demos``).

    The version, not a digest of the files, keys the cache: bump it when a change alters what cells show.
    """
    try:
        spec = util.find_spec("demos")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin:
        return None
    try:
        for node in ast.parse(Path(spec.origin).read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
                if isinstance(node.value, ast.Constant):
                    return str(node.value.value)
    except (OSError, SyntaxError):
        pass
    return None


def provenance(fingerprint: dict, executed_at: str | None = None) -> dict:
    """What the HTML and handout show about where outputs came from."""
    return {
        "python": fingerprint.get("python"),
        "jax": fingerprint.get("jax"),
        "jaxlib": fingerprint.get("jaxlib"),
        "numpy": fingerprint.get("numpy"),
        "backend": fingerprint.get("backend"),
        "device_kind": fingerprint.get("device_kind"),
        "device_count": fingerprint.get("device_count"),
        "hostname": fingerprint.get("hostname") or socket.gethostname(),
        "executed_at": executed_at or datetime.now().astimezone().isoformat(timespec="seconds"),
        "demos": demos_version(),
    }
