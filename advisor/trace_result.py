"""What both exact traces share (advisor.trace for the reference decoder, advisor.hftrace for the
real transformers + PEFT stack): the result, the sharding scale, the optimizer warm-up and the
categories kept outside torch's allocator. Its own module so that advisor.trace (which
dispatches ``runtime="hf"`` to advisor.hftrace) and advisor.hftrace do not import each other;
advisor.trace re-exports every name."""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.spec import FinetuneSpec

SHARDED = ("weights", "quant_constants", "adapters", "master_weights", "gradients", "optimizer_states")
PHASES = ("forward", "backward", "optimizer")


@dataclass(frozen=True)
class TraceResult:
    allocated_bytes: int  # peak of live tensor bytes over the traced steps (torch "allocated")
    breakdown: dict[str, int]  # category -> bytes at the peak moment; sums to allocated_bytes
    by_phase: dict[str, int]  # phase -> peak bytes within it
    baseline_bytes: int  # model + optimizer state + batch before the first phase
    seconds: float
    steps: int
    notes: list[str] = field(default_factory=list)
    runtime: str = "reference"  # "reference" (advisor.model) or "hf" (advisor.hftrace)
    versions: dict[str, str] = field(default_factory=dict)  # libraries the traced step ran on
    tracker: object | None = field(default=None, repr=False, compare=False)
    """The ``advisor.model.tracker.LiveBytes`` that recorded the run: its alloc/free event log
    (``tracker.event_log()``: one event per allocation or free, with size, phase and category)
    is what an allocator model replays."""

    def to_json(self) -> dict:
        return {"allocated_bytes": self.allocated_bytes, "breakdown": dict(self.breakdown),
                "by_phase": dict(self.by_phase), "baseline_bytes": self.baseline_bytes}

    def event_log(self) -> list:
        """The tracker's events (``advisor.model.tracker.Event``), in order; empty without one."""
        return self.tracker.event_log() if self.tracker is not None else []


def sharding_scale(spec: FinetuneSpec) -> tuple[dict[str, float] | None, list[str]]:
    """Per-category byte scale of one GPU's share under sharding, and the note saying so."""
    n = spec.num_gpus
    if n <= 1 or spec.sharding == "ddp":
        return None, []
    if spec.sharding == "zero2":  # DeepSpeed ZeRO-2: gradients and optimizer states partitioned
        shard = ("master_weights", "gradients", "optimizer_states")
    else:  # FSDP full shard and ZeRO-3: parameters too
        shard = SHARDED
    note = (f"{spec.sharding.upper()} over {n} GPUs: {', '.join(c.replace('_', ' ') for c in shard)} divided by "
            "the GPU count (all-gather and reduce-scatter buffers not included)")
    return {c: 1.0 / n for c in shard}, [note]


def warm_optimizer(torch, model, optimizer) -> None:
    """Create the optimizer state as the first real step does: zero gradients, one step, then
    ``zero_grad(set_to_none=True)`` (shared by both traces; an optimizer fused into backward
    gets one step per parameter)."""
    per_param = getattr(optimizer, "optimizers", None)
    for p in model.parameters():
        if p.requires_grad:
            p.grad = torch.zeros_like(p)
            if per_param is not None:
                per_param[p].step()
                per_param[p].zero_grad(set_to_none=True)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def outside_allocator(spec: FinetuneSpec) -> tuple[dict[str, float], list[str]]:
    """Categories a GPU run keeps outside torch's caching allocator: paged optimizer states
    live in CUDA unified memory (bitsandbytes paged optimizers, cudaMallocManaged)."""
    if spec.optimizer == "paged-adamw-8bit":
        return {"optimizer_states": 0.0}, ["paged 8-bit optimizer states live in CUDA unified memory, outside "
                                           "torch's allocator: not in the allocated peak (they are in the device total)"]
    return {}, []
