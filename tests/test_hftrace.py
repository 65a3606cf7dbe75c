"""The real hf stack traced under fake tensors (advisor.hftrace): what it runs, what it reports,
and that fake and real tensors keep the same bytes."""

import json
import math
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from advisor.hftrace import quant_constants, run_hf_step, trace_hf  # noqa: E402
from advisor.memory_terms import nf4_bytes  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402
from tests.conftest import ROOT, have  # noqa: E402

pytestmark = pytest.mark.torch
needs_bnb = pytest.mark.skipif(not have("bitsandbytes"), reason="needs bitsandbytes")


@pytest.fixture(scope="module")
def tiny(catalog):
    return catalog.model("tiny-test").arch


def _spec(**kw) -> FinetuneSpec:
    return FinetuneSpec(**{"model": "tiny-test", "seq_len": 64, "micro_batch": 2, **kw})


@pytest.mark.parametrize("kw", [dict(method="lora"), dict(method="lora", gradient_checkpointing=False, lora_dropout=0.1),
                                dict(method="full", precision="fp32", optimizer_impl="foreach")])
def test_fake_hf_trace_equals_the_real_tensor_run(tiny, kw):
    fake, real = trace_hf(_spec(**kw), tiny), trace_hf(_spec(**kw), tiny, fake=False)
    assert fake.allocated_bytes == real.allocated_bytes
    assert fake.breakdown == real.breakdown


@pytest.mark.parametrize("kw", [dict(method="lora"), pytest.param(dict(method="qlora"), marks=needs_bnb),
                                dict(method="full", gradient_checkpointing=False)])
def test_breakdown_sums_to_the_peak_and_the_versions_are_said(tiny, kw):
    result = trace_hf(_spec(**kw), tiny)
    assert sum(result.breakdown.values()) == result.allocated_bytes == max(result.by_phase.values())
    assert result.runtime == "hf" and {"torch", "transformers", "peft"} <= set(result.versions)
    assert ("bitsandbytes" in result.versions) == (kw["method"] == "qlora")


def test_event_log_replays_to_the_peak_with_phases_and_categories(tiny):
    result = trace_hf(_spec(method="lora"), tiny)
    events = result.event_log()
    assert {e.kind for e in events} == {"alloc", "free"}
    assert {"build", "forward", "backward", "optimizer"} <= {e.phase for e in events}
    live = peak = 0
    start = result.tracker.phase_marks[0][0]
    for i, e in enumerate(events):
        live += e.nbytes if e.kind == "alloc" else -e.nbytes
        if i >= start:
            peak = max(peak, live)
    assert peak == result.allocated_bytes


@needs_bnb
def test_qlora_stands_in_for_params4bit_with_bitsandbytes_own_layers_and_bytes(tiny):
    import bitsandbytes as bnb
    from peft.tuners.lora.bnb import Linear4bit as PeftLinear4bit

    seen = {}

    def built(run):
        modules = list(run.model.modules())
        seen["bnb"] = sum(isinstance(m, bnb.nn.Linear4bit) for m in modules)
        seen["peft"] = sum(isinstance(m, PeftLinear4bit) for m in modules)
        seen["packed"] = sum(m.weight.numel() for m in modules if isinstance(m, bnb.nn.Linear4bit))
        seen["constants"] = sum(t.numel() * t.element_size() for t in quant_constants(run.model))

    run_hf_step(_spec(method="qlora"), tiny, on_built=built)
    assert seen["bnb"] == seen["peft"] == 7 * tiny.layers  # every block linear, each under PEFT's bnb LoRA
    data, _ = nf4_bytes(tiny.params_linear, double_quant=True)
    assert seen["packed"] == data
    # per weight (bitsandbytes functional.quantize_4bit with compress_statistics): one uint8 absmax
    # code per 64 values, one fp32 second-level absmax per 256 codes, an fp32 offset, the 16-value
    # fp32 NF4 code table, and the second level's own copy of the 256-value fp32 dynamic map
    per_weight = [math.ceil(i * o / 64) + 4 * math.ceil(i * o / 64 / 256) + 4 + 16 * 4 + 256 * 4
                  for i, o in tiny.linear_shapes().values()]
    assert seen["constants"] == tiny.layers * sum(per_weight)


@needs_bnb
def test_the_cuda_dequantize_fallback_is_seen_and_is_transient(tiny):
    spec = _spec(method="qlora", seq_len=1024)  # M = 2048 rows: bitsandbytes' CUDA fallback path
    with_kernels = trace_hf(spec, tiny)
    assert with_kernels.allocated_bytes > 0
    from advisor.model.tracker import LiveBytes

    bare = LiveBytes(vocab=tiny.vocab)
    run_hf_step(spec, tiny, modes=(bare,), cuda_kernels=False)
    assert len(with_kernels.tracker.storages) > len(bare.storages)  # the dequantized weights and absmax



@needs_bnb
def test_the_fallback_stands_in_only_where_bitsandbytes_calls_gemm_4bit_and_is_put_back():
    """The stand-in replaces ``torch.ops.bitsandbytes.gemm_4bit`` for the block only (MatMul4Bit
    looks it up at each call) and makes the dequantized weight and the output of F.linear."""
    import bitsandbytes  # noqa: F401
    from torch._subclasses.fake_tensor import FakeTensorMode

    from advisor.hftrace.bnb4bit import CudaKernelFootprint
    from advisor.model.tracker import LiveBytes

    original = torch.ops.bitsandbytes.gemm_4bit
    with FakeTensorMode():
        weight = torch.empty(256, 128, dtype=torch.bfloat16)
        packed, state = bitsandbytes.functional.quantize_4bit(weight, blocksize=64, quant_type="nf4")
        x = torch.empty(2048, 128, dtype=torch.bfloat16)
        tracker = LiveBytes(vocab=0)
        with tracker, CudaKernelFootprint() as kernels:
            assert torch.ops.bitsandbytes.gemm_4bit is not original
            out = bitsandbytes.matmul_4bit(x, packed.t(), quant_state=state)
        assert torch.ops.bitsandbytes.gemm_4bit is original
    assert tuple(out.shape) == (2048, 256) and kernels.fused_calls == 0  # 2048 rows: the CUDA fallback
    made = sorted(st.nbytes for st in tracker.storages)
    assert 256 * 128 * 2 in made and 2048 * 256 * 2 in made  # the 16-bit weight, then the output

def test_callers_can_add_their_own_dispatch_mode_and_phase_callbacks(tiny):
    from torch.utils._python_dispatch import TorchDispatchMode

    class Count(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.mm = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.mm += func in (torch.ops.aten.mm.default, torch.ops.aten.bmm.default, torch.ops.aten.addmm.default)
            return func(*args, **(kwargs or {}))

    counter, phases = Count(), []
    run_hf_step(_spec(method="lora"), tiny, modes=(counter,), on_phase=phases.append)
    assert phases == ["batch", "forward", "backward", "optimizer", "done"]
    assert counter.mm > 0


def test_trace_cli_runtime_hf_json(tiny):
    out = subprocess.run([sys.executable, "-m", "advisor", "trace", "--runtime", "hf", "--model", "tiny-test",
                          "--method", "lora", "--seq-len", "64", "--json"], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    data = json.loads(out.stdout)
    assert data["runtime"] == "hf" and "transformers" in data["versions"]
    assert data["estimate"]["allocated_bytes"] > 0


def test_trace_cli_refuses_hf_for_another_stack():
    out = subprocess.run([sys.executable, "-m", "advisor", "trace", "--runtime", "hf", "--model", "tiny-test",
                          "--stack", "torchtune"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0 and "--runtime reference" in out.stderr


@pytest.mark.parametrize("method", ["lora", pytest.param("qlora", marks=needs_bnb)])
def test_the_same_step_at_two_lengths_is_one_program_for_the_allocator(tiny, method):
    # autocast's cast cache dies in hash order; the tracker settles such bursts, so the hf
    # step's log differs between lengths only in sizes (advisor.allocator.events.StepProgram)
    from advisor.allocator.events import EventLog, StepProgram

    logs = {L: EventLog.from_tracker(trace_hf(_spec(method=method, seq_len=L), tiny).tracker) for L in (64, 128)}
    assert logs[64].events == logs[128].events
    StepProgram.from_logs(logs, micro_batch=2)
