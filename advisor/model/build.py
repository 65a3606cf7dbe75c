"""Build the reference decoder for a spec, layer by layer, directly on the target device.

Nothing is staged: every tensor is created on ``device`` in its final dtype, and each quantized
linear is quantized the moment its 16-bit weight is made (a 70B QLoRA pilot holds at most one
16-bit linear at a time, never the 140 GB checkpoint). ``device`` may be a real device (cpu,
cuda) or the cpu device under FakeTensorMode (the exact trace); the code does not care which.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from advisor.arch import Architecture
from advisor.model.decoder import Block, Decoder, Norm
from advisor.model.layers import Dense, LoraLinear, QuantizedWeight, QuantLinear, Runtime, init_weight
from advisor.model.step import causal_lm_loss
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile, for_spec

INIT_STD = 0.02  # transformers PretrainedConfig initializer_range (Llama, Mistral, Qwen)

# LoRA target modules (PEFT target_modules): "all-linear" = every linear of the blocks (the
# QLoRA paper's setting; PEFT's "all-linear" excludes only the LM head); "attention" = q,k,v,o.
LORA_TARGETS = {
    "all-linear": frozenset({"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}),
    "attention": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}),
}

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


@dataclass(frozen=True)
class DtypePolicy:
    """Storage dtypes of each kind of parameter and the matmul compute dtype."""

    linear: torch.dtype  # block linears (the 16-bit source of quantized ones under QLoRA)
    other: torch.dtype  # embeddings, norms, LM head, biases, router
    compute: torch.dtype
    mixed: bool  # torch.autocast over fp32 (or mixed) parameters
    adapter: torch.dtype = torch.float32  # LoRA A/B (StackProfile.adapters_fp32)


def dtype_policy(spec: FinetuneSpec, stack: StackProfile) -> DtypePolicy:
    """bf16-mixed / fp16-mixed: autocast to 16-bit; full fine-tuning keeps fp32 parameters (HF
    Trainer bf16=True on a model loaded in fp32). bf16: everything bf16, no autocast. fp32: no
    autocast. LoRA/QLoRA: the frozen base is loaded in 16-bit (torch_dtype=bfloat16); under
    QLoRA PEFT's k-bit preparation casts the non-quantized parameters to fp32 (kbit_prep_fp32)."""
    half = {"bf16-mixed": "bf16", "bf16": "bf16", "fp16-mixed": "fp16", "fp32": "fp32"}[spec.precision]
    compute = _DTYPES[half]
    mixed = spec.precision in ("bf16-mixed", "fp16-mixed")
    if spec.method == "full":
        stored = torch.bfloat16 if spec.precision == "bf16" else torch.float32
        return DtypePolicy(stored, stored, compute, mixed)
    other = torch.float32 if (spec.method == "qlora" and stack.kbit_prep_fp32) else compute
    # adapters: fp32 (PEFT autocast_adapter_dtype=True, and any mixed/fp32 run), or the model's
    # 16-bit dtype when the stack converts the whole model (litgpt bf16-true, torchtune bf16)
    adapter = torch.float32 if (stack.adapters_fp32 or spec.precision != "bf16") else compute
    return DtypePolicy(compute, other, compute, mixed, adapter)


def build_model(spec: FinetuneSpec, arch: Architecture, device: torch.device | str = "cpu",
                stack: StackProfile | None = None) -> Decoder:
    """The reference decoder for ``spec`` on ``device``: parameters trainable per the method
    (full: all; lora/qlora: only the adapters), stack switches from ``spec.stack`` (or
    ``stack``, a profile given explicitly)."""
    device = torch.device(device)
    stack = stack or for_spec(spec)
    pol = dtype_policy(spec, stack)
    rt = Runtime(compute_dtype=pol.compute, mixed=pol.mixed, weight_cache=stack.autocast_weight_cache)
    full = spec.method == "full"
    targets = LORA_TARGETS[spec.lora_targets] if spec.trains_adapters else frozenset()

    def make_linear(name: str, fan_in: int, fan_out: int, bias: bool):
        if spec.method == "qlora":
            base = QuantLinear(fan_in, fan_out, rt, bias=bias, kind=spec.quant or "nf4",
                               double_quant=spec.double_quant, init_dtype=pol.linear, bias_dtype=pol.other,
                               device=device, std=INIT_STD, keep_input=stack.keep_quant_input,
                               out_follows_input=stack.quant_out_follows_input)
        else:
            base = Dense(fan_in, fan_out, rt, bias=bias, dtype=pol.linear, device=device, std=INIT_STD,
                         trainable=full)
        if name.rsplit(".", 1)[-1] in targets:
            return LoraLinear(base, rt, rank=spec.lora_rank, alpha=spec.lora_alpha, dropout=spec.lora_dropout,
                              dropout_copy=stack.lora_dropout_copy, dtype=pol.adapter,
                              cast_input=stack.lora_cast_input, device=device)
        return base

    def make_norm():
        return Norm(arch.hidden, arch.norm, dtype=pol.other, device=device, trainable=full)

    def make_router():
        return Dense(arch.hidden, arch.experts, rt, bias=False, dtype=pol.other, device=device, std=INIT_STD,
                     trainable=full)

    def table() -> torch.nn.Parameter:
        w = torch.empty(arch.vocab, arch.hidden, dtype=pol.other, device=device).normal_(0.0, INIT_STD)
        return torch.nn.Parameter(w, requires_grad=full)

    embed = table()
    blocks = [Block(arch, rt, make_linear, make_norm, spec.attention, make_router) for _ in range(arch.layers)]
    final_norm = make_norm()
    # litgpt keeps its own LM head even for a tied checkpoint (StackProfile.separate_head)
    head = None if (arch.tied_embeddings and not stack.separate_head) else table()
    if head is not None and spec.method == "qlora" and stack.quant_head and (spec.quant or "nf4") == "nf4":
        # litgpt's head is 4-bit too (StackProfile.quant_head), quantized from fp16 under Lightning
        head = QuantizedWeight(init_weight(arch.vocab, arch.hidden, dtype=pol.linear, device=device, std=INIT_STD),
                               "nf4", spec.double_quant)
        if stack.quant_dequant_fp16:
            head.dequant_dtype = torch.float16
        head.forward_direct = stack.quant_forward_direct
    return Decoder(arch, rt, embed=embed, head=head, blocks=blocks, final_norm=final_norm,
                   checkpointing=spec.gradient_checkpointing, loss_fn=causal_lm_loss(stack))
