"""demos.jaxpr.program: a compiled program's collectives, kernels and constants, from CPU and GPU HLO."""

import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import pytest

from demos import jaxpr as J

#: one FSDP step's module as a GPU compiles it: async all-gather and all-reduce pairs, a reduce-scatter
#: in an async-start wrapper, a gemm handed to cuBLAS, metadata and backend configs with nested braces
GPU_FSDP = """HloModule jit_step, is_scheduled=true, entry_computation_layout={(f32[2,16]{1,0}, f32[8,16]{1,0})->(f32[2,16]{1,0}, f32[])}, num_partitions=8

%add.clone (x.1: f32[], y.1: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.1 = f32[] parameter(1)
  ROOT %add.2 = f32[] add(f32[] %x.1, f32[] %y.1)
}

%wrapped_reduce_scatter_computation (param_0.3: f32[16,16]) -> f32[2,16] {
  %param_0.3 = f32[16,16]{1,0} parameter(0)
  ROOT %reduce-scatter.1 = f32[2,16]{1,0} reduce-scatter(f32[16,16]{1,0} %param_0.3), channel_id=3, replica_groups=[1,8]<=[8], use_global_device_ids=true, dimensions={0}, to_apply=%add.clone
}

%fused_tanh (param_0.1: f32[8,16]) -> f32[8,16] {
  %param_0.1 = f32[8,16]{1,0} parameter(0)
  ROOT %tanh.0 = f32[8,16]{1,0} tanh(f32[8,16]{1,0} %param_0.1), metadata={op_name="jit(step)/block/tanh" source_file="talk.py" source_line=3}
}

ENTRY %main.42 (Arg_0.1: f32[2,16], Arg_1.2: f32[8,16]) -> (f32[2,16], f32[]) {
  %Arg_0.1 = f32[2,16]{1,0} parameter(0), sharding={devices=[8,1]<=[8]}
  %Arg_1.2 = f32[8,16]{1,0} parameter(1)
  %all-gather-start = (f32[2,16]{1,0}, f32[16,16]{1,0}) all-gather-start(f32[2,16]{1,0} %Arg_0.1), channel_id=1, replica_groups=[1,8]<=[8], dimensions={0}, use_global_device_ids=true, backend_config={"operation_queue_id":"0","collective_backend_config":{"is_sync":true}}
  %all-gather-done = f32[16,16]{1,0} all-gather-done((f32[2,16]{1,0}, f32[16,16]{1,0}) %all-gather-start)
  %custom-call.1 = (f32[8,16]{1,0}, s8[0]{0}) custom-call(f32[8,16]{1,0} %Arg_1.2, f32[16,16]{1,0} %all-gather-done), custom_call_target="__cublas$gemm", metadata={op_name="jit(step)/block/dot_general"}, backend_config={"gemm_backend_config":{"alpha_real":1}}
  %get-tuple-element = f32[8,16]{1,0} get-tuple-element((f32[8,16]{1,0}, s8[0]{0}) %custom-call.1), index=0
  %fusion = f32[8,16]{1,0} fusion(f32[8,16]{1,0} %get-tuple-element), kind=kLoop, calls=%fused_tanh
  %reduce-scatter-start = ((f32[16,16]{1,0}), f32[2,16]{1,0}) async-start(f32[16,16]{1,0} %all-gather-done), async_execution_thread="main", calls=%wrapped_reduce_scatter_computation
  %reduce-scatter-done = f32[2,16]{1,0} async-done(((f32[16,16]{1,0}), f32[2,16]{1,0}) %reduce-scatter-start)
  %constant.7 = f32[] constant(0.5)
  %call.3 = f32[8,16]{1,0} call(f32[8,16]{1,0} %fusion), to_apply=%command_buffer
  %all-reduce-start = f32[] all-reduce-start(f32[] %constant.7), channel_id=2, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add.clone
  %all-reduce-done = f32[] all-reduce-done(f32[] %all-reduce-start)
  ROOT %tuple = (f32[2,16]{1,0}, f32[]) tuple(f32[2,16]{1,0} %reduce-scatter-done, f32[] %all-reduce-done)
}
"""


def test_gpu_spellings_read_as_one_collective_each_with_its_result():
    p = J.program(GPU_FSDP)
    assert [(c.op, c.shape) for c in p.collectives] == [
        ("reduce-scatter", "f32[2,16]"),   # found inside its async wrapper
        ("all-gather", "f32[16,16]"),      # the done's result, not the start's (operand, result) pair
        ("all-reduce", "f32[]"),
    ]
    assert p.communicates == ["all-gather", "all-reduce", "reduce-scatter"]
    assert p.shapes("all-gather") == ["f32[16,16]"] and p.shapes("all-reduce", "reduce-scatter") == ["f32[2,16]", "f32[]"]
    assert all(c.groups == (tuple(range(8)),) for c in p.collectives)


def test_gpu_library_calls_scopes_constants_and_fusions():
    p = J.program(GPU_FSDP)
    assert p.library_calls == ["__cublas$gemm"]
    assert p.scopes("block") == ["jit(step)/block/dot_general", "jit(step)/block/tanh"]
    assert p.constants == ["f32[] constant(0.5)"]
    assert p.count("fusion") == 1 and p.count("copy") == 0
    assert p.count("call") == 1 and p.calls == 0   # a command buffer: kernels launched as one graph, no call left
    assert p.fused_text().startswith("%fused_tanh") and "metadata" not in p.fused_text()
    assert p.fused_text(1) == ""


def test_gpu_program_reads_in_text_and_html():
    p = J.program(GPU_FSDP)
    text = str(p)
    assert text.splitlines()[0] == "program: 3 kernels (1 fused), 3 collectives"
    assert "  all-gather f32[16,16] over {0,1,2,3,4,5,6,7}" in text and "library calls: __cublas$gemm" in text
    html = p._repr_html_()
    assert "<table" in html and "reduce-scatter" in html and "__cublas$gemm" in html


def test_cpu_program_of_a_function_folds_fuses_and_talks_to_no_one():
    def poly(x):
        return jnp.sum(jnp.exp(x) * 2.0 + 1.0)

    p = J.program(poly, jnp.ones(16))
    assert p.name == "poly" and p.communicates == [] and p.collectives == []
    assert " exponential(" in p.fused_text() and "no communication" in str(p)
    folded = J.program(jax.jit(lambda n: jnp.arange(n).sum(), static_argnums=0), 100)
    assert folded.constants == ["s32[] constant(4950)"] and folded.count("reduce") == 0
    inner = jax.jit(lambda v: jnp.tanh(v) * 2)
    assert J.program(lambda v: inner(inner(v)).sum(), jnp.ones(4)).calls == 0   # jit inside jit: inlined


def test_a_lowered_or_compiled_stage_and_text_give_the_same_program():
    f = jax.jit(lambda x: jnp.tanh(x) @ x)
    lowered = f.lower(jnp.ones((4, 4)))
    compiled = lowered.compile()
    texts = {J.program(stage).text for stage in (lowered, compiled, compiled.as_text())}
    assert texts == {compiled.as_text()}


SHARDED = """
import json
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
import demos
n = jax.device_count()
mesh = jax.make_mesh((n,), ("d",))
rows = NamedSharding(mesh, P("d"))
x = jax.device_put(jnp.ones((2 * n, 4)), rows)
total = demos.jaxpr.program(jax.jit(lambda r: r.sum()), x)
gather = demos.jaxpr.program(jax.jit(lambda r: r, out_shardings=NamedSharding(mesh, P())), x)
print(json.dumps({"total": [total.communicates, [str(c) for c in total.collectives]],
                  "gather": [gather.communicates, gather.shapes("all-gather")], "text": str(total)}))
"""


@pytest.mark.heavy
def test_cpu_collectives_of_sharded_programs_at_four_devices():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu")
    env.pop("JAXDECK_DEVICES", None)
    out = subprocess.run([sys.executable, "-c", SHARDED], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["total"][0] == ["all-reduce"] and got["total"][1] == ["all-reduce f32[] over {0,1,2,3}"]
    assert got["gather"] == [["all-gather"], ["f32[8,4]"]]
    assert "1 collective" in got["text"]
