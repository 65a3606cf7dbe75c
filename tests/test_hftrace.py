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


# --- Liger kernel (advisor.hftrace.liger) ---------------------------------------------------------
needs_liger = pytest.mark.skipif(not have("liger_kernel"), reason="needs liger_kernel (the liger extra)")


def _loss_and_grads(tiny, liger_kernel: bool, **kw):
    """One real fp32 forward + backward of the pilot's own hf model on CPU tensors."""
    from advisor.pilot import hf_stack

    spec = _spec(liger_kernel=liger_kernel, precision="fp32", lora_dropout=0.0, seq_len=32, **kw)
    torch.manual_seed(0)
    model = hf_stack.prepare(hf_stack.make_model(spec, tiny, "cpu"), spec)
    for name, p in model.named_parameters():  # LoRA B starts at zero: make every gradient flow
        if "lora_B" in name:
            torch.nn.init.normal_(p, std=0.02, generator=torch.Generator().manual_seed(1))
    ids = hf_stack.make_batch(spec, tiny, "cpu")
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    return model, loss.item(), {n: p.grad for n, p in model.named_parameters() if p.grad is not None}


@needs_liger
@pytest.mark.parametrize("kw", [dict(method="lora"), dict(method="full", gradient_checkpointing=False)])
def test_liger_stand_ins_compute_what_transformers_computes(tiny, kw):
    """Liger applied as the Trainer applies it swaps every norm, MLP, RoPE and the loss; the
    stand-ins give transformers' loss and gradients (on real tensors), so they run the same graph."""
    from liger_kernel.transformers.model.llama import lce_forward

    from advisor.hftrace import liger

    _, plain_loss, plain = _loss_and_grads(tiny, False, **kw)
    with liger.stand_ins():
        model, liger_loss, grads = _loss_and_grads(tiny, True, **kw)
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    assert base.forward.__func__ is lce_forward
    assert {layer.mlp._get_name() for layer in base.model.layers} == {"LigerSwiGLUMLP"}
    assert base.model.norm._get_name() == "LigerRMSNorm"
    assert liger_loss == pytest.approx(plain_loss, rel=1e-5)
    assert grads.keys() == plain.keys()
    for name, g in grads.items():
        assert torch.allclose(g, plain[name], rtol=1e-4, atol=1e-6 * plain[name].abs().max().item()), name


@needs_liger
def test_liger_trace_restores_transformers_and_says_its_version(tiny):
    import transformers.models.llama.modeling_llama as modeling_llama

    before = (modeling_llama.apply_rotary_pos_emb, modeling_llama.LlamaRMSNorm, modeling_llama.LlamaMLP)
    result = trace_hf(_spec(method="lora", liger_kernel=True), tiny)
    assert (modeling_llama.apply_rotary_pos_emb, modeling_llama.LlamaRMSNorm, modeling_llama.LlamaMLP) == before
    assert "liger_kernel" in result.versions
    assert result.allocated_bytes < trace_hf(_spec(method="lora"), tiny).allocated_bytes  # no logits kept


@needs_liger
@pytest.mark.parametrize("kw", [dict(method="lora"), dict(method="lora", gradient_checkpointing=False, lora_dropout=0.1),
                                dict(method="full", precision="fp32", optimizer_impl="foreach")])
def test_liger_fake_trace_equals_the_real_tensor_run(tiny, kw):
    spec = _spec(liger_kernel=True, **kw)
    fake, real = trace_hf(spec, tiny), trace_hf(spec, tiny, fake=False)
    assert fake.allocated_bytes == real.allocated_bytes
    assert fake.breakdown == real.breakdown


@needs_liger
@pytest.mark.parametrize("x_dtype, w_dtype, autocast, mm_out", [
    (torch.bfloat16, torch.bfloat16, True, True),  # LoRA on a bf16 model: torch.mm(out=) into one buffer
    (torch.float32, torch.float32, True, False),  # QLoRA's fp32 norm and head under bf16 autocast
])
def test_fused_linear_cross_entropy_allocates_what_liger_does(x_dtype, w_dtype, autocast, mm_out):
    """liger_kernel 0.8.5 fused_linear_cross_entropy_forward: grad_input like the input, the fp32
    loss per token, one chunk of logits (chunk = next_pow2(cdiv(BT, cdiv(V, H)))), and under
    autocast over fp32 operands the weight's 16-bit cast per matmul; grad_input is saved."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    import liger_kernel.transformers.functional as F

    from advisor.hftrace import liger
    from advisor.model.tracker import LiveBytes

    BT, H, V = 2048, 64, 1000  # cdiv(V, H) = 16: chunks of next_pow2(128) = 128 tokens
    with FakeTensorMode():
        x = torch.empty(BT, H, dtype=x_dtype, requires_grad=True)
        w = torch.empty(V, H, dtype=w_dtype)
        target = torch.zeros(BT, dtype=torch.long)
        tracker = LiveBytes(vocab=0)
        with liger.stand_ins(), tracker, torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = F.liger_fused_linear_cross_entropy(x, w, target)
            loss.backward()
    made = [st.nbytes for st in tracker.storages]
    x_bytes = torch.tensor([], dtype=x_dtype).element_size()
    assert BT * H * x_bytes in made and BT * 4 in made  # grad_input, loss_1d
    assert 128 * V * 2 in made  # one chunk of 16-bit logits
    # autocast's 16-bit cast of an fp32 head, per matmul (a bf16 head's own storage is seen once,
    # through weight.t())
    casts = made.count(V * H * 2) - (1 if w_dtype == torch.bfloat16 else 0)
    assert (casts > 0) == (not mm_out)
    assert tuple(x.grad.shape) == (BT, H)


@needs_liger
def test_trace_cli_runtime_hf_with_liger_kernel():
    out = subprocess.run([sys.executable, "-m", "advisor", "trace", "--runtime", "hf", "--liger-kernel",
                          "--model", "tiny-test", "--method", "lora", "--seq-len", "64", "--json"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    data = json.loads(out.stdout)
    assert data["runtime"] == "hf" and "liger_kernel" in data["versions"]
    assert data["spec"]["liger_kernel"] is True


# --- autograd's in-place gradient sum (advisor.model.inbuffer) ----------------------------------
def _tied_step(V=512, H=32, T=16):
    """A tied weight used twice under bf16 autocast (the LM head and the embedding), as a tied
    causal LM uses it: returns (weight, loss, ids)."""
    weight = torch.nn.Parameter(torch.randn(V, H))
    ids = torch.randint(0, V, (T,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        x = torch.nn.functional.embedding(ids, weight)
        loss = torch.nn.functional.linear(x * 2, weight).float().logsumexp(-1).mean()
    return weight, loss


def _head_grad_storage(loss) -> dict:
    """Register a hook on the LM head's ToCopyBackward0 (autocast's cast of the fp32 weight)
    that records the data pointer of the fp32 gradient it makes."""
    seen, stack, out = set(), [loss.grad_fn], {}
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if type(node).__name__ == "ToCopyBackward0":
            node.register_hook(lambda grad_inputs, _outputs: out.__setitem__("head", grad_inputs[0].data_ptr()))
        stack.extend(fn for fn, _ in node.next_functions)
    return out


def test_autograd_sums_a_tied_gradient_in_place_unless_a_dispatch_mode_is_active():
    """The mechanism the tracker replays: without any mode the tied weight's .grad is the LM
    head's gradient's storage (InputBuffer::accumulate, old_var.add_(var)); under a
    TorchDispatchMode isTensorSubclassLike is true and the sum is a new tensor."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Passthrough(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    torch.manual_seed(0)
    weight, loss = _tied_step()
    head = _head_grad_storage(loss)
    loss.backward()
    assert weight.grad.data_ptr() == head["head"]
    weight, loss = _tied_step()
    head = _head_grad_storage(loss)
    with Passthrough():
        loss.backward()
    assert weight.grad.data_ptr() != head["head"]


@pytest.mark.parametrize("fake", [False, True])
def test_the_tracker_logs_the_tied_sum_in_the_first_gradients_storage(fake):
    """Under the tracker (a dispatch mode) autograd makes the sum out of place; the log shows it
    as a GPU makes it: two fp32 vocab x hidden gradients in backward (the head's, which becomes
    .grad, and the embedding's, freed after the add), not three, and .grad labelled gradients."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from advisor.model.tracker import LiveBytes

    V, H = 512, 32
    tracker = LiveBytes(vocab=V)
    with (FakeTensorMode() if fake else torch.autocast("cpu", enabled=False)), tracker:
        weight, loss = _tied_step(V, H)
        tracker.label_model(torch.nn.ParameterList([weight]))
        tracker.set_phase("backward")
        loss.backward()
        tracker.set_phase("optimizer")
        tracker.label_grads(torch.nn.ParameterList([weight]))
        events = tracker.event_log()
        grad_bytes = V * H * 4
        made = [e for e in events if e.kind == "alloc" and e.phase == "backward" and e.nbytes == grad_bytes]
        assert len(made) == 2
        assert sum(1 for e in made if e.category == "gradients") == 1
        live = {}
        for e in events:
            live[e.storage] = e.kind == "alloc"
        assert [e.storage for e in made if live[e.storage]] == [e.storage for e in made if e.category == "gradients"]
        del weight, loss
