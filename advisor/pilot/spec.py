"""``PilotSpec``: everything a GPU node needs to run one measured pilot, and nothing it must look up.

The runner may run on a node without the catalog (a Ray worker), so the spec carries the resolved
``FinetuneSpec``, the exact ``Architecture``, the catalog GPU it should land on and that GPU's dense
peak (for MFU), and the provenance the manifest records (base model id and revision).
"""

from __future__ import annotations

import secrets
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.arch import Architecture
from advisor.spec import FinetuneSpec

# At least two optimizer steps before measuring: AdamW creates its state on the first step, so the
# first step's peak is not the steady-state peak (torch.optim.AdamW._init_group).
MIN_WARMUP_STEPS = 2
MAX_PILOT_STEPS = 10_000
# A pilot is minutes, not hours: the runner stops itself after this long unless told otherwise.
DEFAULT_TIME_LIMIT_S = 30 * 60
RANDOM_INIT_REVISION = "random-init"

Device = Literal["auto", "cuda", "cpu"]
# reference: advisor.model's decoder (the code the exact trace runs), emulating spec.stack's memory
# behaviour; hf: transformers + PEFT (+ bitsandbytes) themselves, as teams run them.
Runtime = Literal["reference", "hf"]


def new_pilot_id() -> str:
    """Short, URL- and filename-safe, unguessable enough to serve as a handle in Slack buttons."""
    return "p-" + secrets.token_hex(5)


class PilotSpec(BaseModel):
    """One pilot: the training job, where it should run, how long, and what to record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pilot_id: str = Field(default_factory=new_pilot_id, pattern=r"^[A-Za-z0-9_.-]{3,64}$")
    spec: FinetuneSpec
    arch: Architecture
    gpu: str | None = Field(default=None, description="catalog GPU id the pilot is for")
    gpu_name: str | None = None
    gpu_usable_memory_bytes: int | None = Field(default=None, gt=0)
    gpu_peak_tflops: float | None = Field(default=None, gt=0,
                                          description="catalog dense peak for spec.precision, per GPU")
    accelerator_type: str | None = Field(default=None,
                                         description="Ray accelerator label from the catalog (e.g. A100-80G): "
                                                     "the pilot asks for the resource accelerator_type:<label>")
    price_usd_per_hour: float | None = Field(default=None, ge=0)
    model_id: str | None = None
    hub_id: str | None = None
    revision: str = Field(default=RANDOM_INIT_REVISION,
                          description="base model revision; 'random-init' when weights are random")
    weights_dir: str | None = Field(default=None,
                                    description="local directory with real weights (--stack hf only)")
    steps: int = Field(default=5, ge=1, le=MAX_PILOT_STEPS, description="measured optimizer steps")
    warmup_steps: int = Field(default=MIN_WARMUP_STEPS, ge=MIN_WARMUP_STEPS, le=100)
    seed: int = 0
    device: Device = "auto"
    runtime: Runtime = "reference"
    output_dir: str | None = Field(default=None, description="set by the launcher when None")
    progress_every_s: float = Field(default=1.0, gt=0, le=600)
    time_limit_s: float = Field(default=DEFAULT_TIME_LIMIT_S, gt=0)
    save_checkpoint: bool = True
    cpu_memory_limit_bytes: int | None = Field(
        default=None, gt=0,
        description="CPU pilots only: cap the address space the training steps may add to the built "
                    "model at this many bytes, so running out of memory shows up as it would on a "
                    "smaller device (an OOM result with its phase) instead of swapping the machine")

    @property
    def total_steps(self) -> int:
        return self.warmup_steps + self.steps


def one_gpu_only(spec: FinetuneSpec) -> None:
    """The one place a sharded spec is refused: a pilot runs on one GPU and cannot reproduce
    FSDP sharding. Called before a pilot is proposed or launched (``pilot_spec_for``: the bot and
    the CLI) and by the runner for a spec file written by hand (advisor.pilot.runner)."""
    if spec.num_gpus > 1 and spec.sharding == "fsdp":
        from advisor.errors import PilotError

        raise PilotError("A pilot runs on one GPU; an FSDP-sharded spec cannot be measured on one card. "
                         "Pilot num_gpus 1 (the per-GPU figures of a replica) instead.")


def pilot_spec_for(resolved, gpu=None, **kwargs) -> PilotSpec:
    """A PilotSpec from a ``advisor.resolve.Resolved`` and an optional catalog ``Gpu``; a sharded
    spec is refused here (``one_gpu_only``), before anything is proposed or launched."""
    spec = resolved.spec
    one_gpu_only(spec)
    if gpu is not None:
        spec = spec.model_copy(update={"gpu": gpu.id})
    model = resolved.model
    return PilotSpec(
        spec=spec,
        arch=resolved.arch,
        gpu=gpu.id if gpu else None,
        gpu_name=gpu.display_name if gpu else None,
        gpu_peak_tflops=gpu.dense_tflops(spec.precision) if gpu else None,
        gpu_usable_memory_bytes=gpu.usable_memory_bytes if gpu else None,
        accelerator_type=(gpu.ray_accelerator_label or gpu.ray_accelerator_type) if gpu else None,
        price_usd_per_hour=gpu.price_usd_per_hour if gpu else None,
        model_id=model.id if model else None,
        hub_id=model.hub_id if model else None,
        **kwargs,
    )


def _gpu_key(name: str) -> set[str]:
    """Model tokens of a GPU name: 'NVIDIA A100-SXM4-80GB' -> {'a100'}; 'RTX 4090' -> {'4090'}."""
    import re

    tokens = set(re.findall(r"[a-z]+\d+[a-z]*|\b\d{4}\b", name.lower()))
    return {t for t in tokens if not re.fullmatch(r"(sxm|hbm|gddr|pcie|gen)\d*[a-z]*", t)}


# A GPU reports slightly less (or more) total memory than the catalog's usable figure depends on
# ECC, MIG and driver reserve; 6% separates every pair of catalog GPUs that share a model name
# (A100 40 vs 80 GB, H100 80 vs H200 141 GB) while tolerating those differences.
MEMORY_MATCH_TOLERANCE = 0.06


def matches_gpu(pspec: PilotSpec, device_name: str | None, total_memory: int | None) -> bool:
    """Did the pilot run on the GPU the spec names (model name and memory size agree)?"""
    if not device_name or not pspec.gpu:
        return False
    wanted = _gpu_key(pspec.gpu_name or pspec.gpu) | _gpu_key(pspec.gpu)
    if not (_gpu_key(device_name) & wanted):
        return False
    if pspec.gpu_usable_memory_bytes and total_memory:
        return abs(total_memory / pspec.gpu_usable_memory_bytes - 1) <= MEMORY_MATCH_TOLERANCE
    return True
