"""What each training stack runs for the same model: which operators are fused into one kernel,
whether torch.compile or CUDA graphs remove per-operator host work, which attention kernel runs.

``advisor.stacks.StackProfile`` says what a stack keeps alive (memory); a ``Kernels`` profile
says how it computes (time). The spec's stack picks one (``for_spec``); ``spec.compile`` turns on
inductor fusion for the stacks that can compile. Benchmark-only profiles (Unsloth, Liger,
NeMo AutoModel, llm-foundry, torchtitan) describe stacks whose published throughput the model is
checked against (``tests/data/throughput_measurements.json``); they are not spec choices.

Each flag is a mechanism the inventory implements (``advisor.steptime.inventory``), with the
source that says the stack does it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Kernels:
    name: str
    norm: str = "eager"
    """eager: RMSNorm as transformers' LlamaRMSNorm (fp32 upcast, pow, mean, rsqrt, two muls,
    casts: ~8 kernels each way); fused: one Triton/CUDA kernel each way (Liger
    LigerRMSNorm, Unsloth fast_rms_layernorm, Transformer Engine RMSNorm, apex FusedRMSNorm)."""
    rope: str = "eager"
    """eager: q * cos + rotate_half(q) * sin (slice, neg, cat, 2 mul, add); fused: one in-place
    kernel for q and k (Liger liger_rotary_pos_emb, Unsloth fast_rope_embedding, flash_attn
    apply_rotary_emb); none: the model has no rotary embedding (MPT: learned positions)."""
    act: str = "eager"
    """eager: silu(gate) * up as two kernels; fused: one (Liger LigerSiLUMulFunction, Unsloth
    swiglu_fg_kernel)."""
    loss: str = "eager"
    """eager: logits materialized (and upcast per the stack profile), log-softmax and NLL;
    fused_ce: one softmax cross-entropy kernel each way over the 16-bit logits (flash_attn
    CrossEntropyLoss, Unsloth fast_cross_entropy_loss); fused_linear_ce: Liger's
    LigerFusedLinearCrossEntropyLoss, chunk by chunk: the logits' gradient is computed in the
    forward pass, so the backward has no loss kernels and no fp32 copy of the logits exists."""
    lora: str = "peft"
    """peft: PEFT's LoraLayer.forward (dropout, casts, A, B, scaling, add) per the stack
    profile; fused: Unsloth fast_lora (LoRA_MLP / LoRA_QKV autograd functions: no dropout, no
    casts, the adapters' matmuls fused into the base's with addmm_)."""
    compile: bool = False
    """torch.compile (inductor): consecutive pointwise/reduction operators fuse into one kernel
    that reads each input once and writes each output once (Ansel et al. 2024, "PyTorch 2",
    section 5.2: TorchInductor's scheduler fuses pointwise and reduction nodes)."""
    cuda_graphs: bool = False
    """The step's kernels are replayed from a CUDA graph: no per-kernel host work (torch.compile
    mode="reduce-overhead", NeMo/Megatron CUDA graphs)."""
    attention: str = "fa2"
    """fa2: FlashAttention-2 (PyTorch SDPA's flash backend since 2.2, flash_attn 2.x); fa3:
    FlashAttention-3 on Hopper (Shah et al. 2024); cudnn: cuDNN fused attention (Transformer
    Engine, SDPA cudnn backend)."""
    host: str = "eager"
    """Which host cost per operator applies (advisor.steptime.host.HOST_COST_S)."""
    factor_key: str = ""
    """The stack whose fitted efficiency factors apply (default: this profile's name): a
    profile that differs only in kernels the inventory models (the Qwen scripts' fused rotary)
    shares its trainer's factors."""

    @property
    def factors(self) -> str:
        return self.factor_key or self.name


EAGER = Kernels(name="hf")
PROFILES: dict[str, Kernels] = {
    # spec stacks
    "hf": EAGER,
    "reference": Kernels(name="reference"),
    "litgpt": Kernels(name="litgpt"),
    # torchtune recipes: plain PyTorch modules; compile=True in the published configs compiles
    # each TransformerSelfAttentionLayer and the loss (torchtune/training/_compile.py).
    "torchtune": Kernels(name="torchtune"),
    # benchmark-only stacks
    # HF Trainer + DeepSpeed (ZeRO hooks on every module)
    "hf+deepspeed": Kernels(name="hf+deepspeed"),
    # the Qwen (v1) finetune.py scripts: HF Trainer + PEFT on Qwen's modeling code, which calls
    # flash_attn's fused rotary kernel (apply_rotary_emb_func, shipped with flash-attn >= 2.1.1:
    # QwenLM/Qwen README, "pip install csrc/rotary ... not needed" above 2.1.1)
    "qwen": Kernels(name="qwen", rope="fused", factor_key="hf"),
    "qwen+deepspeed": Kernels(name="qwen+deepspeed", rope="fused", factor_key="hf+deepspeed"),
    # the Qwen README's Q-LoRA: the same + DeepSpeed + auto-gptq Int4 kernels
    "qwen-gptq": Kernels(name="qwen-gptq", rope="fused"),
    "hf+liger": Kernels(name="hf+liger", norm="fused", rope="fused", act="fused", loss="fused_linear_ce"),
    "unsloth": Kernels(name="unsloth", norm="fused", rope="fused", act="fused", loss="fused_ce", lora="fused"),
    "nemo": Kernels(name="nemo", norm="fused", rope="fused", act="fused", loss="fused_ce", lora="fused",
                    attention="cudnn"),
    # Composer MPT: flash attention, low_precision_layernorm (one kernel), fused_crossentropy
    # (flash_attn), learned positions (llm-foundry llmfoundry/models/mpt/modeling_mpt.py)
    "llm-foundry": Kernels(name="llm-foundry", loss="fused_ce", rope="none"),
    "torchtitan": Kernels(name="torchtitan"),
}


def profile(name: str, *, compile: bool = False) -> Kernels:
    """The kernel profile of a stack, with inductor fusion when ``compile``."""
    base = PROFILES[name]
    return replace(base, compile=True, host="compiled") if compile else base


def for_spec(spec) -> Kernels:
    """The kernel profile of a FinetuneSpec: its stack, compiled when the spec says so."""
    return profile(spec.stack, compile=bool(getattr(spec, "compile", False)))
