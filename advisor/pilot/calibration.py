"""Calibration from measured pilots: the ``advisor.throughput.Calibration`` protocol over the
results in the state database.

Only pilots that ran on the GPU they were for count (``on_target``: the device name and memory
match the catalog entry); a CPU pilot or a pilot that landed on another card measures nothing
about that GPU. Within those, the most recent ``MAX_PILOTS`` results are used.

Throughput: a pilot records how long each phase of its steps took (forward, backward, optimizer;
``advisor.pilot.runner``). The step-time model predicts the same phases for the same run
(``advisor.steptime``), class by class. ``step_factors`` finds one factor per operator class
(matmul, attention, dequantize, elementwise, loss, optimizer, overhead) that makes the model's
phases match the pilots' on this GPU, pulled towards 1 by a penalty (a pilot's three phases
cannot tell every class apart; the classes a phase spends its time in move most). The factors
apply to any model on that GPU: a pilot of an 8B LoRA on an A100 corrects the matmul and
attention efficiency the answer for a 70B QLoRA on the same A100 uses. Pilots that predate
per-phase timing count with their whole step.
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
FACTOR_BOUNDS = (0.2, 5.0)  # a measured class factor outside these is not believed
RIDGE = 0.02
"""Penalty on log(factor)^2 per fitted coordinate (a class; all classes as one when no pilot
timed its phases): small against a phase's squared log error (a pilot that is 20% off costs
0.033), so measurements win, but a class no phase depends on stays at 1."""
SWEEPS = 6


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


@dataclass(frozen=True)
class PhaseCase:
    """One pilot as the model sees it: predicted seconds per phase by class, and measured."""

    pilot_id: str
    gpu: dict[str, dict[str, float]]  # phase -> class -> GPU seconds at the fitted factors
    host: dict[str, dict[str, float]]  # phase -> class -> host seconds at the fitted factors
    measured: dict[str, float]  # phase -> seconds ("step" when phases were not timed)

    def predicted(self, m: dict[str, float]) -> dict[str, float]:
        out = {}
        ov = m.get("overhead", 1.0)
        dq = m.get("dequantize", 1.0)
        for phase in ("forward", "backward", "optimizer"):
            g = sum(t / m.get(c, 1.0) for c, t in self.gpu.get(phase, {}).items())
            h = sum(t / (dq if c == "dequantize" else 1.0) for c, t in self.host.get(phase, {}).items()) / ov
            out[phase] = max(g, h)
        out["step"] = sum(out.values())
        return out


def phase_case(row: dict, gpu) -> PhaseCase | None:
    """A stored pilot result as a PhaseCase, or None when it lacks what the model needs (the
    architecture, or any timing)."""
    from advisor.arch import Architecture
    from advisor.spec import FinetuneSpec

    result = row.get("result") or {}
    arch_json = result.get("architecture")
    if not arch_json:
        return None
    try:
        spec = FinetuneSpec.model_validate(row["spec"]).model_copy(update={"num_gpus": 1})
        arch = Architecture.model_validate(arch_json)
    except ValueError:
        return None
    runtime = (result.get("stack_ran") or {}).get("runtime") or row.get("runtime") or "reference"
    measured: dict[str, float] = {}
    phases = result.get("phase_mean_s") or {}
    if all(phases.get(p) for p in ("forward", "backward", "optimizer")):
        measured = {p: float(phases[p]) for p in ("forward", "backward", "optimizer")}
    else:
        mean = (result.get("step_time_s") or {}).get("mean")
        tps, tokens = result.get("tokens_per_s"), result.get("tokens_per_step")
        if not mean and tps and tokens:
            mean = tokens / tps
        if not mean:
            return None
        measured = {"step": float(mean)}
    priced = priced_case(spec, arch, gpu, runtime)
    return PhaseCase(pilot_id=row.get("pilot_id", ""), gpu=priced.gpu, host=priced.host, measured=measured)


def priced_case(spec, arch, gpu, runtime: str = "reference") -> PhaseCase:
    """The model's seconds per phase and class for a pilot of ``spec`` on ``arch`` and ``gpu``
    (one GPU, one micro-batch: what a pilot's step is) at the fitted factors, nothing measured.
    ``runtime``: the pilot's stack ("hf" runs transformers + PEFT, else the reference decoder)."""
    from advisor.steptime.kernels import profile
    from advisor.steptime.model import prepare
    from advisor.throughput import stack_factors

    kernels = profile("hf" if runtime == "hf" else "reference", compile=bool(getattr(spec, "compile", False)))
    factors = stack_factors(kernels.factors)
    comp = prepare(spec, arch, gpu, num_gpus=1, kernels=kernels).comp
    gpu_t: dict[str, dict[str, float]] = {}
    for (phase, cls), t in comp.gpu.items():
        gpu_t.setdefault(phase, {})[cls] = gpu_t.get(phase, {}).get(cls, 0.0) + t / factors.get(cls, 1.0)
    host_t: dict[str, dict[str, float]] = {}
    ov = factors.get("overhead", 1.0)
    for (phase, cls), t in comp.host.items():
        scale = ov * (factors.get("dequantize", 1.0) if cls == "dequantize" else 1.0)
        host_t.setdefault(phase, {})[cls] = host_t.get(phase, {}).get(cls, 0.0) + t / scale
    return PhaseCase(pilot_id="", gpu=gpu_t, host=host_t, measured={})


def fit_factors(cases: list[PhaseCase]) -> dict[str, float]:
    """Per-class factors (relative to the fitted table) that make the model's phases match the
    pilots' (least squares of log errors + RIDGE; coordinate descent, golden section).

    When no pilot timed its phases, the pilots' whole steps cannot tell one class from another:
    every class then gets the same factor (one number fitted, not seven)."""
    from advisor.steptime.classes import FITTED_CLASSES

    logm = {c: 0.0 for c in FITTED_CLASSES}
    lo, hi = math.log(FACTOR_BOUNDS[0]), math.log(FACTOR_BOUNDS[1])
    coords: list[tuple[str, ...]] = [(c,) for c in FITTED_CLASSES]
    if all(set(case.measured) == {"step"} for case in cases):
        coords = [tuple(FITTED_CLASSES)]

    def objective() -> float:
        m = {c: math.exp(v) for c, v in logm.items()}
        total = 0.0
        for case in cases:
            pred = case.predicted(m)
            for phase, meas in case.measured.items():
                if meas > 0 and pred[phase] > 0:
                    r = math.log(pred[phase] / meas)
                    total += r * r
        return total + RIDGE * sum(logm[coord[0]] ** 2 for coord in coords)

    g = (math.sqrt(5) - 1) / 2
    def put(coord: tuple[str, ...], v: float) -> None:
        for c in coord:
            logm[c] = v

    for _ in range(SWEEPS if len(coords) > 1 else 1):
        for coord in coords:
            a, b = lo, hi
            x1, x2 = b - g * (b - a), a + g * (b - a)
            put(coord, x1)
            f1 = objective()
            put(coord, x2)
            f2 = objective()
            for _ in range(30):
                if f1 < f2:
                    b, x2, f2 = x2, x1, f1
                    x1 = b - g * (b - a)
                    put(coord, x1)
                    f1 = objective()
                else:
                    a, x1, f1 = x1, x2, f2
                    x2 = a + g * (b - a)
                    put(coord, x2)
                    f2 = objective()
            put(coord, x1 if f1 < f2 else x2)
    return {c: math.exp(v) for c, v in logm.items()}


class PilotCalibration:
    """Measured step-time factors per GPU and reserved/allocated ratios, from pilots."""

    def __init__(self, store: PilotStore, max_pilots: int = MAX_PILOTS, cache_seconds: float = CACHE_SECONDS):
        self.store = store
        self.max_pilots = max_pilots
        self.cache_seconds = cache_seconds
        self._lock = threading.Lock()
        self._cached_at = -math.inf
        self._by_gpu: dict[str, list[dict]] = {}
        self._factors: dict[str, object] = {}

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
                self._by_gpu, self._cached_at, self._factors = by_gpu, now, {}
            return self._by_gpu.get(gpu_id, [])

    def _values(self, gpu_id: str, column: str, bounds: tuple[float, float], **where: str) -> list[float]:
        rows = [r for r in self._rows(gpu_id) if all(r.get(k) == v for k, v in where.items())][: self.max_pilots]
        lo, hi = bounds
        return [r[column] for r in rows if r[column] is not None and lo <= r[column] <= hi]

    def step_factors(self, gpu, stack: str | None = None):
        """Per-class factors pilots measured on ``gpu`` (a catalog Gpu), or None without a pilot
        the model can read. ``stack`` is accepted for the protocol: the factors are the GPU's,
        measured in each pilot's own stack and applied to any."""
        from advisor.throughput import MeasuredFactors

        rows = self._rows(gpu.id)[: self.max_pilots]
        key = gpu.id
        with self._lock:
            hit = self._factors.get(key)
        if hit is not None:
            return hit if hit != "none" else None
        cases = [c for c in (phase_case(r, gpu) for r in rows) if c is not None]
        out = None
        if cases:
            out = MeasuredFactors(gpu_id=gpu.id, factors=fit_factors(cases), pilots=len(cases))
        with self._lock:
            self._factors[key] = out if out is not None else "none"
        return out

    def mfu(self, gpu_id: str, method: str) -> tuple[float, int] | None:
        """(median measured efficiency, number of pilots) for a GPU and method, or None: what the
        pilots' history reports (the model itself uses ``step_factors``)."""
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
