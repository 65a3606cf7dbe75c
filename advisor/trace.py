"""Exact memory of training steps, traced with fake tensors (level 2 of docs/DESIGN.md's "three
levels of memory truth"). Needs the ``pilot`` extra (torch).

``trace_step`` builds the reference decoder (``advisor.model``) for the spec under
``FakeTensorMode`` on the ``cpu`` device (fake cuda crashes backward on CPU-only builds; meta
falls back to math attention with seq x seq scores), runs ``steps`` real training steps
(forward + loss, backward, optimizer step; the optimizer state appears in the first) and tracks
every live storage with ``advisor.model.tracker.LiveBytes``. Nothing is allocated for real.

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

import time
from dataclasses import dataclass, field

from advisor.arch import Architecture
from advisor.errors import MissingExtra
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile

SHARDED = ("weights", "quant_constants", "adapters", "master_weights", "gradients", "optimizer_states")
PHASES = ("forward", "backward", "optimizer")


@dataclass(frozen=True)
class TraceResult:
    allocated_bytes: int  # peak of live tensor bytes over the traced steps (torch "allocated")
    breakdown: dict[str, int]  # category -> bytes at the peak moment; sums to allocated_bytes
    by_phase: dict[str, int]  # phase -> peak bytes within it
    baseline_bytes: int  # model + batch before the first step
    seconds: float
    steps: int
    notes: list[str] = field(default_factory=list)
    tracker: object | None = field(default=None, repr=False, compare=False)
    """The ``advisor.model.tracker.LiveBytes`` that recorded the run: its alloc/free event log is
    what the allocator model (``advisor.allocator``) replays."""

    def to_json(self) -> dict:
        return {"allocated_bytes": self.allocated_bytes, "breakdown": dict(self.breakdown),
                "by_phase": dict(self.by_phase)}


def _torch():
    try:
        import torch  # noqa: PLC0415 - optional extra
    except ImportError:
        raise MissingExtra("the exact memory trace", "pilot", "torch") from None
    return torch


def trace_step(spec: FinetuneSpec, arch: Architecture, *, steps: int = 2, fake: bool = True,
               device: str = "cpu", stack: StackProfile | None = None) -> TraceResult:
    """Trace ``steps`` training steps of ``spec`` on ``arch``; see the module docstring.

    ``fake=False`` runs the same thing on real tensors (small shapes only; the tests use it to
    check that fake and real runs track the same bytes). ``stack`` overrides the profile named
    by ``spec.stack`` (to study one switch at a time)."""
    if steps < 1:
        raise ValueError("steps must be at least 1")
    torch = _torch()
    from torch._subclasses.fake_tensor import FakeTensorMode

    from advisor.model import build_model, make_optimizer, synthetic_batch, train_step
    from advisor.model.tracker import LiveBytes

    started = time.perf_counter()
    tracker = LiveBytes(vocab=arch.vocab)
    fake_mode = FakeTensorMode() if fake else None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        if fake_mode is not None:
            fake_mode.__enter__()
        try:
            with tracker:
                model = build_model(spec, arch, device, stack=stack)
                optimizer = make_optimizer(model, spec)
                tracker.label_model(model)
                tracker.set_phase("batch")
                batch = synthetic_batch(spec, arch, device, seed=0)

                def on_phase(phase: str) -> None:
                    if phase == "optimizer":
                        tracker.label_grads(model)
                    if phase == "done":
                        tracker.label_optimizer(optimizer)
                        phase = "idle"
                    tracker.set_phase(phase)

                for _ in range(steps):
                    train_step(model, optimizer, batch, spec, on_phase=on_phase)
                del model, optimizer, batch
        finally:
            if fake_mode is not None:
                fake_mode.__exit__(None, None, None)
    notes = []
    scale = None
    if spec.num_gpus > 1 and spec.sharding == "fsdp":
        scale = {c: 1.0 / spec.num_gpus for c in SHARDED}
        notes.append(f"FSDP over {spec.num_gpus} GPUs: parameters, gradients and optimizer states "
                     "divided by the GPU count (all-gather buffers not included)")
    replay = tracker.replay(scale, PHASES)
    return TraceResult(allocated_bytes=replay.peak_bytes, breakdown=replay.breakdown, by_phase=replay.by_phase,
                       baseline_bytes=replay.baseline_bytes, seconds=time.perf_counter() - started,
                       steps=steps, notes=notes, tracker=tracker)
