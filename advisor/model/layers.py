"""The linear layers of the reference decoder: dense, NF4/int8-quantized, and LoRA-wrapped,
plus the precision runtime they share (compute dtype, autocast weight cache).

Each layer keeps alive exactly what its real counterpart keeps alive (Hugging Face transformers,
PEFT, bitsandbytes), switch by switch (``advisor.stacks.StackProfile``), so the exact trace and a
pilot on a GPU run the same code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from advisor.model import quant


@dataclass
class Runtime:
    """Precision state shared by every layer of one model.

    ``compute_dtype``: the dtype matmuls run in (bf16/fp16 under mixed precision, else the
    parameters' dtype). ``mixed``: torch.autocast is on and fp32 weights are cast per use.
    ``weight_cache``: StackProfile.autocast_weight_cache; while ``caching`` (the forward region),
    the 16-bit copy of each trainable fp32 weight is kept once and reused, as torch.autocast's
    cast cache does on CUDA (autocast_mode.cpp cached_cast: leaf, requires_grad, fp32). We run
    torch.autocast with cache_enabled=False and keep the cache here, so it behaves the same on
    every device (the CPU trace included).
    """

    compute_dtype: torch.dtype
    mixed: bool
    weight_cache: bool = False
    caching: bool = False
    _cache: dict[int, torch.Tensor] = field(default_factory=dict)

    def cast(self, w: torch.Tensor | None) -> torch.Tensor | None:
        """A weight (or bias) in the compute dtype, as autocast would hand it to a matmul."""
        if w is None or not self.mixed or w.dtype == self.compute_dtype:
            return w
        cacheable = self.weight_cache and self.caching and w.requires_grad and w.dtype == torch.float32
        if not cacheable:
            return w.to(self.compute_dtype)
        hit = self._cache.get(id(w))
        if hit is None:
            hit = self._cache[id(w)] = w.to(self.compute_dtype)
        return hit

    def activation(self, x: torch.Tensor) -> torch.Tensor:
        """An activation entering a matmul: cast to the compute dtype under autocast."""
        return x.to(self.compute_dtype) if self.mixed else x

    def end_forward(self) -> None:
        self.caching = False
        self._cache.clear()


def init_weight(out_features: int, in_features: int, *, dtype, device, std: float) -> torch.Tensor:
    """A freshly initialised weight, made directly on the device in its dtype (no staging)."""
    return torch.empty(out_features, in_features, dtype=dtype, device=device).normal_(0.0, std)


class Dense(nn.Module):
    """nn.Linear with dtype handling of autocast: y = x W^T + b in the compute dtype."""

    def __init__(self, in_features: int, out_features: int, rt: Runtime, *, bias: bool, dtype,
                 device, std: float, trainable: bool):
        super().__init__()
        self.rt = rt
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(init_weight(out_features, in_features, dtype=dtype, device=device, std=std),
                                   requires_grad=trainable)
        self.bias = (nn.Parameter(torch.zeros(out_features, dtype=dtype, device=device), requires_grad=trainable)
                     if bias else None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return linear(self.rt.activation(x), self.rt.cast(self.weight), self.rt.cast(self.bias))


class QuantizedWeight(nn.Module):
    """The stored form of one frozen quantized weight (buffers only, byte-faithful)."""

    def __init__(self, weight: torch.Tensor, kind: str, double_quant: bool):
        super().__init__()
        quant.register_ops()
        self.kind, self.rows, self.cols = kind, weight.shape[0], weight.shape[1]
        self.dequant_dtype: torch.dtype | None = None  # the dtype it was quantized from when it is not
        # the compute dtype (StackProfile.quant_dequant_fp16: Lightning quantizes from fp16)
        self.forward_direct = True  # forward dequantizes straight to the compute dtype
        # (StackProfile.quant_forward_direct); backward goes through dequant_dtype
        self.register_buffer("absmax2", None)
        self.register_buffer("offset", None)
        if kind == "nf4":
            parts = torch.ops.advisor.quantize_nf4(weight, double_quant)
            self.register_buffer("data", parts[0])
            self.register_buffer("absmax", parts[1])
            if double_quant:
                self.register_buffer("absmax2", parts[2])
                self.register_buffer("offset", parts[3])
        elif kind == "int8":
            data, scb = torch.ops.advisor.quantize_int8(weight)
            self.register_buffer("data", data)
            self.register_buffer("absmax", scb)  # LLM.int8 SCB, one per output row
        else:
            raise ValueError(f"unknown quantization {kind!r}")

    def dequantize(self, dtype: torch.dtype) -> torch.Tensor:
        if self.kind == "nf4":
            return torch.ops.advisor.dequantize_nf4(self.data, self.absmax, self.absmax2, self.offset,
                                                    self.rows, self.cols, dtype)
        return torch.ops.advisor.dequantize_int8(self.data, self.absmax, dtype)

    def constant_buffers(self) -> list[torch.Tensor]:
        return [t for t in (self.absmax, self.absmax2, self.offset) if t is not None]


def rows_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``x @ w`` for activations ``x`` (..., k) and a matrix ``w`` (k, n), as ``torch.matmul``
    computes it when it folds the leading dimensions into rows (aten/src/ATen/native/
    LinearAlgebra.cpp ``_matmul_impl``/``should_fold``, torch 2.13: a contiguous input of 3 or
    more dimensions becomes ``x.view(-1, k)``, one ``mm``, and the result's view back), with the
    same operators, kernels and storages, but ending in ``view`` where matmul ends in
    ``_unsafe_view``, which FakeTensorMode never caches (torch/_subclasses/fake_tensor.py
    ``_validate_cache_key``: "unsafe view"), so every linear of the trace paid an uncached fake
    dispatch. Any other input (2-D, or one matmul would not fold) goes to ``torch.matmul``."""
    if x.dim() < 3 or not x.is_contiguous() or w.dim() != 2:
        return x @ w
    return torch.mm(x.view(-1, x.shape[-1]), w).view(*x.shape[:-1], w.shape[-1])


def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
    """``F.linear(x, w, b)``: without a bias it is ``matmul(x, w.t())`` (aten/src/ATen/native/
    Linear.cpp ``linear``, torch 2.13), computed by ``rows_matmul``; with one, F.linear itself."""
    if b is not None:
        return F.linear(x, w, b)
    return rows_matmul(x, w.t())


def _dequantized(qweight: QuantizedWeight, dtype: torch.dtype) -> torch.Tensor:
    """The weight in ``dtype``: dequantized straight to it, or to the dtype it was quantized from
    and then cast, both copies alive during the cast (bitsandbytes MatMul4Bit:
    ``F.dequantize_4bit(B, quant_state).to(A.dtype)``; StackProfile.quant_dequant_fp16)."""
    src = qweight.dequant_dtype or dtype
    return qweight.dequantize(src).to(dtype)


def quant_project(x: torch.Tensor, qweight: QuantizedWeight, dtype: torch.dtype, keep_input: bool) -> torch.Tensor:
    """``x @ W^T`` for a frozen 4-bit weight outside a QuantLinear (a 4-bit LM head)."""
    return _QuantMatmul.apply(x.to(dtype), qweight, dtype, keep_input)


class _QuantMatmul(torch.autograd.Function):
    """y = x dequant(W)^T with W frozen: the weight is dequantized again in backward (as
    bitsandbytes MatMul4Bit does); ``keep_input`` saves x as well (StackProfile.keep_quant_input)."""

    @staticmethod
    def forward(ctx, x, qweight, dtype, keep_input):
        w = qweight.dequantize(dtype) if qweight.forward_direct else _dequantized(qweight, dtype)
        out = rows_matmul(x, w.t())
        del w
        ctx.qweight, ctx.dtype = qweight, dtype
        if keep_input:
            ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        w = _dequantized(ctx.qweight, ctx.dtype)
        grad_x = rows_matmul(grad_out, w) if ctx.needs_input_grad[0] else None
        return grad_x, None, None, None


class QuantLinear(nn.Module):
    """bitsandbytes Linear4bit / Linear8bitLt: frozen quantized weight, 16-bit bias, input cast to
    the compute dtype (bnb Linear4bit.forward: x.to(compute_dtype))."""

    def __init__(self, in_features: int, out_features: int, rt: Runtime, *, bias: bool, kind: str,
                 double_quant: bool, init_dtype, bias_dtype, device, std: float, keep_input: bool,
                 out_follows_input: bool = False):
        super().__init__()
        self.rt, self.keep_input = rt, keep_input
        self.out_follows_input = out_follows_input  # StackProfile.quant_out_follows_input
        self.in_features, self.out_features = in_features, out_features
        # quantize each weight as it is made: at most one 16-bit linear exists at a time
        self.qweight = QuantizedWeight(init_weight(out_features, in_features, dtype=init_dtype, device=device, std=std),
                                       kind, double_quant)
        self.bias = (nn.Parameter(torch.zeros(out_features, dtype=bias_dtype, device=device), requires_grad=False)
                     if bias else None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cd = self.rt.compute_dtype
        out = _QuantMatmul.apply(x.to(cd), self.qweight, cd, self.keep_input)
        if self.bias is not None:
            out = out + self.rt.cast(self.bias).to(cd)
        # bitsandbytes Linear4bit.forward: matmul_4bit(x.to(compute_dtype), ...).to(inp_dtype)
        return out.to(x.dtype) if self.out_follows_input else out


class LoraLinear(nn.Module):
    """PEFT LoRA around a frozen base linear: y = base(x) + B(A(dropout(x))) * alpha / r.

    A is Kaiming-uniform, B zeros (PEFT reset_lora_parameters); both in ``dtype``: fp32 under
    PEFT (autocast_adapter_dtype=True), the model's dtype under litgpt/torchtune bf16
    (StackProfile.adapters_fp32). Outside autocast the input is cast to the adapters' dtype and the
    sum back to the base output's dtype (PEFT lora.Linear.forward). ``dropout_copy``
    (StackProfile.lora_dropout_copy): with p > 0 dropout makes a new tensor and mask per adapted
    linear; the reference stack skips it.
    """

    def __init__(self, base: nn.Module, rt: Runtime, *, rank: int, alpha: float, dropout: float,
                 dropout_copy: bool, device, dtype=torch.float32, cast_input: bool = False):
        super().__init__()
        self.cast_input = cast_input  # StackProfile.lora_cast_input (PEFT _cast_input_dtype)
        self.base, self.rt = base, rt
        self.scaling = alpha / rank
        self.dropout = dropout if dropout_copy else 0.0
        a = torch.empty(rank, base.in_features, dtype=dtype, device=device)
        nn.init.kaiming_uniform_(a, a=math.sqrt(5))
        self.lora_A = nn.Parameter(a)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, dtype=dtype, device=device))

    @property
    def in_features(self) -> int:
        return self.base.in_features

    @property
    def out_features(self) -> int:
        return self.base.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        result = self.base(x)
        rt = self.rt
        # PEFT casts the adapter input to the adapters' dtype (lora.Linear._cast_input_dtype);
        # its bitsandbytes layer only when autocast is off (lora/bnb.py requires_conversion)
        cast = self.cast_input and not (isinstance(self.base, QuantLinear) and rt.mixed)
        xa = x.to(self.lora_A.dtype) if (cast or not rt.mixed) else x  # alive to the end, as PEFT's x
        dropped = xa
        if self.dropout > 0 and self.training:
            # aten::native_dropout (output + bool mask) is what F.dropout runs on CUDA; on CPU
            # F.dropout decomposes into a float noise tensor instead, so call it directly to keep
            # the CUDA footprint on every device
            dropped, _mask = torch.native_dropout(xa, self.dropout, True)
        h = linear(rt.activation(dropped), rt.cast(self.lora_A))
        h = linear(h, rt.cast(self.lora_B))
        return (result + h * self.scaling).to(result.dtype)
