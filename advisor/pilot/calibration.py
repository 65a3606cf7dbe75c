"""Calibration from measured pilots: the ``advisor.throughput.Calibration`` protocol over the
results in the state database.

Only pilots that ran on the GPU they were for count (``on_target``: the device name and memory
match the catalog entry); a CPU pilot or a pilot that landed on another card measures nothing
about that GPU. Within those, the median is used (one slow outlier, a noisy neighbour on a shared
node, must not move the estimate), over the most recent ``MAX_PILOTS`` results.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from dataclasses import dataclass

from advisor.pilot.store import PilotStore

# The most recent pilots that count: a driver or stack upgrade changes efficiency, so old
# measurements should age out rather than dominate.
MAX_PILOTS = 20
# Plausible bounds of a measured figure; outside them a result is a measurement error (a pilot
# whose steps were dominated by something else), not a calibration.
EFFICIENCY_BOUNDS = (0.01, 1.0)
RESERVED_RATIO_BOUNDS = (1.0, 3.0)


@dataclass(frozen=True)
class CalibrationNote:
    gpu: str
    method: str
    pilots: int
    efficiency: float | None
    reserved_ratio: float | None


# How long the on-target results read from the state database are reused. One answer asks for
# the calibration of every GPU (34 look-ups); reading SQLite for each made an answer 5x dearer
# (benchmarks/load.py: 5 ms -> 23-30 ms of CPU per answer). A pilot's result shows up in answers
# at most this late.
CACHE_SECONDS = 2.0


class PilotCalibration:
    """Measured efficiency (MFU basis of ``advisor.throughput``) and reserved/allocated ratios."""

    def __init__(self, store: PilotStore, max_pilots: int = MAX_PILOTS, cache_seconds: float = CACHE_SECONDS):
        self.store = store
        self.max_pilots = max_pilots
        self.cache_seconds = cache_seconds
        self._lock = threading.Lock()
        self._cached_at = -math.inf
        self._by_gpu: dict[str, list[dict]] = {}

    def invalidate(self) -> None:
        """Forget the cached results (a pilot result was just recorded)."""
        with self._lock:
            self._cached_at = -math.inf

    def _rows(self, gpu_id: str) -> list[dict]:
        """On-target results of one GPU, newest first (all GPUs read in one query, then reused)."""
        with self._lock:
            now = time.monotonic()
            if now - self._cached_at > self.cache_seconds:
                by_gpu: dict[str, list[dict]] = {}
                for row in self.store.results(on_target_only=True, limit=100_000):
                    by_gpu.setdefault(row["gpu"], []).append(row)
                self._by_gpu, self._cached_at = by_gpu, now
            return self._by_gpu.get(gpu_id, [])

    def _values(self, gpu_id: str, column: str, bounds: tuple[float, float], **where: str) -> list[float]:
        rows = [r for r in self._rows(gpu_id) if all(r.get(k) == v for k, v in where.items())][: self.max_pilots]
        lo, hi = bounds
        return [r[column] for r in rows if r[column] is not None and lo <= r[column] <= hi]

    def mfu(self, gpu_id: str, method: str) -> tuple[float, int] | None:
        """(median measured efficiency, number of pilots) for a GPU and method, or None."""
        values = self._values(gpu_id, "efficiency", EFFICIENCY_BOUNDS, method=method)
        if not values:
            return None
        return statistics.median(values), len(values)

    def reserved_ratio(self, gpu_id: str, stack: str) -> float | None:
        """Median measured peak reserved / peak allocated for a GPU and stack, or None."""
        rows = self._rows(gpu_id)[: self.max_pilots]
        lo, hi = RESERVED_RATIO_BOUNDS
        values = [r["reserved_ratio"] for r in rows
                  if r["stack"] == stack and r["reserved_ratio"] is not None and lo <= r["reserved_ratio"] <= hi]
        return statistics.median(values) if values else None

    def note(self, gpu_id: str, method: str, stack: str) -> CalibrationNote | None:
        measured = self.mfu(gpu_id, method)
        ratio = self.reserved_ratio(gpu_id, stack)
        if measured is None and ratio is None:
            return None
        return CalibrationNote(gpu=gpu_id, method=method, pilots=measured[1] if measured else 0,
                               efficiency=measured[0] if measured else None, reserved_ratio=ratio)
