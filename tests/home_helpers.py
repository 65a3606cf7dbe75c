"""Pilot records for the Home tab, spend and recalibration tests, written through the pilot store's
own API (create, the confirmation's fields, a handle, ``apply_status``), as the flow and the
launchers write them.

No GPU runs here, so a pilot "measured on a GPU" is what that GPU would have measured if its
efficiency differed from the fitted table by ``speedup`` in every operator class: the model's own
phases at those factors (the construction tests/test_pilot_calibration.py uses). That isolates the
mechanism under test (calibration moves the thread's estimate); whether the model's phases are
right on a real GPU is what real pilots measure, and needs a GPU."""

from __future__ import annotations

import time

from advisor.catalog import Catalog
from advisor.pilot.calibration import priced_case
from advisor.pilot.launchers.base import PilotHandle, PilotStatus
from advisor.pilot.predict import predict
from advisor.pilot.spec import pilot_spec_for
from advisor.pilot.store import PilotRecord, PilotStore
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from advisor.steptime.classes import FITTED_CLASSES
from advisor.throughput import flops_per_token

_catalog = Catalog.in_memory()
GPU_NAMES = {"a100": "NVIDIA A100-SXM4-80GB", "h100": "NVIDIA H100 80GB HBM3", "l40s": "NVIDIA L40S",
             "rtx4090": "NVIDIA GeForce RTX 4090"}


def _pspec(pilot_id: str, gpu_id: str, model: str, seq: int, method: str = "lora", device: str = "auto"):
    request = SpecRequest(method=method, model=model, seq_len=seq, micro_batch=1, precision="bf16-mixed")
    return pilot_spec_for(resolve_request(request, _catalog), _catalog.gpu(gpu_id), steps=3, pilot_id=pilot_id,
                          device=device)


def measured_on_gpu(pspec, gpu, speedup: float) -> dict:
    """The result fields the runner writes for a pilot whose GPU runs every class ``speedup``
    times as fast as the fitted table says."""
    t = priced_case(pspec.spec, pspec.arch, gpu).predicted({c: speedup for c in FITTED_CLASSES})
    tokens = pspec.spec.seq_len * pspec.spec.micro_batch
    tps = tokens / t["step"]
    flops = flops_per_token(pspec.spec, pspec.arch)
    peak = pspec.gpu_peak_tflops
    return {"device": "cuda", "on_target_gpu": True, "tokens_per_s": tps, "tokens_per_step": tokens,
            "step_time_s": {"mean": t["step"], "cv": 0.01},
            "phase_mean_s": {p: t[p] for p in ("forward", "backward", "optimizer")}, "phase_source": "cuda events",
            "efficiency": flops.executed * tps / 1e12 / peak, "mfu": flops.model * tps / 1e12 / peak,
            "memory": {"source": "torch.cuda", "peak_allocated_bytes": 6 * 2**30, "peak_reserved_bytes": 7 * 2**30,
                       "reserved_over_allocated": 7 / 6},
            "checkpoint": {"save_s": 1.0, "bytes": 10_000_000, "kind": "adapter", "manifest": "manifest.json"},
            "environment": {"gpu_name": GPU_NAMES.get(gpu.id, gpu.display_name)},
            "architecture": pspec.arch.model_dump(mode="json"), "stack_ran": {"runtime": "reference"},
            "steps": {"warmup": 2, "measured": 3}, "spec": pspec.spec.model_dump(mode="json"), "notes": []}


def seed_pilot(store: PilotStore, pilot_id: str, *, user: str, state: str = "finished", gpu_id: str = "a100",
               launcher: str = "ray", held_s: float = 600.0, speedup: float = 1.4, model: str = "llama-3.2-1b",
               seq: int = 1024, channel: str | None = None, thread_ts: str | None = None, lang: str = "en",
               reason: str | None = None, device: str = "auto", started: bool = True) -> PilotRecord:
    """A confirmed pilot that held its node ``held_s`` seconds and ended ``state`` (finished on
    the GPU it was for, or failed with ``reason``), through the store's API. Never active, so a
    running bot's watcher leaves it to the store (it only posts the end of one with a thread)."""
    gpu = _catalog.gpu(gpu_id)
    pspec = _pspec(pilot_id, gpu_id, model, seq, device=device)
    prediction = predict(pspec, gpu)  # what the flow stores when it proposes (no calibration yet)
    store.create(pspec, launcher=launcher, requested_by=user, channel=channel, thread_ts=thread_ts, lang=lang,
                 prediction=prediction, estimated_cost_usd=prediction["cost_usd"],
                 estimated_duration_s=prediction["duration_s"])
    fields = {"confirmed_by": user, "confirmed_at": time.time() - held_s}
    if started:
        fields["handle"] = PilotHandle(pilot_id=pilot_id, launcher=launcher, submitted_at=time.time() - held_s,
                                       ref={"job": f"raysubmit_{pilot_id}"} if launcher == "ray" else {"pid": 1})
    store.update(pilot_id, **fields)
    if state == "finished":
        result = measured_on_gpu(pspec, gpu, speedup)
        if device == "cpu":  # what a CPU pilot reports: it calibrates nothing (advisor.pilot.spec.matches_gpu)
            result.update(device="cpu", on_target_gpu=False, environment={"gpu_name": None},
                          memory={"source": "process-rss (CPU: torch keeps no allocator statistics)"})
        status = PilotStatus(state="finished", result=result, events=8)
    else:
        status = PilotStatus(state="failed", reason=reason or "oom", message="out of memory in the backward phase",
                             result={"where": {"phase": "backward", "step": 2, "steps_completed": 1},
                                     "elapsed_s": held_s - 30, "memory": {"source": "torch.cuda"}}, events=4)
    return store.apply_status(pilot_id, status)
