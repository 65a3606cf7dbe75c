"""Stack defaults read from each stack's recipes, and the behaviours the stacks add to the memory
model: gradient accumulation, optimizer-in-backward, ZeRO-2/3, Unsloth, Liger, library versions."""

import json
import subprocess
import sys

import pytest

from advisor.memory import estimate_memory
from advisor.memory_terms import lora_params
from advisor.spec import DEFAULTS, STACK_DEFAULTS, FinetuneSpec, SpecRequest, default_for, resolve
from advisor.stacks import PROFILES, profile
from tests.conftest import ROOT

GIB = 2**30


@pytest.fixture(scope="module")
def llama8b(catalog):
    return catalog.model("llama-3.1-8b").arch


def spec(**kw) -> FinetuneSpec:
    return FinetuneSpec(model="llama-3.1-8b", **kw)


@pytest.mark.parametrize("stack, method, field, value", [
    ("torchtune", "full", "precision", "bf16"),
    ("torchtune", "full", "optimizer", "paged-adamw-8bit"),
    ("torchtune", "full", "optimizer_in_backward", True),
    ("torchtune", "lora", "optimizer_impl", "fused"),
    ("torchtune", "lora", "lora_dropout", 0.0),
    ("torchtune", "qlora", "lora_rank", 8),
    ("torchtune", "lora", "gradient_accumulation_steps", 8),
    ("litgpt", "lora", "precision", "bf16"),
    ("litgpt", "lora", "gradient_checkpointing", False),
    ("litgpt", "qlora", "lora_targets", "attention"),
    ("unsloth", "qlora", "lora_dropout", 0.0),
    ("hf", "lora", "lora_dropout", 0.05),
    ("hf", "full", "optimizer_impl", "fused"),
])
def test_each_stack_takes_its_own_recipe_defaults(stack, method, field, value):
    assert getattr(FinetuneSpec(params_b=8, stack=stack, method=method), field) == value
    assert default_for(field, stack, method).value == value


def test_every_stack_default_names_its_source():
    for stack, per_method in STACK_DEFAULTS.items():
        for fields in per_method.values():
            for name, d in fields.items():
                assert name in DEFAULTS, name
                assert any(word in d.reason for word in (".yaml", ".py", "config")), (stack, name, d.reason)


def test_what_the_user_says_beats_the_stack_default():
    s = FinetuneSpec(params_b=8, stack="torchtune", method="full", optimizer="adamw", optimizer_in_backward=False)
    assert s.optimizer == "adamw" and not s.optimizer_in_backward and s.precision == "bf16"


def test_the_answer_lists_the_stacks_assumed_defaults():
    _, assumed = resolve(SpecRequest(params_b=8, stack="torchtune", method="full"))
    assert "optimizer" in assumed and "precision" in assumed and "optimizer_in_backward" in assumed


def test_torchtune_full_estimate_shows_its_defaults_and_a_peak_consistent_with_them(llama8b):
    # bf16 weights (2 B/param, no fp32 master copy), paged 8-bit states outside torch's
    # allocator, gradients applied and freed in backward: well under half of HF's 16 B/param
    m = estimate_memory(spec(stack="torchtune", method="full", seq_len=2048, micro_batch=2), llama8b)
    params = llama8b.params_total
    assert m.terms["weights"] == 2 * params and m.terms["optimizer_states"] == 0
    assert m.terms["gradients"] <= 2 * llama8b.params_embedding  # one parameter's gradient at a time
    assert m.allocated_bytes < 26 * GIB
    assert m.device_bytes - m.reserved_bytes > 2 * params * 0.99  # paged states in the device total
    hf = estimate_memory(spec(stack="hf", method="full", seq_len=2048, micro_batch=2), llama8b)
    assert m.allocated_bytes < hf.allocated_bytes / 2


def test_estimate_cli_json_shows_torchtune_defaults():
    out = subprocess.run([sys.executable, "-m", "advisor", "estimate", "--stack", "torchtune", "--model",
                          "llama-3.1-8b", "--method", "full", "--seq-len", "2048", "--micro-batch", "2", "--json"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    data = json.loads(out.stdout)
    assert data["spec"]["precision"] == "bf16" and data["spec"]["optimizer"] == "paged-adamw-8bit"
    assert data["spec"]["optimizer_in_backward"] is True
    assert data["memory"]["allocated_bytes"] < 26 * GIB


@pytest.mark.parametrize("method", ["lora", "full"])
def test_gradients_meet_the_forward_only_when_accumulating(llama8b, method):
    one = estimate_memory(spec(method=method, gradient_accumulation_steps=1, seq_len=8192), llama8b)
    eight = estimate_memory(spec(method=method, gradient_accumulation_steps=8, seq_len=8192), llama8b)
    assert one.peak_phase != "optimizer" or method == "full"
    assert eight.allocated_bytes > one.allocated_bytes
    if method == "lora":
        trainable = lora_params(llama8b, "all-linear", 16)
        assert eight.allocated_bytes - one.allocated_bytes == pytest.approx(4 * trainable, rel=0.01)


def test_optimizer_in_backward_needs_no_gradient_accumulation():
    with pytest.raises(ValueError, match="cannot accumulate"):
        FinetuneSpec(params_b=8, stack="torchtune", method="full", gradient_accumulation_steps=4)


def test_zero_partitions_per_the_zero_paper(llama8b):
    # Rajbhandari et al. 2020: 16-bit params and grads, K = 12 bytes of fp32 master + Adam moments;
    # ZeRO-2 per GPU 2P + (2 + K)P/N, ZeRO-3 (2 + 2 + K)P/N
    n, p = 8, llama8b.params_total
    kw = dict(method="full", precision="bf16-mixed", num_gpus=n, optimizer_impl="fused")
    z2 = estimate_memory(spec(sharding="zero2", **kw), llama8b).terms
    z3 = estimate_memory(spec(sharding="zero3", **kw), llama8b).terms
    static = ("weights", "master_weights", "optimizer_states")
    assert sum(z2[k] for k in static) == pytest.approx(2 * p + 12 * p / n, rel=0.001)
    assert sum(z3[k] for k in static) == pytest.approx((2 + 12) * p / n, rel=0.001)


def test_zero_is_an_hf_stack_option():
    with pytest.raises(ValueError, match="DeepSpeed"):
        FinetuneSpec(params_b=8, stack="torchtune", method="full", num_gpus=4, sharding="zero3",
                     optimizer_in_backward=False)


def test_unsloth_keeps_one_layer_input_and_no_full_logits(llama8b):
    kw = dict(method="qlora", seq_len=16384, lora_dropout=0.0)
    hf = estimate_memory(spec(stack="hf", **kw), llama8b)
    un = estimate_memory(spec(stack="unsloth", **kw), llama8b)
    assert un.terms["logits_loss"] < hf.terms["logits_loss"] / 2
    assert un.allocated_bytes < hf.allocated_bytes


def test_liger_fused_linear_cross_entropy_never_holds_the_logits(llama8b):
    kw = dict(method="lora", seq_len=8192)
    plain = estimate_memory(spec(**kw), llama8b).terms["logits_loss"]
    liger = estimate_memory(spec(liger_kernel=True, **kw), llama8b).terms["logits_loss"]
    tokens, vocab, hidden = 8192, llama8b.vocab, llama8b.hidden
    assert plain >= 3 * 4 * tokens * vocab
    # grad_input and the final norm's output (bf16), one 4096-token chunk of bf16 logits
    # (chunk = next_pow2(8192 / ceil(V / H)) = 512 here), the fp32 loss, the mask and padded labels
    assert liger <= 2 * 2 * tokens * hidden + 2 * 4096 * vocab + (4 + 1 + 8) * tokens


def test_liger_is_an_hf_option():
    with pytest.raises(ValueError, match="Liger"):
        FinetuneSpec(params_b=8, stack="litgpt", liger_kernel=True)


@pytest.mark.parametrize("version, keeps", [("0.41.1", True), ("0.42.0", True), ("0.43.2", False), ("0.50.2", False)])
def test_bitsandbytes_before_0_43_2_keeps_the_4bit_matmul_input(version, keeps):
    assert profile("litgpt", {"bitsandbytes": version}).keep_quant_input is keeps
    assert profile("hf", {"bitsandbytes": version}).keep_quant_input is keeps


def test_current_profiles_follow_current_bitsandbytes():
    assert not any(p.keep_quant_input for p in PROFILES.values())


def test_a_whole_shape_needs_no_model_or_size(catalog):
    from advisor.resolve import resolve_request

    shape = dict(layers=16, hidden=2048, intermediate=8192, heads=32, kv_heads=8, vocab=128256, tied_embeddings=True)
    resolved = resolve_request(SpecRequest(**shape), catalog)
    assert resolved.arch.params_total == catalog.model("llama-3.2-1b").arch.params_total
    with pytest.raises(ValueError, match="still missing: intermediate"):
        FinetuneSpec(layers=16, hidden=2048, heads=32, kv_heads=8, vocab=128256)


# --- litgpt QLoRA (issue 11): what litgpt + Lightning's BitsandbytesPrecision + bitsandbytes
# 0.42 keep alive, each from a source line (advisor/stacks.py), checked here term by term ---------

def test_a_ctx_attribute_outlives_backward_and_save_for_backward_does_not():
    """The premise of StackProfile.graph_outlives_step, on real torch: bitsandbytes 0.42's
    MatMul4Bit stores ``ctx.tensors = (A, B)``; backward releases only save_for_backward tensors,
    so A lives as long as the graph (here: as long as the output is referenced)."""
    torch = pytest.importorskip("torch")
    import weakref

    class Attribute(torch.autograd.Function):  # the bitsandbytes 0.42.0 MatMul4Bit storage
        @staticmethod
        def forward(ctx, a, b):
            ctx.tensors = (a, b)
            return a @ b.t()

        @staticmethod
        def backward(ctx, g):
            return g @ ctx.tensors[1], None

    class Saved(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a @ b.t()

        @staticmethod
        def backward(ctx, g):
            return g @ ctx.saved_tensors[1], None

    alive = {}
    for fn in (Attribute, Saved):
        x = torch.randn(4, 8, requires_grad=True)
        a = x * 2  # held by the matmul only
        ref = weakref.ref(a)
        out = fn.apply(a, torch.randn(8, 8))
        del a
        out.sum().backward()
        alive[fn.__name__] = ref() is not None  # out (litgpt: the logits list) still referenced
        del out
        assert ref() is None  # the graph died with its last reference
    assert alive == {"Attribute": True, "Saved": False}


def test_the_previous_steps_4bit_inputs_are_every_quantized_matmuls_input(catalog):
    """litgpt + bitsandbytes 0.42, no checkpointing: the previous step's graph holds one input per
    distinct tensor read by 4-bit matmuls (q/k/v share the norm output, gate/up the second norm's),
    the first layer's q/k/v input excepted (frozen embedding), plus the 4-bit head's input."""
    arch = catalog.model("tinyllama-1.1b").arch
    s = FinetuneSpec(model="tinyllama-1.1b", method="qlora", stack="litgpt", precision="bf16", seq_len=512,
                     micro_batch=8, gradient_checkpointing=False)
    from advisor.memory import _previous_step, _setup

    old = profile("litgpt", {"bitsandbytes": "0.42.0"})
    h, q, inter, tokens = arch.hidden, arch.q_dim, arch.intermediate, 512 * 8
    per_layer = 2 * (h + q + h + inter)
    expected = (arch.layers * per_layer - 2 * h + 2 * h) * tokens  # first layer's q/k/v input out, head's in
    assert _previous_step(_setup(s, arch, old, None, False)) == pytest.approx(expected, rel=1e-9)
    steady = estimate_memory(s, arch, stack=old, accumulates_gradients=False)
    first = estimate_memory(s, arch, stack=old, accumulates_gradients=False, previous_step=False)
    assert steady.allocated_bytes - first.allocated_bytes > 0.95 * expected  # at the forward peak
    # current bitsandbytes keeps nothing on ctx: the previous step holds no 4-bit inputs
    now = profile("litgpt")
    assert estimate_memory(s, arch, stack=now, accumulates_gradients=False).allocated_bytes == \
        estimate_memory(s, arch, stack=now, accumulates_gradients=False, previous_step=False).allocated_bytes


def test_litgpt_quantizes_its_head_and_dequantizes_it_through_fp16(catalog):
    from advisor.memory_terms import nf4_bytes

    arch = catalog.model("llama-3.1-8b").arch
    kw = dict(model="llama-3.1-8b", method="qlora", precision="bf16", seq_len=512, micro_batch=2,
              gradient_checkpointing=False, lora_targets="attention", lora_dropout=0.0)
    lit = estimate_memory(FinetuneSpec(stack="litgpt", **kw), arch, accumulates_gradients=False)
    data, _ = nf4_bytes(arch.params_linear + arch.params_head, False)
    other = arch.params_total - arch.params_linear - arch.params_head
    assert lit.terms["weights"] == data + 2 * other
    # the head's fp16 dequantized copy and its bf16 cast are alive together at the peak
    assert lit.terms["transient"] >= 4 * arch.vocab * arch.hidden


def test_litgpt_keeps_its_own_head_for_a_tied_checkpoint(catalog):
    arch = catalog.model("llama-3.2-1b").arch
    assert arch.tied_embeddings
    kw = dict(model="llama-3.2-1b", method="lora", precision="bf16", seq_len=512, micro_batch=1)
    lit = estimate_memory(FinetuneSpec(stack="litgpt", **kw), arch)
    tt = estimate_memory(FinetuneSpec(stack="torchtune", **kw), arch)
    assert lit.terms["weights"] - tt.terms["weights"] == 2 * arch.vocab * arch.hidden


@pytest.mark.parametrize("version, direct", [("0.42.0", False), ("0.49.2", False), ("0.50.0", True), ("0.50.2", True)])
def test_bitsandbytes_0_50_dequantizes_straight_to_the_input_dtype_in_forward(version, direct):
    assert profile("litgpt", {"bitsandbytes": version}).quant_forward_direct is direct
    assert PROFILES["litgpt"].quant_forward_direct  # the installed release
