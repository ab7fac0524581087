"""The curriculum checklist: every live-demo (D) topic of CURRICULUM.md is taught in a deck.

Each entry maps one (D) topic to the deck that teaches it and to distinctive strings that
must appear in that deck's *code cells* (not only in the prose), read with jupytext the
way the toolchain reads them. A deck that does not exist fails its entries: a missing deck
is missing teaching, never a skip.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
SLIDES = ROOT / "slides"

MAIN = "01-jax-is-not-numpy.md"
PURE = "02-pure-functions-and-pytrees.md"
GRAD = "03-automatic-differentiation.md"
VMAP = "04-vmap.md"
DEVICES = "05-many-devices.md"
ECOSYSTEM = "06-ecosystem-and-habits.md"
DECK_FILES = [MAIN, PURE, GRAD, VMAP, DEVICES, ECOSYSTEM]

# (section.topic id, what it teaches, deck, strings that must all appear in its code cells)
TOPICS = [
    # 1. JAX looks like NumPy, but is used differently
    ("1.1", "jax.numpy mirrors NumPy", MAIN, ["jnp.arange", "jnp.dot", "jnp.outer"]),
    ("1.2", "default float32, sqrt(2), x64", MAIN, ["np.sqrt(2.0)", "jnp.sqrt(2.0)", "jax.enable_x64"]),
    ("1.3", "immutability and .at", MAIN, ["x[0] = 1.0", ".at[0].set", ".add(", ".multiply("]),
    ("1.4", "stateless randomness", MAIN, ["jax.random.key", "jax.random.split(key)",
                                           "jax.random.split(key, 4)", "jax.random.fold_in"]),
    ("1.5", "asynchronous dispatch", MAIN, ["block_until_ready()", "time.perf_counter"]),
    ("1.6", "eager JAX slower than NumPy on tiny arrays", MAIN, ["compare(", '"1.17 µs"', '"7.27 µs"']),
    # 2. jit: trace, compile, cache
    ("2.1", "jax.jit as function and decorator, cache", MAIN, ["jax.jit(poly)", "@jax.jit",
                                                               "demos.tracing.watch(poly)"]),
    ("2.2", "the trace: jaxpr, tracers, print vs debug.print", MAIN, ["jax.make_jaxpr", "print(\"print sees:\"",
                                                                      "jax.debug.print"]),
    ("2.3", "what XLA does: HLO, fusion, dead code, cost", MAIN, ["demos.jaxpr.diff",
                                                                  "demos.jaxpr.program("]),
    ("2.4", "recompilation and fixed shapes", MAIN, ['static_argnames="power"', "jnp.ones(16, jnp.int32)",
                                                     "def bucket(", "np.pad("]),
    ("2.5", "value-dependent control flow and its fixes", MAIN, ["if x > 0:", "x[x > 0]", "jax.jit(jnp.unique)",
                                                                 "jnp.where(", "lax.cond(", "static_argnums=0"]),
    ("2.6", "loops: unrolling vs fori_loop/scan/while_loop", MAIN, ["for _ in range(n):", "lax.fori_loop",
                                                                     "lax.scan", "lax.while_loop"]),
    ("2.7", "static_argnums on methods, hashing, mutated state", MAIN, [
        "@jax.jit(static_argnums=0)", "s.factor = 10.0",
        "dataclasses.dataclass(frozen=True)", "self.calls += 1"]),
    ("2.8", "jit the widest region", MAIN, ["def model(w, x)", "layer(w, layer(w, x))"]),
    # the C side is a listing with its source named (never a run-time skip line), XLA's side runs
    ("2.10", "C compiler comparison: XLA's loop with a run-time n", MAIN, ["lax.fori_loop(0, n"]),
    # 3. Pure functions and PyTrees
    ("3.2", "purifying: .at, state in/out, aux outputs, keys", PURE, [
        ".at[0].set", "h, y = step(params, h, x)", 'return stats["mse"], stats', "jax.random.normal(key)"]),
    ("3.3", "pytrees, tree_map, structure in the cache key", PURE, [
        "jax.tree.map", "jax.tree.flatten", "demos.tracing.watch"]),
    # 4. Automatic differentiation
    ("4.1", "grad, higher orders by nesting", GRAD, ["jax.grad(f)", "jax.grad(derivs[-1])"]),
    ("4.2", "argnums, value_and_grad, has_aux", GRAD, ["argnums=(0, 1)", "jax.value_and_grad",
                                                       "has_aux=True"]),
    ("4.3", "lax.stop_gradient", GRAD, ["lax.stop_gradient"]),
    ("4.4", "complex differentiation and the conjugate", GRAD, ["jax.grad(sq)(z)", "jnp.conj("]),
    # 5. vmap
    ("5.1", "vmap, in_axes/out_axes, with jit and grad", VMAP, ["jax.vmap", "in_axes", "out_axes",
                                                                "jax.grad"]),
    ("5.2", "looped vs batched vs jit-batched spectral radius", VMAP, ["compare(",
                                                                         "jax.vmap(spectral_radius)",
                                                                         "jax.jit(batched)"]),
    # 6. Many devices
    ("6.1", "simulated devices, pmap, pmean, sharding, shard_map", DEVICES, [
        "simulate_cpu_devices(8)", "jax.pmap", "lax.pmean", "jax.sharding",
        "NamedSharding", "shard_map"]),
    # Headline figures of the seeds, measured live beside the source's figure
    ("fig-000", "seed 000: 2x2 matmul NumPy vs eager", MAIN, ['reference={"NumPy": "1.17 µs"']),
    ("fig-001", "seed 001: row-normalise eager/jit (the keepdims function the seed timed)", MAIN,
     ['"426 ms"', '"218 ms"']),
    ("fig-002", "seed 002: three elementwise ops eager vs jit", MAIN, ['"13.6 µs"', '"3.72 µs"']),
    ("fig-004a", "seed 004: randn 100x100 plain vs jit", MAIN, ["1.03 / 5000", "0.78 / 5000"]),
    ("fig-004b", "seed 004: sum of range(50000)", MAIN, ["[3.05, 0.447, 0.148, 0.00086]"]),
    ("fig-004c", "seed 004: spectral radius of 128 3x3 matrices", VMAP, ["10.5 / 5000", "1.72 / 5000"]),
    ("fig-004d", "seed 004: data-parallel MLP, 1 vs 2 devices", DEVICES, ["compare(", "7.87 / 10_000",
                                                                           "7.31 / 10_000"]),
]


@lru_cache(maxsize=None)
def code_cells(deck: str) -> tuple[str, ...]:
    path = SLIDES / deck
    assert path.exists(), f"slides/{deck} does not exist (the curriculum needs it)"
    notebook = jupytext.read(path)
    return tuple(cell.source for cell in notebook.cells if cell.cell_type == "code")


@lru_cache(maxsize=None)
def shown_code_cells(deck: str) -> tuple[str, ...]:
    """The code cells the audience sees run: claim checks left out."""
    path = SLIDES / deck
    assert path.exists(), f"slides/{deck} does not exist (the curriculum needs it)"
    notebook = jupytext.read(path)
    return tuple(cell.source for cell in notebook.cells
                 if cell.cell_type == "code" and "check" not in cell.metadata.get("tags", []))


@pytest.mark.parametrize("deck", DECK_FILES, ids=lambda d: d.removesuffix(".md"))
def test_deck_exists_with_demo_cells(deck):
    cells = code_cells(deck)
    assert cells, f"slides/{deck} has no code cells"


@pytest.mark.parametrize("topic,what,deck,needles", TOPICS, ids=[t[0] for t in TOPICS])
def test_topic_has_a_live_demo(topic, what, deck, needles):
    cells = code_cells(deck)
    missing = [s for s in needles if not any(s in source for source in cells)]
    assert not missing, f"{topic} ({what}): slides/{deck} has no code cell containing {missing}"


#: how many live-demo (D) topics each section of CURRICULUM.md has (the contract beside the repository)
D_TOPICS_PER_SECTION = {"1": 6, "2": 9, "3": 2, "4": 4, "5": 2, "6": 1}


def d_topic_counts(curriculum: Path) -> dict[str, int]:
    """The (D) topics per numbered section of a CURRICULUM.md."""
    counts: dict[str, int] = {}
    section = None
    for line in curriculum.read_text(encoding="utf-8").splitlines():
        if line.startswith("## ") and line[3:4].isdigit():
            section = line[3:4]
        elif section and line.startswith("- (D"):
            counts[section] = counts.get(section, 0) + 1
    return counts


def test_every_curriculum_d_topic_is_listed():
    """Every (D) topic, per section, is covered by an entry above; the counts follow CURRICULUM.md where it is."""
    listed: dict[str, int] = {}
    for topic, *_ in TOPICS:
        if topic[0].isdigit():
            listed[topic.split(".")[0]] = listed.get(topic.split(".")[0], 0) + 1
    assert listed == D_TOPICS_PER_SECTION
    curriculum = ROOT.parent / "shared" / "CURRICULUM.md"
    if curriculum.exists():  # beside the repository in the team's checkout; a clean clone has only the counts
        assert d_topic_counts(curriculum) == D_TOPICS_PER_SECTION, "CURRICULUM.md changed: update the counts and TOPICS"



# What an expert audience expects after the basics: each API runs in a deck's code cells.
AUTODIFF = "09-autodiff-in-depth.md"
SHARDING = "10-sharding-in-depth.md"
SHARP = "07-sharp-bits.md"
CALLBACKS = "11-host-callbacks.md"
TOOLING = "12-performance-tooling.md"
DEEPER = [
    ("linearize", AUTODIFF, ["jax.linearize"]),
    ("hvp", AUTODIFF, ["jax.jvp(jax.grad("]),
    ("custom_jvp", AUTODIFF, ["jax.custom_jvp", ".defjvp"]),
    ("transpose", AUTODIFF, ["jax.linear_transpose"]),
    ("indexing-mode", SHARP, ["mode="]),
    ("promotion", SHARP, [("jnp.promote_types", "jnp.result_type")]),
    ("host-callback", CALLBACKS, ["jax.debug.callback", "jax.pure_callback", "vmap_method=", "io_callback"]),
    ("sharding-constraint", SHARDING, ["with_sharding_constraint", "reshard", "in_shardings=", "out_shardings="]),
    ("explicit-mode", SHARDING, ["jax.set_mesh", "auto_axes", "out_sharding="]),
    ("shard-map-collectives", SHARDING, ["lax.all_gather", "lax.psum_scatter", "lax.ppermute"]),
    ("profiler", TOOLING, ["jax.named_scope", "jax.profiler"]),
    ("compilation-cache", TOOLING, ["jax_compilation_cache_dir", "jax.clear_caches()"]),
    ("export", TOOLING, ["jax.export.export", "jax.export.deserialize", ".lower(", ".compile("]),
    ("precision", TOOLING, ["precision=", "preferred_element_type="]),
]


@pytest.mark.parametrize("what,deck,needles", DEEPER, ids=[d[0] for d in DEEPER])
def test_deeper_api_runs_in_a_deck(what, deck, needles):
    """Each needle, or one of a tuple of spellings, appears in a code cell the audience sees run."""
    cells = shown_code_cells(deck)
    missing = [s for s in needles
               if not any(n in source for n in (s if isinstance(s, tuple) else (s,)) for source in cells)]
    assert not missing, f"{what}: slides/{deck} has no code cell containing {missing}"

# Each headline figure is a comparison named with ``figure=``, so its verdict is computed and it
# appears in demos.timing.scoreboard(); (deck, the figure's name as the deck passes it)
FIGURES = [
    (MAIN, "tiny dot (seed 000)"), (MAIN, "row-normalise (seed 001)"), (MAIN, "three ops (seed 002)"),
    (MAIN, "randn (seed 004)"), (MAIN, "sum of range (seed 004)"), (VMAP, "spectral radius (seed 004)"),
    (DEVICES, "MLP step (seed 004)"),
]


@pytest.mark.parametrize("deck,figure", FIGURES, ids=[f for _, f in FIGURES])
def test_headline_figure_is_a_named_comparison_with_a_reference(deck, figure):
    cells = [c for c in code_cells(deck) if f'figure="{figure}"' in c]
    assert len(cells) == 1, f"slides/{deck}: no (or several) compare(..., figure={figure!r}) cells"
    assert "reference=" in cells[0] and "compare(" in cells[0]


def test_the_main_deck_shows_the_scoreboard():
    assert any("demos.timing.scoreboard()" in c for c in code_cells(MAIN))
