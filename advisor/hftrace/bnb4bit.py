"""bitsandbytes 4-bit under fake tensors: bitsandbytes' own code, with two stand-ins.

Everything a QLoRA step does with a 4-bit linear runs through the installed bitsandbytes:
``Linear4bit.forward`` (the input cast to ``compute_dtype``, the bias cast, the output cast back
to the input dtype), ``matmul_4bit`` and the autograd function ``MatMul4Bit`` (what it keeps for
backward: ``ctx.tensors``), ``functional.quantize_4bit`` and ``dequantize_4bit`` (the packed
uint8 data, the absmax, double quantization's second-level state and offset, the backward's
dequantized weight). Its torch ops (``bitsandbytes::quantize_4bit``, ``gemm_4bit``,
``dequantize_4bit``, ``dequantize_blockwise``) have registered fake kernels, so they run under
``FakeTensorMode`` and allocate exactly their outputs. Two things cannot run as they are:

* ``Params4bit`` is a tensor subclass made with ``torch.Tensor._make_subclass``, which refuses a
  FakeTensor. ``fake_linear4bit`` keeps bitsandbytes' ``Linear4bit`` module and puts the packed
  data in a plain frozen ``nn.Parameter`` carrying the attributes bitsandbytes and PEFT read from
  a ``Params4bit`` (``quant_state``, ``quant_type``, ``compress_statistics``, ``blocksize``,
  ``bnb_quantized``): the same bytes, and PEFT still picks its bitsandbytes LoRA layer
  (``peft/tuners/lora/bnb.py dispatch_bnb_4bit``: ``isinstance(target, bnb.nn.Linear4bit)``).
* The CUDA kernel behind ``bitsandbytes::gemm_4bit`` allocates inside the op: for the training
  shapes it does not use the fused kernel but dequantizes the weight and calls ``F.linear``
  (``bitsandbytes/backends/cuda/ops.py``: ``_dequant_linear_fallback`` when
  ``M > _gemm_4bit_custom_max_m`` (1536), and ``_gemm_4bit_use_custom_cuda`` returns False for
  ``M > 512`` on weights of at least 4 Mi values). The fake kernel allocates only the output, so
  ``CudaKernelFootprint`` replaces the op by what the CUDA fallback runs (the 16-bit dequantized
  weight, and under double quantization the fp32 absmax, then ``F.linear``), letting the tracker
  see those transients. Below those sizes the choice depends on the GPU (compute capability and
  SM count); we assume the fallback there too and say so in the trace's notes.

Mirrors bitsandbytes 0.43.2 and later (PR #1270, commit 9e75374, July 2024: ``MatMul4Bit``
keeps ``ctx.tensors = (None, B)``, no longer the 16-bit input ``A``), because it runs the
installed version's own ``MatMul4Bit``; ``saves_input()`` reads which behaviour is installed.
"""

from __future__ import annotations

import contextlib

import torch

# bitsandbytes/backends/cuda/ops.py (0.50): past this many rows the dequant + F.linear fallback
# is always used; between 513 and 1536 rows too for weights of >= 4 Mi values
CUSTOM_MAX_M = 1536
CUSTOM_MAX_M_LARGE_WEIGHT = 512
LARGE_WEIGHT = 4 * 1024 * 1024


@contextlib.contextmanager
def fake_quant_maps():
    """bitsandbytes caches its 8-bit dynamic map (``functional.name2qmap["dynamic"]``) the first
    time double quantization runs; it is computed with ``.tolist()``, which a fake tensor cannot
    do. Compute it for real, make it a fake tensor for the trace, and restore the cache after.
    The 4-bit code table is made as ``_fake_4bit_type`` says, and restored after too."""
    import bitsandbytes.functional as F
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():
        values = F.create_dynamic_map().tolist()
    missing = object()
    saved = F.name2qmap.get("dynamic", missing)
    F.name2qmap["dynamic"] = torch.tensor(values, dtype=torch.float32)
    get_4bit_type = F.get_4bit_type
    F.get_4bit_type = _fake_4bit_type
    try:
        yield
    finally:
        F.get_4bit_type = get_4bit_type
        if saved is missing:
            F.name2qmap.pop("dynamic", None)
        else:
            F.name2qmap["dynamic"] = saved


def _fake_4bit_type(typename, device=None, blocksize=64):
    """bitsandbytes' ``get_4bit_type`` (functional.py, 0.50), as its ops run under fake tensors:
    the 16-value code table ``quantize_4bit`` makes for every quantized weight, then
    ``data.div_(data.abs().max())``. Only how the table is made differs: bitsandbytes writes
    ``torch.tensor(values, device=device)``, which fake mode turns into ``lift_fresh`` of a real
    constant, its slowest path (about 3 ms a call, once per 4-bit linear: 0.75 s of an 8B build);
    ``torch.empty`` makes the same 16 float32 values' storage, and no fake kernel reads values."""
    data = torch.empty(16, dtype=torch.float32, device=device)
    data.div_(data.abs().max())
    return data


def fake_linear4bit(module, weight, dtype, double_quant: bool, device, blocksize: int = 64):
    """A bitsandbytes ``Linear4bit`` holding ``weight`` quantized by bitsandbytes'
    ``quantize_4bit`` (NF4), with the packed data in a plain parameter (see the module docstring)."""
    import bitsandbytes as bnb
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():  # Linear4bit.__init__ makes a Params4bit of a meta tensor
        q = bnb.nn.Linear4bit(module.in_features, module.out_features, bias=False, compute_dtype=dtype,
                              compress_statistics=double_quant, quant_type="nf4", device="meta")
    packed, state = bnb.functional.quantize_4bit(weight, blocksize=blocksize, compress_statistics=double_quant,
                                                 quant_type="nf4", quant_storage=torch.uint8)
    data = torch.nn.Parameter(packed, requires_grad=False)
    # the attributes of a quantized Params4bit (bitsandbytes/nn/modules.py Params4bit.__new__/_quantize)
    data.quant_state, data.blocksize, data.compress_statistics = state, blocksize, double_quant
    data.quant_type, data.quant_storage, data.bnb_quantized, data.module = "nf4", torch.uint8, True, q
    q.weight = data
    q.compute_type_is_set = True  # compute_dtype given, as transformers' quantizer gives it
    return q


def saves_input() -> bool:
    """Does the installed bitsandbytes keep the 16-bit input of ``MatMul4Bit`` for backward?
    (True before 0.43.2, PR #1270.)"""
    import inspect

    import bitsandbytes.autograd._functions as functions

    return "ctx.tensors = (A, B)" in inspect.getsource(functions.MatMul4Bit.forward)


class CudaKernelFootprint:
    """Runs ``bitsandbytes::gemm_4bit`` as its CUDA implementation does for training shapes
    (``_dequant_linear_fallback``), so its transients pass through the modes below (the tracker).

    A context manager that puts a stand-in for the op where bitsandbytes looks it up: its
    ``MatMul4Bit.forward`` calls ``torch.ops.bitsandbytes.gemm_4bit.default(...)`` (autograd/
    _functions.py, 0.50), resolving the attribute at each call, so the stand-in is called for
    exactly those calls and for nothing else. (It was a TorchDispatchMode, which every op of the
    step, and every ``.device`` query on a fake tensor as ``prim.device``, passed through: profiled
    on the 8B QLoRA step at seq 1024, 90k ops and 54k device queries, a third of the trace's
    overhead over the bare step. benchmarks/trace_speed.py prints the ratio.)"""

    def __init__(self):
        self.gemm = torch.ops.bitsandbytes.gemm_4bit.default
        self.fused_calls = 0  # calls small enough that the GPU may use its fused kernel
        self._saved = None

    def __enter__(self):
        import types

        namespace = torch.ops.bitsandbytes
        self._saved = namespace.gemm_4bit  # the OpOverloadPacket torch.ops caches on the namespace
        setattr(namespace, "gemm_4bit", types.SimpleNamespace(default=self._fallback, __call__=self._fallback))
        return self

    def __exit__(self, *exc):
        setattr(torch.ops.bitsandbytes, "gemm_4bit", self._saved)
        return False

    def _fallback(self, A, B, shapeB, absmax, blocksize, quant_type, bias=None, absmax_8bit=None,
                  absmax_code=None, absmax_offset=None):
        k = A.shape[-1]
        m = A.numel() // k
        n = shapeB[0]
        if m <= CUSTOM_MAX_M and not (n * k >= LARGE_WEIGHT and m > CUSTOM_MAX_M_LARGE_WEIGHT):
            self.fused_calls += 1
        # bitsandbytes/backends/cuda/ops.py _dequant_linear_fallback, op by op
        if absmax_8bit is not None:
            absmax_dq = torch.ops.bitsandbytes.dequantize_blockwise.default(
                absmax_8bit, absmax, absmax_code, 256, torch.float32)
            absmax = absmax_dq + absmax_offset
            del absmax_dq
        b_dq = torch.ops.bitsandbytes.dequantize_4bit.default(B, absmax, blocksize, quant_type, list(shapeB), A.dtype)
        return torch.nn.functional.linear(A, b_dq, bias)
