"""The analytic memory model: peak GPU memory of one fine-tuning step, in closed form.

``estimate_memory(spec, arch)`` returns a ``MemoryBreakdown``: named terms in bytes per GPU at the
peak moment of a training step (they sum to ``allocated_bytes``, what
``torch.cuda.max_memory_allocated`` reports), ``reserved_bytes`` (the caching allocator's peak,
``max_memory_reserved``) and ``device_bytes`` (what nvidia-smi shows: reserved plus the CUDA
context). It costs microseconds, so the ranking can call it for every GPU count it tries.

How the peak is found: a step has moments with different things alive, and the peak is the
largest of them (``_moments``):

* forward end: everything static, the activations saved for backward, the loss's forward copies;
* loss backward: the same, with the cross-entropy backward's seq x vocab copies;
* head backward: the gradient of the logits and of the LM head;
* top layer's backward (recomputed under checkpointing) and the end of backward (first layer);
* optimizer step: all gradients, the optimizer's temporaries (foreach AdamW's full-size buffer).

The pieces are computed once each from the spec (``_Setup``): static memory (``_static``),
activations (``_activations``), the loss (``_loss``), transients (``_transients``); the moments
combine them, and ``device_bytes`` turns the peak into reserved and device memory.

"Static" is weights (stored dtype), quantization constants, LoRA adapters, a separate fp32 master
copy and optimizer states (the trace creates them before measuring, as every step after the first
finds them). Gradients are alive during forward only when the step accumulates gradients over
micro-batches (``spec.gradient_accumulation_steps > 1``): on every micro-batch after the first the
previous gradients exist while activations are built; with one micro-batch per step
``zero_grad(set_to_none=True)`` freed them.

Term semantics (the same categories as the exact traces, ``advisor.trace``):
``weights`` parameters as stored (the frozen base, packed NF4/int8 data, trainable weights in
their dtype: fp32 under bf16-mixed, where they are themselves the master copy); ``quant_constants``
the NF4/int8 scales; ``adapters`` LoRA A/B; ``master_weights`` a separate fp32 copy of 16-bit
weights (DeepSpeed ZeRO's partitioned fp32 copy); ``gradients``; ``optimizer_states``;
``activations`` tensors saved for backward and the gradients flowing through the layers;
``logits_loss`` the seq x vocab logits and the loss's copies; ``transient`` autocast's 16-bit
weight copies, optimizer temporaries, DDP gradient buckets, FSDP/ZeRO gather and reduce buffers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict

from advisor.arch import Architecture
from advisor.memory_terms import (
    BF16,
    BOOL,
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
    norm_saved_per_token,
    lora_params,
    lora_small_params,
    nf4_bytes,
    quant_held_inputs_per_token,
    small_tensor_params,
)
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile, for_spec

TERMS: tuple[str, ...] = (
    "weights", "quant_constants", "adapters", "master_weights", "gradients",
    "optimizer_states", "activations", "logits_loss", "transient",
)
Phase = Literal["forward", "backward", "optimizer"]

BATCH_BYTES_PER_TOKEN = 2 * 8  # int64 token ids: the input ids and the shifted labels (a tensor of
# the batch in the reference step, advisor.model.step; transformers' ForCausalLMLoss pads and shifts
# labels=input_ids into a new tensor that nll_loss saves for backward)
ROPE_TABLES = 2  # cos and sin, seq_len x head_dim each

FSDP_UNITS_IN_FLIGHT = 2
"""In backward FSDP keeps the current layer's unsharded parameters and prefetches the next one:
two layers' full parameters (torch 2.13 FSDP2 ``FSDPParamGroup.pre_backward`` unshards its group
and ``_backward_prefetch`` the next in reverse forward order; traced: advisor.hftrace.fsdp). In
forward each layer is resharded after it ran (``reshard_after_forward=True``, accelerate's FSDP2
default), so no layer is unsharded at the end of forward. DeepSpeed ZeRO-3 gathers the same way
(stage3_prefetch_bucket_size: the next layer's parameters)."""

ZERO_MIXED_STATE_BYTES = 12
"""DeepSpeed ZeRO with 16-bit training: the fp32 master copy and the two fp32 Adam moments, K = 12
bytes per parameter, partitioned over the ranks; 16-bit parameters and gradients besides
(Rajbhandari et al. 2020, ZeRO, section 3 and Figure 1: 2 + 2 + K bytes per parameter)."""

UNSLOTH_LOSS_TARGET_BYTES = 4 * 1024**3
"""Unsloth's fused cross-entropy sizes its chunks so the fp32 logits of one chunk stay within
``target_gb = min(free VRAM / 2, 4.0)`` GiB (unsloth_zoo fused_losses/cross_entropy_loss.py
_get_chunk_multiplier). The free VRAM is read at run time; we take the 4 GiB cap, its bound
(the answer says so)."""

# --- what lives outside the allocated peak (see device_bytes) ----------------------------------
CUDA_CONTEXT_BYTES = 476 * 1024**2
"""CUDA context, cuBLAS/cuDNN workspaces and loaded kernels: what nvidia-smi shows beyond torch's
reserved memory. docs/DESIGN.md gives 0.3-1 GiB; fitted by ``benchmarks/memory_accuracy.py``
within that range on the ``nvidia_smi`` rows of tests/data/published_measurements.json (it prints
the fit on all rows and the out-of-fold error of fitting it)."""


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


def device_bytes(terms: dict[str, int], spec: FinetuneSpec, *, reserved_ratio: float | None = None,
                 cuda_context: float | None = None, outside_allocator: float = 0.0) -> tuple[int, int, int]:
    """(reserved, device, fit) bytes for the peak ``terms``: the caching allocator's reserved
    memory (its simulation's closed form, advisor.allocator.closed_form.reserved_for, or a
    reserved/allocated ratio measured by pilots), plus what lives outside it (the CUDA context,
    paged optimizer states in unified memory); ``fit`` is what the run needs to not run out of
    memory (reserved at equal batch lengths, plus the same outside bytes)."""
    allocated = sum(terms.values())
    if reserved_ratio is not None:  # measured by pilots (advisor.pilot.calibration)
        reserved = needed = int(round(allocated * reserved_ratio))
    else:  # the caching allocator's slack, fitted to its simulation (advisor.allocator.closed_form)
        from advisor.allocator.closed_form import reserved_for

        reserved, needed = reserved_for(terms, spec)
    outside = int(round((CUDA_CONTEXT_BYTES if cuda_context is None else cuda_context) + outside_allocator))
    return reserved, reserved + outside, needed + outside


@dataclass(frozen=True)
class _Setup:
    """The quantities every piece of the model needs, computed once per call."""

    spec: FinetuneSpec
    arch: Architecture
    prof: StackProfile
    n: int  # GPUs
    shard: str  # "" (one GPU or DDP), "fsdp", "zero2", "zero3"
    ddp: bool
    full: bool
    quant: bool
    mixed: bool
    act: int  # compute dtype bytes
    tokens: int  # per GPU per micro-batch
    seqs: int
    trainable: int  # trainable parameters
    train_bytes: int  # bytes of each trainable parameter (and its gradient)
    base_bytes: int  # frozen base weights (LoRA), 0 for a full fine-tune
    head_bytes: int  # stored dtype of the LM head (and input embedding)
    accumulate: bool  # gradients alive during forward
    in_backward: bool  # optimizer step fused into backward
    ctx: LayerCtx
    quant_head: bool = False  # the LM head is 4-bit too (StackProfile.quant_head)

    @property
    def param_share(self) -> float:
        """Fraction of the parameters one GPU stores (FSDP and ZeRO-3 partition them)."""
        return 1.0 / self.n if self.shard in ("fsdp", "zero3") else 1.0

    @property
    def state_share(self) -> float:
        """Fraction of gradients and optimizer states one GPU keeps (every sharded mode)."""
        return 1.0 / self.n if self.shard else 1.0


def _param_bytes(spec: FinetuneSpec, prof: StackProfile) -> tuple[int, int]:
    """(stored bytes of the frozen base weights, bytes of each trainable parameter)."""
    pure16 = spec.precision == "bf16"
    if spec.method == "full":
        if spec.sharding in ("zero2", "zero3") and spec.precision in ("bf16-mixed", "fp16-mixed"):
            return 0, BF16  # DeepSpeed runs the module in 16 bit; the fp32 copy is partitioned
        return 0, BF16 if pure16 else FP32
    base = FP32 if spec.precision == "fp32" else BF16
    # PEFT (autocast_adapter_dtype=True) keeps adapters fp32 even in a 16-bit model; litgpt and
    # torchtune keep them in the model's dtype (StackProfile.adapters_fp32)
    return base, FP32 if (prof.adapters_fp32 or not pure16) else BF16


def _setup(spec: FinetuneSpec, arch: Architecture, prof: StackProfile, num_gpus: int | None,
           accumulates: bool | None) -> _Setup:
    n = num_gpus if num_gpus is not None else spec.num_gpus
    shard = spec.sharding if (n > 1 and spec.sharding != "ddp") else ""
    full, quant = spec.method == "full", spec.method == "qlora"
    mixed = spec.precision in ("bf16-mixed", "fp16-mixed")
    act = FP32 if spec.precision == "fp32" else BF16
    base_bytes, train_bytes = _param_bytes(spec, prof)
    trainable = arch.params_total if full else lora_params(arch, spec.lora_targets, spec.lora_rank)
    kbit_fp32 = quant and prof.kbit_prep_fp32
    head_bytes = train_bytes if full else (FP32 if (kbit_fp32 or spec.precision == "fp32") else BF16)
    # the residual stream takes the embedding's dtype: fp32 when the stored embedding is fp32
    # (mixed precision over fp32 weights, PEFT k-bit preparation), else the compute dtype
    residual = max(head_bytes, act)
    if shard == "fsdp" and mixed:
        # FSDP all-gathers the embedding in MixedPrecisionPolicy.param_dtype (bf16 under accelerate's
        # bf16 policy), so the residual stream starts in bf16 whatever the stored dtype
        residual = act
    tokens = spec.seq_len * spec.micro_batch
    recomputed = spec.gradient_checkpointing
    first_grads = recomputed and prof.input_grads_with_checkpointing
    liger = prof.fused_loss == "liger"  # Liger's layer kernels come with its loss (stacks.for_spec)
    ctx = LayerCtx(
        act=act,
        residual=residual,
        # Liger's RMSNorm returns its input's dtype
        norm_out=residual if (liger or (shard == "fsdp" and mixed)) else max(head_bytes, residual),
        mixed=mixed,
        base_trainable=full,
        adapted=adapted_linears(arch, spec.lora_targets) if not full else frozenset(),
        # under FSDP with mixed precision the layers run on adapters all-gathered in
        # MixedPrecisionPolicy.param_dtype (bf16): PEFT's _cast_input_dtype casts to that, a no-op
        # (traced: advisor.hftrace.fsdp; the top layer's recompute under Liger, whose loss holds no logits)
        adapter_bytes=act if (shard == "fsdp" and mixed) else train_bytes,
        lora_rank=spec.lora_rank,
        dropout_copy=(not full) and prof.lora_dropout_copy and spec.lora_dropout > 0,
        cast_input=prof.lora_cast_input and not (quant and mixed) and not (shard == "fsdp" and mixed),
        quant=quant,
        quant_saves_input=quant and prof.keep_quant_input,
        quant_out_follows_input=quant and prof.quant_out_follows_input,
        flash=spec.attention == "flash",
        seq_len=spec.seq_len,
        recomputed=recomputed,
        first_layer_input_grad=first_grads,
        liger=liger,
    )
    accumulate = spec.gradient_accumulation_steps > 1 if accumulates is None else accumulates
    return _Setup(spec=spec, arch=arch, prof=prof, n=n, shard=shard, ddp=spec.sharding == "ddp" and n > 1,
                  full=full, quant=quant, mixed=mixed, act=act, tokens=tokens, seqs=spec.micro_batch,
                  trainable=trainable, train_bytes=train_bytes, base_bytes=base_bytes, head_bytes=head_bytes,
                  accumulate=accumulate and not spec.optimizer_in_backward, in_backward=spec.optimizer_in_backward,
                  ctx=ctx, quant_head=quant and prof.quant_head and spec.quant != "int8" and arch.params_head > 0)


def _static(s: _Setup) -> tuple[dict[str, float], float]:
    """Weights, constants, adapters, master copy, gradients and optimizer states per GPU, and the
    bytes kept outside torch's allocator (paged optimizer states)."""
    spec, arch, prof = s.spec, s.arch, s.prof
    t = dict.fromkeys(TERMS, 0.0)
    zero_mixed = s.full and spec.sharding in ("zero2", "zero3") and s.mixed
    if s.full:
        # HF Trainer's bf16-mixed keeps the trainable parameters themselves in fp32 (they are the
        # master copy, counted as weights); DeepSpeed keeps 16-bit parameters and a partitioned
        # fp32 master copy
        t["weights"] = s.trainable * s.train_bytes * s.param_share
    else:
        t["adapters"] = s.trainable * s.train_bytes * s.param_share
        other = arch.params_total - arch.params_linear
        if s.quant:
            head_q = arch.params_head if s.quant_head else 0  # litgpt quantizes its LM head too
            if spec.quant == "int8":
                data, constants = int8_bytes(arch)
            else:
                data, constants = nf4_bytes(arch.params_linear + head_q, spec.double_quant)
            # FSDP shards the 4-bit base only when it is stored in a float dtype
            # (bnb_4bit_quant_storage=bfloat16, the FSDP-QLoRA recipe of PEFT's "QLoRA and FSDP"
            # guide): with the default uint8 accelerate 1.15 keeps it whole on every rank
            # (fsdp_utils.py fsdp2_prepare_model, incompatible_params4bit -> ignored_params)
            t["weights"] = (data + (other - head_q) * s.head_bytes) * s.param_share
            t["quant_constants"] = constants * s.param_share
        else:
            t["weights"] = arch.params_total * s.base_bytes * s.param_share
    t["gradients"] = s.trainable * s.train_bytes * s.state_share
    small = small_tensor_params(arch) if s.full else lora_small_params(arch, spec.lora_targets, spec.lora_rank)
    states = 0.0
    if spec.optimizer == "adamw":
        states = adam_state_bytes(s.trainable, FP32 if zero_mixed else s.train_bytes)
    elif spec.optimizer in ("adamw-8bit", "paged-adamw-8bit"):
        states = adam8bit_state_bytes(s.trainable, small)
    if zero_mixed:
        t["master_weights"] = s.trainable * FP32 * s.state_share
    # paged-adamw-8bit: states live in CUDA unified memory (cudaMallocManaged), outside torch's
    # allocator (device_bytes counts them). SGD: torch.optim.SGD with momentum=0 (its default,
    # and HF's optim="sgd") keeps no state.
    paged = states * s.state_share if spec.optimizer == "paged-adamw-8bit" else 0.0
    if spec.optimizer != "paged-adamw-8bit":
        t["optimizer_states"] = states * s.state_share
    return t, paged


@dataclass(frozen=True)
class _Acts:
    saved: float  # every layer's saved activations (or checkpointed inputs) + final norm + fixed
    top_layer: float  # the top layer's backward: saved + the (recomputed) layer with its peak
    one_layer: float  # end of backward, inside the first layer
    final_norm: float
    grad_flow: float
    autocast_copies: float  # 16-bit copies of fp32 trainable weights (autocast cache, saved)
    copies_in_backward: bool  # ... still alive when backward starts (no checkpointing)
    head_copy: float  # 16-bit copy of a frozen fp32 LM head, saved by its matmul
    previous_step: float = 0.0  # the previous step's graph, alive through this forward


def _activations(s: _Setup) -> _Acts:
    spec, arch, prof, ctx, tokens = s.spec, s.arch, s.prof, s.ctx, s.tokens
    per_layer = layer_saved_bytes_per_token(arch, ctx) * tokens
    # the busiest moment inside one layer: the MLP's (backward gradients, LoRA forward) or eager
    # attention's seq x seq scores, whichever is larger
    layer_peak = max(layer_peak_extra_per_token(arch, ctx) * tokens, eager_transient_bytes(arch, ctx, s.seqs))
    grad_flow = GRAD_FLOW_COPIES * ctx.residual * arch.hidden * tokens
    # the first layer's input needs no gradient under LoRA/QLoRA (frozen embedding), unless
    # transformers turned input gradients on with checkpointing
    first_unsaved = 0.0 if ctx.first_layer_input_grad else first_layer_unsaved_per_token(arch, ctx) * tokens
    final_norm = (norm_saved_per_token(arch, ctx) if ctx.liger
                  else FP32 * arch.hidden + (ctx.residual * arch.hidden if s.full else 0)) * tokens
    # alive through forward and backward whatever the layers save: the batch and the rotary
    # cos/sin tables in the residual stream's dtype (transformers LlamaRotaryEmbedding returns them
    # in the hidden states' dtype; every layer's RoPE saves the same two tables)
    fixed = BATCH_BYTES_PER_TOKEN * tokens + ROPE_TABLES * spec.seq_len * arch.head_dim * ctx.residual
    # an fp32 residual stream makes the input norm's x.to(float32) the layer input itself, so
    # in a recomputed layer what the norm saves is the checkpointed input (counted once, there)
    # (Liger's norm saves its input itself, whatever its dtype)
    ckpt_shared = ctx.residual * arch.hidden * tokens if spec.gradient_checkpointing and (
        ctx.residual == FP32 or ctx.liger) else 0.0
    ckpt_layer = ctx.residual * arch.hidden * tokens
    if spec.gradient_checkpointing:
        # checkpoint keeps each layer's input; backward recomputes one layer at a time. Unsloth
        # moves those inputs to CPU memory: on the GPU only the layer in flight keeps its own
        kept = 1 if prof.offload_checkpoints else arch.layers
        saved = kept * ckpt_layer + final_norm + fixed
        top_layer = saved + per_layer - ckpt_shared + layer_peak + grad_flow
    else:
        saved = arch.layers * per_layer - first_unsaved + final_norm + fixed
        top_layer = saved + layer_peak + grad_flow
    one_layer = per_layer - (first_unsaved or ckpt_shared) + layer_peak + grad_flow + fixed
    if spec.gradient_checkpointing:
        one_layer += ckpt_layer
    # autocast's 16-bit copies of fp32 trainable weights: the autocast cache keeps them for the
    # whole forward region (torch.autocast cache_enabled=True) and each linear saves its copy for
    # backward, so without checkpointing they live on into backward
    copies = 0.0
    # under FSDP the layers run on parameters all-gathered in MixedPrecisionPolicy.param_dtype (bf16
    # under accelerate's bf16 policy), which autocast does not copy (s.shard == "fsdp" below)
    if s.mixed and s.train_bytes == FP32 and s.shard != "fsdp" and (prof.autocast_weight_cache or not spec.gradient_checkpointing):
        params = (arch.params_linear + arch.vocab * arch.hidden) if s.full else s.trainable
        copies = BF16 * params * s.param_share
    # a frozen LM head stored in fp32 (PEFT's k-bit preparation) is cast to 16 bit by autocast for
    # its matmul, and the copy is saved for the logits' backward (not cached: it needs no grad)
    # (Liger's fused loss runs the head's matmul with grad off: its cast is a temporary, in _liger_loss)
    head_copy = BF16 * arch.vocab * arch.hidden if (not s.full and s.mixed and s.head_bytes == FP32
                                                     and s.shard != "fsdp" and not ctx.liger) else 0.0
    return _Acts(saved=saved, top_layer=top_layer, one_layer=one_layer, final_norm=final_norm, grad_flow=grad_flow,
                 autocast_copies=copies, copies_in_backward=not spec.gradient_checkpointing, head_copy=head_copy,
                 previous_step=_previous_step(s))


def _previous_step(s: _Setup) -> float:
    """What the previous step's graph still holds while this step's forward runs, when the loop
    keeps that graph referenced (StackProfile.graph_outlives_step, litgpt): the inputs its
    quantized matmuls kept as ``ctx`` attributes (bitsandbytes before 0.43.2), which backward
    does not release; every layer's, the first one's q/k/v input excepted under a frozen
    embedding. Its 16-bit logits list is alive too and is not counted here: the exact traces run
    one step, so no trace could check that term (a known under-count of tokens x vocab x 2 bytes
    for litgpt). Without checkpointing only (litgpt's finetune scripts do not checkpoint)."""
    if not (s.prof.graph_outlives_step and s.ctx.quant_saves_input) or s.spec.gradient_checkpointing:
        return 0.0
    per_layer = quant_held_inputs_per_token(s.arch, s.ctx)
    first = quant_held_inputs_per_token(s.arch, s.ctx, first_layer=True)
    head = s.act * s.arch.hidden if s.quant_head else 0.0  # the 4-bit head's input (the final norm's output)
    return ((s.arch.layers - 1) * per_layer + first + head) * s.tokens


def _head_dequant(s: _Setup, forward: bool) -> float:
    """A 4-bit LM head's dequantized weight while its matmul runs (StackProfile.quant_head): the
    compute-dtype copy, and beside it the fp16 one it was cast from when the weights were
    quantized from fp16 (StackProfile.quant_dequant_fp16), in backward, and in forward unless
    bitsandbytes dequantizes straight into the input dtype there (quant_forward_direct)."""
    if not s.quant_head:
        return 0.0
    cast = s.prof.quant_dequant_fp16 and not (forward and s.prof.quant_forward_direct)
    per_param = (BF16 + s.act) if cast else s.act
    return per_param * s.arch.vocab * s.arch.hidden * s.param_share


@dataclass(frozen=True)
class _Loss:
    forward: float  # logits and the loss's forward copies, at the end of forward
    backward: float  # cross-entropy backward
    head_backward: float  # the logits' gradient entering the LM head's backward
    head_grad: float  # the LM head's weight gradient (full fine-tune)
    input_grad: float  # fused losses: the hidden states' gradient, made in forward
    chunked_head: float = 0.0  # chunked loss over a trainable head: the moment its per-chunk
    # weight gradients are summed (see _loss)
    head_kept: float | None = None  # a fused loss's head gradient once backward moved past the
    # loss (None: head_grad; see _liger_loss)


def _loss(s: _Setup) -> _Loss:
    spec, arch, prof = s.spec, s.arch, s.prof
    tokens, act = s.tokens, s.act
    sv = tokens * arch.vocab
    head_grad = arch.params_head * s.train_bytes * s.state_share if s.full else 0.0
    if s.full and arch.tied_embeddings:
        head_grad = arch.params_embedding * s.train_bytes * s.state_share
    if prof.fused_loss == "liger":
        return _liger_loss(s, head_grad)
    if prof.fused_loss == "unsloth":
        # unsloth_zoo UnslothFusedLoss: the input gradient (tokens x hidden) is made in forward;
        # each chunk's fp32 logits (at most UNSLOTH_LOSS_TARGET_BYTES) and their gradient
        full_fp32 = FP32 * sv
        n_chunks = 1 if full_fp32 <= UNSLOTH_LOSS_TARGET_BYTES else 4 * math.ceil(full_fp32 / UNSLOTH_LOSS_TARGET_BYTES / 4)
        chunk = full_fp32 / n_chunks
        grads = act * tokens * arch.hidden + head_grad
        live = grads + act * sv / n_chunks + 2 * chunk
        return _Loss(forward=live, backward=grads, head_backward=0.0, head_grad=0.0, input_grad=0.0)
    # Under mixed precision the Trainer's forward is accelerate's ConvertOutputsToFp32 wrapper
    # (accelerate 1.15 accelerator.py prepare_model, native_amp; transformers 5.24 Trainer calls
    # accelerator.prepare(model, optimizer); the hf step runs it: hf_stack.fp32_outputs): once
    # forward returned, the 16-bit logits get an fp32 copy. It adds no moment: it is made after
    # ForCausalLMLoss's own fp32 upcast (``logits = logits.float()``, upcast_copy below) was freed,
    # is of the same size, and beside the same tensors (the 16-bit logits, the saved log-softmax);
    # it dies when compute_loss returns only the loss (traced: one more fp32 seq x vocab storage,
    # the same peak). Liger's and Unsloth's losses make no logits in training: nothing to copy.
    chunks = max(1, prof.loss_chunks)
    loss_bytes = FP32 if (prof.loss_upcast_fp32 or spec.precision == "fp32") else act
    logits16 = act * sv / (1 if prof.loss_keeps_logits else chunks)  # all chunks, or the one in flight
    upcast_copy = FP32 * sv / chunks if (prof.loss_upcast_fp32 and act != FP32) else 0.0
    logsm_saved = loss_bytes * sv  # every chunk's log-softmax output is saved for backward
    if chunks == 1:
        backward = LOSS_BWD_COPIES * loss_bytes * sv
    else:
        backward = logsm_saved + (LOSS_BWD_COPIES - 1) * loss_bytes * sv / chunks
    # a chunked loss over a trainable LM head uses the head weight once per chunk, so backward
    # sums a weight gradient per chunk: autograd's InputBuffer holds the running sum from the
    # first chunk's matmul on, and each later chunk's gradient is added into it in place
    # (InputBuffer::accumulate, advisor.model.inbuffer). Two moments of the second chunk (traced,
    # advisor.trace at 1B; every later chunk has less log-softmax left): its cross-entropy
    # backward (its own and the other not-yet-visited chunks' saved log-softmax, the two
    # gradients of LOSS_BWD_COPIES, the running sum) and its matmul (the chunks still to go,
    # the 16-bit logits gradient and the chunk's input gradient, the running sum and the new
    # weight gradient)
    chunked_head = 0.0
    if chunks > 1 and s.full:
        head_weight = arch.vocab * arch.hidden * s.train_bytes * s.param_share
        chunk_tokens = tokens / chunks
        loss_bwd = logsm_saved * (chunks - 1) / chunks + (LOSS_BWD_COPIES - 1) * loss_bytes * sv / chunks + head_weight
        matmul = (logsm_saved * (chunks - 2) / chunks + act * sv / chunks + act * chunk_tokens * arch.hidden
                  + 2 * head_weight)
        chunked_head = max(loss_bwd, matmul)
    return _Loss(forward=logits16 + upcast_copy + logsm_saved, backward=backward,
                 head_backward=act * sv, head_grad=head_grad, input_grad=0.0, chunked_head=chunked_head)


LIGER_LABEL_BYTES_PER_TOKEN = 8
"""Liger's causal-LM loss pads the labels and makes the shifted copy contiguous (liger_kernel 0.8.5
transformers/model/loss_utils.py ``LigerForCausalLMLoss``: ``labels = nn.functional.pad(labels,
(0, 1), value=ignore_index)``; ``shift_labels = labels[..., 1:].contiguous()``): two int64
tensors alive through the loss where transformers' loss has one shifted copy
(BATCH_BYTES_PER_TOKEN counts one)."""


def _liger_loss(s: _Setup, head_grad: float) -> _Loss:
    """Liger's fused linear cross-entropy (liger_kernel 0.8.5 ops/fused_linear_cross_entropy.py
    ``fused_linear_cross_entropy_forward``, as ``lce_forward`` calls it in training), at its
    busiest moment, a chunk's matmuls in forward:

    * made first and saved for backward: ``grad_input = zeros_like(_input)`` (tokens x hidden in
      the final norm's output dtype) and, for a trainable head, ``grad_weight = zeros_like(weight)``;
      ``loss_1d`` (fp32 per token), ``target != ignore_index`` (bool per token), the padded and
      shifted labels (LIGER_LABEL_BYTES_PER_TOKEN);
    * alive: the final norm's output (``hidden_states``, held by ``lce_forward`` through the loss);
    * one chunk of ``chunk = min(next_pow2(ceil(tokens / ceil(V / H))), tokens)`` tokens of logits
      (``inc_factor = triton.cdiv(V, chunk_mem_const * H)``, chunk_mem_const 1): the persistent
      ``logits_storage`` in the input's dtype written by ``torch.mm(out=)`` when
      ``_can_use_mm_out`` (input and weight of one dtype, autocast off or of that dtype), else a
      new ``_input_chunk @ weight.t()`` under autocast, whose casts of the weight (vocab x hidden)
      and of the input chunk are alive during the matmul; ``grad_input[chunk] = grad_logits @
      weight`` then casts the weight again and makes a chunk x hidden product.

    Backward: the saved gradients are returned as they are (``fused_linear_cross_entropy_backward``
    scales them in place).

    Under FSDP the weight Liger is handed is the tail unit's unsharded LM head, all-gathered in
    ``MixedPrecisionPolicy.param_dtype`` (bf16 under accelerate's bf16 policy; the module's
    parameter is a plain ``nn.Parameter`` view of the gathered buffer: torch 2.13 _fsdp_param.py
    ``init_unsharded_param``), so a trainable head's ``grad_weight = zeros_like(weight)`` is the
    whole vocab x hidden in that dtype on every rank, not a shard of the fp32 gradient: FSDP
    reduce-scatters it into the sharded gradient only in the tail's post-backward. Traced:
    advisor.hftrace.fsdp (tests/test_hftrace_fsdp.py ``LIGER_GRID``)."""
    spec, arch, ctx = s.spec, s.arch, s.ctx
    tokens, h, v = s.tokens, arch.hidden, arch.vocab
    x_bytes = ctx.norm_out  # Liger's RMSNorm returns its input's (the residual stream's) dtype
    w_bytes = s.train_bytes if s.full else s.head_bytes
    sharded_head_grad = head_grad
    if s.shard == "fsdp" and s.full:
        w_bytes = s.act if s.mixed else s.train_bytes  # the gathered dtype (param_dtype), unsharded
        head_grad = v * h * w_bytes
    mm_out = x_bytes == w_bytes and (not s.mixed or x_bytes == s.act)
    inc = math.ceil(v / h)
    chunk = min(tokens, 1 << max(0, math.ceil(math.log2(max(1, math.ceil(tokens / inc))))))
    logits_bytes = x_bytes if mm_out else (s.act if s.mixed else max(x_bytes, w_bytes))
    grads = x_bytes * tokens * h + head_grad
    fixed = (FP32 + BOOL + LIGER_LABEL_BYTES_PER_TOKEN) * tokens + x_bytes * tokens * h
    matmul = 0.0
    if not mm_out:
        weight_cast = s.act * v * h * s.param_share if (s.mixed and w_bytes != s.act) else 0.0
        input_cast = s.act * chunk * h if (s.mixed and x_bytes != s.act) else 0.0
        product = logits_bytes * chunk * h  # grad_logits @ weight, before it is copied into grad_input
        matmul = weight_cast + max(input_cast, product)
    live = grads + fixed + logits_bytes * chunk * v + matmul
    # after the loss's backward the head's gradient lives on beside the layers' backward: as the
    # fp32 (sharded, under FSDP) gradient once AccumulateGrad took it and, under FSDP, the tail
    # unit's post-backward reduce-scattered it; a tied head's waits whole in the tied weight's
    # InputBuffer for the embedding's (see _tied_sum, _fsdp_tied), so under FSDP it is the
    # unsharded gathered-dtype grad_weight itself (traced: the top layer's backward of 1B full
    # N=8 without checkpointing holds it, tests/test_hftrace_fsdp.py LIGER_GRID)
    kept = sharded_head_grad
    if s.shard == "fsdp" and s.full and arch.tied_embeddings:
        kept = v * h * w_bytes
    return _Loss(forward=live, backward=grads, head_backward=0.0, head_grad=0.0, input_grad=0.0, head_kept=kept)


@dataclass(frozen=True)
class _Transients:
    optimizer: float  # optimizer.step() temporaries
    buckets: float  # DDP gradient buckets / ZeRO-2 reduce buckets
    gather: float  # FSDP / ZeRO-3 unsharded parameters in flight at a layer's backward
    grads_late: float  # gradients not yet made when backward reaches the first layer
    largest_grad: float  # optimizer in backward: the one gradient alive at a time
    gather_loss: float = 0.0  # ... at the end of forward and through the loss and LM head backward
    gather_tail: float = 0.0  # ... an FSDP unit kept unsharded beside the layers in backward
    tied_backward: float = 0.0  # FSDP, trainable tied embedding: its backward's transients (see _fsdp_tied)
    tied_grad: float = 0.0  # ... and its sharded gradient, not yet made at that moment
    tied_sum: float = 0.0  # one GPU or DDP, trainable tied embedding: its backward's gradient (see _tied_sum)
    gather_start: float = 0.0  # FSDP: the embedding's unit and the first layer unsharded as forward starts
    gather_last: float = 0.0  # FSDP: the last all-gather result, alive to the end of the model's forward


def _optimizer_transient(s: _Setup) -> float:
    """Temporaries of optimizer.step()."""
    spec = s.spec
    if spec.optimizer != "adamw" or s.in_backward:
        return 0.0  # bnb 8-bit kernels update in place, block by block; SGD without momentum too
    state_bytes = FP32 if s.spec.sharding in ("zero2", "zero3") and s.full and s.mixed else s.train_bytes
    if spec.optimizer_impl == "foreach":
        # torch _multi_tensor_adamw: exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs) is a
        # full-size copy of the second moments (docs/DESIGN.md: 8B bf16 full FT peaks at 74.8 GiB with
        # foreach vs 60.1 GiB fused; 8.03e9 x 2 B = 14.96 GiB of the 14.7 GiB gap)
        return s.trainable * state_bytes * s.state_share
    if spec.optimizer_impl == "for-loop":
        # _single_tensor_adamw: the same temporary for one parameter at a time (the largest)
        largest = s.arch.vocab * s.arch.hidden if s.full else 0
        return largest * state_bytes
    return 0.0  # fused kernel: no temporaries


def _transients(s: _Setup) -> _Transients:
    arch, spec = s.arch, s.spec
    buckets = s.trainable * s.train_bytes if s.ddp else 0.0  # DDP: gradient_as_bucket_view=False
    if s.shard == "zero2":
        # the 16-bit gradient of the whole model is produced in backward before being reduced
        # into the partitions, bucket by bucket (reduce_bucket_size: hidden^2 under HF's "auto")
        buckets = min(s.trainable, arch.hidden ** 2) * BF16
    gather = gather_loss = gather_tail = gather_start = gather_last = 0.0
    if s.shard == "zero3":  # unsharded parameters of the layers being computed, at every moment
        stored = BF16 if (s.mixed or s.act == BF16) else FP32
        if s.full:
            gather = FSDP_UNITS_IN_FLIGHT * arch.params_per_layer * stored
        else:
            gather = FSDP_UNITS_IN_FLIGHT * arch.params_per_layer * BF16 * (0.25 if s.quant else 1.0)
        gather_loss = gather
    elif s.shard == "fsdp":
        gather, gather_loss, gather_tail = _fsdp_gathers(s)
        # as forward starts, the unit holding the embedding is unsharded (its all-gather output
        # and the unsharded parameters copied out of it) and the first layer's all-gather and
        # copy-out follow before that output is freed: torch 2.13 FSDPParamGroup.wait_for_unshard
        # frees the previous unit's all-gather result only once the next one's copy-out is done
        # ("self.comm_ctx.all_gather_state = None  # free the all-gather result"), so the
        # embedding's unit counts twice and the first layer twice (gather: FSDP_UNITS_IN_FLIGHT
        # layers). Traced: advisor.hftrace.fsdp; the peak under a fused loss (Liger), whose
        # forward end holds no logits.
        gather_start = 2 * gather_loss + gather
        # ... and at its end the last all-gather result is still alive: the root frees it in its
        # post-forward (torch 2.13 _fsdp_state.py ``_post_forward``: "Free the last all-gather
        # result if needed", ``self._comm_ctx.all_gather_state = None``), that is once the whole
        # model's forward returned, and transformers computes the loss inside it
        # (LlamaForCausalLM.forward calls ``self.loss_function``; Liger's ``lce_forward`` its fused
        # loss), so it is alive through the loss's forward. The last unit all-gathered in forward
        # is the tail [final_norm, lm_head] when the head is untied (an LM head's worth); a tied
        # tail was unsharded since the embedding and gathers nothing there, so it is the top
        # layer's. Traced: advisor.hftrace.fsdp (the peak under Liger without checkpointing, a
        # chunk of its fused loss in forward).
        gather_last = gather / FSDP_UNITS_IN_FLIGHT if arch.tied_embeddings else gather_loss
    late_params = arch.params_per_layer + (0 if arch.tied_embeddings else arch.params_embedding)
    grads_late = late_params * s.train_bytes * s.state_share if s.full else 0.0
    largest = 0.0
    if s.in_backward:
        biggest = max(arch.params_embedding, arch.hidden * arch.intermediate) if s.full else 0
        largest = biggest * s.train_bytes * s.state_share
    tied_backward, tied_grad = _fsdp_tied(s) if s.shard == "fsdp" else (0.0, 0.0)
    return _Transients(optimizer=_optimizer_transient(s), buckets=buckets, gather=gather, grads_late=grads_late,
                       largest_grad=largest, gather_loss=gather_loss, gather_tail=gather_tail,
                       tied_backward=tied_backward, tied_grad=tied_grad, tied_sum=_tied_sum(s),
                       gather_start=gather_start, gather_last=gather_last)


def _tied_sum(s: _Setup) -> float:
    """A full fine-tune of a tied model on one GPU (or DDP): the bytes beside every other
    gradient when the embedding's backward runs, the last node of backward.

    The tied weight is one leaf used twice, so both uses feed its one ``AccumulateGrad`` node,
    and the engine holds the gradient that arrives first in that node's ``InputBuffer`` until the
    other comes (torch 2.13 torch/csrc/autograd/engine.cpp ``evaluate_function``: a node is ready
    once every dependency delivered). The LM head's arrives first, at the start of backward, in
    the stored dtype (fp32 under bf16-mixed: ``ToCopyBackward0`` of autocast's cast of the fp32
    weight; counted among the gradients from then on: ``_loss``'s head_grad). The embedding's
    arrives last (``embedding_dense_backward``: vocab x hidden, in the stored dtype, the weight's;
    the embedding is not an autocast op). ``InputBuffer::accumulate`` adds it into the first in
    place (``old_var.add_(var)``: the buffer holds the first one's last reference; the trace
    replays this, advisor.model.inbuffer), so beside every gradient there is one more
    gradient-sized tensor, the embedding's, and the gradient flowing into the embedding
    (tokens x hidden); ``AccumulateGrad`` then steals the sum as ``.grad``
    (functions/accumulate_grad.h ``accumulateGrad``, Case 1.1). When the step accumulates
    micro-batches, the earlier ones' ``.grad`` exists beside both and the sum is added into it
    in place afterwards (Case 2.3: ``variable_grad += new_grad``): one more gradient-sized
    tensor. Traced: tests/test_agreement.py ``HF_TIED_GRID`` (advisor.hftrace)."""
    if not (s.full and s.arch.tied_embeddings) or s.shard or s.in_backward:
        return 0.0
    embed = s.arch.params_embedding * s.train_bytes
    flowing = s.ctx.residual * s.arch.hidden * s.tokens
    return embed * (2 if s.accumulate else 1) + flowing


def _fsdp_tied(s: _Setup) -> tuple[float, float]:
    """A full fine-tune of a tied model under FSDP: the embedding's backward, after every layer's
    (traced: advisor.hftrace.fsdp). The tied weight is used twice (LM head and embedding), so
    autograd sums its two unsharded gradients (InputBuffer: the LM head's and the embedding's
    alive at once, in the gathered dtype, the second added into the first in place: see
    ``_tied_sum``); beside them the tail unit's unsharded weight (``_fsdp_gathers``) and the
    first layer's unsharded parameters, not yet resharded. Returns (those transients, the
    embedding's sharded gradient, not yet made)."""
    if not (s.full and s.arch.tied_embeddings):
        return 0.0, 0.0
    arch = s.arch
    stored = BF16 if (s.mixed or s.act == BF16) else FP32
    weight = arch.vocab * arch.hidden
    transients = weight * stored * (1 + 2) + arch.params_per_layer * stored  # the tail's weight, two gradients
    return transients, arch.params_embedding * s.train_bytes * s.state_share


def _fsdp_gathers(s: _Setup) -> tuple[float, float, float]:
    """Unsharded parameters FSDP2 holds, as accelerate applies it (accelerate 1.15
    ``fsdp2_prepare_model``; torch 2.13 ``torch/distributed/fsdp/_fully_shard``; traced over fake
    ranks by advisor.hftrace.fsdp): (at a layer's backward, at the end of forward and through the
    loss, beside the layers in backward).

    * Parameters are all-gathered in ``MixedPrecisionPolicy.param_dtype``: bf16 under mixed
      precision (accelerate's ``set_mixed_precision``: param_dtype = reduce_dtype = bf16), else as
      stored. QLoRA's 4-bit base, stored in bf16 to be sharded (see ``_static``), is gathered as
      its packed bytes (half a byte a weight), not traced (advisor.hftrace.fsdp refuses it).
    * Each decoder layer is its own unit with ``reshard_after_forward=True``: none is unsharded at
      the end of forward; in backward the current one and the prefetched next one
      (FSDP_UNITS_IN_FLIGHT).
    * The LM head is in the tail unit ``[final_norm, lm_head]`` (with the embedding when tied),
      ``reshard_after_forward=False``: unsharded from its forward to its post-backward, so
      through the loss; a tied one is resharded only after the embedding's backward, so it stays
      beside the layers through all of backward."""
    arch = s.arch
    stored = BF16 if (s.mixed or s.act == BF16) else FP32
    per_layer_trainable = 0 if s.full else s.trainable / arch.layers
    gathered = stored if s.full else (BF16 if s.mixed or s.act == BF16 else FP32)
    base = arch.params_per_layer * (0.25 if s.quant else 1.0)  # packed NF4: a quarter of a bf16 weight
    head = arch.vocab * arch.hidden * gathered
    layers = FSDP_UNITS_IN_FLIGHT * (base + per_layer_trainable) * gathered
    return layers, head, head if arch.tied_embeddings else 0.0


def _fsdp_unsharded_grads(s: _Setup) -> float:
    """FSDP2 with gradient accumulation on a stack that skips gradient sync on every micro-batch
    but the last (StackProfile.fsdp_no_sync: the HF Trainer through accelerate's ``no_sync``):
    the unsharded gradients of every trainable parameter, kept on each rank from the first
    micro-batch's backward until the last one reduce-scatters them (0 when the stack syncs
    every micro-batch, or without FSDP).

    torch 2.13 torch/distributed/fsdp/_fully_shard: ``set_requires_gradient_sync(False)`` sets
    every group's ``reduce_grads = False`` (_fully_shard.py); ``FSDPParamGroup.post_backward``
    then reshards the parameters and returns before ``foreach_reduce``, calling
    ``FSDPParam.to_accumulated_grad_if_needed``, which keeps ``unsharded_param.grad`` as it is
    when ``reduce_dtype`` is None or equal to the gradient's dtype (``init_dtype_attrs`` clamps a
    reduce dtype equal to ``param_dtype`` to None), else moves it to an
    ``unsharded_accumulated_grad`` upcast to ``reduce_dtype``. accelerate 1.15's bf16 policy has
    ``param_dtype = reduce_dtype = bf16`` (dataclasses.py ``set_mixed_precision``), so the kept
    gradient is bf16, the dtype the layers computed in: 2 bytes per trainable parameter (a full
    fine-tune's fp32 weights included), not divided by the ranks; without mixed precision the
    stored dtype. The next micro-batches' gradients are summed into it in place (autograd's
    ``AccumulateGrad``: ``variable_grad += new_grad``). The last micro-batch's
    ``post_backward`` hands each group's unsharded gradients to ``foreach_reduce`` and sets
    ``unsharded_param.grad = None``: the reduce-scatter runs on its own stream while backward
    goes on, so the last micro-batch frees them layer by layer as the sharded gradients appear
    (the LM head's first), and a middle micro-batch holds them all through its backward: its
    moments are the peak, with these bytes in place of the sharded gradients. A LoRA run keeps
    only the adapters' (bf16 under mixed precision) and nothing else changes. Traced over fake
    ranks: advisor.hftrace.fsdp, tests/test_hftrace_fsdp.py (accumulation rows)."""
    if not (s.shard == "fsdp" and s.prof.fsdp_no_sync and not s.in_backward):
        return 0.0
    kept = s.act if s.mixed else s.train_bytes  # MixedPrecisionPolicy.param_dtype, else as stored
    return s.trainable * kept


def _moments(s: _Setup, static: dict[str, float], a: _Acts, loss: _Loss, tr: _Transients) -> list:
    static_keys = ("weights", "quant_constants", "adapters", "master_weights", "optimizer_states")
    grads_all = static["gradients"]
    grads_fwd = (_fsdp_unsharded_grads(s) or grads_all) if s.accumulate else 0.0

    def moment(phase: Phase, **extra: float) -> tuple[float, Phase, dict[str, float]]:
        terms = {k: (static[k] if k in static_keys else 0.0) for k in TERMS}
        for k, v in extra.items():
            terms[k] += v
        return sum(terms.values()), phase, terms

    def grads(made: float) -> float:
        """Gradients alive at a backward moment where ``made`` bytes of them were produced."""
        if s.in_backward:  # each applied and freed at once: only the one being applied
            return min(made, tr.largest_grad) if made else 0.0
        return max(grads_fwd, made)

    copies_bwd = a.autocast_copies if a.copies_in_backward else 0.0
    fwd_extra = tr.gather_loss + tr.gather_last + a.autocast_copies + a.head_copy
    bwd_extra = tr.gather_loss + tr.buckets + copies_bwd + a.head_copy
    layer_extra = tr.gather + tr.gather_tail + tr.buckets + copies_bwd
    head_grad = loss.head_grad
    head_kept = head_grad if loss.head_kept is None else loss.head_kept
    extra = []
    if s.quant_head:
        # a 4-bit LM head dequantizes its weight for every chunk's matmul: in forward, with the
        # logits of the chunks before the last made; in backward, once the cross-entropy backward
        # made the chunk's logits gradient
        chunks = max(1, s.prof.loss_chunks)
        made = s.act * s.tokens * s.arch.vocab * (chunks - 1) / chunks
        extra = [
            moment("forward", gradients=grads_fwd, activations=a.saved + a.previous_step, logits_loss=made,
                   transient=fwd_extra + _head_dequant(s, forward=True)),
            moment("backward", gradients=grads(0.0), activations=a.saved, logits_loss=loss.backward,
                   transient=bwd_extra + _head_dequant(s, forward=False)),
        ]
    return extra + [
        moment("forward", gradients=grads_fwd + (head_grad if s.prof.fused_loss else 0.0),
               activations=a.saved + a.previous_step, logits_loss=loss.forward, transient=fwd_extra),
        moment("backward", gradients=grads(head_grad if s.prof.fused_loss else 0.0), activations=a.saved,
               logits_loss=loss.backward, transient=bwd_extra),
        moment("backward", gradients=grads(head_kept), activations=a.saved + a.grad_flow,
               logits_loss=loss.head_backward, transient=bwd_extra),
        moment("backward", gradients=grads_fwd, activations=a.saved, logits_loss=loss.chunked_head,
               transient=bwd_extra),
        # top layer's backward: every layer's saved activations (or checkpointed inputs) still
        # alive with the recomputed layer; the final norm's saved tensors were freed by its own
        # backward, and the LM head's gradient exists (traced: advisor.trace, tests/test_agreement)
        # unless the optimizer stepped and freed it already in backward
        moment("backward", gradients=0.0 if s.in_backward else grads(head_kept), activations=a.top_layer - a.final_norm,
               transient=layer_extra),
        # end of backward, inside the first layer: every gradient but that layer's and the
        # embedding's, that layer's activations (recomputed under checkpointing, beside the
        # checkpointed input it was recomputed from)
        moment("backward", gradients=grads(grads_all - tr.grads_late), activations=a.one_layer,
               transient=tr.gather + tr.gather_tail + tr.buckets),
        # FSDP: forward starts, the embedding's unit and the first layer unsharded (_transients)
        moment("forward", gradients=grads_fwd, transient=tr.gather_start),
        # one GPU or DDP, tied full fine-tune: the embedding's backward, every gradient made (_tied_sum)
        moment("backward", gradients=grads(grads_all), transient=tr.tied_sum + tr.buckets),
        # FSDP, tied full fine-tune: the embedding's backward, every layer's gradient made (_fsdp_tied)
        moment("backward", gradients=grads(grads_all - tr.tied_grad), activations=0.0, transient=tr.tied_backward),
        moment("optimizer", gradients=0.0 if s.in_backward else grads_all, transient=tr.optimizer + tr.buckets),
    ]


def estimate_memory(
    spec: FinetuneSpec,
    arch: Architecture,
    *,
    num_gpus: int | None = None,
    reserved_ratio: float | None = None,
    cuda_context: float | None = None,
    accumulates_gradients: bool | None = None,
    stack: StackProfile | None = None,
    previous_step: bool = True,
) -> MemoryBreakdown:
    """Peak memory per GPU of one training step of ``spec`` on ``arch``.

    ``num_gpus`` overrides ``spec.num_gpus`` (the ranking tries 1, 2, 4, 8 ...);
    ``num_gpus`` overrides ``spec.num_gpus`` (the ranking tries 1, 2, 4, 8 ...);
    ``reserved_ratio`` replaces the allocator's simulated slack by a measured reserved/allocated
    ratio (calibration from pilots); ``cuda_context`` overrides CUDA_CONTEXT_BYTES (a fold of the
    accuracy benchmark); ``accumulates_gradients`` overrides what
    ``spec.gradient_accumulation_steps`` says; ``stack`` overrides the profile of ``spec.stack``
    (a profile at older library versions: ``advisor.stacks.profile``); ``previous_step=False``:
    the peak step has no earlier step of its length whose graph the loop still holds
    (StackProfile.graph_outlives_step), as when the longest batch runs first (lit-gpt's
    finetune/lora.py at 8641822: ``get_batch(..., longest_seq_ix if iter_num == 0 else None)``).
    """
    prof = stack or for_spec(spec)
    if prof.separate_head and arch.tied_embeddings:  # litgpt keeps its own LM head (StackProfile)
        arch = arch.model_copy(update={"tied_embeddings": False})
    s = _setup(spec, arch, prof, num_gpus, accumulates_gradients)
    static, paged = _static(s)
    acts = _activations(s)
    if not previous_step:
        acts = replace(acts, previous_step=0.0)
    moments = _moments(s, static, acts, _loss(s), _transients(s))
    _, phase, terms = max(moments, key=lambda m: m[0])
    rounded = {k: int(round(v)) for k, v in terms.items()}
    allocated = sum(rounded.values())
    reserved, device, fit = device_bytes(rounded, spec, reserved_ratio=reserved_ratio, cuda_context=cuda_context,
                                         outside_allocator=paged)
    return MemoryBreakdown.model_construct(
        terms=rounded, allocated_bytes=allocated, reserved_bytes=reserved, device_bytes=device,
        peak_phase=phase, num_gpus=s.n, fit_bytes=fit,
    )
