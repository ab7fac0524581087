"""Calibrate the timing harness against timeit: ``python -m demos.calibration --out build/bench``.

Writes ``timing.json`` and prints a table with

* the harness's own overhead per measured call (``bench`` on a no-op, and on a function that
  returns an already-finished JAX array, against a bare ``timeit`` loop doing the same);
* agreement: ``bench`` median / ``timeit`` + ``block_until_ready`` median on the same
  functions with the same loop counts (1.00 means they agree), measured in alternating rounds
  so machine noise hits both alike; and what an unblocked ``timeit`` would have claimed;
* the wall time of each ``bench`` call against its budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import timeit

from . import devices
from ._display import fmt_seconds, text_table


def _timeit_per_call(stmt, number: int, repeat: int) -> float:
    return statistics.median(t / number for t in timeit.Timer(stmt).repeat(repeat=repeat, number=number))


def harness_overhead(budget_s: float) -> dict:
    """Per-call cost the harness adds, on a no-op and on a ready JAX array."""
    import jax.numpy as jnp

    from .timing import bench

    def noop():
        return None

    ready = jnp.ones(8).block_until_ready()

    def give_ready():
        return ready

    out = {}
    for name, fn, stmt in (
        ("no-op (host)", noop, noop),
        ("ready jax.Array", give_ready, lambda: give_ready().block_until_ready()),
    ):
        pairs = []
        for _ in range(5):  # back-to-back pairs; the pair with the median difference is reported
            t = bench(fn, budget_s=budget_s)
            pairs.append((t.median_s, _timeit_per_call(stmt, t.number, t.repeat)))
        b, ti = sorted(pairs, key=lambda p: p[0] - p[1])[len(pairs) // 2]
        out[name] = {"bench_per_call_s": b, "timeit_per_call_s": ti, "overhead_per_call_s": b - ti,
                     "overhead_all_rounds_s": [p[0] - p[1] for p in pairs]}
    return out


def _cases():
    import jax
    import jax.numpy as jnp
    import numpy as np

    x = jnp.linspace(0.0, 1.0, 1024)
    a = jnp.ones((384, 384)) / 384
    xs = jnp.linspace(0.0, 1.0, 1000)
    host = np.linspace(0.0, 1.0, 100_000)

    def sleep_2ms():
        time.sleep(0.002)

    return [
        ("jit elementwise f32[1024]", jax.jit(lambda v: jnp.sin(v) * 2.0 + 1.0), (x,), True),
        ("jit matmul f32[384,384]", jax.jit(lambda m: m @ m @ m), (a,), True),
        ("eager jnp.sin f32[1000]", jnp.sin, (xs,), True),
        ("NumPy sum f64[100000]", np.sum, (host,), False),
        ("Python sleep 2 ms", sleep_2ms, (), False),
    ]


def agreement(budget_s: float, rounds: int = 5) -> list[dict]:
    """bench vs timeit(+block_until_ready) on the same functions and loop counts.

    Each round runs bench then timeit back to back; the reported ratio is the median of the
    per-round ratios, which cancels most of the drift of a shared, noisy machine."""
    from .timing import bench

    rows = []
    for name, fn, args, is_jax in _cases():
        if is_jax:
            def blocked(fn=fn, args=args):
                return fn(*args).block_until_ready()
        else:
            def blocked(fn=fn, args=args):
                return fn(*args)

        def unblocked(fn=fn, args=args):
            return fn(*args)

        ours, theirs, naive, walls, result = [], [], [], [], None
        for _ in range(rounds):
            start = time.perf_counter()
            result = bench(fn, *args, budget_s=budget_s, label=name)
            walls.append(time.perf_counter() - start - (result.compile_s or 0) - result.first_call_s)
            ours.append(result.median_s)
            theirs.append(_timeit_per_call(blocked, result.number, result.repeat))
            if is_jax:
                naive.append(_timeit_per_call(unblocked, result.number, result.repeat))
        # Ratios are taken per round (bench and timeit back to back, same machine state); the
        # round with the median ratio is the one reported, so its three figures belong together.
        ratios = [o / th for o, th in zip(ours, theirs)]
        mid = sorted(range(len(ratios)), key=ratios.__getitem__)[len(ratios) // 2]
        rows.append({
            "case": name, "number": result.number, "repeat": result.repeat, "rounds": rounds,
            "bench_median_s": ours[mid], "timeit_blocked_median_s": theirs[mid],
            "ratio_bench_over_timeit": ratios[mid], "ratios_all_rounds": ratios,
            "timeit_unblocked_median_s": naive[mid] if naive else None,
            "compile_s": result.compile_s, "budget_s": budget_s,
            "measure_wall_median_s": statistics.median(walls), "measure_wall_max_s": max(walls),
        })
    return rows


def _write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".timing-", suffix=".json")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; the report is an ordinary file
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demos.calibration", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="build/bench", help="output folder (default: build/bench)")
    parser.add_argument("--budget", type=float, default=0.2, help="bench() budget per measurement, seconds")
    parser.add_argument("--rounds", type=int, default=5, help="alternating bench/timeit rounds per case")
    ns = parser.parse_args(argv)

    started = time.perf_counter()
    banner = devices.banner()
    overhead = harness_overhead(ns.budget)
    agree = agreement(ns.budget, ns.rounds)
    report = {
        "generated": devices.utc_now(),
        "provenance": {"backend": banner.backend, "device_kind": banner.device_kind,
                       "device_count": banner.device_count, "host": banner.host, **banner.versions},
        "harness_overhead": overhead,
        "agreement": agree,
        "seconds": time.perf_counter() - started,
    }
    path = os.path.join(ns.out, "timing.json")
    _write_atomic(path, json.dumps(report, indent=2) + "\n")

    print(f"demos.calibration on {banner.device_count} × {banner.device_kind} ({banner.backend}), "
          f"jax {banner.versions['jax']}, {banner.host}")
    print()
    print(text_table(
        ["harness overhead", "bench / call", "timeit / call", "overhead / call"],
        [[k, fmt_seconds(v["bench_per_call_s"]), fmt_seconds(v["timeit_per_call_s"]),
          fmt_seconds(v["overhead_per_call_s"])] for k, v in overhead.items()], "lrrr"))
    print()
    print(text_table(
        ["case", "loops", "bench", "timeit+block", "ratio", "timeit unblocked", "wall/budget (median, max)"],
        [[r["case"], f"{r['repeat']}×{r['number']}", fmt_seconds(r["bench_median_s"]),
          fmt_seconds(r["timeit_blocked_median_s"]), f"{r['ratio_bench_over_timeit']:.3f}",
          fmt_seconds(r["timeit_unblocked_median_s"]),
          f"{r['measure_wall_median_s'] / r['budget_s']:.2f}, {r['measure_wall_max_s'] / r['budget_s']:.2f}"]
         for r in agree], "lrrrrrr"))
    print()
    print(f"wrote {path} in {report['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
