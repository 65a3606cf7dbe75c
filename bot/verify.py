""""Verify exactly": the exact fake-tensor trace of one training step (advisor.trace) next to the
analytic estimate (advisor.memory) for the same resolved spec. Needs the ``pilot`` extra (torch);
without it the person reads advisor.errors.MissingExtra's message."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from advisor.catalog import Catalog
from advisor.errors import MissingExtra
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest

FEATURE = "Verify exactly (the exact memory trace)"

logger = logging.getLogger(__name__)

# chat.update is a Tier 3 Web API method: 50+ calls per minute, per method, per app, per workspace
# (api.slack.com/methods/chat.update, "Rate limits: Tier 3"; the tiers: api.slack.com/apis/rate-limits).
# A trace edits its placeholder at most once per this interval (20 a minute), so the heavy workers
# (ADVISOR_BOT_HEAVY_WORKERS, default 1) and the pilot status edits stay under the tier together.
DEFAULT_EDIT_INTERVAL_S = 3.0

# The phases a trace goes through, in order: the codes bot/render/verify.py words
# (advisor/i18n/verify.py). "batch" ... "optimizer" are the traced step's own marks (advisor.trace
# ``on_phase``; advisor.hftrace.run_hf_step for the hf runtime).
PHASES = ("resolve", "build", "batch", "forward", "backward", "optimizer", "estimate", "allocator")


class TraceProgress:
    """The phases of one trace, edited into its placeholder as they start: at most one edit per
    ``interval_s`` (a phase that starts sooner is not shown; the next one or the result follows),
    the first at once. A failed edit (a 429 past the client's retries, a network error) is logged
    and skipped: progress never stops the trace."""

    def __init__(self, edit: Callable[[str], None], interval_s: float = DEFAULT_EDIT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic):
        self._edit, self.interval_s, self._clock = edit, interval_s, clock
        self._last: float | None = None
        self.shown: list[str] = []

    def __call__(self, phase: str) -> None:
        now = self._clock()
        if self._last is not None and now - self._last < self.interval_s:
            return
        self._last = now
        try:
            self._edit(phase)
            self.shown.append(phase)
        except Exception:
            logger.warning("could not edit the trace's placeholder with phase %s", phase, exc_info=True)


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


def compare(request: SpecRequest, catalog: Catalog, on_progress: Callable[[str], None] | None = None) -> Comparison:
    """Trace and estimate the request as the answer resolved it (same spec, same architecture).
    ``on_progress(phase)`` is called as each of ``PHASES`` starts (a traced step's phases once:
    the first step's)."""
    from advisor.memory import estimate_memory

    say = on_progress or (lambda _phase: None)
    say("resolve")
    resolved = resolve_request(request, catalog)
    trace_step = _trace_step()
    seen: set[str] = set()

    def on_phase(phase: str) -> None:
        if phase in PHASES and phase not in seen:
            seen.add(phase)
            say(phase)

    start = time.perf_counter()
    say("build")
    try:
        result = trace_step(resolved.spec, resolved.arch, on_phase=on_phase)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "torch":
            raise MissingExtra(FEATURE, "pilot", "torch") from None
        raise
    seconds = time.perf_counter() - start
    say("estimate")
    estimate = estimate_memory(resolved.spec, resolved.arch)
    terms, allocated, phase, traced_seconds = trace_figures(result)
    from advisor.allocator.simulate import simulate_reserved

    say("allocator")
    reserved = simulate_reserved(resolved.spec, resolved.arch, trace=result, with_expandable=False).run
    return Comparison(model=resolved.label, num_gpus=resolved.spec.num_gpus, estimate_terms=dict(estimate.terms),
                      estimate_allocated=estimate.allocated_bytes, trace_terms=terms, trace_allocated=allocated,
                      trace_phase=phase, seconds=traced_seconds if traced_seconds is not None else seconds,
                      estimate_reserved=estimate.reserved_bytes, trace_reserved=reserved.reserved_bytes,
                      trace_segments=reserved.segments)


def _trace_step() -> Any:
    from importlib.util import find_spec

    if find_spec("torch") is None:  # the trace needs it: say so before importing the tracer
        raise MissingExtra(FEATURE, "pilot", "torch")
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
