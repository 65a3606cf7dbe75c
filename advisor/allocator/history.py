"""Check the allocator model against a history PyTorch recorded, in torch's own snapshot format.

On a GPU, ``torch.cuda.memory._record_memory_history()`` then ``torch.cuda.memory._snapshot()``
returns ``{"segments": [...], "device_traces": [[entry, ...], ...]}``; each trace entry has an
``action`` (``alloc``, ``free_requested``, ``free_completed``, ``segment_alloc``,
``segment_free``, ``segment_map``, ``segment_unmap``, ``oom``, ...), an ``addr`` and a ``size``
(the requested size for allocations, CCA:1444-1450 and CCA:1494-1500; the segment size for
segment events, CCA:2714-2720). ``check_history`` feeds the recorded allocations and frees to
the model and compares what it decides with what the device did: the sequence of segment
events (sizes) and where each allocation landed inside its segment (the best-fit choice and
the split), so a pilot that records a history checks every rule at once.

``to_snapshot(allocator)`` writes the model's own state in the same format, which torch's
``torch.cuda._memory_viz`` (``segsum``, ``trace``, ``trace_plot``, ``segment_plot``) reads.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from advisor.allocator.caching import CachingAllocator
from advisor.allocator.config import AllocatorConfig

SEGMENT_ACTIONS = ("segment_alloc", "segment_free", "segment_map", "segment_unmap")


@dataclass(frozen=True)
class HistoryCheck:
    """How a recorded history compares with the model's decisions for the same requests."""

    allocations: int
    recorded_segments: list[tuple[str, int]]  # (action, size) in order
    simulated_segments: list[tuple[str, int]]
    offset_mismatches: list[tuple[int, int, int]] = field(default_factory=list)  # (alloc #, recorded, simulated)

    @property
    def segments_match(self) -> bool:
        return self.recorded_segments == self.simulated_segments

    @property
    def matches(self) -> bool:
        return self.segments_match and not self.offset_mismatches

    def first_difference(self) -> str | None:
        for i, (a, b) in enumerate(zip(self.recorded_segments, self.simulated_segments)):
            if a != b:
                return f"segment event {i}: recorded {a[0]} of {a[1]} bytes, the model did {b[0]} of {b[1]} bytes"
        if len(self.recorded_segments) != len(self.simulated_segments):
            n = min(len(self.recorded_segments), len(self.simulated_segments))
            return (f"after {n} matching segment events: recorded {len(self.recorded_segments)} in all, "
                    f"the model {len(self.simulated_segments)}")
        if self.offset_mismatches:
            i, rec, sim = self.offset_mismatches[0]
            return f"allocation {i}: recorded at offset {rec} of its segment, the model placed it at {sim}"
        return None


class _Segments:
    """Address -> (segment base) lookup over a trace's segment events, as they happen."""

    def __init__(self):
        self.bases: list[int] = []
        self.sizes: dict[int, int] = {}

    def add(self, addr: int, size: int) -> None:
        i = bisect_right(self.bases, addr)
        self.bases.insert(i, addr)
        self.sizes[addr] = size

    def remove(self, addr: int) -> None:
        i = bisect_right(self.bases, addr) - 1
        if i >= 0 and self.bases[i] == addr:
            self.bases.pop(i)
            self.sizes.pop(addr, None)

    def offset(self, addr: int) -> int | None:
        i = bisect_right(self.bases, addr) - 1
        if i < 0:
            return None
        base = self.bases[i]
        return addr - base if addr < base + self.sizes[base] else None


def check_history(device_trace: list[dict], config: AllocatorConfig | None = None, *,
                  capacity: int | None = None) -> HistoryCheck:
    """Replay a recorded ``device_traces[d]`` through the model (see the module docstring).

    Offsets are compared for cudaMalloc'd segments (an expandable segment's mapped ranges are
    compared by their map/unmap events only)."""
    sim = CachingAllocator(config, capacity=capacity, record=True)
    rec_segs, sim_segs = _Segments(), _Segments()
    ptr_of: dict[int, int] = {}
    mismatches: list[tuple[int, int, int]] = []
    n_alloc = 0
    seen_sim = 0
    for entry in device_trace:
        action = entry.get("action")
        if action == "segment_alloc":
            rec_segs.add(entry["addr"], entry["size"])
        elif action == "segment_free":
            rec_segs.remove(entry["addr"])
        elif action == "alloc":
            ptr = sim.malloc(entry["size"])
            ptr_of[entry["addr"]] = ptr
            for e in sim.trace[seen_sim:]:  # the model's segment events so far
                if e["action"] == "segment_alloc":
                    sim_segs.add(e["addr"], e["size"])
                elif e["action"] == "segment_free":
                    sim_segs.remove(e["addr"])
            seen_sim = len(sim.trace)
            rec_off, sim_off = rec_segs.offset(entry["addr"]), sim_segs.offset(ptr)
            if rec_off is not None and sim_off is not None and rec_off != sim_off:
                mismatches.append((n_alloc, rec_off, sim_off))
            n_alloc += 1
        elif action == "free_requested":
            ptr = ptr_of.pop(entry["addr"], None)
            if ptr is not None:
                sim.free(ptr)
    recorded = [(e["action"], e["size"]) for e in device_trace if e.get("action") in SEGMENT_ACTIONS]
    simulated = [(e["action"], e["size"]) for e in sim.trace if e["action"] in SEGMENT_ACTIONS]
    return HistoryCheck(allocations=n_alloc, recorded_segments=recorded, simulated_segments=simulated,
                        offset_mismatches=mismatches)


def to_snapshot(allocator: CachingAllocator) -> dict:
    """The model's state and trace as ``torch.cuda.memory._snapshot()`` returns them."""
    return {"segments": allocator.snapshot(), "device_traces": [list(allocator.trace)]}
