"""What pilots changed: the measured MFU per GPU against the prior the model had, and an estimate
re-run after a pilot against the one a thread was given. Numbers and codes only; the bot's
Home tab (bot/home.py) and the recalibration message (bot/pilot/recalibrate.py) word them
(advisor/i18n/home.py).

Measured vs prior MFU (``gpu_calibration``). Each on-target pilot result stores its measured
efficiency, executed FLOPs per second over the GPU's dense peak (advisor/pilot/runner.py
``Runner._result`` ``"efficiency"``), which ``PilotCalibration.mfu`` reports as the median of the
latest ``MAX_PILOTS``. The prior is what the step-time model predicts for the same pilot before
any pilot calibrates it: the pilot's phases priced at the fitted factors
(``advisor.pilot.calibration.phase_case(row, gpu).predicted({})``, the factors of 1 that
``fit_factors`` starts from). The same run does the same FLOPs either way, so efficiency scales as
1 / step time: ``prior = measured x measured_step / prior_step``, and the measured throughput is
``prior_step / measured_step`` times the prior's.

Re-estimate after a pilot (``compare_answers``): the thread's stored ``Answer`` and the same
request ranked again (``advisor.recommend`` through ``Advisor.estimate``) with the calibration that
now includes the pilot; the pilot's own measured tokens/s against the tokens/s its prediction
promised (``PilotRecord.prediction``, made by ``advisor.pilot.predict.predict`` when it was
proposed).
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

from advisor.answer_model import Answer, Option
from advisor.pilot.calibration import EFFICIENCY_BOUNDS, MAX_PILOTS, phase_case
from advisor.pilot.store import PilotRecord, PilotStore


@dataclass(frozen=True)
class GpuCalibration:
    """Measured vs prior efficiency of one GPU and method, from its on-target pilots."""

    gpu: str
    gpu_name: str
    method: str
    pilots: int  # on-target pilots with a plausible measured efficiency (the latest MAX_PILOTS)
    measured_mfu: float  # median measured efficiency
    prior_mfu: float | None  # median prior efficiency for the same pilots (None: no pilot the model can price)
    throughput_ratio: float | None  # median measured / prior throughput

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _measured_step(row: dict[str, Any]) -> float | None:
    result = row.get("result") or {}
    phases = result.get("phase_mean_s") or {}
    if all(phases.get(p) for p in ("forward", "backward", "optimizer")):
        return float(sum(phases[p] for p in ("forward", "backward", "optimizer")))
    mean = (result.get("step_time_s") or {}).get("mean")
    if not mean and result.get("tokens_per_s") and result.get("tokens_per_step"):
        mean = result["tokens_per_step"] / result["tokens_per_s"]
    return float(mean) if mean else None


def gpu_calibration(store: PilotStore, catalog) -> list[GpuCalibration]:
    """Per GPU and method with on-target pilots: how many, the measured MFU, the prior's."""
    by_key: dict[tuple[str, str], list[dict]] = {}
    for row in store.results(on_target_only=True, limit=100_000):  # newest first
        if row.get("gpu"):
            by_key.setdefault((row["gpu"], row["method"]), []).append(row)
    out = []
    lo, hi = EFFICIENCY_BOUNDS
    for (gpu_id, method), rows in sorted(by_key.items()):
        rows = [r for r in rows[:MAX_PILOTS] if r.get("efficiency") is not None and lo <= r["efficiency"] <= hi]
        if not rows:
            continue
        try:
            gpu = catalog.gpu(gpu_id)
        except LookupError:  # a GPU removed from the catalog since its pilots ran
            gpu = None
        priors, ratios = [], []
        for r in rows:
            case = phase_case(r, gpu) if gpu is not None else None
            measured = _measured_step(r)
            if case is None or not measured:
                continue
            prior_step = case.predicted({})["step"]
            if prior_step > 0:
                priors.append(r["efficiency"] * measured / prior_step)
                ratios.append(prior_step / measured)
        out.append(GpuCalibration(gpu=gpu_id, gpu_name=gpu.display_name if gpu else gpu_id, method=method,
                                  pilots=len(rows), measured_mfu=statistics.median(r["efficiency"] for r in rows),
                                  prior_mfu=statistics.median(priors) if priors else None,
                                  throughput_ratio=statistics.median(ratios) if ratios else None))
    return out


@dataclass(frozen=True)
class Plan:
    """An answer's plan on one GPU: what the thread showed or now shows."""

    gpu: str
    gpu_name: str
    num_gpus: int | None
    fits: bool
    tokens_per_s: float | None
    cost_usd: float | None  # to an accepted checkpoint
    price_per_million_tokens: float | None  # without a dataset size
    hours: float | None

    @classmethod
    def of(cls, option: Option) -> "Plan":
        return cls(gpu=option.gpu, gpu_name=option.gpu_name, num_gpus=option.num_gpus, fits=option.fits,
                   tokens_per_s=option.tokens_per_s, cost_usd=option.cost_usd,
                   price_per_million_tokens=option.price_per_million_tokens, hours=option.hours)


@dataclass(frozen=True)
class Recalibration:
    """The thread's estimate before and after a pilot (codes and numbers)."""

    pilot_id: str
    gpu: str  # the piloted GPU
    gpu_name: str
    measured_tokens_per_s: float | None
    predicted_tokens_per_s: float | None
    measured_ratio: float | None  # measured / predicted tokens/s of the pilot
    before: Plan | None  # the piloted GPU's plan in the stored answer
    after: Plan | None  # ... and re-estimated
    recommended_before: Plan | None
    recommended_after: Plan | None

    @property
    def recommendation_changed(self) -> bool:
        b, a = self.recommended_before, self.recommended_after
        return (b is None) != (a is None) or (b is not None and a is not None and (b.gpu, b.num_gpus) != (a.gpu, a.num_gpus))

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["recommendation_changed"] = self.recommendation_changed
        return out


def _plan(answer: Answer, gpu_id: str | None) -> Plan | None:
    if gpu_id is None:
        return None
    option = next((o for o in answer.options if o.gpu == gpu_id), None)
    return Plan.of(option) if option is not None else None


def compare_answers(rec: PilotRecord, before: Answer, after: Answer) -> Recalibration:
    """The stored answer against the re-estimate, for the GPU ``rec`` piloted."""
    result, prediction = rec.result or {}, rec.prediction or {}
    measured, predicted = result.get("tokens_per_s"), prediction.get("tokens_per_s")
    gpu = rec.pilot_spec.gpu or ""
    return Recalibration(pilot_id=rec.id, gpu=gpu, gpu_name=rec.pilot_spec.gpu_name or gpu,
                         measured_tokens_per_s=measured, predicted_tokens_per_s=predicted,
                         measured_ratio=measured / predicted if measured and predicted else None,
                         before=_plan(before, gpu), after=_plan(after, gpu),
                         recommended_before=_plan(before, before.recommended),
                         recommended_after=_plan(after, after.recommended))
