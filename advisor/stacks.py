"""What each training stack keeps alive in memory, beyond the model itself.

The same architecture trained by different stacks peaks at different memory: most of the gap
between a plain decoder and published measurements is the stack (how the loss treats the
seq x vocab logits, what PEFT's k-bit preparation casts to fp32, what bitsandbytes saves for
backward, LoRA dropout copies, autocast weight copies, where checkpointed activations live). A
``StackProfile`` names those behaviours as switches, each read from the stack's source (file and
function cited per switch). ``advisor.model`` implements each switch in the reference decoder (so
the reference trace and pilot keep alive what that stack keeps alive), ``advisor.hftrace`` runs
the real hf stack itself, and ``advisor.memory`` mirrors each switch in closed form.

Some behaviours changed between library versions; ``profile(stack, versions)`` gives the profile
at given versions (``versions={"bitsandbytes": "0.42.0"}``: a measurement taken with an older
release), by default the current releases. Nothing here is fitted to measurements: allocator and
CUDA-context figures live in ``advisor.memory.device_bytes``, with their source.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MIB = 1024**2

BNB_GEMM_OP_IN_FORWARD = (0, 50, 0)
"""First bitsandbytes release whose MatMul4Bit forward calls the gemm_4bit op (PR #1949, commit
5453368): StackProfile.quant_forward_direct."""

BNB_STOPPED_SAVING_INPUT = (0, 43, 2)
"""bitsandbytes MatMul4Bit kept its 16-bit input ``A`` for backward (``ctx.tensors = (A, B)``)
until PR #1270 ("fix QLoRA mem bug: delete useless buffered activation", commit 9e75374, July
2024), first released in 0.43.2; since then ``ctx.tensors = (None, B)``."""


@dataclass(frozen=True)
class StackProfile:
    name: str
    # --- behaviours: implemented by advisor.model, mirrored by advisor.memory -------------------
    loss_upcast_fp32: bool
    """logits.float() before cross-entropy: an fp32 copy of the seq x vocab logits (transformers
    loss/loss_utils.py ForCausalLMLoss; torchtune LinearCrossEntropyLoss.compute_cross_entropy)."""
    loss_chunks: int
    """Cross-entropy computed over this many chunks of the sequence, so only one chunk of fp32
    logits is alive at a time (torchtune LinearCrossEntropyLoss num_output_chunks=8; litgpt
    chunked_cross_entropy over lm_head_chunk_size=128, here as 16 chunks of a 2048 sequence).
    1 = the whole sequence at once."""
    loss_keeps_logits: bool
    """The 16-bit logits of every chunk stay alive until the loss is done: litgpt's model returns
    the list of lm_head chunks (finetune/lora.py ``model(input_ids, lm_head_chunk_size=128)``)
    and transformers its whole logits; torchtune's LinearCrossEntropyLoss projects each chunk
    inside ``compute_cross_entropy`` and drops it once its fp32 copy is made."""
    kbit_prep_fp32: bool
    """PEFT prepare_model_for_kbit_training casts every non-quantized parameter (embeddings,
    norms, LM head) to fp32 under QLoRA (peft/utils/other.py: ``param.data.to(torch.float32)``)."""
    keep_quant_input: bool
    """bitsandbytes MatMul4Bit keeps its 16-bit input for backward (bitsandbytes before 0.43.2,
    see BNB_STOPPED_SAVING_INPUT); torchtune's NF4 linear (torchao linear_nf4) saves only the
    weight."""
    lora_dropout_copy: bool
    """PEFT LoRA applies nn.Dropout to the adapter input: with p > 0 a new tensor (and its mask)
    per adapted linear is saved for backward."""
    lora_cast_input: bool
    """PEFT lora.Linear casts the adapter input to the adapters' dtype (``_cast_input_dtype``)
    even under autocast: a 16-bit input becomes an fp32 copy that autocast casts back to 16 bit
    for A's matmul. PEFT's bitsandbytes layer (peft/tuners/lora/bnb.py Linear4bit.forward) casts
    only when autocast is off (``requires_conversion = not torch.is_autocast_enabled()``).
    litgpt and torchtune call A on the input as is."""
    autocast_weight_cache: bool
    """torch.autocast caches the 16-bit copy of each fp32 trainable weight for the whole forward
    region (autocast_mode.cpp cached_cast: a leaf that requires grad): an extra 16-bit copy of the
    trainable weights (a full fine-tune's, or fp32 LoRA adapters') while the forward runs."""
    adapters_fp32: bool = True
    """LoRA A/B kept in fp32 even when the model is 16-bit (PEFT autocast_adapter_dtype=True, the
    default since PEFT 0.12). litgpt (bf16-true converts the whole model) and torchtune (LoRA
    recipes in bf16) keep adapters in the model dtype."""
    quant_out_follows_input: bool = False
    """bitsandbytes Linear4bit.forward returns ``matmul_4bit(x.to(compute_dtype), ...).to(inp_dtype)``
    (bitsandbytes/nn/modules.py): with an fp32 input (PEFT's k-bit preparation makes norms and
    embeddings fp32) every 4-bit linear's output is fp32 too."""
    input_grads_with_checkpointing: bool = False
    """transformers enables input gradients when gradient checkpointing is turned on
    (modeling_utils ``_activation_checkpointing_enable`` calls ``enable_input_require_grads``),
    so even the first layer of a frozen-embedding model saves what needs its input's gradient."""
    offload_checkpoints: bool = False
    """Unsloth's gradient checkpointing (use_gradient_checkpointing="unsloth") moves each
    checkpointed layer input to CPU memory in forward and back for its recompute
    (unsloth_zoo gradient_checkpointing.py Unsloth_Offloaded_Gradient_Checkpointer): on the GPU
    only the layers in flight keep their input."""
    graph_outlives_step: bool = False
    """The training loop keeps the previous step's autograd graph referenced through the next
    forward: litgpt's ``fit`` (litgpt/finetune/lora.py at 5895df1, the config hub's measured
    commit, and later) rebinds ``logits = model(input_ids, lm_head_chunk_size=128)`` only when the
    next forward returns, and those logits' ``grad_fn`` holds the graph. Backward released every
    ``save_for_backward`` tensor; what a node keeps as a plain ``ctx`` attribute stays: the
    16-bit inputs of bitsandbytes' 4-bit matmuls before 0.43.2 (``keep_quant_input``), alive
    beside the next forward's activations. (The 16-bit logits list itself is alive then too;
    not modelled: one traced step cannot show it, see advisor.memory ``_previous_step``.)"""
    separate_head: bool = False
    """The LM head is its own weight even when the checkpoint ties it to the embedding: litgpt's
    ``GPT`` builds ``lm_head`` beside ``transformer.wte`` and only ``pretrain.py`` ties them
    (``train.tie_embeddings``); ``convert_hf_checkpoint`` copies ``wte`` into ``lm_head.weight``
    when a tied checkpoint has none (litgpt/scripts/convert_hf_checkpoint.py at 5895df1)."""
    quant_head: bool = False
    """Under QLoRA the LM head is 4-bit too: Lightning's ``BitsandbytesPrecision.module_init_context``
    (lightning/fabric/plugins/precision/bitsandbytes.py, lightning 2.3.0.dev20240328 as litgpt
    pinned it at 5895df1, and 2.4) swaps ``torch.nn.Linear`` for its 4-bit class while litgpt builds
    the model under ``fabric.init_module``, and litgpt's ``lm_head`` is a ``LoRALinear`` around a
    ``torch.nn.Linear`` (litgpt/lora.py). transformers' bitsandbytes quantizer keeps ``lm_head``
    in 16 bit (``modules_to_not_convert``); torchtune's recipes quantize only the blocks."""
    quant_dequant_fp16: bool = False
    """The 4-bit weights were quantized from fp16, so dequantizing makes an fp16 copy that the
    matmul casts to the compute dtype with both alive: Lightning's ``_Linear4bit.quantize`` runs
    ``weight.contiguous().to(device=device, dtype=torch.half)`` before
    ``bnb.functional.quantize_4bit``, which records ``quant_state.dtype`` = fp16;
    ``dequantize_4bit`` allocates ``torch.empty(quant_state.shape, dtype=quant_state.dtype)``
    and ``MatMul4Bit`` runs ``F.dequantize_4bit(B, quant_state).to(A.dtype)`` in backward, and in
    forward too before bitsandbytes 0.50.0 (``quant_forward_direct``) (bitsandbytes 0.42.0 and 0.50
    autograd/_functions.py, functional.py). Modelled at the LM head, the one weight large enough
    to move the peak (a block weight is 1/5 to 1/18 of it in the published rows)."""
    quant_forward_direct: bool = True
    """bitsandbytes 0.50.0 and later: ``MatMul4Bit.forward`` calls the ``gemm_4bit`` op, whose CUDA
    fallback dequantizes straight into the input's dtype (backends/cuda/ops.py
    ``_dequant_linear_fallback``: ``dequantize_4bit(..., A.dtype)``), so a weight quantized from
    fp16 is cast in backward only; before (PR #1949, commit 5453368, May 2026) forward ran
    ``F.dequantize_4bit(B, quant_state).to(A.dtype)`` as backward does (BNB_GEMM_OP_IN_FORWARD)."""
    fsdp_no_sync: bool = False
    """Under FSDP with gradient accumulation, every micro-batch but the last runs without
    gradient sync, so each rank keeps the *unsharded* gradients of the whole model (in the
    gathered dtype) from the first micro-batch's backward to the last one's reduce-scatter,
    instead of a shard of them (advisor.memory ``_fsdp_unsharded_grads``).

    * hf (and unsloth, which trains through transformers' Trainer): transformers 5.24
      trainer.py ``_inner_training_loop`` runs micro-batch ``i`` under
      ``functools.partial(self.accelerator.no_sync, model=model)`` unless it is the last one
      (``sync_each_batch`` off by default; DeepSpeed excepted); accelerate 1.15
      ``Accelerator.no_sync`` calls ``model.set_requires_gradient_sync(False)`` on an FSDP2
      model (accelerator.py, ``if self.is_fsdp2``). Traced: advisor.hftrace.fsdp.
    * litgpt: ``with fabric.no_backward_sync(model, enabled=is_accumulating)`` around each
      backward (litgpt/finetune/full.py, lora.py at 2685705); Lightning's (at 7f0c343)
      FSDPStrategy (full) enters FSDP1's ``module.no_sync()`` (fabric/strategies/fsdp.py
      ``_FSDPBackwardSyncControl``), its ModelParallelStrategy (LoRA, FSDP2) calls
      ``set_requires_gradient_sync(False)`` per module (model_parallel.py
      ``_ParallelBackwardSyncControl``): both keep unsharded gradients.
    * torchtune: no (False): full_finetune_distributed.py and lora_finetune_distributed.py (at
      bd2a0fc) call ``current_loss.backward()`` on every micro-batch with FSDP2's default
      ``reduce_grads=True``: each backward reduce-scatters, the sharded gradients accumulate.
    * DeepSpeed ZeRO-2/3 is not FSDP: the Trainer syncs every micro-batch under DeepSpeed, and
      ZeRO accumulates into a partitioned buffer (stage_1_and_2.py ``copy_grads_in_partition``:
      ``grads_in_partition`` in the model dtype; stage3.py ``grad_partitions_flat_buffer`` in
      ``gradient_accumulation_dtype``, the model dtype unless ``data_types.grad_accum_dtype``:
      engine.py ``get_data_types``; DeepSpeed at edaa722), one rank's share as without
      accumulation."""
    fused_loss: str = ""
    """"" (logits materialised), "unsloth" (unsloth_zoo fused_losses/cross_entropy_loss.py
    UnslothFusedLoss: chunks of at most UNSLOTH_LOSS_TARGET_BYTES of fp32 logits, the input
    gradient computed in forward) or "liger" (liger_kernel fused_linear_cross_entropy)."""


PROFILES: dict[str, StackProfile] = {
    "hf": StackProfile(
        name="hf", loss_keeps_logits=True, loss_upcast_fp32=True, loss_chunks=1, kbit_prep_fp32=True,
        keep_quant_input=False, lora_dropout_copy=True, lora_cast_input=True, autocast_weight_cache=True,
        quant_out_follows_input=True, input_grads_with_checkpointing=True, fsdp_no_sync=True,
    ),
    "torchtune": StackProfile(
        name="torchtune", loss_keeps_logits=False, loss_upcast_fp32=True, loss_chunks=8, kbit_prep_fp32=False,
        keep_quant_input=False, lora_dropout_copy=True, lora_cast_input=False, autocast_weight_cache=False,
        adapters_fp32=False,
    ),
    "litgpt": StackProfile(
        name="litgpt", loss_keeps_logits=True, loss_upcast_fp32=True, loss_chunks=16, kbit_prep_fp32=False,
        keep_quant_input=False, lora_dropout_copy=True, lora_cast_input=False, autocast_weight_cache=False,
        adapters_fp32=False, quant_out_follows_input=True, graph_outlives_step=True, separate_head=True,
        quant_head=True, quant_dequant_fp16=True, fsdp_no_sync=True,
    ),
    "unsloth": StackProfile(
        name="unsloth", loss_keeps_logits=True, loss_upcast_fp32=True, loss_chunks=1, kbit_prep_fp32=False,
        keep_quant_input=False, lora_dropout_copy=True, lora_cast_input=True, autocast_weight_cache=True,
        quant_out_follows_input=True, input_grads_with_checkpointing=True,
        offload_checkpoints=True, fused_loss="unsloth", fsdp_no_sync=True,
    ),
    "reference": StackProfile(
        name="reference", loss_keeps_logits=True, loss_upcast_fp32=False, loss_chunks=1, kbit_prep_fp32=False,
        keep_quant_input=False, lora_dropout_copy=False, lora_cast_input=False, autocast_weight_cache=False,
    ),
}


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def profile(stack: str, versions: dict[str, str] | None = None) -> StackProfile:
    """The profile of ``stack`` at the given library ``versions`` (default: current releases)."""
    prof = PROFILES[stack]
    bnb = (versions or {}).get("bitsandbytes")
    if bnb and stack != "torchtune" and _version(bnb) < BNB_STOPPED_SAVING_INPUT:
        prof = replace(prof, keep_quant_input=True)
    if bnb and _version(bnb) < BNB_GEMM_OP_IN_FORWARD:
        prof = replace(prof, quant_forward_direct=False)
    return prof


def for_spec(spec) -> StackProfile:
    """The spec's stack profile, with the options the spec turns on (Liger's fused linear
    cross-entropy on the hf stack: ``spec.liger_kernel``)."""
    prof = PROFILES[spec.stack]
    if getattr(spec, "liger_kernel", False):
        prof = replace(prof, fused_loss="liger")
    return prof


def unread_behaviours(spec) -> list[str]:
    """Codes of behaviours the spec depends on that the stack decides at run time (not readable
    from its source): the answer says what was assumed (advisor.i18n notes.stack.<code>)."""
    codes = []
    if spec.stack == "unsloth":
        codes.append("unsloth_loss_chunks")
    if spec.sharding in ("zero2", "zero3") and spec.num_gpus > 1:
        codes.append("zero_buckets")
    if getattr(spec, "liger_kernel", False):
        codes.append("liger_trl")
    return codes
