"""What a real stack needs to run under ``FakeTensorMode`` on the CPU device, and nothing more.

``Module.to``: PEFT moves every new adapter to its base layer's device and dtype
(``peft/tuners/tuners_utils.py _move_adapter_to_device_of_base_layer``: ``item.to(device,
dtype=...)``). torch's ``Module._apply`` replaces fake parameters with
``torch.utils.swap_tensors`` (``torch/nn/modules/module.py _apply``: ``isinstance(param,
FakeTensor)`` forces the swap), and the swap refuses tensors that the fake mode holds weak
references to. Under the trace every tensor already lives on the one fake device, so a move is a
no-op; a dtype cast is kept, done as ``_apply``'s non-swap branch does it (a new ``Parameter``
of the cast tensor, ``requires_grad`` kept; floating-point tensors only, as ``Module.to``).
``Module.float()`` / ``half()`` / ``bfloat16()`` go through ``_apply`` too and get the same, and
``Module.to_empty`` (the QLoRA build materialises a meta skeleton layer by layer) makes new
parameters of ``empty_like`` on the device.
"""

from __future__ import annotations

import contextlib

import torch


def _to(self, *args, **kwargs):
    _device, dtype, _non_blocking, _fmt = torch._C._nn._parse_to(*args, **kwargs)
    if dtype is None:
        return self
    if not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
    made: dict[int, torch.nn.Parameter] = {}  # a parameter shared by two modules (tied embeddings) stays shared
    for module in self.modules():
        for key, p in list(module._parameters.items()):
            if p is not None and p.is_floating_point() and p.dtype != dtype:
                if id(p) not in made:
                    made[id(p)] = torch.nn.Parameter(p.detach().to(dtype), requires_grad=p.requires_grad)
                module._parameters[key] = made[id(p)]
        for key, b in list(module._buffers.items()):
            if b is not None and b.is_floating_point() and b.dtype != dtype:
                module._buffers[key] = b.to(dtype)
    return self


def _to_empty(self, *, device, recurse: bool = True):
    """``Module.to_empty`` (meta skeleton -> device) without the swap: new parameters of
    ``torch.empty_like`` on ``device``, ``requires_grad`` kept."""
    modules = self.modules() if recurse else [self]
    made: dict[int, torch.nn.Parameter] = {}  # shared parameters stay shared, as swap_tensors keeps them
    for module in modules:
        for key, p in list(module._parameters.items()):
            if p is not None:
                if id(p) not in made:
                    made[id(p)] = torch.nn.Parameter(torch.empty_like(p, device=device), requires_grad=p.requires_grad)
                module._parameters[key] = made[id(p)]
        for key, b in list(module._buffers.items()):
            if b is not None:
                module._buffers[key] = torch.empty_like(b, device=device)
    return self


@contextlib.contextmanager
def fake_module_moves():
    """Patch ``torch.nn.Module.to`` as the module docstring says, for the ``with`` block only."""
    names = {"to": _to, "float": lambda self: _to(self, torch.float32),
             "half": lambda self: _to(self, torch.float16), "bfloat16": lambda self: _to(self, torch.bfloat16), "to_empty": _to_empty}
    originals = {name: getattr(torch.nn.Module, name) for name in names}
    for name, fn in names.items():
        setattr(torch.nn.Module, name, fn)
    try:
        yield
    finally:
        for name, fn in originals.items():
            setattr(torch.nn.Module, name, fn)


def _cuda_dropout(input, p=0.5, training=True, inplace=False):
    """``F.dropout`` as it runs on CUDA: aten ``dropout`` (aten/src/ATen/native/Dropout.cpp) calls
    ``native_dropout`` (the output and a bool mask, the mask saved for backward) when
    ``is_fused_kernel_acceptable`` (a CUDA input, 0 < p < 1, non-empty); on a CPU tensor it instead
    multiplies by a noise tensor of the input's dtype, saved for backward (4 bytes a value for fp32
    instead of 1), which is not what a GPU run keeps."""
    if training and 0 < p < 1 and input.numel() > 0 and not inplace:
        return torch.native_dropout(input, p, True)[0]
    return _ORIGINAL_DROPOUT(input, p, training, inplace)


_ORIGINAL_DROPOUT = torch.nn.functional.dropout


def _unpacked(position_ids):
    """transformers.masking_utils.find_packed_sequence_indices for a batch of one sequence per row:
    on real tensors it returns None (masking_utils.py: ``(packed_sequence_mask[:, -1] == 0).all()``),
    so the causal mask is skipped and SDPA runs with ``is_causal=True``; on fake tensors it cannot
    read the values (``is_tracing``) and returns the index tensor, which makes transformers build a
    full seq x seq mask and repeat k/v per head. The traced batch is unpacked, so None is the answer."""
    return None


_ORIGINAL_IS_AUTOCAST_ENABLED = torch.is_autocast_enabled


def _is_autocast_enabled(device_type: str | None = None) -> bool:
    """``torch.is_autocast_enabled()`` without a device asks about CUDA autocast; the trace runs
    the GPU's step under CPU autocast, so CUDA questions get the CPU answer. (PEFT's bitsandbytes
    LoRA layer asks it: ``requires_conversion = not torch.is_autocast_enabled()``, and casts the
    adapter input to fp32 only when autocast is off.)"""
    if device_type is None or device_type == "cuda":
        return _ORIGINAL_IS_AUTOCAST_ENABLED("cpu")
    return _ORIGINAL_IS_AUTOCAST_ENABLED(device_type)


@contextlib.contextmanager
def cuda_behaviour():
    """The data-dependent and device-dependent choices a GPU run makes, made the same way under
    fake tensors on the CPU device: dropout as CUDA runs it, "is autocast on?" answered for the
    autocast that stands for CUDA's, and transformers' packed-sequence check answered for the
    (unpacked) batch traced."""
    try:
        import transformers.masking_utils as masking  # transformers >= 4.53
    except ImportError:
        masking = None
    packed = getattr(masking, "find_packed_sequence_indices", None)
    saved = torch.nn.functional.dropout, torch.is_autocast_enabled
    torch.nn.functional.dropout = _cuda_dropout
    torch.is_autocast_enabled = _is_autocast_enabled
    if packed is not None:
        masking.find_packed_sequence_indices = _unpacked
    try:
        yield
    finally:
        torch.nn.functional.dropout, torch.is_autocast_enabled = saved
        if packed is not None:
            masking.find_packed_sequence_indices = packed
