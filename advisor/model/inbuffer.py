"""Autograd's in-place gradient sum, which a traced step cannot take, replayed in the tracker.

When a tensor is used twice in forward (a tied embedding: the LM head and the input embedding;
the residual stream; a chunked loss over one head weight), the autograd engine sums the two
gradients that reach it in the consumer's ``InputBuffer`` (torch/csrc/autograd/input_buffer.cpp,
torch 2.13 ``accumulate``)::

    } else if (can_accumulate_inplace(old_var) && !at::isTensorSubclassLike(var)) {
      buffer[pos] = old_var.add_(var);
    } else {
      buffer[pos] = old_var + var;
    }

with ``can_accumulate_inplace(v)`` requiring ``!at::isTensorSubclassLike(v)``, a dense layout
and the buffer holding the last reference to ``v`` and its storage. On a GPU the first gradient
is a plain tensor held only by the buffer, so the sum is made in its storage: no new bytes. In a
trace it never is: ``at::isTensorSubclassLike`` (ATen/TensorSubclassLikeUtils.h) answers true
whenever a Python dispatch mode is active (``if (c10::impl::dispatch_mode_enabled()) return
true;``), and for every FakeTensor, so the engine takes ``old_var + var`` and the trace shows a
third tensor of the gradient's size (for a tied 1B model's fp32 embedding, 0.98 GiB at the end of
backward) that a real run never allocates. Checked on real CPU tensors (no mode: the summed
``.grad`` is the LM head's gradient's storage; under any TorchDispatchMode: a new one).

``LiveBytes`` calls ``noted`` for every ``aten.add.Tensor`` of the backward phase and ``freed``
before logging a free. An add made with grad mode off (the engine runs backward so, unless
``create_graph``), of two dense tensors of one shape and dtype, whose first operand's storage is
freed before anything else is allocated (the buffer held its last reference, the
``use_count() == 1`` of ``can_accumulate_inplace``), is replayed as the engine's ``add_``: the
sum's allocation is dropped and it is recorded as living in the first operand's storage, whose
free is not logged. The checkpointed recompute runs its forward adds with grad mode on and is
never matched.
"""

from __future__ import annotations

import torch
from torch._prims_common import is_non_overlapping_and_dense_or_false as is_non_overlapping_and_dense

ADD = torch.ops.aten.add.Tensor


def noted(tracker, args, kwargs, out) -> None:
    """After ``tracker`` tracked the output ``out`` of ``add.Tensor(*args)``: remember it when it
    can be the engine's sum (see the module docstring)."""
    tracker._inbuffer = None
    if torch.is_grad_enabled() or kwargs or len(args) != 2 or not isinstance(out, torch.Tensor):
        return
    old, new = args
    if not (isinstance(old, torch.Tensor) and isinstance(new, torch.Tensor)):
        return
    if old.shape != out.shape or new.shape != out.shape or old.dtype != out.dtype or new.dtype != out.dtype:
        return
    if not is_non_overlapping_and_dense(old):  # can_accumulate_inplace's layout condition
        return
    out_key, old_key = id(out.untyped_storage()), id(old.untyped_storage())
    out_idx, old_idx = tracker._live.get(out_key), tracker._live.get(old_key)
    if out_idx is None or old_idx is None or not tracker.events or tracker.events[-1] != out_idx:
        return  # the sum is not a new storage this tracker just logged
    if tracker.storages[old_idx].nbytes != tracker.storages[out_idx].nbytes:
        return
    ref_id = next(reversed(tracker._refs))  # the weak reference track() made for the sum
    if tracker._refs[ref_id][1] != out_idx:
        return
    tracker._inbuffer = (old_key, old_idx, out_key, out_idx, ref_id, len(tracker.events) - 1)


def freed(tracker, key: int, idx: int) -> bool:
    """Before ``tracker`` logs the free of storage ``idx``: True when it is the first operand of
    the sum just noted, freed before any allocation, and the sum now stands in its storage (the
    free is not logged, the sum's allocation is removed)."""
    pending = tracker._inbuffer
    if pending is None:
        return False
    old_key, old_idx, out_key, out_idx, ref_id, pos = pending
    if (key, idx) != (old_key, old_idx):
        return False
    tracker._inbuffer = None
    events = tracker.events
    if any(ev >= 0 for ev in events[pos + 1:]) or any(mark > pos for mark, _ in tracker.phase_marks):
        return False  # something was allocated (or a phase began) in between: not the buffer's sum
    if tracker._live.get(out_key) != out_idx or ref_id not in tracker._refs:
        return False  # the sum died first
    del events[pos]
    if tracker._settled > pos:
        tracker._settled -= 1
    del tracker._live[old_key]
    tracker._live[out_key] = old_idx
    tracker._refs[ref_id] = (out_key, old_idx, tracker._refs[ref_id][2])
    tracker.storages[out_idx].nbytes = 0  # never allocated: the sum is old_var's storage
    return True
