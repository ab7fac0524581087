"""The decks' claim checks fail when their claim is made false on purpose.

Each case edits one line of a real deck in slides/ (a donation removed, a static argument
dropped, a dtype changed, a collective deleted), runs it in a real kernel, and expects the
build's one line: the claim no longer holds, at a check cell's line. Timings are taken with a
quarter of their budget (``DEMOS_TIMING_BUDGET_SCALE``): no figure is read here.
"""

from __future__ import annotations

import shutil

import pytest

from support import ROOT
from jaxdeck.claims import is_check
from jaxdeck.errors import DeckError
from jaxdeck.execute.kernel import execute
from jaxdeck.read import deck_to_notebook

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

#: case -> (deck, the line as written, the line made false, words of the failing check)
BREAKS = {
    "donation removed": ("08-one-model-all-the-way.md", "train_jit = jax.jit(train, donate_argnums=0)",
                         "train_jit = jax.jit(train)", "parameter bytes aliased"),
    "static argument dropped": ("01-jax-is-not-numpy.md", '@demos.tracing.watch(static_argnames="power")',
                                "@demos.tracing.watch", "should each compile once"),
    "dtype changed": ("01-jax-is-not-numpy.md", "    r = jnp.sqrt(2.0)",
                      "    r = jnp.sqrt(jnp.float32(2.0))", "float64 under enable_x64"),
    "precision lowered": ("06-ecosystem-and-habits.md", "    b, name = jnp.asarray(host, dt), jnp.dtype(dt).name",
                          "    b, name = jnp.asarray(host, jnp.bfloat16), jnp.dtype(dt).name",
                          "full float32 should be within 1e-5"),
    "gradient average removed": ("05-many-devices.md", "    g = jax.tree.map(lambda d: d / n, g)    # the sum becomes the mean",
                                 "    pass", "shard_map's update should equal one device's"),
    "axis size counted along one axis": ("05-many-devices.md", "    n = lax.axis_size(AXES)                # how many devices take part",
                                         '    n = lax.axis_size("data")', "should count all"),
    "a constructor said to refuse nested lists": ("07-sharp-bits.md", "for takes_arrays in (jnp.stack, jnp.concatenate):",
                                                  "for takes_arrays in (jnp.stack, jnp.array):",
                                                  "array should refuse a list of lists"),
    "bf16 accumulated in bf16": ("12-performance-tooling.md", "plain = jnp.matmul(a16, b16)                          # a bfloat16 result",
                                 "plain = sum((a16[:, k, None] * b16[k] for k in range(n)), jnp.zeros((n, n), jnp.bfloat16))",
                                 "both should accumulate in float32"),
    "matmul left out of the FLOPs": ("12-performance-tooling.md", "cost = compiled.cost_analysis()",
                                     'cost = {**compiled.cost_analysis(), "flops": 512.0}', "should include the matmul"),
    "loader reads one range": ("10-sharding-in-depth.md", "    return runs", "    return [(runs[0][0], runs[-1][1])]",
                               "host 0 should read only its devices' rows"),
    "replica groups said to run along data": ("05-many-devices.md",
                                              "along_model = tuple(map(tuple, np.arange(mesh.size).reshape(mesh.devices.shape)))  # positions in the mesh",
                                              "along_model = tuple(map(tuple, np.arange(mesh.size).reshape(mesh.devices.shape).T))",
                                              "the groups should be the devices along model"),
    "direct linearization switched off": ("09-autodiff-in-depth.md", "lin = jax.make_jaxpr(g_lin)(x0)",
                                          'jax.config.update("jax_use_direct_linearize", False); lin = jax.make_jaxpr(g_lin)(x0)',
                                          "linearize directly by default"),
    "the draw's primitives misread": ("01-jax-is-not-numpy.md",
                                      "ops = [e.primitive.name for e in jax.make_jaxpr(randn, static_argnums=1)(key, shape).eqns]",
                                      'ops = ["random_split", "random_bits", "jit"]', "a split and its unstacking"),
    "print staged like debug.print": ("01-jax-is-not-numpy.md",
                                      '    print("print sees:", x)                   # trace time only',
                                      '    jax.debug.print("print sees: {}", x)', "debug.print once, print never"),
    "state kept out of self": ("02-pure-functions-and-pytrees.md", "        self.h = jnp.tanh(self.h + x)       # writes self",
                               "        return jnp.tanh(self.h + x)", "should hold the tracer that escaped"),
    "logging staged into the program": ("02-pure-functions-and-pytrees.md",
                                        '    print("tracing loss")                  # runs once, at trace time',
                                        '    jax.debug.print("tracing loss")', "a cached call should print nothing"),
    "callbacks left unordered": ("11-host-callbacks.md",
                                 "    jax.debug.callback(lambda v: order.append(int(v)), i, ordered=ordered)",
                                 "    jax.debug.callback(lambda v: order.append(int(v)), i, ordered=False)",
                                 "only ordered callbacks should be chained by a token"),
    "sharding constraint dropped": ("10-sharding-in-depth.md",
                                    "    h = h if spec is None else lax.with_sharding_constraint(h, NamedSharding(mesh, spec))",
                                    "    h = h", "each constraint should reach Shardy"),
    "a Python call taken for jit's dispatch": ("01-jax-is-not-numpy.md",
                                               "empty = jax.jit(lambda n: jnp.int32(0), static_argnums=0)   # dispatch only",
                                               "empty = lambda n: 0", "jit costing what an empty jitted call costs"),
    "the model made the bottleneck": ("06-ecosystem-and-habits.md", "forward = jax.jit(lambda W, x: jax.nn.log_softmax(x @ W))",
                                      "forward = jax.jit(lambda W, x: jax.nn.log_softmax(jnp.tanh(x @ x.T) @ x @ W))",
                                      "preprocessing should take over twice"),
    "bfloat16 said to take four bytes": ("06-ecosystem-and-habits.md",
                                         '    lines.append(f"{name:8} {prec:9} {b.nbytes // 2**10:6}  {digits:6.1f}  {e:.1e}")',
                                         '    lines.append(f"{name:8} {prec:9} {4 * b.size // 2**10:6}  {digits:6.1f}  {e:.1e}")',
                                         "half the bytes of float32"),
    "the callback's sine computed on the device": ("11-host-callbacks.md",
                                                   "    s = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)",
                                                   "    s = jnp.sin(x)", "should call the host once"),
    "fewer steps traced than said": ("12-performance-tooling.md", "    for _ in range(3):", "    for _ in range(1):",
                                     "each of the three calls of model"),
    "a start that costs as much warm as cold": ("12-performance-tooling.md", "    lowered.compile()",
                                                "    lowered.compile(); time.sleep(3.0)", "under half XLA's compile"),
    "highest precision dropped": ("12-performance-tooling.md",
                                  'at_highest = jax.jit(lambda a, b: jnp.matmul(a, b, precision="highest"))',
                                  "at_highest = jax.jit(lambda a, b: jnp.matmul(a, b))", "should reach the compiler"),
    "more work behind the highest route": ("12-performance-tooling.md",
                                           'at_highest = jax.jit(lambda a, b: jnp.matmul(a, b, precision="highest"))',
                                           'at_highest = jax.jit(lambda a, b: jnp.matmul(a, b, precision="highest") @ b @ b)',
                                           "compile both to one program"),
    "a float32 result rounded back": ("12-performance-tooling.md",
                                      "wide = jnp.matmul(a16, b16, preferred_element_type=jnp.float32)",
                                      "wide = jnp.matmul(a16, b16, preferred_element_type=jnp.float32).astype(jnp.bfloat16)",
                                      "twice the bytes of a bfloat16 one"),
    "the polynomial cut by a cumulative sum": ("example.md", "    return 3 * x**3 - 2 * x**2 + x - 1",
                                               "    return jnp.cumsum(3 * x**3) - 2 * x**2 + x - 1",
                                               "fuse the polynomial into one kernel"),
    "jacfwd and jacrev swapped": ("03-automatic-differentiation.md",
                                  'modes, t, flops = {"jacfwd": jax.jacfwd, "jacrev": jax.jacrev}, {}, {}',
                                  'modes, t, flops = {"jacfwd": jax.jacrev, "jacrev": jax.jacfwd}, {}, {}',
                                  "jacrev should take longer than jacfwd on the tall function"),
    "the function's FLOPs counted for its Jacobians": ("03-automatic-differentiation.md",
                                                       '        flops[name, mode] = compiled.cost_analysis()["flops"]       # XLA\'s count',
                                                       '        flops[name, mode] = jax.jit(f).lower(x).compile().cost_analysis()["flops"]',
                                                       "XLA should count over ten times the FLOPs"),
    "checkpointed blocks merged back by XLA": ("03-automatic-differentiation.md",
                                               "    block = jax.checkpoint(four_layers) if remat else four_layers",
                                               "    block = jax.checkpoint(four_layers, prevent_cse=False) if remat else four_layers",
                                               "should keep the trade"),
    "the attention loop batched": ("04-vmap.md", "    return jnp.stack([attend(x) for x in batch])", "    return batched(batch)",
                                   "two matmuls per example"),
    "jit(vmap) timed as the eager loop": ("04-vmap.md", '        "vmap": batched, "jit vmap": jax.jit(batched)}',
                                          '        "vmap": batched, "jit vmap": looped}',
                                          "jit(vmap) should be the fastest of the four ways"),
    "the looped program batched": ("04-vmap.md",
                                   'sizes, fns = (B // 16, B // 2), {"jit looped": looped, "jit vmap": batched}',
                                   'sizes, fns = (B // 16, B // 2), {"jit looped": batched, "jit vmap": batched}',
                                   "the loop's program should grow with the batch"),
    "the spectral radius's jit(vmap) timed as its loop": ("04-vmap.md", '        "vmap": radii, "jit vmap": jax.jit(radii)}',
                                                '        "vmap": radii, "jit vmap": radii_looped}',
                                                "on the CPU, jit(vmap) should be the fastest"),
}


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_a_check_fails_when_its_claim_is_made_false(case, tmp_path, monkeypatch):
    monkeypatch.setenv("DEMOS_TIMING_BUDGET_SCALE", "0.25")
    name, line, broken, words = BREAKS[case]
    slides = tmp_path / "slides"
    shutil.copytree(ROOT / "slides" / "images", slides / "images")
    deck = slides / name
    text = (ROOT / "slides" / name).read_text(encoding="utf-8")
    assert text.count(line + "\n") == 1, f"{name} no longer has {line!r}: update BREAKS"
    deck.write_text(text.replace(line + "\n", broken + "\n"), encoding="utf-8")
    nb = deck_to_notebook(deck)
    # a failing check is reported at the line that raised: one of a check cell's own lines
    check_lines = {c.metadata["jaxdeck"]["line"] + k for c in nb.cells if is_check(c)
                   for k in range(1, len(c.source.splitlines()) + 1)}

    with pytest.raises(DeckError) as caught:
        execute(nb, deck)

    assert caught.value.line in check_lines, str(caught.value)
    assert "the claim no longer holds on this machine (" in str(caught.value)
    assert words in str(caught.value)
