"""The machine's balance: how fast this device multiplies matrices and how fast it reads memory, measured.

The ridge point it gives is the *matmul's*: on an NVIDIA GPU a float32 matmul runs on the tensor
cores (as TF32 by default), the fastest units the device has. An elementwise chain such as
``exp(x) * 2 + 1`` never runs there, only on the ordinary vector units, whose ridge is several times
lower on an H100; so the ridge says where a matmul turns compute-bound, and for other kernels it is
an upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._display import Displayable, box, fmt_bytes, html_table


def matmul_precision_label(backend: str, precision: str = "default") -> str:
    """What a float32 matmul at ``precision`` computes in on ``backend``, in words.

    At default precision XLA lets NVIDIA GPUs since Ampere (A100, H100, ...) multiply float32
    inputs as TF32 (10-bit mantissa) and TPUs in a single bfloat16 pass; a CPU computes in float32.
    ``"highest"`` asks for full float32 everywhere.
    """
    if precision == "highest":
        return "float32, precision=HIGHEST (full float32)"
    kind = {"cuda": "gpu", "rocm": "gpu"}.get(backend, backend)
    return {"gpu": "float32 at default precision: TF32 on A100/H100-class GPUs",
            "tpu": "float32 at default precision: one bfloat16 pass on TPUs",
            }.get(kind, "float32 at default precision (full float32 on a CPU)")


@dataclass(frozen=True, repr=False)
class Balance(Displayable):
    """What this device sustains: float32 matmul FLOP/s and read bandwidth (a sum), measured.

    The ratio of the two is the matmul's *ridge point* of a roofline: a matmul doing fewer FLOPs per
    byte it moves (its arithmetic intensity) than the ridge is memory-bound here. ``precision``
    says what the matmul computed in (TF32 at default precision on recent NVIDIA GPUs).
    """

    flops_per_s: float
    bytes_per_s: float
    matmul_n: int
    stream_bytes: int
    device: str
    precision: str = "float32 at default precision"

    @property
    def ridge(self) -> float:
        """FLOPs per byte at which a matmul's compute and memory take equally long on this device."""
        return self.flops_per_s / self.bytes_per_s

    def bound(self, intensity: float) -> str:
        """``'memory-bound'`` below the ridge, ``'compute-bound'`` above it."""
        return "memory-bound" if intensity < self.ridge else "compute-bound"

    def _text(self) -> str:
        return (f"{self.device}: {self.flops_per_s / 1e9:,.0f} GFLOP/s (matmul {self.matmul_n}², {self.precision}), "
                f"{self.bytes_per_s / 1e9:,.1f} GB/s (summing {fmt_bytes(self.stream_bytes)}) "
                f"-> matmul ridge at {self.ridge:.1f} FLOP/byte")

    def _html(self) -> str:
        rows = [("compute", f"{self.flops_per_s / 1e9:,.0f} GFLOP/s (matmul, n = {self.matmul_n}; {self.precision})"),
                ("memory", f"{self.bytes_per_s / 1e9:,.1f} GB/s (summing a {fmt_bytes(self.stream_bytes)} array)"),
                ("ridge point", f"{self.ridge:.1f} FLOP per byte (for a matmul)")]
        return box(html_table(["", ""], rows), title=f"machine balance: {self.device}")


def balance(matmul_n: int | None = None, stream_elements: int | None = None, budget_s: float = 0.2,
            precision: str = "default") -> Balance:
    """Measure this device's float32 matmul rate and streaming bandwidth (starts JAX).

    Sizes default by backend (``pick``): large enough to leave caches behind, small enough to
    take well under a second on a laptop CPU. Both are timed with :func:`demos.timing.bench`.
    ``precision``: ``"default"`` (what ``x @ y`` does: TF32 on A100/H100) or ``"highest"``
    (full float32); the result names the one measured.
    """
    import jax
    import jax.numpy as jnp

    from .._timing.measure import bench
    from .facts import describe_devices, pick

    if precision not in ("default", "highest"):
        raise ValueError(f"precision is 'default' or 'highest', got {precision!r}")
    n = matmul_n or pick(cpu=512, gpu=8192, tpu=8192)
    m = stream_elements or pick(cpu=2**23, gpu=2**28, tpu=2**28)
    a = jnp.ones((n, n), jnp.float32)
    v = jnp.ones((m,), jnp.float32)
    level = jax.lax.Precision.HIGHEST if precision == "highest" else None
    mm = bench(jax.jit(lambda x: jnp.matmul(x, x, precision=level)), a, budget_s=budget_s)
    st = bench(jax.jit(lambda x: x.sum()), v, budget_s=budget_s)  # reads every byte, writes nothing
    _, kind, count = describe_devices(jax.devices()[:1])
    return Balance(flops_per_s=2 * n**3 / mm.median_s, bytes_per_s=v.nbytes / st.median_s,
                   matmul_n=n, stream_bytes=v.nbytes, device=kind,
                   precision=matmul_precision_label(jax.default_backend(), precision))
