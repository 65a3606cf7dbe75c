"""Exact memory of training steps, traced with fake tensors (level 2 of docs/DESIGN.md's "three
levels of memory truth"). Needs the ``pilot`` extra (torch).

``trace_step`` builds the reference decoder (``advisor.model``) for the spec under
``FakeTensorMode`` on the ``cpu`` device (fake cuda crashes backward on CPU-only builds; meta
falls back to math attention with seq x seq scores), creates the optimizer state (one step over
zero gradients, as a first real step makes it), runs ``steps`` training steps (forward + loss,
backward, optimizer step; two micro-batches when the spec accumulates gradients) and tracks every
live storage with ``advisor.model.tracker.LiveBytes``. Nothing is allocated for real.
``run_reference_step`` is the same step for callers with their own dispatch modes;
``trace_step(..., runtime="hf")`` traces the real stack instead (``advisor.hftrace``).

Categories at the peak (they sum exactly to it):
  weights           parameters and buffers as stored (frozen or trainable; packed NF4/int8 data)
  quant_constants   NF4 absmax / double-quant codes, absmax2, offset; int8 row scales
  adapters          LoRA A and B
  master_weights    a separate fp32 copy of 16-bit trainable weights (0: our bf16-mixed keeps the
                    trainable parameters themselves in fp32, as HF Trainer does)
  gradients         tensors that become ``.grad``
  optimizer_states  tensors the optimizer keeps in ``optimizer.state``
  activations       made during the forward and still alive (saved for backward, the live
                    forward tensors) plus the batch
  logits_loss       any non-parameter tensor whose last dimension is the vocabulary (logits,
                    their fp32 copies, log-probs and their gradients)
  transient         the rest: 16-bit weight copies (autocast), dequantized weight tiles,
                    recomputed activations and activation gradients in backward, optimizer
                    temporaries

Multi-GPU: the trace is per GPU for ``micro_batch`` sequences per GPU. With num_gpus > 1 and
sharding "fsdp", weights, quant_constants, adapters, master_weights, gradients and
optimizer_states are divided by num_gpus (each storage rounded up: FSDP pads flat parameters to
a multiple of the world size) and the event log is replayed with those sizes, so the peak
moment is found again; FSDP's transient all-gather buffers of the layer being computed and
gradient reduce-scatter buffers are not included. DDP replicates everything (no change; its
gradient buckets are not included either).
"""

from __future__ import annotations

import gc
import time

from advisor.arch import Architecture
from advisor.errors import MissingExtra, SpecError
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile, for_spec
# shared with the real-stack trace (advisor.hftrace), which imports them from there: no cycle
from advisor.trace_result import (PHASES, SHARDED, TraceResult, outside_allocator, sharding_scale,  # noqa: F401
                                  warm_optimizer)


def _torch():
    try:
        import torch  # noqa: PLC0415 - optional extra
    except ImportError:
        raise MissingExtra("the exact memory trace", "pilot", "torch") from None
    return torch


def trace_step(spec: FinetuneSpec, arch: Architecture, *, steps: int = 1, fake: bool = True,
               device: str = "cpu", stack: StackProfile | None = None, runtime: str = "reference",
               progress=None, modes=(), on_phase=None, fast: bool = True) -> TraceResult:
    """Trace ``steps`` training steps of ``spec`` on ``arch``; see the module docstring.

    ``runtime="hf"`` traces the real stack instead (``advisor.hftrace.trace_hf``: transformers +
    PEFT at the installed versions). ``fake=False`` runs the reference decoder on real tensors
    (small shapes only; the tests use it to check that fake and real runs track the same bytes).
    ``stack`` overrides the profile named by ``spec.stack`` (to study one switch at a time).
    The optimizer state is made before measuring (one step over zero gradients, as a first step
    makes it), so ``steps=1`` shows what every later step keeps alive. ``modes`` (more dispatch
    modes, entered after the tracker: a FLOP/byte recorder) and ``on_phase`` (called with each
    phase the step marks) let another measurement ride along the same run. ``fast=False`` runs
    the tracker's original path (``advisor.model.tracker.LiveBytes.fast``): the same result and
    event log, byte for byte (tests/test_trace.py), more slowly."""
    if steps < 1:
        raise ValueError("steps must be at least 1")
    _torch()  # MissingExtra (the pilot extra) before anything imports torch
    if runtime == "hf":
        from advisor.hftrace import trace_hf

        return trace_hf(spec, arch, steps=steps, progress=progress, modes=modes, on_phase=on_phase, fast=fast)
    started = time.perf_counter()
    from advisor.model.tracker import LiveBytes

    tracker = LiveBytes(vocab=arch.vocab, fast=fast)
    built: dict = {}

    def on_built(model, optimizer, batch) -> None:
        built.update(model=model, optimizer=optimizer)
        tracker.label_model(model)
        tracker.label_optimizer(optimizer)

    listener = on_phase

    def mark(phase: str) -> None:
        if listener is not None:
            listener(phase)
        if phase == "optimizer":
            tracker.label_grads(built["model"])
        if phase == "done":
            tracker.label_optimizer(built["optimizer"])
            phase = "idle"
        tracker.set_phase(phase)

    # what was alive before the step (imported libraries) sits out of the collector's scans for
    # the trace, as in advisor.hftrace.trace_hf: automatic collections see only what the step makes
    gc.freeze()
    try:
        run_reference_step(spec, arch, modes=(tracker, *modes), steps=steps, on_phase=mark, on_built=on_built,
                           fake=fake, device=device, stack=stack)
    finally:
        gc.unfreeze()
    built.clear()
    tracker.settle()
    scale, notes = sharding_scale(spec)
    paged, paged_notes = outside_allocator(spec)
    replay = tracker.replay({**(scale or {}), **paged}, PHASES)
    return TraceResult(allocated_bytes=replay.peak_bytes, breakdown=replay.breakdown, by_phase=replay.by_phase,
                       baseline_bytes=replay.baseline_bytes, seconds=time.perf_counter() - started,
                       steps=steps, notes=notes + paged_notes, runtime="reference", tracker=tracker)


def run_reference_step(spec: FinetuneSpec, arch: Architecture, *, modes=(), steps: int = 1, on_phase=None,
                       on_built=None, fake: bool = True, device: str = "cpu", stack: StackProfile | None = None) -> None:
    """Build the reference decoder (advisor.model), its optimizer (state made) and batch for
    ``spec`` under ``FakeTensorMode`` (real tensors with ``fake=False``) and run ``steps``
    training steps: what ``trace_step`` measures, for callers that bring their own dispatch
    modes (a FLOP or byte counter). ``modes`` are entered after the fake mode, from the first
    parameter made; ``on_built(model, optimizer, batch)`` is called before the first phase and
    ``on_phase(phase)`` with "batch", "forward", "backward", "optimizer", "done" (as
    ``advisor.hftrace.run_hf_step`` does for the real stack)."""
    prof = stack or for_spec(spec)
    if prof.offload_checkpoints or prof.fused_loss:
        raise SpecError(f"The reference decoder does not run {'Liger' if prof.fused_loss == 'liger' else 'Unsloth'}'s "
                        "kernels (fused loss, offloaded checkpoints); the estimate models them from their source.")
    torch = _torch()
    import contextlib

    from torch._subclasses.fake_tensor import FakeTensorMode

    from advisor.model import build_model, make_optimizer, synthetic_batch, train_step

    mark = on_phase or (lambda _phase: None)
    with contextlib.ExitStack() as ctx:
        ctx.enter_context(torch.random.fork_rng(devices=[]))
        torch.manual_seed(0)
        if fake:
            ctx.enter_context(FakeTensorMode())
        for mode in modes:
            ctx.enter_context(mode)
        model = build_model(spec, arch, device, stack=stack)
        optimizer = make_optimizer(model, spec)
        warm_optimizer(torch, model, optimizer)
        mark("batch")
        batch = synthetic_batch(spec, arch, device, seed=0)
        if on_built is not None:
            on_built(model, optimizer, batch)
        inner = lambda phase: None if phase == "done" else mark(phase)  # noqa: E731
        for _ in range(steps):
            train_step(model, optimizer, batch, spec, on_phase=inner,
                       micro_batches=min(spec.gradient_accumulation_steps, 2))
            mark("done")  # after the step returned: its loss is gone, as the next step would replace it
        del model, optimizer, batch
