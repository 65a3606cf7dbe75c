"""What one symbolic step is keyed on (``Config``: everything about a step but its sizes), the
sizes it is evaluated at (``point_for``), and the dtypes of its tensors
(advisor.model.build.dtype_policy without torch). Constants name the code they mirror."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.steptime.kernels import Kernels, for_spec
from advisor.steptime.symbolic import Point, Poly

M = Poly.mono
ONE = Poly.const(1)

NF4_BLOCK, NF4_DQ_BLOCK = 64, 256  # advisor.model.quant (bitsandbytes quantize_4bit blocksize, double quant)
OPT8_BLOCK, OPT8_MIN_SIZE = 2048, 4096  # advisor.model.quant (bitsandbytes 8-bit optimizers)
FOREACH_MAX_TENSORS = (110, 64, 48, 36, 30)  # ATen/native/cuda/MultiTensorApply.cuh depth_to_max_tensors
FOREACH_MAX_BLOCKS, FOREACH_CHUNK = 320, 65536  # depth_to_max_blocks, kChunkSize
_MLP = frozenset({"gate_proj", "up_proj", "down_proj"})
LORA_TARGETS = {  # advisor.model.build.LORA_TARGETS, and the target sets published runs used
    "all-linear": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}) | _MLP,
    "attention": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}),
    "q,v": frozenset({"q_proj", "v_proj"}),
    "q,k,v": frozenset({"q_proj", "k_proj", "v_proj"}),
    "q,v,o+mlp": frozenset({"q_proj", "v_proj", "o_proj"}) | _MLP,
    "q,k,v,o+mlp": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}) | _MLP,
}


@dataclass(frozen=True)
class Config:
    """Everything about a step but its sizes: the cache key of one symbolic run."""

    method: str
    precision: str
    gradient_checkpointing: bool
    attention: str
    lora_targets: str
    quant: str | None
    double_quant: bool
    lora_dropout: bool  # p > 0
    optimizer: str
    optimizer_impl: str
    mlp_kind: str
    norm: str
    attn_bias: bool
    tied: bool
    moe: bool
    loss_upcast_fp32: bool  # advisor.stacks.StackProfile switches from here
    loss_chunked: bool
    kbit_prep_fp32: bool
    keep_quant_input: bool
    quant_out_follows_input: bool  # a quantized linear returns its input's dtype
    lora_dropout_copy: bool
    lora_cast_input: bool
    adapters_fp32: bool
    kernels: Kernels
    quant_head: bool = False  # the LM head is NF4 too (StackProfile.quant_head; advisor.model.build)
    quant_dequant_fp16: bool = False  # ... quantized from fp16: dequantized to fp16, then cast
    quant_forward_direct: bool = True  # ... forward dequantizes straight to the compute dtype


def config_for(spec, arch, kernels: Kernels | None = None, stack=None) -> Config:
    from advisor.stacks import profile

    st = stack or profile(spec.stack)
    # advisor.model.build.build_model: a separate head (untied, or StackProfile.separate_head)
    # is 4-bit under QLoRA when the stack quantizes it and the blocks are NF4
    quant_head = (spec.method == "qlora" and st.quant_head and (spec.quant or "nf4") == "nf4"
                  and (not arch.tied_embeddings or st.separate_head))
    return Config(
        method=spec.method, precision=spec.precision, gradient_checkpointing=spec.gradient_checkpointing,
        attention=spec.attention, lora_targets=spec.lora_targets,
        quant=(spec.quant or "nf4") if spec.method == "qlora" else None, double_quant=spec.double_quant,
        lora_dropout=spec.lora_dropout > 0, optimizer=spec.optimizer, optimizer_impl=spec.optimizer_impl,
        mlp_kind=arch.mlp_kind, norm=arch.norm, attn_bias=arch.attn_bias, tied=arch.tied_embeddings,
        moe=arch.experts > 0, loss_upcast_fp32=st.loss_upcast_fp32, loss_chunked=st.loss_chunks > 1,
        kbit_prep_fp32=st.kbit_prep_fp32, keep_quant_input=st.keep_quant_input,
        quant_out_follows_input=st.quant_out_follows_input, lora_dropout_copy=st.lora_dropout_copy,
        lora_cast_input=st.lora_cast_input, adapters_fp32=st.adapters_fp32, kernels=kernels or for_spec(spec),
        quant_head=quant_head, quant_dequant_fp16=quant_head and st.quant_dequant_fp16,
        quant_forward_direct=not quant_head or st.quant_forward_direct,
    )


def point_for(spec, arch, stack=None, step=None) -> Point:
    """The symbols' values for ``spec`` on ``arch`` (n: trainable tensors, from ``step``, an
    ``advisor.steptime.inventory.CompiledStep``)."""
    from advisor.stacks import profile

    st = stack or profile(spec.stack)
    n = 1.0
    if step is not None:
        n = max(1.0, Point(L=arch.layers, E=max(arch.experts, 1))(step.n_tensors))
    return Point(n=n, L=arch.layers, b=spec.micro_batch, s=spec.seq_len, h=arch.hidden, q=arch.q_dim, kv=arch.kv_dim,
                 i=arch.intermediate, v=arch.vocab, r=spec.lora_rank, H=arch.heads, d=arch.head_dim,
                 E=max(arch.experts, 1), k=max(arch.experts_per_token, 1),
                 c=max(1, min(st.loss_chunks, spec.seq_len)))


# --- dtypes (advisor.model.build.dtype_policy) --------------------------------------------------


@dataclass(frozen=True)
class Dtypes:
    linear: str
    other: str
    compute: str
    mixed: bool
    adapter: str


def dtypes(cfg: Config) -> Dtypes:
    """advisor.model.build.dtype_policy, without torch."""
    half = {"bf16-mixed": "bf16", "bf16": "bf16", "fp16-mixed": "fp16", "fp32": "fp32"}[cfg.precision]
    mixed = cfg.precision in ("bf16-mixed", "fp16-mixed")
    if cfg.method == "full":
        stored = "bf16" if cfg.precision == "bf16" else "fp32"
        return Dtypes(stored, stored, half, mixed, "fp32")
    other = "fp32" if (cfg.method == "qlora" and cfg.kbit_prep_fp32) else half
    adapter = "fp32" if (cfg.adapters_fp32 or cfg.precision != "bf16") else half
    return Dtypes(half, other, half, mixed, adapter)


def promote(a: str, b: str) -> str:
    return "fp32" if "fp32" in (a, b) else a
