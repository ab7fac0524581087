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


import pytest  # noqa: E402


@pytest.mark.parametrize("spelled, groups", [
    ("{{0,1},{2,3}}", ((0, 1), (2, 3))),
    ("[4,2]<=[8]", ((0, 1), (2, 3), (4, 5), (6, 7))),
    ("[2,4]<=[4,2]T(1,0)", ((0, 2, 4, 6), (1, 3, 5, 7))),
    ("mesh['axis_0'=2] {'axis_0'}", ((0, 1),)),
    ("mesh['axis_0'=1,'axis_1'=2] {'axis_1'}", ((0, 1),)),
    ("mesh['x'=4,'y'=2] {'x'}", ((0, 2, 4, 6), (1, 3, 5, 7))),
    ("mesh['x'=4,'y'=2] {'x':(1)2}", None),   # sub-axes: not read, the text is kept
])
def test_every_spelling_of_replica_groups_reads_back_as_device_groups(spelled, groups):
    assert J.replica_groups(spelled) == groups


SPMD = """HloModule jit_f

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (p: f32[2,4]) -> f32[8,4] {
  %p = f32[2,4]{1,0} parameter(0)
  %ar = f32[2,4]{1,0} all-reduce-start(f32[2,4]{1,0} %p), channel_id=1, replica_groups=[4,2]<=[8], use_global_device_ids=true, to_apply=%add
  %done = f32[2,4]{1,0} all-reduce-done(f32[2,4]{1,0} %ar)
  ROOT %ag = f32[8,4]{1,0} all-gather(f32[2,4]{1,0} %done), channel_id=2, replica_groups=mesh['x'=4,'y'=2] {'x'}, dimensions={0}
}
"""


def test_collectives_lists_each_once_with_its_shape_and_groups():
    found = J.collectives(SPMD)
    assert [(c.op, c.shape) for c in found] == [("all-reduce", "f32[2,4]"), ("all-gather", "f32[8,4]")]
    assert found[0].groups == ((0, 1), (2, 3), (4, 5), (6, 7)) and found[1].groups == ((0, 2, 4, 6), (1, 3, 5, 7))
    assert str(found[0]) == "all-reduce f32[2,4] over {0,1} {2,3} {4,5} {6,7}"


def test_a_tuple_all_reduce_lists_every_member_without_layouts():
    module = SPMD.replace(
        "ROOT %ag = f32[8,4]{1,0} all-gather(f32[2,4]{1,0} %done), channel_id=2, replica_groups=mesh['x'=4,'y'=2] {'x'}, dimensions={0}",
        "ROOT %t = (f32[64]{0}, f32[8,64]{1,0}, /*index=2*/f32[]) all-reduce(f32[64]{0} %p, f32[8,64]{1,0} %p, f32[] %p), "
        "channel_id=3, replica_groups={{0,1,2,3,4,5,6,7}}, to_apply=%add")
    tuple_sum = J.collectives(module)[-1]
    assert tuple_sum.shape == "(f32[64], f32[8,64], f32[])" and tuple_sum.groups == (tuple(range(8)),)
