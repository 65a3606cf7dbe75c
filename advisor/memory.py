"""The analytic memory model: peak GPU memory of one fine-tuning step, in closed form.

``estimate_memory(spec, arch)`` returns a ``MemoryBreakdown``: named terms in bytes per GPU at the
peak moment of a training step (they sum to ``allocated_bytes``, what
``torch.cuda.max_memory_allocated`` reports), ``reserved_bytes`` (the caching allocator's peak,
``max_memory_reserved``) and ``device_bytes`` (what nvidia-smi shows: reserved plus the CUDA
context). It costs microseconds, so the ranking can call it for every GPU count it tries.

How the peak is found: a step has moments with different things alive, and the peak is the
largest of them.

* forward end: everything static, the activations saved for backward, the loss's forward copies;
* loss backward: the same, with the cross-entropy backward's seq x vocab copies;
* head backward: the gradient of the logits and of the LM head;
* backward end (full fine-tune): all gradients, one layer's activations;
* optimizer step: all gradients, the optimizer's temporaries (foreach AdamW's full-size buffer).

"Static" is weights (stored dtype), quantization constants, LoRA adapters, the fp32 master copy
and optimizer states; steps after the first find optimizer states allocated. Gradients are
counted alive through forward and backward because fine-tuning recipes accumulate gradients over
micro-batches (see ``ACCUMULATES_GRADIENTS``).

Term semantics (the same categories as the exact trace, ``advisor.trace``):
``weights`` parameters as stored (the frozen base, packed NF4/int8 data, trainable weights in
their dtype: fp32 under bf16-mixed, where they are themselves the master copy); ``quant_constants``
the NF4/int8 scales; ``adapters`` LoRA A/B; ``master_weights`` a separate fp32 copy of 16-bit
weights (none of the modelled stacks keeps one, so 0); ``gradients``; ``optimizer_states``;
``activations`` tensors saved for backward and the gradients flowing through the layers;
``logits_loss`` the seq x vocab logits and the loss's copies; ``transient`` autocast's 16-bit
weight copies, optimizer temporaries, DDP gradient buckets, FSDP all-gather buffers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from advisor.arch import Architecture
from advisor.memory_terms import (
    BF16,
    FP32,
    GRAD_FLOW_COPIES,
    LOSS_BWD_COPIES,
    LayerCtx,
    adam8bit_state_bytes,
    adam_state_bytes,
    adapted_linears,
    eager_transient_bytes,
    first_layer_unsaved_per_token,
    int8_bytes,
    layer_peak_extra_per_token,
    layer_saved_bytes_per_token,
    lora_params,
    lora_small_params,
    nf4_bytes,
    small_tensor_params,
)
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile, profile

TERMS: tuple[str, ...] = (
    "weights", "quant_constants", "adapters", "master_weights", "gradients",
    "optimizer_states", "activations", "logits_loss", "transient",
)
Phase = Literal["forward", "backward", "optimizer"]

ACCUMULATES_GRADIENTS = True
"""Gradients are alive during forward: HF Trainer, litgpt and torchtune recipes accumulate over
micro-batches (litgpt config_hub global_batch_size 16 over micro-batches of 1-8; the QLoRA paper's
recipes use gradient accumulation 16), so on all but the first micro-batch of a step the
gradients of every trainable parameter exist while activations are built."""

BATCH_BYTES_PER_TOKEN = 2 * 8  # input_ids and labels, int64 (torch default for token ids)
ROPE_TABLES = 2  # cos and sin, seq_len x head_dim each

FSDP_UNITS_IN_FLIGHT = 2
"""FSDP keeps the current layer's unsharded parameters and prefetches the next one
(torch FSDP forward/backward prefetch, limit_all_gathers): two layers' full parameters."""


class MemoryBreakdown(BaseModel):
    """Peak memory of one training step on one GPU, with the terms that make it up."""

    model_config = ConfigDict(frozen=True)

    terms: dict[str, int]
    allocated_bytes: int
    reserved_bytes: int
    device_bytes: int
    peak_phase: Phase
    num_gpus: int
    fit_bytes: int | None = None
    """Device bytes the run needs to not run out of memory: reserved at equal batch lengths plus
    the context. On variable-length batches reserved grows past it with cached free segments,
    which torch frees and retries when cudaMalloc fails (advisor.allocator.closed_form)."""

    @property
    def need_bytes(self) -> int:
        """What the fit check compares with a GPU's usable memory."""
        return self.fit_bytes if self.fit_bytes is not None else self.device_bytes

    def largest_term(self) -> str:
        return max(self.terms, key=lambda k: self.terms[k])

    def to_json(self) -> dict:
        return {
            "allocated_bytes": self.allocated_bytes,
            "reserved_bytes": self.reserved_bytes,
            "device_bytes": self.device_bytes,
            "breakdown": dict(self.terms),
            "peak_phase": self.peak_phase,
        }


def _param_bytes(spec: FinetuneSpec, prof: StackProfile) -> tuple[int, int]:
    """(stored bytes of the frozen base weights, bytes of each trainable parameter)."""
    pure16 = spec.precision == "bf16"
    if spec.method == "full":
        return 0, BF16 if pure16 else FP32
    base = FP32 if spec.precision == "fp32" else BF16
    # PEFT (autocast_adapter_dtype=True) keeps adapters fp32 even in a 16-bit model; litgpt and
    # torchtune keep them in the model's dtype (StackProfile.adapters_fp32)
    return base, FP32 if (prof.adapters_fp32 or not pure16) else BF16


def _static_terms(spec: FinetuneSpec, arch: Architecture, prof: StackProfile) -> dict[str, float]:
    """Weights, constants, adapters, master copy, gradients and optimizer states (unsharded)."""
    base_bytes, train_bytes = _param_bytes(spec, prof)
    mixed = spec.precision in ("bf16-mixed", "fp16-mixed")
    t = dict.fromkeys(TERMS, 0.0)
    if spec.method == "full":
        trainable = arch.params_total
        # HF Trainer's bf16-mixed keeps the trainable parameters themselves in fp32 (they are the
        # master copy, counted as weights); master_weights is for a separate fp32 copy of 16-bit
        # weights, which none of the modelled stacks keeps
        t["weights"] = trainable * train_bytes
    else:
        trainable = lora_params(arch, spec.lora_targets, spec.lora_rank)
        t["adapters"] = trainable * train_bytes
        other = arch.params_total - arch.params_linear
        if spec.method == "qlora":
            if spec.quant == "int8":
                data, constants = int8_bytes(arch)
            else:
                data, constants = nf4_bytes(arch.params_linear, spec.double_quant)
            other_bytes = FP32 if (prof.kbit_prep_fp32 or spec.precision == "fp32") else BF16
            t["weights"] = data + other * other_bytes
            t["quant_constants"] = constants
        else:
            t["weights"] = arch.params_total * base_bytes
    t["gradients"] = trainable * train_bytes
    small = (small_tensor_params(arch) if spec.method == "full"
             else lora_small_params(arch, spec.lora_targets, spec.lora_rank))
    if spec.optimizer == "adamw":
        t["optimizer_states"] = adam_state_bytes(trainable, train_bytes)
    elif spec.optimizer == "adamw-8bit":
        t["optimizer_states"] = adam8bit_state_bytes(trainable, small)
    # paged-adamw-8bit: states live in CUDA unified memory (cudaMallocManaged), outside torch's
    # allocator; they are added to device_bytes below. SGD: torch.optim.SGD with momentum=0 (its
    # default, and HF's optim="sgd") keeps no state.
    return t


def _optimizer_transient(spec: FinetuneSpec, trainable: int, train_bytes: int, arch: Architecture) -> float:
    """Temporaries of optimizer.step()."""
    if spec.optimizer != "adamw":
        return 0.0  # bnb 8-bit kernels update in place, block by block; SGD without momentum too
    if spec.optimizer_impl == "foreach":
        # torch _multi_tensor_adamw: exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs) is a
        # full-size copy of the second moments (docs/DESIGN.md: 8B bf16 full FT peaks at 74.8 GiB with
        # foreach vs 60.1 GiB fused; 8.03e9 x 2 B = 14.96 GiB of the 14.7 GiB gap)
        return trainable * train_bytes
    if spec.optimizer_impl == "for-loop":
        # _single_tensor_adamw: the same temporary for one parameter at a time (the largest)
        largest = arch.vocab * arch.hidden if spec.method == "full" else 0
        return largest * train_bytes
    return 0.0  # fused kernel: no temporaries


def estimate_memory(
    spec: FinetuneSpec,
    arch: Architecture,
    *,
    num_gpus: int | None = None,
    reserved_ratio: float | None = None,
    accumulates_gradients: bool | None = None,
) -> MemoryBreakdown:
    """Peak memory per GPU of one training step of ``spec`` on ``arch``.

    ``num_gpus`` overrides ``spec.num_gpus`` (the ranking tries 1, 2, 4, 8 ...);
    ``reserved_ratio`` replaces the allocator's simulated slack by a measured reserved/allocated
    ratio (calibration from pilots).
    ``accumulates_gradients`` overrides ``ACCUMULATES_GRADIENTS`` (False: one optimizer step per
    micro-batch, as in a single traced step or a loop without gradient accumulation).
    """
    prof = profile(spec.stack)
    n = num_gpus if num_gpus is not None else spec.num_gpus
    fsdp = spec.sharding == "fsdp" and n > 1
    ddp = spec.sharding == "ddp" and n > 1
    full = spec.method == "full"
    mixed = spec.precision in ("bf16-mixed", "fp16-mixed")
    act = FP32 if spec.precision == "fp32" else BF16
    tokens = spec.seq_len * spec.micro_batch
    seqs = spec.micro_batch

    static = _static_terms(spec, arch, prof)
    _, train_bytes = _param_bytes(spec, prof)
    trainable = arch.params_total if full else lora_params(arch, spec.lora_targets, spec.lora_rank)
    paged_states = 0.0
    if spec.optimizer == "paged-adamw-8bit":
        paged_states = adam8bit_state_bytes(trainable, small_tensor_params(arch) if full
                                            else lora_small_params(arch, spec.lora_targets, spec.lora_rank))
    if fsdp:  # parameters, gradients and optimizer state are sharded; activations are not
        static = {k: v / n for k, v in static.items()}
        paged_states /= n
    grads_all = static["gradients"]
    static_keys = ("weights", "quant_constants", "adapters", "master_weights", "optimizer_states")

    # --- activations ---------------------------------------------------------------------------
    quant = spec.method == "qlora"
    kbit_fp32 = quant and prof.kbit_prep_fp32
    base_bytes, _ = _param_bytes(spec, prof)
    # the residual stream takes the embedding's dtype: fp32 when the stored embedding is fp32
    # (mixed precision over fp32 weights, PEFT k-bit preparation), else the compute dtype
    embed_bytes = (train_bytes if full else (FP32 if kbit_fp32 else base_bytes))
    residual = max(embed_bytes, act)
    ctx = LayerCtx(
        act=act,
        residual=residual,
        norm_out=max(embed_bytes, residual),
        mixed=mixed,
        base_trainable=full,
        adapted=adapted_linears(arch, spec.lora_targets) if not full else frozenset(),
        adapter_bytes=train_bytes,
        lora_rank=spec.lora_rank,
        dropout_copy=(not full) and prof.lora_dropout_copy and spec.lora_dropout > 0,
        cast_input=prof.lora_cast_input,
        quant=quant,
        quant_saves_input=quant and prof.keep_quant_input,
        quant_input_copy=quant and prof.keep_quant_input and prof.quant_input_copy,
        flash=spec.attention == "flash",
        seq_len=spec.seq_len,
        recomputed=spec.gradient_checkpointing,
    )
    per_layer = layer_saved_bytes_per_token(arch, ctx) * tokens
    # the busiest moment inside one layer: the MLP's (backward gradients, LoRA forward) or eager
    # attention's seq x seq scores, whichever is larger
    layer_peak = max(layer_peak_extra_per_token(arch, ctx) * tokens, eager_transient_bytes(arch, ctx, seqs))
    grad_flow = GRAD_FLOW_COPIES * ctx.residual * arch.hidden * tokens
    # the first layer's input needs no gradient under LoRA/QLoRA (frozen embedding)
    first_unsaved = first_layer_unsaved_per_token(arch, ctx) * tokens
    final_norm = (FP32 * arch.hidden + (residual * arch.hidden if full else 0)) * tokens
    # alive through forward and backward whatever the layers save: the batch (input ids and
    # labels, int64: advisor.model.step.synthetic_batch, as a DataLoader's collated batch) and the
    # rotary cos/sin tables in the residual stream's dtype (transformers LlamaRotaryEmbedding
    # returns them in the hidden states' dtype; every layer's RoPE saves the same two tables)
    fixed = BATCH_BYTES_PER_TOKEN * tokens + ROPE_TABLES * spec.seq_len * arch.head_dim * ctx.residual
    # an fp32 residual stream makes the input norm's x.to(float32) the layer input itself, so
    # in a recomputed layer what the norm saves is the checkpointed input (counted once, there)
    ckpt_shared = (FP32 * arch.hidden * tokens
                   if spec.gradient_checkpointing and ctx.residual == FP32 else 0.0)
    if spec.gradient_checkpointing:
        # checkpoint keeps each layer's input; backward recomputes one layer at a time
        act_saved = arch.layers * ctx.residual * arch.hidden * tokens + final_norm + fixed
        act_bwd_layer = act_saved + per_layer - ckpt_shared + layer_peak + grad_flow
    else:
        act_saved = arch.layers * per_layer - first_unsaved + final_norm + fixed
        act_bwd_layer = act_saved + layer_peak + grad_flow
    # autocast's 16-bit copies of fp32 weights: saved by every linear for backward, and kept for
    # the whole forward region by the autocast cache (torch.autocast cache_enabled=True)
    autocast_copies = 0.0
    if full and mixed and (prof.autocast_weight_cache or not spec.gradient_checkpointing):
        autocast_copies = BF16 * (arch.params_linear + arch.vocab * arch.hidden)
        if fsdp:
            autocast_copies /= n

    # --- logits and loss -----------------------------------------------------------------------
    sv = tokens * arch.vocab
    chunks = max(1, prof.loss_chunks)
    loss_bytes = FP32 if (prof.loss_upcast_fp32 or spec.precision == "fp32") else act
    logits16 = act * sv
    upcast_copy = FP32 * sv / chunks if (prof.loss_upcast_fp32 and act != FP32) else 0.0
    logsm_saved = loss_bytes * sv  # every chunk's log-softmax output is saved for backward
    loss_fwd = logits16 + upcast_copy + logsm_saved
    if chunks == 1:
        loss_bwd = LOSS_BWD_COPIES * loss_bytes * sv
    else:
        loss_bwd = logsm_saved + (LOSS_BWD_COPIES - 1) * loss_bytes * sv / chunks
    head_params = arch.vocab * arch.hidden
    head_grad = head_params * train_bytes / (n if fsdp else 1) if full else 0.0
    head_bwd = act * sv  # gradient of the 16-bit logits entering the LM head's backward

    # --- transient -----------------------------------------------------------------------------
    opt_tmp = _optimizer_transient(spec, trainable, train_bytes, arch) / (n if fsdp else 1)
    buckets = 0.0
    if ddp:  # DDP's gradient buckets are a second copy of the gradients (gradient_as_bucket_view=False)
        buckets = trainable * train_bytes
    gather = 0.0
    if fsdp:  # unsharded parameters of the layers being computed
        layer_params = arch.params_per_layer
        gather = FSDP_UNITS_IN_FLIGHT * layer_params * (BF16 if (mixed or act == BF16) else FP32)
        if not full:
            gather = FSDP_UNITS_IN_FLIGHT * layer_params * BF16 * (0.25 if quant else 1.0)
    accumulate = ACCUMULATES_GRADIENTS if accumulates_gradients is None else accumulates_gradients
    grads_fwd = grads_all if accumulate else 0.0

    def moment(phase: Phase, **extra: float) -> tuple[float, Phase, dict[str, float]]:
        terms = {k: (static[k] if k in static_keys else 0.0) for k in TERMS}
        for k, v in extra.items():
            terms[k] += v
        return sum(terms.values()), phase, terms

    # gradients not yet made when backward reaches the first layer: its own and the input
    # embedding's (when untied from the head, whose gradient came first)
    late_params = arch.params_per_layer + (0 if arch.tied_embeddings else arch.params_embedding)
    grads_late = (late_params * train_bytes / (n if fsdp else 1)) if full else 0.0
    # one layer's activations (recomputed under checkpointing) with the gradients flowing
    # (the first layer's unsaved bytes already leave out its input norm's)
    act_one_layer = (per_layer - (first_unsaved or ckpt_shared) + layer_peak + grad_flow + fixed)
    ckpt_input = ctx.residual * arch.hidden * tokens if spec.gradient_checkpointing else 0.0
    moments = [
        moment("forward", gradients=grads_fwd, activations=act_saved,
               logits_loss=loss_fwd, transient=gather + autocast_copies),
        moment("backward", gradients=grads_fwd, activations=act_saved,
               logits_loss=loss_bwd, transient=gather + buckets + autocast_copies),
        moment("backward", gradients=max(grads_fwd, head_grad), activations=act_saved + grad_flow,
               logits_loss=head_bwd, transient=gather + buckets + autocast_copies),
        # top layer's backward: every layer's saved activations (or checkpointed inputs) still
        # alive with the recomputed layer; the final norm's saved tensors were freed by its own
        # backward, and the LM head's gradient exists (traced: advisor.trace, tests/test_agreement)
        moment("backward", gradients=max(grads_fwd, head_grad), activations=act_bwd_layer - final_norm,
               transient=gather + buckets + autocast_copies),
        # end of backward, inside the first layer: every gradient but that layer's and the
        # embedding's, that layer's activations (recomputed under checkpointing, beside the
        # checkpointed input it was recomputed from)
        moment("backward", gradients=max(grads_fwd, grads_all - grads_late),
               activations=act_one_layer + ckpt_input, transient=gather + buckets),
        moment("optimizer", gradients=grads_all, transient=opt_tmp + buckets),
    ]
    _, phase, terms = max(moments, key=lambda m: m[0])
    rounded = {k: int(round(v)) for k, v in terms.items()}
    allocated = sum(rounded.values())
    if reserved_ratio is not None:  # measured by pilots (advisor.pilot.calibration)
        reserved = needed = int(round(allocated * reserved_ratio))
    else:  # the caching allocator's slack, fitted to its simulation (advisor.allocator.closed_form)
        from advisor.allocator.closed_form import reserved_for

        reserved, needed = reserved_for(rounded, spec)
    outside = prof.cuda_context_bytes + int(round(paged_states))
    device = reserved + outside
    return MemoryBreakdown.model_construct(
        terms=rounded, allocated_bytes=allocated, reserved_bytes=reserved, device_bytes=device,
        peak_phase=phase, num_gpus=n, fit_bytes=needed + outside,
    )
