""""Verify exactly": the exact fake-tensor trace of one training step (advisor.trace) next to the
analytic estimate (advisor.memory) for the same resolved spec. Needs the ``pilot`` extra (torch);
without it the person reads advisor.errors.MissingExtra's message."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from advisor.catalog import Catalog
from advisor.errors import MissingExtra
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest

FEATURE = "Verify exactly (the exact memory trace)"


@dataclass(frozen=True)
class Comparison:
    model: str
    num_gpus: int
    estimate_terms: dict[str, int]
    estimate_allocated: int
    trace_terms: dict[str, int]
    trace_allocated: int
    trace_phase: str | None
    seconds: float
    estimate_reserved: int | None = None  # the closed form (advisor.allocator.closed_form)
    trace_reserved: int | None = None  # the caching allocator replayed over the run (advisor.allocator)
    trace_segments: int | None = None

    @property
    def relative_error(self) -> float:
        """(estimate - trace) / trace: positive when the estimate is above the exact figure."""
        return (self.estimate_allocated - self.trace_allocated) / self.trace_allocated if self.trace_allocated else 0.0


def compare(request: SpecRequest, catalog: Catalog) -> Comparison:
    """Trace and estimate the request as the answer resolved it (same spec, same architecture)."""
    from advisor.memory import estimate_memory

    resolved = resolve_request(request, catalog)
    trace_step = _trace_step()
    start = time.perf_counter()
    try:
        result = trace_step(resolved.spec, resolved.arch)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "torch":
            raise MissingExtra(FEATURE, "pilot", "torch") from None
        raise
    seconds = time.perf_counter() - start
    estimate = estimate_memory(resolved.spec, resolved.arch)
    terms, allocated, phase, traced_seconds = trace_figures(result)
    from advisor.allocator.simulate import simulate_reserved

    reserved = simulate_reserved(resolved.spec, resolved.arch, trace=result, with_expandable=False).run
    return Comparison(model=resolved.label, num_gpus=resolved.spec.num_gpus, estimate_terms=dict(estimate.terms),
                      estimate_allocated=estimate.allocated_bytes, trace_terms=terms, trace_allocated=allocated,
                      trace_phase=phase, seconds=traced_seconds if traced_seconds is not None else seconds,
                      estimate_reserved=estimate.reserved_bytes, trace_reserved=reserved.reserved_bytes,
                      trace_segments=reserved.segments)


def _trace_step() -> Any:
    try:
        import torch  # noqa: F401  (the trace needs it; say so before importing the tracer)
    except ModuleNotFoundError:
        raise MissingExtra(FEATURE, "pilot", "torch") from None
    from advisor.trace import trace_step

    return trace_step


def trace_figures(result: Any) -> tuple[dict[str, int], int, str | None, float | None]:
    """(terms at the peak, allocated peak, peak phase, seconds) of an advisor.trace result."""
    terms = dict(_first(result, "terms", "breakdown", "categories") or {})
    allocated = _first(result, "allocated_bytes", "peak_bytes", "peak_allocated_bytes")
    if allocated is None:
        allocated = sum(terms.values())
    phase = _first(result, "peak_phase", "phase")
    by_phase = _first(result, "by_phase")
    if phase is None and by_phase:
        phase = max(by_phase, key=by_phase.get)
    return ({k: int(v) for k, v in terms.items()}, int(allocated), phase,
            _first(result, "seconds", "elapsed_s", "wall_seconds"))


def _first(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if value is not None:
            return value
    return None
