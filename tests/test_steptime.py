"""The step-time model (advisor.steptime): the closed-form operator inventory against the traced
step's operators, the roofline, the host, communication and the stacks' kernels."""

from collections import defaultdict

import pytest

from advisor.arch import Architecture
from advisor.spec import FinetuneSpec
from advisor.steptime import comm
from advisor.steptime.device import device
from advisor.steptime.inventory import _evaluate_slow, compile_step, config_for, evaluate, inventory, point_for
from advisor.steptime.kernels import profile
from advisor.steptime.model import predict
from advisor.steptime.record import causal_fraction, record_step

pytestmark = pytest.mark.torch

TINY = Architecture(layers=3, hidden=64, intermediate=96, heads=4, kv_heads=2, head_dim=24, vocab=1000)
GPT = Architecture(layers=3, hidden=64, intermediate=256, heads=4, kv_heads=4, head_dim=16, vocab=1000,
                   norm="layernorm", mlp_kind="plain", tied_embeddings=True)
BIAS = Architecture(layers=3, hidden=64, intermediate=96, heads=4, kv_heads=2, head_dim=24, vocab=1000,
                    attn_bias=True, tied_embeddings=True)

# (spec fields, arch, bytes tolerance): every method, checkpointing on and off, the stacks'
# switches, precisions and optimizers; the CPU trace differs from the CUDA path the inventory
# models only where noted
GRID = [
    (dict(method="lora", stack="hf"), TINY, 0.01),
    (dict(method="lora", stack="hf", gradient_checkpointing=False), TINY, 0.01),
    (dict(method="full", stack="hf"), TINY, 0.01),
    (dict(method="full", gradient_checkpointing=False, precision="fp16-mixed"), TINY, 0.01),
    (dict(method="full", precision="bf16", optimizer_impl="fused"), TINY, 0.01),
    (dict(method="qlora", stack="hf"), TINY, 0.01),
    (dict(method="qlora", stack="hf", quant="int8", lora_targets="attention"), TINY, 0.01),
    # litgpt's LM head is 4-bit too (StackProfile.quant_head, Lightning's BitsandbytesPrecision),
    # quantized from fp16: dequantized for every loss chunk, and cast from fp16 in backward
    (dict(method="qlora", stack="litgpt", double_quant=False), TINY, 0.01),
    (dict(method="qlora", stack="litgpt"), TINY, 0.01),
    (dict(method="qlora", stack="litgpt", precision="bf16-mixed"), TINY, 0.01),
    (dict(method="lora", stack="torchtune", precision="bf16", optimizer_impl="for-loop"), TINY, 0.01),
    (dict(method="lora", stack="reference", optimizer="sgd"), TINY, 0.01),
    (dict(method="full", optimizer="adamw-8bit"), BIAS, 0.01),  # small tensors: the fp32 path
    (dict(method="full", optimizer="adamw-8bit", precision="bf16"), BIAS, 0.01),
    (dict(method="lora", stack="hf"), GPT, 0.03),  # native_layer_norm's (T, 1) statistics
    (dict(method="full", stack="hf"), GPT, 0.03),
    # CPU softmax with a dtype casts first; CUDA's does not (half_to_float): a few % of bytes
    (dict(method="lora", attention="eager"), TINY, 0.07),
]
# with micro-batch > 1 a sequence chunk of a chunked loss is not contiguous, and F.linear makes
# one small extra copy per chunk that the inventory leaves out (a few bytes each): kernels only
CHUNK_COPIES = {"litgpt": 16, "torchtune": 8}


def _classes(rows):
    out = defaultdict(lambda: [0.0, 0.0, 0.0])
    for phase, cls, flops, nbytes, kernels in rows:
        t = out[(phase, cls)]
        t[0] += flops
        t[1] += nbytes
        t[2] += kernels
    return out


@pytest.mark.parametrize("fields, arch, tol", GRID, ids=lambda x: str(x) if isinstance(x, dict) else "")
def test_the_closed_form_inventory_matches_the_traced_operators(fields, arch, tol):
    spec = FinetuneSpec(params_b=1.0, seq_len=32, micro_batch=3, **fields)
    traced = _classes((o.phase, o.cls, o.flops, o.bytes, o.kernels) for o in record_step(spec, arch).ops)
    closed = _classes((g.phase, g.cls, g.flops, g.bytes, g.kernels) for g in inventory(spec, arch))
    assert set(traced) == set(closed)
    for key in traced:
        (tf, tb, tk), (cf, cb, ck) = traced[key], closed[key]
        if key[1] in ("matmul", "attention"):
            assert cf == pytest.approx(tf, rel=0.01), key
        assert cb == pytest.approx(tb, rel=tol), key
        assert ck == pytest.approx(tk, rel=0.05, abs=2 + CHUNK_COPIES.get(fields.get("stack"), 0)), key


def test_at_real_widths_the_closed_form_matches_the_trace(catalog):
    """Llama 3.2 1B's widths (2 of its layers, so the trace is quick), QLoRA at 1024 tokens."""
    arch = catalog.model("llama-3.2-1b").arch.model_copy(update={"layers": 2})
    spec = FinetuneSpec(model="llama-3.2-1b", method="qlora", seq_len=1024)
    traced = _classes((o.phase, o.cls, o.flops, o.bytes, o.kernels) for o in record_step(spec, arch).ops)
    closed = _classes((g.phase, g.cls, g.flops, g.bytes, g.kernels) for g in inventory(spec, arch))
    for key in traced:
        assert closed[key][1] == pytest.approx(traced[key][1], rel=0.01), key


@pytest.mark.parametrize("bnb, arch", [("0.50.2", TINY), ("0.42.0", TINY), ("0.50.2", BIAS)],
                         ids=["bnb-0.50", "bnb-0.42", "tied-arch"])
def test_litgpts_4bit_head_matches_the_trace_at_each_bitsandbytes_release(bnb, arch):
    """bitsandbytes < 0.50 dequantizes the fp16-quantized head to fp16 and casts it in forward too
    (StackProfile.quant_forward_direct) and keeps each 4-bit matmul's input (< 0.43.2); a tied
    checkpoint still gets litgpt's own 4-bit head (StackProfile.separate_head)."""
    from advisor.stacks import profile as stack_profile

    stack = stack_profile("litgpt", {"bitsandbytes": bnb})
    spec = FinetuneSpec(params_b=1.0, seq_len=32, micro_batch=1, method="qlora", stack="litgpt")
    traced = _classes((o.phase, o.cls, o.flops, o.bytes, o.kernels) for o in record_step(spec, arch, stack=stack).ops)
    closed = _classes((g.phase, g.cls, g.flops, g.bytes, g.kernels) for g in inventory(spec, arch, stack=stack))
    assert set(traced) == set(closed)
    for key in traced:
        (tf, tb, tk), (cf, cb, ck) = traced[key], closed[key]
        if key[0] != "optimizer":
            assert (cf, cb, ck) == pytest.approx((tf, tb, tk), rel=0.01), key


def test_a_4bit_head_adds_two_dequantizations_per_loss_chunk_and_the_fp16_casts():
    """The time side of advisor.memory's _head_dequant: per loss chunk, the head's NF4 weight
    dequantized in forward and again in backward (vocab x hidden each), the backward one cast
    from fp16 to the compute dtype; bitsandbytes < 0.50 casts in forward too."""
    import dataclasses

    from advisor.stacks import profile as stack_profile

    spec = FinetuneSpec(params_b=1.0, seq_len=32, micro_batch=1, method="qlora", stack="litgpt")
    lit = stack_profile("litgpt")
    chunks, vh = lit.loss_chunks, TINY.vocab * TINY.hidden

    def totals(stack, cls, phase):
        gs = [g for g in inventory(spec, TINY, stack=stack) if g.cls == cls and g.phase == phase]
        return sum(g.kernels for g in gs), sum(g.bytes for g in gs)

    plain = dataclasses.replace(lit, quant_head=False)
    old = stack_profile("litgpt", {"bitsandbytes": "0.49.0"})
    for phase in ("forward", "backward"):
        k_q, b_q = totals(lit, "dequantize", phase)
        k_p, b_p = totals(plain, "dequantize", phase)
        assert k_q - k_p == chunks
        # reads half a byte per value plus one fp32 absmax... per 64-value block (double quant:
        # one code per block and one fp32 per 256 blocks), writes 2 bytes per value
        assert b_q - b_p == pytest.approx(chunks * vh * (0.5 + 2 + 1 / 64 + 4 / (64 * 256)) + chunks * 4, rel=1e-9)
    casts = {phase: totals(lit, "elementwise", phase)[0] - totals(plain, "elementwise", phase)[0]
             for phase in ("forward", "backward")}
    assert casts == {"forward": 0, "backward": chunks}
    assert totals(old, "elementwise", "forward")[0] - totals(plain, "elementwise", "forward")[0] == chunks


def test_the_compiled_evaluator_equals_the_polynomials(catalog):
    spec = FinetuneSpec(model="llama-3.1-8b", method="qlora", seq_len=4096, micro_batch=2)
    arch = catalog.model("llama-3.1-8b").arch
    step = compile_step(config_for(spec, arch))
    pt = point_for(spec, arch, None, step)
    for a, b in zip(evaluate(step, pt), _evaluate_slow(step, pt)):
        assert (a.flops, a.bytes, a.kernels) == pytest.approx((b.flops, b.bytes, b.kernels), rel=1e-12)


@pytest.mark.parametrize("seq, expected", [(128, 1.0), (256, 0.75), (4096, 33 / 64), (1 << 16, 513 / 1024)])
def test_a_causal_flash_kernel_visits_the_blocks_on_and_below_the_diagonal(seq, expected):
    assert causal_fraction(seq, seq) == pytest.approx(expected)


def test_gradient_checkpointing_recompute_stops_before_the_last_saved_input(catalog):
    """torch.utils.checkpoint's early stop: the block's last matmul (it saves only its input
    and weight) is not recomputed, so checkpointing adds less than a whole forward."""
    arch = catalog.model("llama-3.1-8b").arch
    mm = lambda gc: sum(g.flops for g in inventory(FinetuneSpec(model="x", method="full", seq_len=1024,  # noqa: E731
                                                                gradient_checkpointing=gc), arch)
                        if g.cls == "matmul")
    forward = sum(g.flops for g in inventory(FinetuneSpec(model="x", method="full", seq_len=1024,
                                                          gradient_checkpointing=False), arch)
                  if g.cls == "matmul" and g.phase == "forward")
    extra = mm(True) - mm(False)
    # not the LM head (outside the checkpointed blocks), not the blocks' down_proj (early stop)
    assert 0.6 * forward < extra < 0.9 * forward


def test_fused_kernels_move_fewer_bytes_than_eager_pytorch(catalog):
    arch = catalog.model("llama-3.1-8b").arch
    spec = FinetuneSpec(model="llama-3.1-8b", method="lora", seq_len=2048)
    ew = lambda k: sum(g.bytes for g in inventory(spec, arch, kernels=profile(k)) if g.cls in ("elementwise", "loss"))  # noqa: E731
    assert ew("hf+liger") < 0.8 * ew("hf")  # norms, rotary, SwiGLU and the loss fused
    assert ew("unsloth") < 0.6 * ew("hf")  # and PEFT's casts and dropout copies gone


def test_h100_beats_a100_most_on_matmuls_and_least_on_memory_bound_work(catalog):
    arch = catalog.model("llama-3.1-8b").arch
    spec = FinetuneSpec(model="llama-3.1-8b", method="lora", seq_len=4096)
    a, h = (predict(spec, arch, catalog.gpu(g)) for g in ("a100-80gb", "h100-sxm"))
    assert h.by_class["matmul"] < a.by_class["matmul"] / 2.4  # 989 vs 312 TFLOPS, MAMF 0.80 vs 0.87
    assert h.by_class["elementwise"] > a.by_class["elementwise"] / 1.8  # 3.35 vs 2.04 TB/s


def test_small_gemms_lose_to_wave_quantization(catalog):
    dev = device(catalog.gpu("a100-80gb"))
    assert dev.waves(108) == 1.0 and dev.waves(109) == pytest.approx(109 / 216)


@pytest.mark.parametrize("gpu, n, kind", [("a100-80gb", 8, "nvlink"), ("rtx-4090", 4, "pcie"), ("h100-sxm", 16, "network")])
def test_collectives_run_over_the_slowest_link(catalog, gpu, n, kind):
    lk = comm.link(catalog.gpu(gpu), n)
    assert lk.kind == kind and lk.busbw > 0
    if kind == "nvlink":
        assert lk.busbw == pytest.approx(600 / 2 * 0.8 * 1e9)  # ~235 GB/s all-reduce busbw on DGX A100


def test_fsdp_sends_one_and_a_half_times_ddp_per_step():
    """ZeRO paper section 7: FSDP moves 1.5x DDP's volume (weights twice, gradients once)."""
    ddp = comm.volumes("ddp", 8, weight_bytes=2e9, grad_bytes=2e9, layers=32)
    fsdp = comm.volumes("fsdp", 8, weight_bytes=2e9, grad_bytes=2e9, layers=32)
    assert fsdp.forward + fsdp.backward == pytest.approx(1.5 * ddp.step)


def test_ddp_hides_its_all_reduce_behind_a_long_backward():
    lk = comm.Link(busbw=100e9, kind="nvlink")
    vol = comm.volumes("ddp", 8, weight_bytes=0, grad_bytes=1e9, layers=32)  # 17.5 ms of all-reduce
    short, long = (comm.exposed(vol, lk, 0.01, b, "ddp")["optimizer"] for b in (0.001, 1.0))
    assert long < 0.001 < short


def test_trace_cli_prints_the_step_time_beside_the_memory(cli):
    """`advisor trace --json`: the traced operators priced on the chosen GPU (breakdown by class
    and phase, tokens/s) with the closed form the answers read beside it, and the other GPUs."""
    import json

    out = cli("trace", "--params-b", "0.1", "--layers", "2", "--seq-len", "128", "--gpu", "a100-80gb", "--json")
    st = json.loads(out.output)["step_time"]
    assert st["gpu"] == "a100-80gb" and st["ops"] > 50 and st["tokens"] == 128
    assert st["tokens_per_s"] == pytest.approx(st["tokens"] / st["seconds"])
    assert sum(st["shares"].values()) == pytest.approx(1.0, abs=1e-6)
    assert {"matmul", "attention", "optimizer"} <= set(st["shares"])
    assert set(st["by_phase_s"]) >= {"forward", "backward", "optimizer"}
    assert abs(st["estimate"]["error_pct"]) < 5  # the closed form and the trace agree per phase
    text = cli("trace", "--params-b", "0.1", "--layers", "2", "--seq-len", "128", "--gpu", "a100-80gb",
               "--lang", "es").output
    assert "Tiempo de paso en NVIDIA A100" in text and "multiplicaciones de matrices" in text
