"""What each training stack keeps alive in memory, beyond the model itself.

The same architecture trained by different stacks peaks at different memory: most of the gap
between a plain decoder and published measurements is the stack (how the loss treats the
seq x vocab logits, what PEFT's k-bit preparation casts to fp32, what bitsandbytes saves for
backward, LoRA dropout copies, autocast weight copies, the allocator). A ``StackProfile`` names
those behaviours as switches. ``advisor.model`` implements each switch in the reference decoder
(so the exact trace and the pilot keep alive what that stack keeps alive) and ``advisor.memory``
mirrors each one in closed form. Constants cite where they were measured.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024**2


@dataclass(frozen=True)
class StackProfile:
    name: str
    # --- behaviours: implemented by advisor.model, mirrored by advisor.memory -------------------
    loss_upcast_fp32: bool
    """logits.float() before cross-entropy: an fp32 copy of the seq x vocab logits (HF
    transformers LlamaForCausalLM / ForCausalLMLoss upcasts)."""
    loss_chunks: int
    """Cross-entropy computed over this many chunks of the sequence, so only one chunk of fp32
    logits is alive at a time (torchtune CEWithChunkedOutputLoss: 8; litgpt chunked_cross_entropy
    with lm_head_chunk_size=128). 1 = the whole sequence at once."""
    kbit_prep_fp32: bool
    """PEFT prepare_model_for_kbit_training casts every non-quantized parameter (embeddings,
    norms, LM head) to fp32 under QLoRA."""
    keep_quant_input: bool
    """bitsandbytes MatMul4Bit saves its 16-bit input for backward even though the 4-bit weight is
    frozen (needed for the input gradient through the dequantized weight)."""
    quant_input_copy: bool
    """With keep_quant_input, what is saved is a copy of the input made per quantized linear even
    when the input is already in the compute dtype. Calibrated, not read from source: litgpt's 21
    published QLoRA rows (tests/data/published_measurements.json; litgpt config_hub and
    tutorials/resource-tables.md, bf16-true) are under-predicted without it (median abs error
    12.2% vs 6.5% with it), although bnb Linear4bit's x.to(compute_dtype) is a no-op in bf16-true
    and MatMul4Bit keeps the input tensor itself; the missing bytes are about one 16-bit copy of
    each quantized linear's input. Our other stacks do not show it (False)."""
    lora_dropout_copy: bool
    """PEFT LoRA applies nn.Dropout to the adapter input: with p > 0 a new tensor (and its mask)
    per adapted linear is saved for backward."""
    lora_cast_input: bool
    """PEFT lora.Linear casts the adapter input to the adapters' dtype (``_cast_input_dtype``)
    even under autocast: a 16-bit input becomes an fp32 copy that autocast casts back to 16 bit
    for A's matmul, so A saves its own 16-bit copy instead of sharing the input tensor. With
    dropout p > 0 (the default) the bytes saved are the same either way (A saves a cast copy of
    the dropout output); it matters for p = 0. litgpt and torchtune call A on the input as is."""
    autocast_weight_cache: bool
    """torch.autocast caches the 16-bit copy of each fp32 weight for the whole forward region
    (bf16-mixed/fp16-mixed with fp32 weights): one extra 16-bit copy of the trainable weights."""
    # --- allocator and device: fitted by advisor.memory against measurements -------------------
    reserved_ratio: float
    """Peak reserved / peak allocated of the CUDA caching allocator."""
    cuda_context_bytes: int
    """CUDA context, cuBLAS/cuDNN workspaces and kernels loaded: memory nvidia-smi shows that
    torch does not."""
    adapters_fp32: bool = True
    """LoRA A/B kept in fp32 even when the model is 16-bit (PEFT autocast_adapter_dtype=True, the
    default since PEFT 0.12; the reference decoder does the same). litgpt (bf16-true converts the
    whole model) and torchtune (LoRA recipes in bf16) keep adapters in the model dtype.
    Implemented by advisor.model.build (DtypePolicy.adapter) too."""


# Reserved/allocated and the CUDA context: docs/DESIGN.md "reserved is typically 5-15% above
# allocated; the CUDA context adds roughly 0.3-1 GiB". Starting values; advisor.memory may refine
# them from published measurements (tests/data/published_measurements.json) and pilots.
_RESERVED_RATIO_DEFAULT = 1.10
_CUDA_CONTEXT_DEFAULT = 600 * MIB

PROFILES: dict[str, StackProfile] = {
    "hf": StackProfile(
        name="hf", loss_upcast_fp32=True, loss_chunks=1, kbit_prep_fp32=True,
        keep_quant_input=True, quant_input_copy=False, lora_dropout_copy=True, lora_cast_input=True, autocast_weight_cache=True,
        reserved_ratio=_RESERVED_RATIO_DEFAULT, cuda_context_bytes=_CUDA_CONTEXT_DEFAULT,
    ),
    "torchtune": StackProfile(
        name="torchtune", loss_upcast_fp32=True, loss_chunks=8, kbit_prep_fp32=False,
        keep_quant_input=False, quant_input_copy=False, lora_dropout_copy=True, lora_cast_input=False, autocast_weight_cache=False,
        reserved_ratio=_RESERVED_RATIO_DEFAULT, cuda_context_bytes=_CUDA_CONTEXT_DEFAULT,
        adapters_fp32=False,
    ),
    "litgpt": StackProfile(
        name="litgpt", loss_upcast_fp32=True, loss_chunks=16, kbit_prep_fp32=False,
        keep_quant_input=True, quant_input_copy=True, lora_dropout_copy=True, lora_cast_input=False, autocast_weight_cache=False,
        reserved_ratio=_RESERVED_RATIO_DEFAULT, cuda_context_bytes=_CUDA_CONTEXT_DEFAULT,
        adapters_fp32=False,
    ),
    "reference": StackProfile(
        name="reference", loss_upcast_fp32=False, loss_chunks=1, kbit_prep_fp32=False,
        keep_quant_input=False, quant_input_copy=False, lora_dropout_copy=False, lora_cast_input=False, autocast_weight_cache=False,
        reserved_ratio=_RESERVED_RATIO_DEFAULT, cuda_context_bytes=_CUDA_CONTEXT_DEFAULT,
    ),
}


def profile(stack: str) -> StackProfile:
    return PROFILES[stack]
