"""demos._jaxpr.hlo_text: HLO text cleaned, parsed and reduced to kernels without running JAX."""

from demos import jaxpr as J

MODULE = """HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[]}

%region_0.1 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.1 = f32[] add(f32[] %a, f32[] %b)
}

%fused_computation (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %sine.0 = f32[4]{0} sine(f32[4]{0} %p)
  %constant.2 = f32[] constant(2)
  %broadcast.3 = f32[4]{0} broadcast(f32[] %constant.2), dimensions={}
  ROOT %multiply.4 = f32[4]{0} multiply(f32[4]{0} %sine.0, f32[4]{0} %broadcast.3)
}

ENTRY %main.9 (x: f32[4]) -> f32[] {
  %x = f32[4]{0} parameter(0)
  %fusion = f32[4]{0} fusion(f32[4]{0} %x), kind=kLoop, calls=%fused_computation
  %zero = f32[] constant(0)
  ROOT %reduce.5 = f32[] reduce(f32[4]{0} %fusion, f32[] %zero), dimensions={0}, to_apply=%region_0.1
}
"""


def test_clean_hlo_strips_nested_braces():
    text = ('%f = f32[4]{0} fusion(%x), kind=kLoop, calls=%c, metadata={op_name="a{b}"}, '
            'backend_config={"k":{"n":1}}\n')
    assert J.clean_hlo(text) == "%f = f32[4]{0} fusion(%x), kind=kLoop, calls=%c\n"


def test_parse_hlo_finds_computations_entry_and_root():
    comps = {c.name: c for c in J.parse_hlo(MODULE)}
    assert list(comps) == ["region_0.1", "fused_computation", "main.9"]
    assert comps["main.9"].entry and not comps["fused_computation"].entry
    ops = [(i.name, i.opcode, i.root) for i in comps["main.9"].instructions]
    assert ops == [("x", "parameter", False), ("fusion", "fusion", False), ("zero", "constant", False),
                   ("reduce.5", "reduce", True)]


def test_kernels_of_looks_inside_fusions_but_not_reducer_bodies():
    kernels, ops = J.kernels_of(MODULE)
    assert [(k.name, k.opcode, k.kind) for k in kernels] == [("fusion", "fusion", "kLoop"), ("reduce.5", "reduce", "")]
    assert kernels[0].ops == ["sine", "constant", "broadcast", "multiply"]
    assert kernels[0].describe() == "fusion (kLoop): sine, broadcast, multiply"
    assert kernels[1].ops == []  # the reducer's add is the reduction's body, not a kernel of its own
    assert ops == ["sine", "constant", "broadcast", "multiply", "reduce"]


def test_canonical_names_match_across_stages():
    assert J.canonical("sin") == J.canonical("stablehlo.sine") == J.canonical("sine") == "sine"
    assert J.canonical("dot_general") == "dot" and J.canonical("reduce_sum") == "reduce"
    assert J.stablehlo_ops('%0 = stablehlo.sine %arg0 : tensor<4xf32>\n  return %0') == ["stablehlo.sine"]
