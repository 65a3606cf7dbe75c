"""Reserved and device memory of a spec's run, from the trace and the allocator model (needs torch).

``simulate_reserved(spec, arch)`` traces the step (or reuses a trace already made at the spec's
length), replays ``steps`` micro-batches whose lengths follow ``spec.length_distribution``
(every batch ``seq_len`` long without one) with the default allocator settings and with
``expandable_segments:True``, and returns both (``ReservedSimulation``). ``device_bytes`` is
what nvidia-smi shows: reserved plus the CUDA context (``advisor.memory.CUDA_CONTEXT_BYTES``).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.allocator.config import AllocatorConfig
from advisor.allocator.lengths import batch_lengths
from advisor.allocator.program import trace_lengths, trace_program
from advisor.allocator.replay import RunResult, replay_run
from advisor.arch import Architecture
from advisor.spec import FinetuneSpec, LengthDistribution

DEFAULT_STEPS = 200
"""Micro-batches replayed: reserved memory stops growing once the longest batches have been
seen; 200 draws put the longest within the top 1% of the distribution with 87% probability."""


@dataclass(frozen=True)
class ReservedSimulation:
    run: RunResult  # the allocator settings asked for (default: PyTorch's)
    expandable: RunResult | None  # the same run with expandable_segments:True
    context_bytes: int
    lengths: list[int]  # each replayed micro-batch's padded length
    distribution: LengthDistribution | None  # None: every batch seq_len long

    @property
    def reserved_bytes(self) -> int:
        return self.run.reserved_bytes

    @property
    def device_bytes(self) -> int:
        return self.run.reserved_bytes + self.context_bytes

    def to_json(self) -> dict:
        out = {"reserved_bytes": self.reserved_bytes, "device_bytes": self.device_bytes,
               "allocator": {**self.run.to_json(), "variable_lengths": self.distribution is not None,
                             "longest_batch": max(self.lengths),
                             "mean_batch": round(sum(self.lengths) / len(self.lengths), 1)}}
        if self.expandable is not None:
            out["allocator"]["with_expandable_segments"] = {
                "reserved_bytes": self.expandable.reserved_bytes,
                "device_bytes": self.expandable.reserved_bytes + self.context_bytes,
                "slack": round(self.expandable.slack, 4)}
        return out


def simulate_reserved(spec: FinetuneSpec, arch: Architecture, *, trace=None, steps: int = DEFAULT_STEPS,
                      seed: int = 0, config: AllocatorConfig | None = None, capacity: int | None = None,
                      with_expandable: bool = True) -> ReservedSimulation:
    """See the module docstring. ``trace``: a ``TraceResult`` of ``spec`` at its own length (with
    its tracker), reused so only the extra lengths are traced."""
    dist = spec.length_distribution
    lengths = batch_lengths(dist, spec.seq_len, spec.micro_batch, steps, seed=seed)
    traced = {spec.seq_len: trace} if trace is not None else None
    if dist is None:
        program = trace_program(spec, arch, lengths=(spec.seq_len,), traced=traced)
    else:
        program = trace_program(spec, arch, lengths=trace_lengths(spec.seq_len, spec.stack), traced=traced)
    accumulation = getattr(spec, "gradient_accumulation_steps", 1) or 1
    config = config or AllocatorConfig()
    run = replay_run(program, lengths, accumulation=accumulation, config=config, capacity=capacity)
    expandable = None
    if with_expandable and not config.expandable_segments:
        expandable = replay_run(program, lengths, accumulation=accumulation, config=config.with_expandable(),
                                capacity=capacity)
    from advisor.memory import CUDA_CONTEXT_BYTES

    return ReservedSimulation(run=run, expandable=expandable, context_bytes=CUDA_CONTEXT_BYTES,
                              lengths=lengths, distribution=dist)
