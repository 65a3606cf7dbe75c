"""The analytic memory model: terms, phases, multi-GPU, and the published facts it must respect."""

import pytest

from advisor.memory import TERMS, estimate_memory
from advisor.memory_report import format_breakdown
from advisor.memory_terms import lora_params, nf4_bytes
from advisor.spec import FinetuneSpec

GIB = 2**30


@pytest.fixture(scope="module")
def llama8b(catalog):
    return catalog.model("llama-3.1-8b").arch


def spec(**kw) -> FinetuneSpec:
    return FinetuneSpec(model="llama-3.1-8b", **kw)


@pytest.mark.parametrize("double_quant, bits_per_param", [(False, 0.5), (True, 0.127)])
def test_nf4_constants_cost_what_the_qlora_paper_says(double_quant, bits_per_param):
    params = 64 * 256 * 1000
    data, constants = nf4_bytes(params, double_quant)
    assert data == params // 2
    assert constants * 8 / params == pytest.approx(bits_per_param, abs=0.001)


@pytest.mark.parametrize("precision, bytes_per_param", [("bf16", 8), ("bf16-mixed", 16), ("fp32", 16)])
def test_full_adamw_static_bytes_per_parameter(llama8b, precision, bytes_per_param):
    m = estimate_memory(spec(method="full", precision=precision, optimizer_impl="fused"), llama8b)
    static = sum(m.terms[k] for k in ("weights", "master_weights", "gradients", "optimizer_states"))
    assert static / llama8b.params_total == pytest.approx(bytes_per_param, rel=0.001)


def test_foreach_adamw_peak_matches_the_traced_figure(llama8b):
    # docs/DESIGN.md: 8B bf16 full fine-tune, one traced step: 74.8 GiB foreach vs 60.1 GiB fused
    kw = dict(method="full", precision="bf16", stack="reference", gradient_checkpointing=True, seq_len=512)
    foreach = estimate_memory(spec(**kw, optimizer_impl="foreach"), llama8b, accumulates_gradients=False)
    fused = estimate_memory(spec(**kw, optimizer_impl="fused"), llama8b, accumulates_gradients=False)
    assert foreach.allocated_bytes / GIB == pytest.approx(74.8, rel=0.01)
    assert fused.allocated_bytes / GIB == pytest.approx(60.1, rel=0.03)
    assert foreach.peak_phase == "optimizer"


@pytest.mark.parametrize("kw", [dict(method="qlora"), dict(method="lora", num_gpus=4, sharding="fsdp"),
                                dict(method="full", optimizer="paged-adamw-8bit")])
def test_terms_sum_to_allocated_and_reserved_and_device_stack_up(llama8b, kw):
    m = estimate_memory(spec(**kw), llama8b)
    assert tuple(m.terms) == TERMS
    assert sum(m.terms.values()) == m.allocated_bytes
    assert m.allocated_bytes < m.reserved_bytes < m.device_bytes


def test_gradient_checkpointing_shrinks_activations(llama8b):
    on = estimate_memory(spec(method="lora", seq_len=4096, gradient_checkpointing=True), llama8b)
    off = estimate_memory(spec(method="lora", seq_len=4096, gradient_checkpointing=False), llama8b)
    assert off.terms["activations"] > 10 * on.terms["activations"]


def test_eager_attention_grows_with_seq_squared_and_flash_does_not(llama8b):
    def act(attention, seq):
        kw = dict(method="lora", gradient_checkpointing=False, attention=attention, seq_len=seq)
        return estimate_memory(spec(**kw), llama8b).terms["activations"]
    assert act("flash", 4096) / act("flash", 2048) == pytest.approx(2.0, rel=0.01)
    assert act("eager", 4096) / act("eager", 2048) > 3.0


def test_long_context_qlora_is_dominated_by_logits(llama8b):
    m = estimate_memory(spec(method="qlora", seq_len=16384), llama8b)
    assert m.largest_term() == "logits_loss"


def test_qlora_hf_keeps_embeddings_fp32_and_reference_16bit(llama8b):
    hf = estimate_memory(spec(method="qlora", stack="hf"), llama8b).terms["weights"]
    ref = estimate_memory(spec(method="qlora", stack="reference"), llama8b).terms["weights"]
    embed_and_head = llama8b.params_embedding + llama8b.params_head
    assert hf - ref == pytest.approx(2 * embed_and_head, rel=0.01)


@pytest.mark.parametrize("accumulation, per_param", [
    (1, 4 + 8),  # fp32 weight + Adam: zero_grad freed the gradients before this forward
    (8, 4 + 4 + 8),  # ... and the gradients accumulated over the earlier micro-batches
])
def test_lora_rank_costs_its_fp32_adapters_and_adam_and_little_else(llama8b, accumulation, per_param):
    kw = dict(method="lora", gradient_accumulation_steps=accumulation)
    r8 = estimate_memory(spec(lora_rank=8, **kw), llama8b).allocated_bytes
    r64 = estimate_memory(spec(lora_rank=64, **kw), llama8b).allocated_bytes
    extra = lora_params(llama8b, "all-linear", 64) - lora_params(llama8b, "all-linear", 8)
    assert (r64 - r8) / (per_param * extra) == pytest.approx(1.0, abs=0.05)


def test_lora_params_of_llama_8b_rank_16_all_linear(llama8b):
    # PEFT print_trainable_parameters for Llama-3.1-8B, r=16, all linear: 41,943,040
    assert lora_params(llama8b, "all-linear", 16) == 41_943_040


def test_fsdp_shards_static_terms_not_activations(llama8b):
    one = estimate_memory(spec(method="full", gradient_checkpointing=False), llama8b, num_gpus=1)
    eight = estimate_memory(spec(method="full", gradient_checkpointing=False, sharding="fsdp"), llama8b, num_gpus=8)
    assert eight.num_gpus == 8
    assert eight.terms["optimizer_states"] == pytest.approx(one.terms["optimizer_states"] / 8, rel=0.001)
    assert eight.allocated_bytes < one.allocated_bytes / 3


@pytest.mark.parametrize("method", ["full", "lora"])
def test_fsdp_accumulation_keeps_unsharded_gradients_where_the_stack_skips_sync(llama8b, method):
    """HF Trainer (accelerate no_sync -> set_requires_gradient_sync(False)) and litgpt keep every
    trainable parameter's unsharded bf16 gradient between micro-batches on each rank; torchtune
    reduce-scatters every backward and keeps a shard in the trained dtype (StackProfile.fsdp_no_sync)."""
    def trainable(s):
        return llama8b.params_total if method == "full" else lora_params(llama8b, s.lora_targets, s.lora_rank)

    for n in (2, 8):
        kw = dict(method=method, num_gpus=n, sharding="fsdp", gradient_accumulation_steps=4, seq_len=1024)
        for stack in ("hf", "litgpt", "unsloth"):
            s = spec(stack=stack, precision="bf16-mixed", **kw)
            assert estimate_memory(s, llama8b).terms["gradients"] == pytest.approx(2 * trainable(s), rel=1e-6), stack
        s = spec(stack="hf", **{**kw, "gradient_accumulation_steps": 1})
        assert estimate_memory(s, llama8b).terms["gradients"] <= 4 * trainable(s) / n * 1.01  # a shard at most
        s = spec(stack="torchtune", precision="bf16", optimizer="adamw", optimizer_in_backward=False,
                 **kw)  # bf16 weights, bf16 adapters (its recipes); its distributed recipes do not fuse the step
        assert estimate_memory(s, llama8b).terms["gradients"] == pytest.approx(2 * trainable(s) / n, rel=1e-6)


def test_ddp_replicates_and_adds_gradient_buckets(llama8b):
    one = estimate_memory(spec(method="full"), llama8b, num_gpus=1)
    two = estimate_memory(spec(method="full"), llama8b, num_gpus=2)
    assert two.terms["optimizer_states"] == one.terms["optimizer_states"]
    assert two.terms["transient"] - one.terms["transient"] == pytest.approx(one.terms["gradients"], rel=0.001)


def test_paged_optimizer_states_are_outside_torchs_allocator(llama8b):
    paged = estimate_memory(spec(method="full", optimizer="paged-adamw-8bit"), llama8b)
    plain = estimate_memory(spec(method="full", optimizer="adamw-8bit"), llama8b)
    assert paged.terms["optimizer_states"] == 0
    assert plain.terms["optimizer_states"] == pytest.approx(2 * llama8b.params_total, rel=0.01)
    assert paged.device_bytes - paged.reserved_bytes > plain.terms["optimizer_states"]


def test_reserved_ratio_override_and_json(llama8b):
    m = estimate_memory(spec(method="lora"), llama8b, reserved_ratio=1.25)
    assert m.reserved_bytes == round(m.allocated_bytes * 1.25)
    out = m.to_json()
    assert set(out) == {"allocated_bytes", "reserved_bytes", "device_bytes", "breakdown", "peak_phase"}
    assert set(out["breakdown"]) == set(TERMS)


@pytest.mark.parametrize("lang, words", [("en", ("Peak allocated", "logits and loss")),
                                         ("es", ("Pico asignado", "logits y pérdida"))])
def test_breakdown_table_in_both_languages(llama8b, lang, words):
    text = format_breakdown(estimate_memory(spec(method="qlora", seq_len=8192), llama8b), lang)
    assert all(w in text for w in words)
    assert "GiB" in text and len({len(line) for line in text.splitlines()[:2]}) == 1
