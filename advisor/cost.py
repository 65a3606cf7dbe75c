"""Time and money to an accepted checkpoint, and the catalog's planning windows.

Teams buy an accepted checkpoint, not GPU hours. Our provider's catalog page names the metric:
"cost to accepted checkpoint: includes evaluation and failed runs". Here:

    run GPU time  = training + checkpoint saves + start-up (loading the base model)
    cost          = run GPU time x price x GPUs x (1 + failed_run_fraction)
                  + evaluation time x price x GPUs
                  + pilot time x price x GPUs            (when costs.include_pilot)
                  + persistent storage: (checkpoints kept + dataset + base model) x $/GB-month x months

Every assumption is a named constant below or a ``CostAssumptions`` field of the spec (each with
its default and reason in advisor/spec.py), changeable by flag or chat follow-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.arch import Architecture
from advisor.spec import FinetuneSpec
from advisor.throughput import Throughput, trainable_params

GB = 1e9  # storage is priced per decimal GB-month (provider and cloud price sheets)
SECONDS_PER_HOUR = 3600.0

PLANNING_WINDOW_HOURS: tuple[int, ...] = (8, 40, 120)
"""The catalog page's planning windows: a working day, a working week, a long run (wall-clock hours
of the plan, priced for its GPUs). For one RTX 4090 at $0.34/h: $2.72, $13.60, $40.80."""

STORAGE_WRITE_BYTES_PER_S = 400e6
"""Checkpoint write speed to a network volume: ~200-500 MB/s sequential on public cloud network
volumes (RunPod network volumes, AWS gp3 up to 1000 MB/s provisioned); 400 MB/s, mid-range."""
MODEL_LOAD_BYTES_PER_S = 400e6  # reading the base model from the same volume (same source)
STARTUP_FIXED_S = 180.0
"""Container start, CUDA/NCCL initialisation, tokenizer and dataset preparation before the first
step: 2-4 minutes in HF Trainer jobs on rented GPUs; 3 minutes."""
SAVES_PER_EPOCH = 1  # HF Trainer save_strategy="epoch", as most recipes set with eval_strategy="epoch"
PILOT_STEPS = 5  # `advisor pilot run --steps` default: the pilot the advice counts
DATASET_BYTES_PER_TOKEN = 4.0
"""Stored training data: ~4 characters of English per token (OpenAI tokenizer guidance) at 1 byte
per UTF-8 character; the tokenized copy (int32 ids) is the same 4 bytes per token."""
HUB_WEIGHT_BYTES = 2.0  # base model on the volume as published: bf16 safetensors


def _optimizer_bytes_per_param(spec: FinetuneSpec) -> float:
    """Optimizer state saved per trainable parameter: AdamW m and v in fp32 (8 B); bitsandbytes
    8-bit AdamW (2 B: two 8-bit states, block constants negligible); SGD without momentum (0)."""
    return {"adamw": 8.0, "adamw-8bit": 2.0, "paged-adamw-8bit": 2.0, "sgd": 0.0}[spec.optimizer]


def _weight_save_bytes_per_param(spec: FinetuneSpec) -> float:
    """Trainable weights as saved: fp32 under mixed precision and fp32, 16-bit under pure bf16."""
    return 2.0 if spec.precision == "bf16" else 4.0


def checkpoint_bytes(spec: FinetuneSpec, arch: Architecture) -> int:
    """A resumable checkpoint (HF Trainer: model or adapter weights + optimizer.pt): trainable
    weights plus their optimizer state. LoRA saves only the adapters, a full fine-tune all."""
    per_param = _weight_save_bytes_per_param(spec) + _optimizer_bytes_per_param(spec)
    return int(trainable_params(spec, arch) * per_param)


def base_model_bytes(arch: Architecture) -> int:
    return int(arch.params_total * HUB_WEIGHT_BYTES)


@dataclass(frozen=True)
class RunTime:
    """Seconds of one run, by phase (None when the dataset size is unknown)."""

    training_s: float
    evaluation_s: float
    checkpoint_s: float
    startup_s: float
    pilot_s: float
    saves: int

    @property
    def run_s(self) -> float:
        """Wall-clock time of the accepted run (what a person waits for)."""
        return self.training_s + self.evaluation_s + self.checkpoint_s + self.startup_s

    @property
    def hours(self) -> float:
        return self.run_s / SECONDS_PER_HOUR


def estimate_time(spec: FinetuneSpec, arch: Architecture, throughput: Throughput, *,
                  checkpoint: int | None = None) -> RunTime | None:
    """Phases of the run on the throughput's GPUs; None without a dataset size.
    ``checkpoint``: ``checkpoint_bytes(spec, arch)`` when the caller already has it."""
    costs = spec.costs
    startup = STARTUP_FIXED_S + base_model_bytes(arch) / MODEL_LOAD_BYTES_PER_S
    # one optimizer step: the global batch's tokens (micro-batch x accumulation on every GPU)
    step_s = (spec.seq_len * spec.micro_batch * spec.gradient_accumulation_steps * throughput.num_gpus
              / throughput.tokens_per_s)
    pilot = (startup + PILOT_STEPS * step_s) if costs.include_pilot else 0.0
    if spec.dataset_tokens is None:
        return None
    trained = spec.dataset_tokens * spec.epochs
    evaluated = spec.dataset_tokens * costs.eval_fraction * costs.evals_per_epoch * spec.epochs
    saves = max(1, math.ceil(spec.epochs * SAVES_PER_EPOCH))
    return RunTime(
        training_s=trained / throughput.tokens_per_s,
        evaluation_s=evaluated / throughput.eval_tokens_per_s,
        checkpoint_s=saves * (checkpoint or checkpoint_bytes(spec, arch)) / STORAGE_WRITE_BYTES_PER_S,
        startup_s=startup,
        pilot_s=pilot,
        saves=saves,
    )


@dataclass(frozen=True)
class CostBreakdown:
    """USD to an accepted checkpoint, itemized."""

    training_usd: float  # the training steps of the accepted run
    overhead_usd: float  # start-up and checkpoint saves of the accepted run
    failures_usd: float  # failed and exploratory runs: failed_run_fraction x (training + overhead)
    evaluation_usd: float  # forward-only evaluation passes
    pilot_usd: float  # the short measured pilot before the run
    storage_usd: float  # persistent volume: checkpoints kept, dataset, base model
    storage_gb: float
    gpu_hours: float  # GPU-hours billed, failures and pilot included

    @property
    def total_usd(self) -> float:
        return (self.training_usd + self.overhead_usd + self.failures_usd + self.evaluation_usd
                + self.pilot_usd + self.storage_usd)

    def to_json(self) -> dict:
        return {"training_usd": self.training_usd, "overhead_usd": self.overhead_usd,
                "failures_usd": self.failures_usd, "evaluation_usd": self.evaluation_usd,
                "pilot_usd": self.pilot_usd, "storage_usd": self.storage_usd,
                "storage_gb": self.storage_gb, "gpu_hours": self.gpu_hours,
                "total_usd": self.total_usd}


def storage_gb(spec: FinetuneSpec, arch: Architecture, checkpoint: int | None = None) -> float:
    """What stays on the persistent volume: kept checkpoints, the dataset, the base model."""
    kept = spec.costs.checkpoints_kept * (checkpoint or checkpoint_bytes(spec, arch))
    data = (spec.dataset_tokens or 0) * DATASET_BYTES_PER_TOKEN
    return (kept + data + base_model_bytes(arch)) / GB


def estimate_cost(spec: FinetuneSpec, arch: Architecture, time: RunTime, *, price_per_hour: float,
                  num_gpus: int, storage_usd_per_gb_month: float, checkpoint: int | None = None) -> CostBreakdown:
    """Cost to an accepted checkpoint (formula in the module docstring)."""
    costs = spec.costs
    rate = price_per_hour * num_gpus / SECONDS_PER_HOUR  # USD per second of the whole job
    training = time.training_s * rate
    overhead = (time.checkpoint_s + time.startup_s) * rate
    failures = costs.failed_run_fraction * (training + overhead)
    evaluation = time.evaluation_s * rate
    pilot = time.pilot_s * rate
    gb = storage_gb(spec, arch, checkpoint)
    billed_s = ((time.training_s + time.checkpoint_s + time.startup_s) * (1 + costs.failed_run_fraction)
                + time.evaluation_s + time.pilot_s)
    return CostBreakdown(
        training_usd=training, overhead_usd=overhead, failures_usd=failures,
        evaluation_usd=evaluation, pilot_usd=pilot,
        storage_usd=gb * storage_usd_per_gb_month * costs.storage_months,
        storage_gb=gb, gpu_hours=billed_s * num_gpus / SECONDS_PER_HOUR,
    )


def price_per_million_tokens(price_per_hour: float, num_gpus: int, tokens_per_s: float) -> float:
    """USD per million trained tokens (training steps only) when no dataset size was given."""
    return price_per_hour * num_gpus / (tokens_per_s * SECONDS_PER_HOUR) * 1e6


@dataclass(frozen=True)
class PlanningWindow:
    hours: int  # wall-clock hours of the plan
    price_usd: float  # hours x price per GPU x the plan's GPUs
    fits: bool  # the job's wall-clock hours fit in this window


def planning_windows(price_per_hour: float, job_gpu_hours: float | None, num_gpus: int = 1) -> list[PlanningWindow]:
    """The catalog's planning windows for a plan of ``num_gpus`` GPUs (issue #16: an 8 h window of
    2 x H100 is 2 x 8 x $2.69), and whether the job fits each: its GPU-hours spread over the
    plan's GPUs, ``job_gpu_hours / num_gpus`` wall-clock hours, within the window."""
    return [PlanningWindow(hours=h, price_usd=round(h * price_per_hour * num_gpus, 2),
                           fits=job_gpu_hours is not None and job_gpu_hours / num_gpus <= h)
            for h in PLANNING_WINDOW_HOURS]


def smallest_window(windows: list[PlanningWindow]) -> PlanningWindow | None:
    """The smallest window the job fits in (None: beyond the largest, or unknown)."""
    return next((w for w in windows if w.fits), None)
