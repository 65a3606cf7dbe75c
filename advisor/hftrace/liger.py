"""Liger kernel in the hf trace: Liger's own monkey patch, with its Triton kernels stood in for.

``transformers.Trainer`` with ``use_liger_kernel=True`` calls
``transformers.integrations.liger.apply_liger_kernel(self.model, self.args.liger_kernel_config)``
(transformers 5.24 trainer.py ``train``, the config None by default), which unwraps PEFT and calls
``liger_kernel.transformers._apply_liger_kernel_to_instance(model=base_model)``; for a ``llama``
(or ``qwen2``) config that is ``apply_liger_kernel_to_llama(model=...)`` with its defaults
(liger_kernel 0.8.5 transformers/monkey_patch.py): ``rope=True`` (``modeling_llama.
apply_rotary_pos_emb = liger_rotary_pos_emb``), ``rms_norm=True`` (every ``LlamaRMSNorm``
instance's forward becomes ``LigerRMSNorm.forward``), ``swiglu=True`` (every ``LlamaMLP``'s
forward becomes ``LigerSwiGLUMLP.forward``) and ``fused_linear_cross_entropy=True`` (the
instance's ``forward`` becomes ``liger_kernel.transformers.model.llama.lce_forward``, which in
training never makes the logits).

Liger's kernels are Triton kernels, which do not run on (fake) CPU tensors. ``stand_ins()``
replaces each autograd Function at the name Liger's patched code looks it up when it runs, and
nothing else, by a Function whose forward allocates exactly what Liger's allocates and saves
(shapes, dtypes, transient buffers freed where Liger frees them) with plain torch ops, and whose
backward returns gradients of the same shapes, made in the same storages. The arithmetic the
Triton kernels do in registers is done, for real tensors only, with the tracker switched off
(``_compute``): a kernel's scratch never reaches torch's allocator, so it must not reach the
tracker either; on fake tensors there are no values to compute. The stand-ins mirror
liger_kernel 0.8.5 (``MIRRORS``), read from its source:

* RMSNorm (ops/rms_norm.py ``LigerRMSNormFunction``, ``rms_norm_forward``/``rms_norm_backward``;
  patched at ``liger_kernel.transformers.rms_norm.LigerRMSNormFunction``): ``Y`` in the input's
  dtype and ``RSTD`` (one fp32 per row, "llama" casting mode) are allocated; it saves ``X`` (the
  input), ``W`` and ``RSTD``; backward writes ``dX`` into ``dY`` (``in_place=True``) and, for a
  trainable weight only, an fp32 ``(sm_count, H)`` partial-``dW`` buffer summed and cast.
* SwiGLU (ops/swiglu.py ``LigerSiLUMulFunction``, ``swiglu_forward``/``swiglu_backward``;
  patched at ``liger_kernel.transformers.swiglu.LigerSiLUMulFunction``): ``c = empty_like(a)``;
  saves ``a`` (gate_proj's output) and ``b`` (up_proj's); backward writes ``da``/``db`` into
  ``a``/``b`` and returns them.
* RoPE (ops/rope.py ``LigerRopeFunction``, ``rope_forward``/``rope_backward``; reached through
  ``liger_kernel.backends.dispatch("rope")``, whose Triton implementation
  ops/backends/_triton/rope.py ``rope_triton`` calls it, patched there): q and k are rotated in
  place in their (B, T, heads, head_dim) storage (``.contiguous()`` copies only a tensor that is
  not contiguous in that layout); saves ``cos`` and ``sin``; backward rotates ``dq``/``dk`` back
  in place after the same transpose + ``.contiguous()``. The trace pins the Triton
  implementation (``nvidia-triton``): the CuTe DSL one (ops/backends/_cutedsl/rope.py, preference
  rank 40) is picked only on sm_90+ with the optional ``cutedsl`` extra (nvidia-cutlass-dsl).
* Fused linear cross-entropy (ops/fused_linear_cross_entropy.py
  ``LigerFusedLinearCrossEntropyFunction`` and ``fused_linear_cross_entropy_forward``; patched at
  ``liger_kernel.transformers.functional.LigerFusedLinearCrossEntropyFunction``): forward
  allocates ``grad_input = zeros_like(_input)``, ``grad_weight = zeros_like(weight)`` for a
  trainable head, ``loss_1d`` (fp32, one per token), the ``target != ignore_index`` mask and its
  sum, then per chunk of ``chunk_size = min(next_pow2(cdiv(BT, cdiv(V, H))), BT)`` tokens the
  logits (chunk x V: one persistent ``logits_storage`` buffer written with ``torch.mm(out=)`` when
  ``_can_use_mm_out``, else a new ``_input_chunk @ weight.t()`` under autocast, with autocast's
  casts), which the cross-entropy kernel overwrites in place with their gradient, and
  ``grad_input[chunk] = grad_logits @ weight`` (``torch.mm(out=)`` when it can); it saves
  ``grad_input`` and ``grad_weight`` for backward. Two host syncs cannot run on fake tensors:
  ``target_mask.sum().item()`` (the count of non-ignored tokens, a kernel argument: the stand-in
  makes the same sum and reads it only on real tensors) and backward's ``torch.equal(grad_output,
  torch.tensor(1.0))`` (whether to scale the saved gradients in place: the stand-in allocates the
  same scalar and scales in place on real tensors; on fake ones both branches allocate nothing,
  so the bytes do not depend on the answer). The branches that ask the device (``device.type ==
  "cuda"``, ``get_device_capability() >= 8``) are answered for the CUDA GPU the trace stands for
  (compute capability 8 or later: every GPU of the catalog), and the GPU's SM count, which sizes
  RMSNorm's partial-``dW`` buffer, is ``SM_COUNT``.

The model is patched by ``advisor.pilot.hf_stack.apply_liger`` (the pilot's own step: the same
call on a GPU, with Liger's real kernels). ``stand_ins()`` also restores, when it ends, what ``apply_liger_kernel_to_llama`` replaces in
transformers' modules process-wide (``modeling_llama.apply_rotary_pos_emb``, ``LlamaRMSNorm``,
``LlamaMLP``, and Qwen2's), so a trace with Liger leaves later traces without it.
"""

from __future__ import annotations

import contextlib
import math

import torch

MIRRORS = "0.8.5"  # the liger_kernel version whose saved tensors and buffers these stand-ins mirror
# The SM count of the GPU the trace stands for (H100 SXM: 132 SMs), which sizes RMSNorm's fp32
# partial-dW buffer (ops/rms_norm.py rms_norm_backward: torch.empty((sm_count, n_cols))) for a
# trainable norm weight only (full fine-tune): 132 x hidden x 4 bytes, 2 MiB at hidden 4096.
SM_COUNT = 132
_LLAMA_CASTING, _GEMMA_CASTING = 0, 1  # ops/rms_norm.py _CASTING_MODE_LLAMA / _CASTING_MODE_GEMMA
_CASTING = {"llama": _LLAMA_CASTING, "gemma": _GEMMA_CASTING, "none": -1}


def _next_pow2(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(1, n))))


def _is_fake(t) -> bool:
    from torch._subclasses.fake_tensor import FakeTensor

    return isinstance(t, FakeTensor)


@contextlib.contextmanager
def _compute():
    """What a Triton kernel computes in registers: done with every dispatch mode (the tracker)
    switched off and autocast off, so its scratch tensors are not counted (they never reach
    torch's allocator on a GPU). Used on real tensors only."""
    from torch.utils._python_dispatch import _disable_current_modes

    with _disable_current_modes(), torch.autocast("cpu", enabled=False):
        yield


def _mods():
    """Liger's own helpers the stand-ins reuse as they are (its decorators)."""
    from liger_kernel.ops import utils

    return utils


# --- RMSNorm ---------------------------------------------------------------------------------------
def _rms_reference(x, w, eps, offset, casting_mode):
    dtype = x.dtype
    xf = x.float() if casting_mode in (_LLAMA_CASTING, _GEMMA_CASTING) else x
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    if casting_mode == _LLAMA_CASTING:
        y = (xf * rstd).to(dtype)
        y = y * (offset + w) if w is not None else y
    else:
        wf = w.float() if (w is not None and casting_mode == _GEMMA_CASTING) else w
        y = xf * rstd
        y = y * (offset + wf) if w is not None else y
    return y.to(dtype), rstd.squeeze(-1)


def _rms_norm_function():
    utils = _mods()

    class RMSNormStandIn(torch.autograd.Function):
        """liger_kernel 0.8.5 ops/rms_norm.py ``LigerRMSNormFunction``, byte for byte."""

        @staticmethod
        @utils.ensure_contiguous
        def forward(ctx, X, W, eps, offset=0.0, casting_mode="llama", in_place=True, row_mode=None):
            mode = casting_mode if isinstance(casting_mode, int) else _CASTING[casting_mode]
            shape = X.shape
            X = X.view(-1, shape[-1])  # rms_norm_forward: X = X.view(-1, dim), and it saves that view
            Y = torch.empty(X.shape, dtype=X.dtype, device=X.device)
            rstd_dtype = torch.float32 if mode in (_LLAMA_CASTING, _GEMMA_CASTING) else X.dtype
            RSTD = torch.empty(X.shape[0], dtype=rstd_dtype, device=X.device)
            if not _is_fake(X):
                with _compute():
                    y, rstd = _rms_reference(X.detach(), None if W is None else W.detach(), eps, offset, mode)
                    Y.copy_(y)
                    RSTD.copy_(rstd)
            ctx.offset, ctx.casting_mode, ctx.in_place, ctx.eps = offset, mode, in_place, eps
            ctx.elementwise_affine = W is not None
            ctx.save_for_backward(*((X, W, RSTD) if W is not None else (X, RSTD)))
            return Y.view(*shape)

        @staticmethod
        @utils.ensure_contiguous
        def backward(ctx, dY):
            if ctx.elementwise_affine:
                X, W, RSTD = ctx.saved_tensors
            else:
                (X, RSTD), W = ctx.saved_tensors, None
            needs_dw = ctx.needs_input_grad[1] if ctx.elementwise_affine else False
            shape = dY.shape
            dY = dY.view(-1, shape[-1])
            # rms_norm_backward: fp32 partial dW per SM, only when the weight needs a gradient
            _dW = torch.empty((SM_COUNT, dY.shape[1]), dtype=torch.float32, device=dY.device) if needs_dw else None
            dX = dY if ctx.in_place is True else torch.zeros_like(dY)
            if not _is_fake(dY):
                with _compute():
                    with torch.enable_grad():
                        x = X.detach().requires_grad_(True)
                        w = None if W is None else W.detach().requires_grad_(needs_dw)
                        y, _ = _rms_reference(x, w, ctx.eps, ctx.offset, ctx.casting_mode)
                        wants = (x, w) if needs_dw else (x,)
                        grads = torch.autograd.grad(y, wants, dY.detach().to(y.dtype))
                    dX.copy_(grads[0])
                    if needs_dw:
                        _dW.zero_()
                        _dW[0].copy_(grads[1].float())
            dX = dX.view(*shape)
            dW = _dW.sum(dim=0).to(W.dtype) if needs_dw else None
            return dX, dW, None, None, None, None, None

    return RMSNormStandIn


# --- SwiGLU ----------------------------------------------------------------------------------------
def _silu_mul_function():
    utils = _mods()

    class SiLUMulStandIn(torch.autograd.Function):
        """liger_kernel 0.8.5 ops/swiglu.py ``LigerSiLUMulFunction``, byte for byte."""

        @staticmethod
        @utils.ensure_contiguous
        def forward(ctx, a, b, gate_multiplier: float = 1.0, down_multiplier: float = 1.0):
            ctx.gate_multiplier, ctx.down_multiplier = float(gate_multiplier), float(down_multiplier)
            shape = a.shape
            a, b = a.view(-1, shape[-1]), b.view(-1, shape[-1])  # swiglu_forward's views, saved
            c = torch.empty_like(a)
            if not _is_fake(a):
                with _compute():
                    c.copy_(torch.nn.functional.silu(a.float() * ctx.gate_multiplier) * b.float())
            c = c.view(*shape)
            if ctx.down_multiplier != 1.0:
                c = c * ctx.down_multiplier
            ctx.save_for_backward(a, b)
            return c

        @staticmethod
        @utils.ensure_contiguous
        def backward(ctx, dc):
            a, b = ctx.saved_tensors
            if ctx.down_multiplier != 1.0:
                dc = dc * ctx.down_multiplier
            shape = dc.shape
            dc2 = dc.view(-1, shape[-1])
            if not _is_fake(dc):  # swiglu_backward's kernel writes da into a and db into b
                with _compute():
                    gm = ctx.gate_multiplier
                    af, bf, g = a.float(), b.float(), dc2.float()
                    sig = torch.sigmoid(af * gm)
                    silu = af * gm * sig
                    da = g * bf * gm * (sig + af * gm * sig * (1 - sig))
                    a.copy_(da)
                    b.copy_(g * silu)
            return a.view(*shape), b.view(*shape), None, None

    return SiLUMulStandIn


# --- RoPE ------------------------------------------------------------------------------------------
def _rope_cos_sin(cos, sin, unsqueeze_dim):
    """rope_forward/rope_backward: cos and sin to (batch or 1, seq, rotary_dim), as views."""
    if cos.ndim == 4:
        if cos.shape[unsqueeze_dim] == 1:
            cos, sin = cos.squeeze(unsqueeze_dim), sin.squeeze(unsqueeze_dim)
        elif cos.shape[1] == 1:
            cos, sin = cos.squeeze(1), sin.squeeze(1)
        else:
            cos, sin = cos.squeeze(), sin.squeeze()
    if cos.ndim == 2:
        cos, sin = cos.unsqueeze(0), sin.unsqueeze(0)
    return cos, sin


def _rotate(x, cos, sin, backward: bool):
    """HF Llama's rotation of x (B, T, heads, head_dim) by cos/sin (B or 1, T, rotary_dim), or its
    transpose (backward), in fp32; the first rotary_dim entries of each head."""
    rd = cos.shape[-1]
    xf = x.float()
    rot, rest = xf[..., :rd], xf[..., rd:]
    c, s = cos.float().unsqueeze(2), sin.float().unsqueeze(2)
    x1, x2 = rot[..., : rd // 2], rot[..., rd // 2:]
    if not backward:
        rotated = torch.cat((-x2, x1), dim=-1)
        out = rot * c + rotated * s
    else:  # d/dx of x*c + rotate_half(x)*s, applied to the gradient
        gs = rot * s
        g1, g2 = gs[..., : rd // 2], gs[..., rd // 2:]
        out = rot * c + torch.cat((g2, -g1), dim=-1)
    return torch.cat((out, rest), dim=-1)


def _rope_function():
    class RopeStandIn(torch.autograd.Function):
        """liger_kernel 0.8.5 ops/rope.py ``LigerRopeFunction``, byte for byte."""

        @staticmethod
        def forward(ctx, q, k, cos, sin, position_ids=None, unsqueeze_dim=1, rotary_dim=None):
            cos, sin = _rope_cos_sin(cos, sin, unsqueeze_dim)
            q, k = q.transpose(1, 2).contiguous(), k.transpose(1, 2).contiguous()  # rope_forward
            cos, sin = cos.contiguous(), sin.contiguous()
            if rotary_dim is not None and rotary_dim != cos.shape[-1]:
                raise NotImplementedError("the Liger RoPE stand-in rotates cos.shape[-1] entries (HF Llama's layout)")
            if not _is_fake(q):
                with _compute():  # _triton_rope rotates q and k in place
                    q.copy_(_rotate(q, cos, sin, backward=False))
                    k.copy_(_rotate(k, cos, sin, backward=False))
            ctx.save_for_backward(cos, sin)
            return q.transpose(1, 2), k.transpose(1, 2)

        @staticmethod
        def backward(ctx, dq, dk):
            cos, sin = ctx.saved_tensors
            dq, dk = dq.transpose(1, 2).contiguous(), dk.transpose(1, 2).contiguous()  # rope_backward
            if not _is_fake(dq):
                with _compute():
                    dq.copy_(_rotate(dq, cos, sin, backward=True))
                    dk.copy_(_rotate(dk, cos, sin, backward=True))
            return dq.transpose(1, 2), dk.transpose(1, 2), None, None, None, None, None

    return RopeStandIn


# --- fused linear cross-entropy ---------------------------------------------------------------------
def _can_use_mm_out(_input, weight) -> bool:
    """ops/fused_linear_cross_entropy.py ``_can_use_mm_out`` on the CUDA device the trace stands
    for (its ``device.type != "cuda"`` and ``is_hip()`` tests answered for an NVIDIA GPU); the
    autocast question is asked of the CPU autocast that stands for CUDA's."""
    if torch.is_grad_enabled() or _input.dtype != weight.dtype:
        return False
    if _input.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return False
    if torch.is_autocast_enabled("cpu"):
        return _input.dtype == torch.get_autocast_dtype("cpu")
    return True


def _ce_chunk(logits, target, loss_slice, n_non_ignore: int, ignore_index: int, reduction: str, grads: bool):
    """ops/cross_entropy.py ``liger_cross_entropy_kernel`` for one chunk (no label smoothing,
    z-loss, class weights or softcap): the loss per row into ``loss_slice`` and, in place of the
    logits, their gradient (softmax - one_hot, divided by the non-ignored count under "mean")."""
    x = logits.float()
    valid = target != ignore_index
    safe = torch.where(valid, target, torch.zeros_like(target))
    lse = torch.logsumexp(x, dim=-1)
    loss = torch.where(valid, lse - x.gather(-1, safe.unsqueeze(-1)).squeeze(-1), torch.zeros_like(lse))
    scale = 1.0 / max(1, n_non_ignore) if reduction == "mean" else 1.0
    loss_slice.copy_(loss * scale)
    if grads:
        g = torch.softmax(x, dim=-1)
        g.scatter_add_(-1, safe.unsqueeze(-1), -torch.ones_like(g[..., :1]))
        logits.copy_(g * (valid.unsqueeze(-1).float() * scale))


def _flce_function():
    utils = _mods()

    class FusedLinearCrossEntropyStandIn(torch.autograd.Function):
        """liger_kernel 0.8.5 ops/fused_linear_cross_entropy.py
        ``LigerFusedLinearCrossEntropyFunction`` (reduction mean or sum: gradients computed in
        forward), byte for byte."""

        supports_inner_impl_dispatch = True

        @staticmethod
        @utils.amp_custom_fwd
        def forward(ctx, _input, weight, target, bias=None, ce_weight=None, ignore_index=-100,
                    lse_square_scale=0.0, label_smoothing=0.0, reduction="mean", softcap=None,
                    return_z_loss=False, accum_dtype=None, use_token_scaling=False,
                    return_token_accuracy=False, return_predicted_tokens=False, ce_impl=None, ce_mode=None,
                    chunk_mem_const=1):
            if (ce_weight is not None or lse_square_scale or label_smoothing or softcap is not None
                    or return_z_loss or use_token_scaling or return_token_accuracy or return_predicted_tokens
                    or reduction == "none" or bias is not None):
                raise NotImplementedError("the Liger fused linear cross-entropy stand-in covers the causal-LM "
                                          "loss transformers' Trainer runs (mean or sum, no bias or extras)")
            BT, H = _input.shape
            V = weight.shape[0]
            inc_factor = -(-V // (chunk_mem_const * H))
            chunk_size = min(_next_pow2(-(-BT // inc_factor)), BT)
            num_chunks = -(-BT // chunk_size)
            input_requires_grad = _input.requires_grad
            grad_input = torch.zeros_like(_input, device=_input.device)
            grad_weight = None
            if input_requires_grad and weight.requires_grad:
                grad_weight = (torch.zeros_like(weight) if accum_dtype is None
                               else torch.zeros_like(weight, dtype=accum_dtype))
            loss_1d = torch.zeros(BT, dtype=torch.float32, device=_input.device)
            target_mask = target != ignore_index
            n_sum = target_mask.sum()
            # .item(): a host sync, a kernel argument only; fake tensors have no value to read
            total_n_non_ignore = int(n_sum.item()) if not _is_fake(n_sum) else BT
            del n_sum
            use_mm_out = _can_use_mm_out(_input, weight)
            logits_storage = torch.empty((chunk_size, V), dtype=_input.dtype, device=_input.device) \
                if use_mm_out else None
            for chunk_id in range(num_chunks):
                start, end = chunk_id * chunk_size, min((chunk_id + 1) * chunk_size, BT)
                _input_chunk = _input[start:end]
                if logits_storage is not None:
                    logits_chunk = logits_storage[: end - start]
                    torch.mm(_input_chunk, weight.t(), out=logits_chunk)
                else:
                    logits_chunk = _input_chunk @ weight.t()  # autocast casts as it does on the GPU
                target_chunk = target[start:end].contiguous()
                logits_chunk = logits_chunk.contiguous()
                if not _is_fake(logits_chunk):
                    with _compute():
                        _ce_chunk(logits_chunk, target_chunk, loss_1d[start:end], total_n_non_ignore,
                                  ignore_index, reduction, input_requires_grad)
                grad_logits_chunk = logits_chunk
                del logits_chunk
                if input_requires_grad:
                    if use_mm_out and grad_logits_chunk.dtype == grad_input.dtype:
                        torch.mm(grad_logits_chunk, weight, out=grad_input[start:end])
                    else:
                        grad_input[start:end] = grad_logits_chunk @ weight
                if grad_weight is not None:
                    g16 = grad_logits_chunk.dtype in (torch.float16, torch.bfloat16)
                    if g16 and grad_weight.dtype in (torch.float32, grad_logits_chunk.dtype):
                        # addmm(out=grad_weight) on a GPU of compute capability >= 8 (fp32
                        # accumulator through out_dtype, or a matching 16-bit one): only the
                        # input chunk's cast to the gradient's dtype is allocated
                        input_chunk = _input_chunk
                        if input_chunk.dtype != grad_logits_chunk.dtype:
                            input_chunk = input_chunk.to(grad_logits_chunk.dtype)
                        if not _is_fake(grad_weight):
                            with _compute():
                                grad_weight += (grad_logits_chunk.t().float() @ input_chunk.float()).to(
                                    grad_weight.dtype)
                        del input_chunk
                    else:  # the legacy fallback: a parameter-sized product and its fp32 copy
                        grad_weight += torch.mm(grad_logits_chunk.t(), _input_chunk).float()
                del grad_logits_chunk, _input_chunk, target_chunk
            del logits_storage
            loss = torch.sum(loss_1d)
            if grad_weight is not None:
                grad_weight = grad_weight.to(weight.dtype)
            ctx.save_for_backward(grad_input.detach(), grad_weight.detach() if grad_weight is not None else None,
                                  None)
            return loss, None, None, None

        @staticmethod
        @utils.amp_custom_bwd
        def backward(ctx, grad_output, grad_output2=None, grad_output3=None, grad_output4=None):
            grad_input, grad_weight, grad_bias = ctx.saved_tensors
            one = torch.tensor(1.0, device=grad_output.device)  # fused_linear_cross_entropy_backward
            if not _is_fake(grad_output) and not torch.equal(grad_output, one):
                with _compute():  # element_mul_kernel scales the saved gradients in place
                    grad_input.mul_(grad_output)
                    if grad_weight is not None:
                        grad_weight.mul_(grad_output.to(grad_weight.dtype))
            del one
            gradients = (grad_input, grad_weight, None, grad_bias) + (None,) * 14
            return gradients[: len(ctx.needs_input_grad)]

    return FusedLinearCrossEntropyStandIn


# --- applying Liger as transformers' Trainer does ---------------------------------------------------
# what apply_liger_kernel_to_llama / _to_qwen2 assign in transformers' modules process-wide
# (liger_kernel 0.8.5 transformers/monkey_patch.py), restored when stand_ins() ends
_MODULE_PATCHES = {
    "transformers.models.llama.modeling_llama": ("apply_rotary_pos_emb", "LlamaRMSNorm", "LlamaMLP"),
    "transformers.models.qwen2.modeling_qwen2": ("apply_rotary_pos_emb", "Qwen2RMSNorm", "Qwen2MLP"),
}


def imports():
    """liger_kernel's modules the stand-ins patch (ImportError when liger_kernel is absent).
    Importing liger_kernel logs, once, each optional backend it cannot load here (CuTe DSL,
    cuTile, Ascend); those logs are kept at error level while importing."""
    import importlib
    import logging

    log = logging.getLogger("liger_kernel")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        names = ("liger_kernel.transformers", "liger_kernel.transformers.rms_norm",
                 "liger_kernel.transformers.swiglu", "liger_kernel.transformers.functional",
                 "liger_kernel.transformers.rope", "liger_kernel.ops.backends._triton.rope")
        return [importlib.import_module(n) for n in names]
    finally:
        log.setLevel(level)


@contextlib.contextmanager
def stand_ins():
    """Liger's kernel entry points replaced by the byte-faithful stand-ins for the ``with``
    block, and transformers' module attributes Liger's patch replaces restored after it."""
    import importlib

    _, rms, swiglu, functional, rope, triton_rope = imports()
    saved_modules = {}
    for name, attrs in _MODULE_PATCHES.items():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        saved_modules[module] = {a: getattr(module, a) for a in attrs if hasattr(module, a)}
    original_dispatch = rope.dispatch

    def dispatch(op_name, *args, **kwargs):  # the Triton RoPE, as a GPU without the cutedsl extra runs it
        if op_name == "rope" and "impl" not in kwargs:
            kwargs["impl"] = "nvidia-triton"
        return original_dispatch(op_name, *args, **kwargs)

    patches = [(rms, "LigerRMSNormFunction", _rms_norm_function()),
               (swiglu, "LigerSiLUMulFunction", _silu_mul_function()),
               (functional, "LigerFusedLinearCrossEntropyFunction", _flce_function()),
               (triton_rope, "LigerRopeFunction", _rope_function()),
               (rope, "dispatch", dispatch)]
    originals = [(module, attr, getattr(module, attr)) for module, attr, _ in patches]
    for module, attr, value in patches:
        setattr(module, attr, value)
    try:
        yield
    finally:
        for module, attr, value in originals:
            setattr(module, attr, value)
        for module, attrs in saved_modules.items():
            for attr, value in attrs.items():
                setattr(module, attr, value)


