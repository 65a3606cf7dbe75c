"""What the estimate says a pilot will measure, what the pilot will cost, and how far off the
estimate was once the pilot has measured.

The prediction uses the same functions every chat answer uses (``advisor.memory``,
``advisor.throughput``, ``advisor.cost``), so the final predicted-vs-measured message checks the
numbers people are actually shown.
"""

from __future__ import annotations

from typing import Any

from advisor.cost import STORAGE_WRITE_BYTES_PER_S
from advisor.pilot.spec import PilotSpec

PILOT_STARTUP_S = 60.0
"""Process start, torch import, CUDA context and the model built on the device before the first
step: ~20-40 s for 8B-class models on a warm node (torch import ~5 s, CUDA init ~5-10 s, weights
generated on the device); 60 s leaves room for a cold node's first CUDA initialisation."""
STEP_S_WITHOUT_GPU = 30.0
"""Step time assumed when the pilot has no catalog GPU (a CPU pilot): used only to bound its
duration for the time limit, never shown as a prediction."""


def pilot_checkpoint_bytes(pspec: PilotSpec) -> int:
    """What the pilot saves: adapters in fp32 (PEFT), or the full weights in their stored dtype
    (fp32 under mixed precision and fp32, 16-bit under pure bf16); no optimizer state."""
    from advisor.throughput import trainable_params

    spec = pspec.spec
    per_param = 4 if spec.trains_adapters or spec.precision in ("bf16-mixed", "fp16-mixed", "fp32") else 2
    return int(trainable_params(spec, pspec.arch) * per_param)


def predict(pspec: PilotSpec, gpu=None, calibration=None) -> dict[str, Any]:
    """Predicted figures for a pilot (``gpu``: the catalog Gpu it runs on, when known)."""
    from advisor.memory import estimate_memory
    from advisor.steptime.kernels import profile
    from advisor.throughput import estimate_throughput

    spec = pspec.spec.model_copy(update={"num_gpus": 1})
    ratio = calibration.reserved_ratio(gpu.id, spec.stack) if (calibration and gpu) else None
    mem = estimate_memory(spec, pspec.arch, num_gpus=1, reserved_ratio=ratio)
    tokens_per_s = step_s = None
    phase_s: dict[str, float] = {}
    breakdown: dict[str, float] = {}
    calibrated_pilots = 0
    if gpu is not None:
        # the runtime the pilot runs decides the kernels: advisor.model's decoder, or transformers
        kernels = profile("hf" if pspec.runtime == "hf" else "reference", compile=bool(getattr(spec, "compile", False)))
        tp = estimate_throughput(spec, pspec.arch, gpu, num_gpus=1, calibration=calibration, kernels=kernels)
        phase_s = {p: tp.step.by_phase[p] for p in ("forward", "backward", "optimizer")}
        # the pilot times train_step alone: no data loading or trainer bookkeeping (the step
        # model's fixed host costs)
        step_s = sum(phase_s.values())
        tokens_per_s = spec.seq_len * spec.micro_batch / step_s
        breakdown = tp.breakdown()
        calibrated_pilots = tp.efficiency.pilots
    ckpt_bytes = pilot_checkpoint_bytes(pspec) if pspec.save_checkpoint else 0
    checkpoint_s = ckpt_bytes / STORAGE_WRITE_BYTES_PER_S
    duration_s = PILOT_STARTUP_S + pspec.total_steps * (step_s or STEP_S_WITHOUT_GPU) + checkpoint_s
    price = gpu.price_usd_per_hour if gpu is not None else pspec.price_usd_per_hour
    from advisor.fit import memory_fits

    usable = gpu.usable_memory_bytes if gpu is not None else pspec.gpu_usable_memory_bytes
    return {
        "memory": mem.to_json(),
        # the ranking's rule (advisor.fit): False when the estimate says the pilot runs out of memory
        "fits": memory_fits(mem, usable) if usable else None,
        "tokens_per_s": tokens_per_s,
        "step_s": step_s,
        "phase_s": phase_s,
        "step_breakdown": breakdown,
        "checkpoint_bytes": ckpt_bytes,
        "checkpoint_s": checkpoint_s,
        "duration_s": duration_s,
        "cost_usd": duration_s / 3600 * price if price is not None else None,
        "calibrated_pilots": calibrated_pilots,
        "reserved_ratio_calibrated": ratio is not None,
    }


def _error(predicted: float | None, measured: float | None) -> float | None:
    if predicted is None or not measured:
        return None
    return (predicted - measured) / measured


def compare(prediction: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    """Predicted vs measured, one row per figure, with the relative error of the prediction
    ((predicted - measured) / measured). The error is None where the pilot could not measure the
    figure (CUDA allocator figures on a CPU pilot) or measured it on other hardware than the
    prediction is for (a CPU or another GPU: only the checkpoint size is comparable then)."""
    mem_p = prediction.get("memory") or {}
    mem_m = result.get("memory") or {}
    ckpt = result.get("checkpoint") or {}
    phase_p = prediction.get("phase_s") or {}
    phase_m = result.get("phase_mean_s") or {}
    rows = [
        ("peak_allocated_bytes", mem_p.get("allocated_bytes"), mem_m.get("peak_allocated_bytes")),
        ("peak_reserved_bytes", mem_p.get("reserved_bytes"), mem_m.get("peak_reserved_bytes")),
        ("device_bytes", mem_p.get("device_bytes"), mem_m.get("nvml_process_peak_bytes")
         or mem_m.get("nvml_device_peak_bytes")),
        ("tokens_per_s", prediction.get("tokens_per_s"), result.get("tokens_per_s")),
        ("forward_s", phase_p.get("forward"), phase_m.get("forward")),
        ("backward_s", phase_p.get("backward"), phase_m.get("backward")),
        ("optimizer_s", phase_p.get("optimizer"), phase_m.get("optimizer")),
        ("checkpoint_s", prediction.get("checkpoint_s"), ckpt.get("save_s")),
        ("checkpoint_bytes", prediction.get("checkpoint_bytes"), ckpt.get("bytes")),
    ]
    comparable = bool(result.get("on_target_gpu"))
    return [{"metric": m, "predicted": p, "measured": v,
             "error": _error(p, v) if comparable or m in HARDWARE_INDEPENDENT else None}
            for m, p, v in rows]


# Figures that do not depend on the device the pilot ran on: a CPU pilot checks them too.
HARDWARE_INDEPENDENT = ("checkpoint_bytes",)
