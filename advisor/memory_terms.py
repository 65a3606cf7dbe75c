"""Closed-form memory terms of one fine-tuning step: pure functions of a few named numbers.

``advisor.memory`` composes these into the per-phase totals of a ``MemoryBreakdown``. Every
function returns bytes; every constant names the measurement, paper or source file it comes from.
Sizes of saved activations are written per token of one layer ("which tensors does autograd keep
for backward"), so the same list serves with and without gradient checkpointing.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.arch import Architecture

# --- dtypes -------------------------------------------------------------------------------------
FP32 = 4
BF16 = 2
BOOL = 1  # torch.bool dropout masks are one byte per element (native_dropout returns a bool mask)

# --- quantization (bitsandbytes; QLoRA paper, Dettmers et al. 2023, section 2 and appendix) -----
NF4_BYTES_PER_PARAM = 0.5  # 4-bit NormalFloat data: two values per byte
NF4_BLOCK = 64  # bnb_4bit blocksize: one absmax per 64 weights
ABSMAX_FP32_BYTES = 4  # first-level absmax in fp32: 32/64 = 0.5 bit per parameter
DQ_ABSMAX_BYTES = 1  # double quantization: absmax stored in 8 bit ...
DQ_SECOND_BLOCK = 256  # ... with one fp32 second-level constant per 256 absmax values:
# 8/64 + 32/(64*256) = 0.127 bit per parameter (QLoRA paper, "Double Quantization")
INT8_BYTES_PER_PARAM = 1  # LLM.int8 (bnb Linear8bitLt): int8 data ...
INT8_ROW_SCALE_BYTES = 4  # ... plus one fp32 scale (SCB) per output row

# --- optimizers ---------------------------------------------------------------------------------
ADAM_STATES = 2  # exp_avg and exp_avg_sq (torch.optim.AdamW)
BNB_8BIT_STATE_BYTES = 1  # bitsandbytes AdamW8bit: each state 1 byte per parameter ...
BNB_8BIT_BLOCK = 2048  # ... blockwise quantized, one fp32 absmax per 2048 values
# (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", blocksize 2048)
BNB_MIN_8BIT_SIZE = 4096  # bnb keeps 32-bit states for tensors with fewer elements (min_8bit_size)

# --- attention ----------------------------------------------------------------------------------
LSE_BYTES = FP32  # flash/SDPA saves one fp32 logsumexp per head per token for backward
EAGER_SCORE_BYTES = FP32 + BF16  # eager attention (transformers eager_attention_forward): the
# softmax is computed in fp32 and its output saved, then cast to 16 bit and saved by the P @ V
# matmul: 6 bytes per score, seq^2 scores per head per sequence.

# --- loss ---------------------------------------------------------------------------------------
LOSS_BWD_COPIES = 3  # cross-entropy backward over seq x vocab keeps alive at once: the saved
# log-softmax output, the gradient nll_loss_backward writes, and log_softmax_backward's result
# (PyTorch aten LogSoftmax/NLLLoss backward; seen as "several fp32 copies" in HF traces).

# --- gradient checkpointing ---------------------------------------------------------------------
GRAD_FLOW_COPIES = 2  # during backward the gradient of the residual stream and of the current
# sub-block input are alive at once (two hidden-sized tensors per token).


@dataclass(frozen=True)
class LayerCtx:
    """What decides which tensors one decoder layer keeps for backward."""

    act: int  # bytes of the compute dtype (2 for any 16-bit compute, 4 for fp32)
    residual: int  # bytes of the residual stream (fp32 when the embeddings are fp32: mixed
    # precision over fp32 weights, or PEFT's k-bit preparation)
    norm_out: int  # bytes of a norm's output: promote(norm weight dtype, residual dtype)
    mixed: bool  # autocast: activations are cast to the compute dtype per matmul
    base_trainable: bool  # full fine-tune: every weight needs its input saved
    adapted: frozenset[str]  # linears with a LoRA adapter
    adapter_bytes: int  # dtype of the LoRA A/B weights
    lora_rank: int
    dropout_copy: bool  # LoRA dropout p > 0 and the stack keeps its output and mask
    cast_input: bool  # the adapter input is cast to the adapters' dtype under autocast too
    quant: bool  # frozen base weights are quantized (bitsandbytes-style linears)
    quant_saves_input: bool  # the quantized matmul saves its 16-bit input for backward
    flash: bool
    seq_len: int
    input_grad: bool = True  # the layer's input requires grad (False: the first layer of a
    # frozen-embedding model, LoRA/QLoRA without enable_input_require_grads)
    recomputed: bool = False  # gradient checkpointing: the MLP forward reruns inside backward
    quant_out_follows_input: bool = False  # a quantized linear returns its input's dtype
    # (bitsandbytes Linear4bit: ``.to(inp_dtype)``), not the compute dtype
    first_layer_input_grad: bool = False  # the first layer's input requires grad even with a
    # frozen embedding (transformers' enable_input_require_grads under checkpointing)
    liger: bool = False  # Liger's RMSNorm, SwiGLU and RoPE kernels (advisor.hftrace.liger): a
    # norm saves its input itself and an fp32 rstd per row (ops/rms_norm.py LigerRMSNormFunction:
    # save_for_backward(X, W, RSTD)) and returns its input's dtype; the gated MLP saves gate and
    # up only (ops/swiglu.py LigerSiLUMulFunction: save_for_backward(a, b)) and its backward
    # writes their gradients into them; RoPE rotates q and k in place (ops/rope.py)

    def linear_out(self, x_bytes: int) -> int:
        """Bytes of a block linear's output for an input of ``x_bytes``: its base result's dtype
        (an adapted linear returns it too: PEFT casts the sum back, lora/layer.py
        ``result.to(torch_result_dtype)``, and its bitsandbytes layer adds a 16-bit branch to the
        result under autocast, which keeps the wider result dtype)."""
        return x_bytes if (self.quant and self.quant_out_follows_input) else self.act


def adapted_linears(arch: Architecture, targets: str) -> frozenset[str]:
    """Linear names that get LoRA: every block linear (PEFT 'all-linear') or the attention ones."""
    names = arch.linear_shapes()
    if targets == "attention":
        return frozenset(n for n in names if n in ("q_proj", "k_proj", "v_proj", "o_proj"))
    return frozenset(names)


def lora_params(arch: Architecture, targets: str, rank: int) -> int:
    """LoRA A (in x r) and B (r x out) for each adapted linear of every layer (and every expert)."""
    shapes = arch.linear_shapes()
    per_layer = 0
    for name in adapted_linears(arch, targets):
        d_in, d_out = shapes[name]
        copies = arch.n_experts_stored if name in ("gate_proj", "up_proj", "down_proj") else 1
        per_layer += copies * rank * (d_in + d_out)
    return arch.layers * per_layer


def nf4_bytes(params: int, double_quant: bool) -> tuple[int, int]:
    """(data, constants) bytes of NF4 weights."""
    data = params * NF4_BYTES_PER_PARAM
    blocks = params / NF4_BLOCK
    if double_quant:
        constants = blocks * DQ_ABSMAX_BYTES + blocks / DQ_SECOND_BLOCK * ABSMAX_FP32_BYTES
    else:
        constants = blocks * ABSMAX_FP32_BYTES
    return round(data), round(constants)


def int8_bytes(arch: Architecture) -> tuple[int, int]:
    """(data, constants) bytes of LLM.int8 weights: int8 data and an fp32 scale per output row."""
    rows = sum(out for _, out in arch.linear_shapes().values()) * arch.n_experts_stored
    return arch.params_linear * INT8_BYTES_PER_PARAM, arch.layers * rows * INT8_ROW_SCALE_BYTES


def adam_state_bytes(params: int, state_bytes: int) -> int:
    return params * ADAM_STATES * state_bytes


def adam8bit_state_bytes(params: int, small_params: int) -> int:
    """bnb 8-bit AdamW: 2 x 1 byte per parameter + blockwise fp32 absmax; tensors under
    BNB_MIN_8BIT_SIZE elements (norms of small models) keep 2 x fp32 states."""
    big = params - small_params
    absmax = 2 * (big / BNB_8BIT_BLOCK) * ABSMAX_FP32_BYTES
    return round(big * ADAM_STATES * BNB_8BIT_STATE_BYTES + absmax + small_params * ADAM_STATES * FP32)


def lora_small_params(arch: Architecture, targets: str, rank: int) -> int:
    """LoRA A/B parameters in tensors under BNB_MIN_8BIT_SIZE elements (bnb keeps fp32 states
    for them): only at toy shapes (rank 16 x hidden 4096 is 65536 elements)."""
    shapes = arch.linear_shapes()
    small = 0
    for name in adapted_linears(arch, targets):
        copies = arch.n_experts_stored if name in ("gate_proj", "up_proj", "down_proj") else 1
        for numel in (rank * shapes[name][0], rank * shapes[name][1]):
            if numel < BNB_MIN_8BIT_SIZE:
                small += copies * numel
    return arch.layers * small


def small_tensor_params(arch: Architecture) -> int:
    """Parameters in tensors with fewer than BNB_MIN_8BIT_SIZE elements (norm weights, biases)."""
    if arch.hidden >= BNB_MIN_8BIT_SIZE:
        return 0
    return arch.layers * arch.norm_params_per_layer + arch.params_final_norm


def _linear_input_bytes(c: LayerCtx, x_bytes: int, consumers: list[tuple[str, int]],
                        counted: bool = False) -> float:
    """Bytes per token saved because of the linears reading one input tensor of ``x_bytes``.

    A dense linear saves its input when its weight trains (under autocast the input is first cast
    to the compute dtype, one copy per linear); a quantized linear casts to the compute dtype and
    saves that copy when the stack keeps it (bitsandbytes MatMul4Bit); a cast to the dtype the
    tensor already has is the tensor itself (shared, not copied). A LoRA adapter reads the
    input through its own dropout (new tensor + bool mask when p > 0; the dropout output is freed
    when autocast casts it again for A) and saves what enters A: the cast copy (autocast), a copy
    in the adapters' dtype (PEFT), or the tensor itself. ``counted``: the input tensor is already saved by another op (not counted again).
    """
    a = c.act
    shared = 0.0  # the input tensor itself, saved once however many ops keep it
    own = 0.0
    for name, d_in in consumers:
        if c.input_grad and (c.base_trainable or (c.quant and c.quant_saves_input)):
            if (c.quant or c.mixed) and x_bytes != a:
                own += a * d_in  # x.to(compute dtype): a new tensor per linear
            else:  # already in the compute dtype: .to() returns the tensor itself
                shared = x_bytes * d_in
        if name in c.adapted:
            # PEFT casts the input to the adapters' dtype (lora.Linear._cast_input_dtype) unless
            # autocast runs the adapters and the stack does not cast (cast_input: StackProfile)
            xa_bytes = c.adapter_bytes if (c.cast_input or not c.mixed) else x_bytes
            into_a = a if c.mixed else c.adapter_bytes  # autocast casts again for A's matmul
            if c.dropout_copy:
                if c.input_grad:
                    own += BOOL * d_in  # native_dropout's mask, saved for its backward
                # A saves what enters its matmul: the dropout output itself, or autocast's copy
                own += (xa_bytes if into_a == xa_bytes else into_a) * d_in
            elif into_a != x_bytes or xa_bytes != x_bytes:
                own += into_a * d_in  # a cast copy (adapters' dtype or autocast's), saved by A
            else:
                shared = x_bytes * d_in
            own += into_a * c.lora_rank  # A's output, saved by B
    return own + (0.0 if counted else shared)


def layer_saved_bytes_per_token(arch: Architecture, c: LayerCtx) -> float:
    """Bytes autograd keeps per token for the backward of one decoder layer (no checkpointing).

    Walks the block as transformers' LlamaDecoderLayer (and advisor.model.decoder.Block) runs
    it: RMSNorm (input upcast to fp32 and saved; the normalized value saved when the norm weight
    trains), q/k/v, RoPE (rotated q and k saved by attention), SDPA (q, k, v, output and an fp32
    logsumexp per head) or eager attention (the seq x seq probabilities), o_proj, second norm,
    gated MLP (gate, act(gate) and up saved by the product; the product saved by down_proj).
    Linear inputs: see ``_linear_input_bytes``.
    """
    h, q, kv, inter = arch.hidden, arch.q_dim, arch.kv_dim, arch.intermediate
    a = c.act
    k_experts = arch.experts_per_token if arch.experts else 1

    total = 0.0
    for _ in range(2):  # two norms: fp32 input (x.to(fp32), saved by pow and mul), rsqrt per token
        total += norm_saved_per_token(arch, c)
    total += _linear_input_bytes(c, c.norm_out, [("q_proj", h), ("k_proj", h), ("v_proj", h)])
    # attention: rotated q and k, v, output (also o_proj's input), then logsumexp or probabilities
    total += a * (q + 2 * kv) + a * q
    if c.flash:
        total += LSE_BYTES * arch.heads
    else:
        groups = arch.heads // arch.kv_heads
        if groups > 1:  # repeat_kv materializes k and v for every head
            total += 2 * a * q
        total += EAGER_SCORE_BYTES * arch.heads * c.seq_len
    total += _linear_input_bytes(c, a, [("o_proj", q)], counted=True)  # input = attention output
    total += mlp_saved_bytes_per_token(arch, c)
    if arch.experts:
        total += FP32 * arch.experts  # router probabilities (softmax in fp32)
    return total


def norm_saved_per_token(arch: Architecture, c: LayerCtx) -> float:
    """What one RMSNorm saves for backward, per token. transformers' LlamaRMSNorm: the fp32 input
    (``hidden_states.to(torch.float32)``, saved by pow and mul) and the rsqrt, and for a trainable
    weight the normalized value. Liger's (``c.liger``): its input itself and one fp32 rstd
    (liger_kernel 0.8.5 ops/rms_norm.py ``LigerRMSNormFunction.forward``: ``save_for_backward(X,
    W, RSTD)``, RSTD fp32 in the "llama" casting mode), whether the weight trains or not."""
    if c.liger:
        return c.residual * arch.hidden + FP32
    return FP32 * arch.hidden + FP32 + (c.residual * arch.hidden if c.base_trainable else 0)


def mlp_saved_bytes_per_token(arch: Architecture, c: LayerCtx) -> float:
    """What the MLP (every routed expert) of one layer saves for backward, per token."""
    h, inter = arch.hidden, arch.intermediate
    m = c.linear_out(c.norm_out)  # gate/up outputs, act(gate) and the product share this dtype
    k_experts = arch.experts_per_token if arch.experts else 1
    mlp_in = [("gate_proj", h), ("up_proj", h)] if arch.mlp_kind == "gated" else [("up_proj", h)]
    mlp = _linear_input_bytes(c, c.norm_out, mlp_in)
    # gate, act(gate), up | up; Liger's SiLUMul saves gate and up only (ops/swiglu.py)
    mlp += (1 if arch.mlp_kind != "gated" else (2 if c.liger else 3)) * m * inter
    mlp += _linear_input_bytes(c, m, [("down_proj", inter)])
    return mlp * k_experts


def first_layer_unsaved_per_token(arch: Architecture, c: LayerCtx) -> float:
    """Bytes per token the first layer does not save when its input does not require grad.

    Under LoRA/QLoRA the embedding is frozen, so the first layer's input needs no gradient
    (neither transformers nor our decoder call enable_input_require_grads here): autograd saves
    nothing for the input norm (its weight is frozen too), the quantized q/k/v matmuls are not
    recorded (bitsandbytes MatMul4Bit keeps its input only for the input's gradient), and LoRA
    dropout on that input keeps no mask. What A saves for its own weight's gradient stays.
    Traced: qlora hf bf16 without checkpointing keeps 9 of 12 masks and 7 of 10 copies
    (tests/test_agreement.py)."""
    if c.base_trainable:
        return 0.0
    from dataclasses import replace

    h = arch.hidden
    qkv = [("q_proj", h), ("k_proj", h), ("v_proj", h)]
    saved = _linear_input_bytes(c, c.norm_out, qkv)
    frozen_in = _linear_input_bytes(replace(c, input_grad=False), c.norm_out, qkv)
    return norm_saved_per_token(arch, c) + saved - frozen_in  # the input norm's saved tensors


def quant_held_inputs_per_token(arch: Architecture, c: LayerCtx, first_layer: bool = False) -> float:
    """Bytes per token of the distinct inputs one layer's quantized matmuls keep on their autograd
    node when the quantized matmul stores them as a plain attribute (bitsandbytes before 0.43.2,
    ``autograd/_functions.py`` MatMul4Bit.forward: ``ctx.tensors = (A, B)`` when any input needs a
    gradient, A being ``x.to(compute_dtype)``: the tensor itself when it already has that dtype,
    else a copy per linear). ``backward`` never releases such an attribute (only
    ``save_for_backward`` tensors are released), so these live as long as the graph does.
    ``first_layer``: the first layer of a frozen-embedding model, whose q/k/v input needs no
    gradient (``ctx.tensors = (None, None)``)."""
    a = c.act
    h, q, inter = arch.hidden, arch.q_dim, arch.intermediate

    def held(x_bytes: int, d_in: int, readers: int) -> float:
        return a * d_in * readers if x_bytes != a else x_bytes * d_in

    qkv = 0.0 if (first_layer and not c.first_layer_input_grad) else held(c.norm_out, h, 3)
    m = c.linear_out(c.norm_out)
    mlp = held(c.norm_out, h, 2 if arch.mlp_kind == "gated" else 1) + held(m, inter, 1)
    k_experts = arch.experts_per_token if arch.experts else 1
    return qkv + held(a, q, 1) + mlp * k_experts


MLP_BWD_GRADS = 3
"""Gradients alive at once in the gated MLP's backward: the product's gradient (the input of
MulBackward) and the two it makes, for act(gate) and for up (autograd frees a node's incoming
gradient only after the node has returned all of its outputs)."""


def layer_peak_extra_per_token(arch: Architecture, c: LayerCtx) -> float:
    """Short-lived tensors at the busiest moment inside a layer's backward, beyond the bytes the
    layer saves: in the gated MLP's MulBackward, MLP_BWD_GRADS intermediate-sized gradients
    (two, in and out of the activation, for a plain MLP), by when down_proj's backward has
    freed what it saved (its input, its adapter's tensors); or a LoRA (re)compute moment."""
    k_experts = arch.experts_per_token if arch.experts else 1
    grads = MLP_BWD_GRADS if arch.mlp_kind == "gated" else 2
    if c.liger and arch.mlp_kind == "gated":  # Liger's SiLUMul backward writes into gate and up
        grads = 1  # (ops/swiglu.py swiglu_backward): only the product's gradient is new
    m = c.linear_out(c.norm_out)
    down_saved = _linear_input_bytes(c, m, [("down_proj", arch.intermediate)])
    bwd = grads * m * arch.intermediate - down_saved
    return max(bwd, lora_forward_transient_per_token(arch, c)) * k_experts


def lora_forward_transient_per_token(arch: Architecture, c: LayerCtx) -> float:
    """The busiest moment of a (re)computed layer's MLP forward with adapters, beyond the bytes
    the layer saves (``layer_saved_bytes_per_token``); the larger of two moments:

    * inside up_proj's LoRA (PEFT lora.Linear.forward, ``result + B(A(x)) * scaling``) the base
      output, B's output, the scaled copy and the sum are alive at once, in the adapters' dtype
      outside autocast (fp32 adapters on a bf16 model: 4 bytes each), before up_proj's own
      output and the gated product exist (the product is in the saved bytes only when an op
      keeps it for backward; otherwise it is not subtracted here);
    * inside down_proj's LoRA with dropout: the product cast to the adapters' dtype
      (PEFT ``_cast_input_dtype``) and the dropout output of that copy are alive together, before
      A's input copy and output (counted in the saved bytes) exist.

    Both happen while the MLP's input (the post-attention norm's output) is alive as the
    argument of the MLP's forward, even when no op saves it (QLoRA copies it per linear).
    Traced: qlora hf bf16-mixed with checkpointing peaks at the second moment
    (tests/test_agreement.py)."""
    if "up_proj" not in c.adapted and "down_proj" not in c.adapted:
        return 0.0
    inter, h = arch.intermediate, arch.hidden
    a = c.linear_out(c.norm_out)  # the MLP's intermediates (gate/up outputs, the product)
    base_out = c.norm_out if (c.quant and c.quant_out_follows_input) else c.act  # up's base result
    mlp_in = [("gate_proj", h), ("up_proj", h)] if arch.mlp_kind == "gated" else [("up_proj", h)]
    in_saved = _linear_input_bytes(c, c.norm_out, mlp_in) - _linear_input_bytes(c, c.norm_out, mlp_in, counted=True)
    mlp_input = 0.0 if in_saved else c.norm_out * h  # alive as the MLP's argument, unsaved
    # the residual after attention is alive for the block's last add; with an fp32 stream it is
    # the post-attention norm's saved fp32 input itself, else a tensor of its own
    mid_residual = c.residual * h if (c.residual != FP32 and not c.liger) else 0.0  # Liger's norm saves it
    down_in = [("down_proj", inter)]
    product_saved = _linear_input_bytes(c, a, down_in) > _linear_input_bytes(c, a, down_in, counted=True)
    product = 0.0 if product_saved else a * inter  # alive, but in the saved bytes only when kept
    moments = [0.0]
    if "up_proj" in c.adapted:
        into = c.act if c.mixed else c.adapter_bytes
        during = base_out + 2 * into + max(base_out, into)  # base result, B(A(x)), * scaling, the sum
        later = a * inter + (0.0 if product else a * inter)  # up's output and the saved product: not made yet
        # down_proj's adapter tensors (dropout mask and output, cast copies, A's output) are not
        # made yet either (the product itself is in ``later``)
        down_own = _linear_input_bytes(c, a, [("down_proj", inter)], counted=True) if "down_proj" in c.adapted else 0.0
        moments.append(during * inter - later - down_own + mlp_input + mid_residual)
    if "down_proj" in c.adapted and c.dropout_copy:
        xa = c.adapter_bytes if (c.cast_input or not c.mixed) else a
        into_a = c.act if c.mixed else c.adapter_bytes
        cast = xa * inter if xa != a else 0.0  # the product cast to the adapters' dtype
        # at A's matmul: the cast copy (PEFT keeps it as its local ``x``), the dropout output
        # and the 16-bit copy A saves (in the saved bytes, as the mask is; the dropout output is
        # too when A reads it as it is); A's own output is not made yet
        d_out = xa * inter if into_a != xa else 0.0
        a_out = into_a * c.lora_rank
        moments.append(cast + d_out - a_out + mlp_input + mid_residual + product)
    grads = recompute_grad_extra_per_token(arch, c) if len(moments) > 1 else 0.0
    return max(moments) + grads


def recompute_grad_extra_per_token(arch: Architecture, c: LayerCtx) -> float:
    """Gradient bytes per token alive while a checkpointed layer is recomputed, beyond
    GRAD_FLOW_COPIES residual-sized ones (0 without checkpointing: the LoRA moments then happen in
    forward, and the flat ``grad_flow`` stands).

    torch.utils.checkpoint (use_reentrant=False) recomputes the layer when backward first needs
    one of its saved tensors: in down_proj's backward, after the autograd nodes that need none
    have run. PEFT's adapted down_proj returns ``(base(x) + B(A(x)) * scaling).to(base dtype)``, so
    alive then are the residual stream's gradient, the base output's gradient (in the compute
    dtype: a new tensor unless it is the residual gradient itself) and the scaled branch's
    gradient (``mul`` makes a new one, in the dtype of B's output). Traced: qlora hf bf16 with
    checkpointing keeps an fp32 residual gradient, a 16-bit base gradient and an fp32 B-branch
    gradient through the recomputed MLP (tests/test_agreement.py)."""
    if not c.recomputed or "down_proj" not in c.adapted:
        return 0.0
    h = arch.hidden
    # down_proj's base result: the product's dtype (a quantized linear returns its input's) or
    # the compute dtype
    a = c.linear_out(c.norm_out) if (c.quant and c.quant_out_follows_input) else c.act
    into = c.act if c.mixed else c.adapter_bytes  # B's output: autocast's dtype or the adapters'
    summed = max(a, into)  # base output + scaled branch, promoted
    base = 0 if (c.residual == a and summed == a) else a
    return (c.residual + base + into - GRAD_FLOW_COPIES * c.residual) * h


def eager_transient_bytes(arch: Architecture, c: LayerCtx, seqs: int) -> float:
    """Eager attention's busiest moment beyond the saved scores, less the MLP's saved tensors
    (not made yet in forward, freed already in backward), so it adds to a layer's peak only
    when it outgrows the MLP's moments.

    Forward (transformers eager_attention_forward): the masked 16-bit scores are alive while the
    fp32 softmax output and its 16-bit cast (both saved, EAGER_SCORE_BYTES) are made. Backward:
    the probabilities' gradient upcast to fp32 and softmax_backward's fp32 result beside the
    saved fp32 softmax output. Traced: a recomputed eager layer peaks at the MLP, not here, at
    seq 128 (tests/test_agreement.py)."""
    if c.flash:
        return 0.0
    scores = seqs * arch.heads * c.seq_len * c.seq_len
    tokens = seqs * c.seq_len
    forward = BF16  # the masked scores, beside the two saved copies being made
    backward = 2 * FP32 - BF16  # fp32 gradient and fp32 result; the saved 16-bit probs are freed
    moment = max(forward, backward) * scores
    return max(0.0, moment - mlp_saved_bytes_per_token(arch, c) * tokens)
