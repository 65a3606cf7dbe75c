"""Pilots close the loop: a pilot's per-phase step times correct the efficiency of the operator
classes those phases spend their time in, on that GPU, for any model.

The pilots here are what a GPU would have measured if its efficiency per class differed from
the fitted table by known factors (TRUE): the model's own phases at those factors. That isolates
the mechanism the issue asks for (per-class factors learned from one model's phases carry to
another model); whether the model's phases are right on a real GPU is what pilots measure and
cannot be run here (no GPU)."""

from __future__ import annotations

import pytest

from advisor.pilot.calibration import PilotCalibration, fit_factors, phase_case, priced_case
from advisor.pilot.launchers.base import PilotHandle, PilotStatus
from advisor.pilot.store import PilotStore
from advisor.throughput import MeasuredFactors, estimate_throughput
from tests.pilot_helpers import tiny_pilot

pytestmark = pytest.mark.torch

# the GPU is slower than the table on matmuls and on the optimizer step, faster on element-wise work
TRUE = {"matmul": 0.7, "attention": 1.0, "dequantize": 1.0, "elementwise": 1.3, "loss": 1.0, "optimizer": 0.5,
        "overhead": 1.0}


class Truth:
    """The hypothetical GPU's real efficiency, as a Calibration."""

    def __init__(self, factors):
        self.factors = factors

    def step_factors(self, gpu, stack):
        return MeasuredFactors(gpu_id=gpu.id, factors=dict(self.factors), pilots=1)

    def reserved_ratio(self, gpu_id, stack):
        return None


def _pilot(tmp_path, name, gpu="a100", **fields):
    fields = {"precision": "bf16-mixed", "micro_batch": 1, **fields}
    return tiny_pilot(tmp_path / name, pilot_id=name, gpu=gpu, **fields)


def _row(pspec, runtime="reference"):
    """A pilot_results row as PilotStore.results returns it (before a result is attached)."""
    return {"pilot_id": pspec.pilot_id, "spec": pspec.spec.model_dump(mode="json"), "runtime": runtime,
            "result": {"architecture": pspec.arch.model_dump(mode="json"), "stack_ran": {"runtime": runtime}}}


def _measured(pspec, gpu, factors, phases=True):
    """What a pilot of ``pspec`` measures on a GPU whose class efficiencies are ``factors``
    times the table: the result fields the runner writes."""
    t = priced_case(pspec.spec, pspec.arch, gpu).predicted(factors)
    tokens = pspec.spec.seq_len * pspec.spec.micro_batch
    result = {"device": "cuda", "on_target_gpu": True, "tokens_per_s": tokens / t["step"],
              "tokens_per_step": tokens, "step_time_s": {"mean": t["step"]}, "efficiency": 0.3, "mfu": 0.3,
              "memory": {"peak_allocated_bytes": 100, "peak_reserved_bytes": 108, "reserved_over_allocated": 1.08},
              "checkpoint": {"save_s": 1.0, "bytes": 10}, "environment": {"gpu_name": "NVIDIA A100-SXM4-80GB"},
              "architecture": pspec.arch.model_dump(mode="json"), "stack_ran": {"runtime": "reference"}}
    if phases:
        result["phase_mean_s"] = {p: t[p] for p in ("forward", "backward", "optimizer")}
        result["phase_source"] = "cuda events"
    return result


def _record(store, pspec, result):
    store.create(pspec, launcher="local", state="pending")
    store.update(pspec.pilot_id, handle=PilotHandle(pilot_id=pspec.pilot_id, launcher="local", submitted_at=0, ref={}))
    store.apply_status(pspec.pilot_id, PilotStatus(state="finished", result=result, events=3))


def _error(tp, truth):
    return abs(tp.tokens_per_s / truth.tokens_per_s - 1)


def test_the_model_at_unit_factors_reproduces_a_pilot_of_its_own_phases(tmp_path, catalog):
    gpu = catalog.gpu("a100")
    pspec = _pilot(tmp_path, "p-self", model="llama-3.2-1b", method="lora", seq_len=1024)
    case = priced_case(pspec.spec, pspec.arch, gpu)
    assert set(case.gpu) == {"forward", "backward", "optimizer"}
    same = {c: 1.0 for c in TRUE}
    assert case.predicted(same)["step"] == pytest.approx(sum(case.predicted(same)[p] for p in case.gpu))


def test_a_pilot_on_one_model_corrects_another_model_on_the_same_gpu(tmp_path, catalog):
    """Pilots of a 1B LoRA (full fine-tune too: its optimizer phase is long enough to read) on an
    A100 bring the answer for an 8B QLoRA at 4096 tokens, which no pilot ran, near the truth."""
    gpu = catalog.gpu("a100")
    store = PilotStore(tmp_path / "s.db")
    for name, fields in (("p-lora", dict(model="llama-3.2-1b", method="lora", seq_len=1024)),
                         ("p-full", dict(model="llama-3.2-1b", method="full", seq_len=512))):
        pspec = _pilot(tmp_path, name, **fields)
        _record(store, pspec, _measured(pspec, gpu, TRUE))
    cal = PilotCalibration(store)
    target = _pilot(tmp_path, "target", model="llama-3.1-8b", method="qlora", seq_len=4096)
    prior = estimate_throughput(target.spec, target.arch, gpu)
    truth = estimate_throughput(target.spec, target.arch, gpu, calibration=Truth(TRUE))
    calibrated = estimate_throughput(target.spec, target.arch, gpu, calibration=cal)
    assert (calibrated.efficiency.source, calibrated.efficiency.pilots) == ("calibrated", 2)
    assert _error(prior, truth) > 0.15  # the table alone is off on this GPU
    assert _error(calibrated, truth) < 0.3 * _error(prior, truth)
    # three phases of two pilots do not pin seven classes down; the ones the error sits in move
    measured = cal.step_factors(gpu, "hf").factors
    assert measured["matmul"] < 0.9 and measured["optimizer"] < 0.8


def test_a_pilot_calibrates_only_its_own_gpu(tmp_path, catalog):
    a100, h100 = catalog.gpu("a100"), catalog.gpu("h100-sxm")
    store = PilotStore(tmp_path / "s.db")
    pspec = _pilot(tmp_path, "p-a100", model="llama-3.2-1b", method="lora", seq_len=1024)
    _record(store, pspec, _measured(pspec, a100, TRUE))
    cal = PilotCalibration(store)
    assert cal.step_factors(h100, "hf") is None
    target = _pilot(tmp_path, "target", gpu="h100-sxm", model="llama-3.1-8b", method="lora", seq_len=2048)
    assert estimate_throughput(target.spec, target.arch, h100, calibration=cal).tokens_per_s == pytest.approx(
        estimate_throughput(target.spec, target.arch, h100).tokens_per_s)


def test_a_pilot_without_phase_times_still_moves_the_whole_step(tmp_path, catalog):
    """Results recorded before per-phase timing (or a runtime that cannot mark phases) count
    with their whole step: one factor for every class, and the estimate moves to the truth."""
    gpu = catalog.gpu("a100")
    store = PilotStore(tmp_path / "s.db")
    pspec = _pilot(tmp_path, "p-old", model="llama-3.2-1b", method="lora", seq_len=1024)
    slow = {c: 0.6 for c in TRUE}
    _record(store, pspec, _measured(pspec, gpu, slow, phases=False))
    target = _pilot(tmp_path, "target", model="llama-3.1-8b", method="lora", seq_len=2048)
    prior = estimate_throughput(target.spec, target.arch, gpu)
    truth = estimate_throughput(target.spec, target.arch, gpu, calibration=Truth(slow))
    calibrated = estimate_throughput(target.spec, target.arch, gpu, calibration=PilotCalibration(store))
    factors = PilotCalibration(store).step_factors(gpu, "hf").factors.values()
    assert all(v == pytest.approx(0.6, rel=0.02) for v in factors)
    assert calibrated.tokens_per_s < prior.tokens_per_s
    assert _error(calibrated, truth) < 0.1 * _error(prior, truth)


def test_a_result_without_an_architecture_or_timing_is_not_a_calibration(tmp_path, catalog):
    gpu = catalog.gpu("a100")
    pspec = _pilot(tmp_path, "p-x", model="llama-3.2-1b", method="lora", seq_len=256)
    row = _row(pspec)
    assert phase_case({**row, "result": {}}, gpu) is None
    assert phase_case(row, gpu) is None  # no step time, no phase times


def test_agreeing_pilots_leave_the_factors_at_one(tmp_path, catalog):
    gpu = catalog.gpu("a100")
    pspec = _pilot(tmp_path, "p-ok", model="llama-3.2-1b", method="lora", seq_len=1024)
    row = _row(pspec)
    row["result"] = _measured(pspec, gpu, {c: 1.0 for c in TRUE})
    factors = fit_factors([phase_case(row, gpu)])
    assert all(v == pytest.approx(1.0, abs=0.02) for v in factors.values())


def test_pilot_history_shows_the_factors_each_gpu_gets(tmp_path, catalog, cli):
    import json

    gpu = catalog.gpu("a100")
    store = PilotStore(tmp_path / "s.db")
    pspec = _pilot(tmp_path, "p-hist", model="llama-3.2-1b", method="lora", seq_len=1024)
    _record(store, pspec, _measured(pspec, gpu, TRUE))
    out = json.loads(cli("pilot", "history", "--json", "--state-db", str(tmp_path / "s.db")).output)
    assert out["step_factors"]["a100-80gb"]["pilots"] == 1
    assert out["step_factors"]["a100-80gb"]["factors"]["matmul"] < 0.95
    text = cli("pilot", "history", "--state-db", str(tmp_path / "s.db")).output
    assert "step time on a100-80gb from 1 pilots" in text


def test_the_pilot_prediction_has_the_phases_the_pilot_times(tmp_path, catalog):
    from advisor.pilot.predict import compare, predict

    gpu = catalog.gpu("a100")
    pspec = _pilot(tmp_path, "p-pred", model="llama-3.2-1b", method="lora", seq_len=1024)
    pred = predict(pspec, gpu)
    assert set(pred["phase_s"]) == {"forward", "backward", "optimizer"}
    assert pred["step_s"] == pytest.approx(sum(pred["phase_s"].values()))
    assert pred["tokens_per_s"] == pytest.approx(1024 / pred["step_s"])
    assert sum(pred["step_breakdown"].values()) == pytest.approx(1.0, abs=1e-6)
    measured = _measured(pspec, gpu, TRUE)
    rows = {r["metric"]: r for r in compare(pred, measured)}
    assert rows["backward_s"]["measured"] == measured["phase_mean_s"]["backward"]
    assert rows["backward_s"]["error"] == pytest.approx(
        pred["phase_s"]["backward"] / measured["phase_mean_s"]["backward"] - 1)
    off_target = {r["metric"]: r for r in compare(pred, {**measured, "on_target_gpu": False})}
    assert off_target["forward_s"]["error"] is None
