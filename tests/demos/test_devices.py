"""demos.devices: sizes per backend, banner, and settings that must precede JAX's start.

Anything about a fresh JAX (flags, env vars read at start-up) runs in a subprocess.
"""

import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from demos import devices


def run_fresh(code: str, env: dict | None = None, drop=()) -> dict:
    """Run code in a new interpreter (a JAX that has not started); it prints one JSON line."""
    full = {k: v for k, v in os.environ.items() if k not in drop and k not in ("XLA_FLAGS", "JAX_NUM_CPU_DEVICES", "JAXDECK_DEVICES",
                                                                               "JAX_PLATFORMS")}
    full.update(env or {})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, capture_output=True, text=True,
                          timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("backend, expected", [
    ("cpu", 10), ("gpu", 20), ("cuda", 20), ("rocm", 20), ("tpu", 30),
])
def test_pick_by_backend(backend, expected):
    assert devices.pick(cpu=10, gpu=20, tpu=30, backend=backend) == expected


@pytest.mark.parametrize("backend, kwargs, expected", [
    ("tpu", {"cpu": 1, "gpu": 2}, 2),  # a TPU falls back to the GPU size
    ("gpu", {"cpu": 1, "tpu": 3}, 3),  # and a GPU to the TPU size
    ("cpu", {"gpu": 2, "default": 7}, 7),  # the CPU never takes an accelerator size
])
def test_pick_fallbacks(backend, kwargs, expected):
    assert devices.pick(backend=backend, **kwargs) == expected


def test_pick_without_a_value_for_the_cpu_is_an_error():
    with pytest.raises(ValueError, match="cpu"):
        devices.pick(gpu=10_000, backend="cpu")


def test_pick_uses_the_current_backend():
    table = {"cpu": "c", "gpu": "g", "tpu": "t"}
    assert devices.pick(cpu="c", gpu="g", tpu="t") == table[jax.default_backend()]


def test_banner_facts_and_escaping(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--fake=<x&y>")
    b = devices.banner()
    assert b.backend == jax.default_backend()
    assert b.device_count == len(jax.devices())
    assert b.device_kind == jax.devices()[0].device_kind
    assert b.versions["jax"] == jax.__version__
    assert b.memory and b.host
    text = str(b)
    assert "backend" in text and jax.__version__ in text and "--fake=<x&y>" in text
    html = b._repr_html_()
    assert "--fake=&lt;x&amp;y&gt;" in html and "<x&y>" not in html


def test_gpu_memory_settings_are_explicit_and_say_when_too_late(monkeypatch):
    for key in (devices.PREALLOCATE, devices.MEM_FRACTION, devices.ALLOCATOR):
        monkeypatch.setenv(key, "")  # recorded, so that what gpu_memory() sets is undone after the test
        monkeypatch.delenv(key)
    monkeypatch.setenv(devices.OLD_MEM_FRACTION, "0.3")  # deprecated: jaxlib raises if both are set
    jax.devices()  # this process's JAX has started
    setting = devices.gpu_memory(preallocate=True, fraction=0.5, allocator="platform")
    assert os.environ[devices.PREALLOCATE] == "true"
    assert os.environ[devices.MEM_FRACTION] == "0.5"
    assert devices.MEM_FRACTION == "XLA_CLIENT_MEM_FRACTION"
    assert devices.OLD_MEM_FRACTION not in os.environ
    assert os.environ[devices.ALLOCATOR] == "platform"
    assert setting.effective is False and "Restart" in str(setting)


@pytest.mark.parametrize("fraction", [0, 1.5, -0.1])
def test_gpu_memory_rejects_bad_fractions(fraction):
    with pytest.raises(ValueError):
        devices.gpu_memory(fraction=fraction)


@pytest.mark.parametrize("preset, expected", [(None, "false"), ("true", "true")])
def test_import_turns_off_preallocation_unless_the_user_chose(preset, expected):
    env = {} if preset is None else {devices.PREALLOCATE: preset}
    out = run_fresh("""
        import json, os, sys
        import demos
        print(json.dumps({"value": os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE"),
                          "jax_imported": "jax" in sys.modules}))
    """, env=env, drop=(devices.PREALLOCATE,))
    assert out["value"] == expected
    assert out["jax_imported"] is False  # `import demos` stays cheap and leaves JAX unstarted


@pytest.mark.heavy
@pytest.mark.parametrize("jax_first", [False, True])
def test_simulate_cpu_devices_before_start(jax_first):
    out = run_fresh(f"""
        import json
        {"import jax" if jax_first else ""}
        from demos import devices
        s = devices.simulate_cpu_devices(8)
        import jax
        print(json.dumps({{"count": jax.device_count(), "effective": s.effective,
                          "backend": jax.default_backend()}}))
    """)
    assert out["count"] == 8 and out["effective"] is True


@pytest.mark.heavy
def test_simulate_cpu_devices_after_start_says_restart():
    out = run_fresh("""
        import json, warnings
        import jax
        jax.devices()
        from demos import devices
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            late = devices.simulate_cpu_devices(4)
        try:
            devices.simulate_cpu_devices(4, strict=True)
            strict = "no error"
        except RuntimeError as e:
            strict = str(e)
        same = devices.simulate_cpu_devices(jax.device_count())
        print(json.dumps({"effective": late.effective, "text": str(late), "warning": str(caught[0].message),
                          "strict": strict, "same": same.effective, "count": jax.device_count()}))
    """)
    assert out["effective"] is False and out["count"] == 1
    assert "Restart the kernel" in out["warning"] and "Restart" in out["text"]
    assert "Restart the kernel" in out["strict"]
    assert out["same"] is True


def test_simulate_cpu_devices_refuses_no_devices():
    with pytest.raises(ValueError):
        devices.simulate_cpu_devices(0)


@pytest.mark.heavy
@pytest.mark.parametrize("asks", [None, 4])
def test_jaxdeck_devices_overrides_the_decks_count(asks):
    """JAXDECK_DEVICES wins over what a deck asks for, and reaches a deck that asks for nothing."""
    call = f"s = devices.simulate_cpu_devices({asks}); text = str(s)" if asks else "text = ''"
    out = run_fresh(f"""
        import json
        from demos import devices
        {call}
        import jax
        print(json.dumps({{"count": jax.device_count(), "text": text}}))
    """, env={"JAXDECK_DEVICES": "2"})
    assert out["count"] == 2
    if asks:
        assert "JAXDECK_DEVICES=2, not the deck's 4" in out["text"]
        assert 'jax.config.update("jax_num_cpu_devices", 2)' in out["text"]


def test_jaxdeck_devices_must_be_a_count(monkeypatch):
    monkeypatch.setenv("JAXDECK_DEVICES", "eight")
    with pytest.raises(ValueError, match="JAXDECK_DEVICES must be a whole number"):
        devices.requested_devices()
    monkeypatch.setenv("JAXDECK_DEVICES", "0")
    with pytest.raises(ValueError):
        devices.requested_devices()


def test_balance_measures_a_ridge_point_and_classifies_intensity():
    b = devices.balance(matmul_n=128, stream_elements=2**18, budget_s=0.05)
    assert b.flops_per_s > 0 and b.bytes_per_s > 0
    assert b.ridge == pytest.approx(b.flops_per_s / b.bytes_per_s)
    assert b.bound(b.ridge / 10) == "memory-bound" and b.bound(b.ridge * 10) == "compute-bound"
    assert "matmul ridge at" in str(b) and "FLOP/byte" in str(b) and "ridge point" in b._repr_html_()
    assert "full float32 on a CPU" in str(b)


@pytest.mark.parametrize("backend, precision, says", [
    ("cpu", "default", "full float32 on a CPU"), ("cuda", "default", "TF32"), ("gpu", "default", "TF32"),
    ("tpu", "default", "bfloat16"), ("cuda", "highest", "precision=HIGHEST"),
])
def test_balance_names_the_precision_it_measured(backend, precision, says):
    assert says in devices.matmul_precision_label(backend, precision)


def test_balance_at_highest_precision_says_so():
    b = devices.balance(matmul_n=64, stream_elements=2**16, budget_s=0.02, precision="highest")
    assert "precision=HIGHEST" in str(b) and "precision=HIGHEST" in b._repr_html_()
    with pytest.raises(ValueError):
        devices.balance(precision="tf32")


def test_flagged_transfer_names_the_direction_the_guard_refuses():
    x, two = jnp.ones(3), jnp.float32(2)          # made before the guard: on the device
    with jax.transfer_guard("disallow"):
        assert devices.flagged_transfer(lambda: x + np.ones(3, "f4")) == "host-to-device"
        assert devices.flagged_transfer(lambda: x * 2.0) == "host-to-device"   # a Python scalar is copied too
        assert devices.flagged_transfer(lambda: x * two) is None
        d2h = None if jax.default_backend() == "cpu" else "device-to-host"     # a CPU array already lives on the host
        assert devices.flagged_transfer(lambda: float(x.sum())) == d2h
    assert devices.flagged_transfer(lambda: x + np.ones(3, "f4")) is None      # no guard, nothing refused


def test_flagged_transfer_lets_other_errors_through():
    with pytest.raises(ZeroDivisionError):
        devices.flagged_transfer(lambda: 1 / 0)
