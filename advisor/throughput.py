"""How fast a fine-tuning run trains: tokens/s from the step-time model of the traced step.

    tokens/s per GPU = tokens of one optimizer step / seconds of that step on the GPU

The seconds come from ``advisor.steptime``: every operator of the step (the reference decoder's,
re-run symbolically and checked against the fake-tensor trace) priced by a roofline against the
catalog GPU's peaks and bandwidth with achievable fractions from published microbenchmarks, the
host's launch time beside it, communication for data parallelism over the catalog's links, and
one efficiency factor per stack and operator class fitted on published throughput
(``advisor/steptime/data/efficiency.json``, checked out of fold by
``benchmarks/throughput_accuracy.py``). Measured pilots refine the factors per GPU and operator
class (``Calibration.step_factors``), so a pilot of one model moves the estimate of another.

FLOPs per token (``flops_per_token``) stay a closed form from first principles: they are the MFU
convention published tables use (NeMo's "model TFLOPs"), and what a pilot's MFU is reported in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from advisor.arch import Architecture
from advisor.catalog import Gpu
from advisor.spec import FinetuneSpec

# --- FLOP counting (the MFU convention) -------------------------------------------------------------

FLOPS_PER_MAC = 2  # one multiply-accumulate = 2 FLOPs (the convention of every MFU figure)
CAUSAL_FLASH_FRACTION = 0.5
"""Fraction of the seq x seq score work a causal flash kernel does in the MFU convention:
Megatron/NeMo count causal attention as half (the NeMo Llama 3 70B pre-training row in
tests/data/throughput_measurements.json matches only with this halving). The step-time model
counts the blocks a kernel really visits ((n + 1) / 2n, advisor.steptime.record.causal_fraction)."""
ATTENTION_BACKWARD_RATIO = 2.0
"""Backward of softmax(QK^T)V: dQ, dK, dV, dP = 2x the forward's two products (FlashAttention-2,
Dao 2023, section 3.2; 2.5x with the recomputation of P, which the step-time model counts)."""
GPUS_PER_NODE = 8  # HGX/DGX and 8-card PCIe servers (the catalog's gpus_per_node of every GPU)


@dataclass(frozen=True)
class FlopsPerToken:
    """FLOPs per trained token of one training step, by named term (Kaplan et al. 2020, section
    2.1: 6N per token for training, 4N with frozen weights, +2N for checkpointing's recompute)."""

    forward_matmul: float  # 2 x active weight-matrix parameters, LM head included
    forward_attention: float  # scores and weighted sum: 4 x layers x q_dim x seq (x causal fraction)
    adapters: float  # LoRA A and B, forward and backward (input and weight gradients)
    backward: float  # input gradients (+ weight gradients for full fine-tuning) and attention
    recompute: float  # gradient checkpointing: the blocks' forward once more

    @property
    def model(self) -> float:
        """FLOPs the model needs per token (the MFU convention: no recompute)."""
        return self.forward_matmul + self.forward_attention + self.adapters + self.backward

    @property
    def executed(self) -> float:
        """FLOPs the GPU executes per token (recompute included)."""
        return self.model + self.recompute

    @property
    def forward(self) -> float:
        """FLOPs of a forward pass alone (evaluation)."""
        return self.forward_matmul + self.forward_attention + self.adapters / 3


def _active_matmul_params(arch: Architecture) -> int:
    """Weights a token is multiplied with: the blocks' linears (routed experts only) and the LM
    head (a matmul even when tied); the input embedding is a lookup, not a matmul."""
    experts = arch.experts_per_token if arch.experts else 1
    attn = 2 * arch.hidden * arch.q_dim + 2 * arch.hidden * arch.kv_dim
    mlp = arch.mlp_matrices * arch.hidden * arch.intermediate * experts + arch.hidden * arch.experts
    return arch.layers * (attn + mlp) + arch.vocab * arch.hidden


def _adapter_macs_per_token(spec: FinetuneSpec, arch: Architecture) -> int:
    """MACs of one forward through the LoRA adapters: r x (in + out) per adapted linear.
    PEFT's 'all-linear' adapts every linear of the blocks (not the LM head)."""
    if not spec.trains_adapters:
        return 0
    attention_only = spec.lora_targets == "attention"
    experts = arch.experts_per_token if arch.experts else 1
    total = 0
    for name, (fan_in, fan_out) in arch.linear_shapes().items():
        is_mlp = name in ("gate_proj", "up_proj", "down_proj")
        if attention_only and is_mlp:
            continue
        total += spec.lora_rank * (fan_in + fan_out) * (experts if is_mlp else 1)
    return arch.layers * total


def flops_per_token(spec: FinetuneSpec, arch: Architecture) -> FlopsPerToken:
    """FLOPs per trained token, term by term (see the module docstring for the sources)."""
    matmul = FLOPS_PER_MAC * _active_matmul_params(arch)
    head = FLOPS_PER_MAC * arch.vocab * arch.hidden
    causal = CAUSAL_FLASH_FRACTION if spec.attention == "flash" else 1.0
    attention = FLOPS_PER_MAC * 2 * arch.layers * arch.q_dim * spec.seq_len * causal
    adapter_fwd = FLOPS_PER_MAC * _adapter_macs_per_token(spec, arch)
    adapters = 3 * adapter_fwd  # forward, input gradient, weight gradient
    weight_grads = 0.0 if spec.trains_adapters else matmul
    backward = matmul + weight_grads + ATTENTION_BACKWARD_RATIO * attention
    recompute = (matmul - head + attention + adapter_fwd) if spec.gradient_checkpointing else 0.0
    return FlopsPerToken(forward_matmul=matmul, forward_attention=attention, adapters=adapters,
                         backward=backward, recompute=recompute)


def trainable_params(spec: FinetuneSpec, arch: Architecture) -> int:
    """Parameters with gradients: the LoRA adapters, or every parameter in a full fine-tune."""
    if not spec.trains_adapters:
        return arch.params_total
    return adapter_params(spec, arch)


def adapter_params(spec: FinetuneSpec, arch: Architecture) -> int:
    """LoRA parameters: r x (in + out) per adapted linear, every expert's MLP included."""
    attention_only = spec.lora_targets == "attention"
    total = 0
    for name, (fan_in, fan_out) in arch.linear_shapes().items():
        is_mlp = name in ("gate_proj", "up_proj", "down_proj")
        if attention_only and is_mlp:
            continue
        total += spec.lora_rank * (fan_in + fan_out) * (arch.n_experts_stored if is_mlp else 1)
    return arch.layers * total


# --- efficiency: fitted per stack, refined by pilots ------------------------------------------------


@dataclass(frozen=True)
class MeasuredFactors:
    """What pilots measured on one GPU: per operator class, the factor to multiply the fitted
    efficiency by (1.0: the pilots agree with the model), and how many pilots say so."""

    gpu_id: str
    factors: dict[str, float]
    pilots: int


class Calibration(Protocol):
    """Measured pilot results that refine the model (``advisor.pilot.calibration``).

    ``step_factors`` returns the per-class factors pilots measured on a catalog ``Gpu`` (None: no
    pilot); ``reserved_ratio`` the measured peak reserved / peak allocated for a GPU id and stack."""

    def step_factors(self, gpu: Gpu, stack: str) -> MeasuredFactors | None: ...

    def reserved_ratio(self, gpu_id: str, stack: str) -> float | None: ...


@lru_cache(maxsize=1)
def fitted_factors():
    """The committed table of efficiency factors per stack (advisor.steptime.fit)."""
    from advisor.steptime.fit import load_factors

    return load_factors()


def stack_factors(stack_name: str) -> dict[str, float]:
    """Efficiency per operator class for a kernel profile: its fitted row, or the pooled one."""
    table = fitted_factors()
    return table.for_stack(stack_name) if table is not None else {}


@dataclass(frozen=True)
class Efficiency:
    value: float  # executed FLOPs per second / dense peak, one GPU (the MFU basis pilots report)
    source: str  # "prior" (the model fitted on published measurements) or "calibrated" (pilots)
    pilots: int = 0
    factors: dict[str, float] = field(default_factory=dict)  # per operator class, as applied


def efficiency_factors(spec: FinetuneSpec, gpu: Gpu, calibration: Calibration | None = None, kernels=None
                       ) -> tuple[dict[str, float], MeasuredFactors | None]:
    """The factors the model applies for ``spec`` on ``gpu``: the stack's fitted row times what
    pilots measured on this GPU."""
    from advisor.steptime.kernels import for_spec

    base = stack_factors((kernels or for_spec(spec)).factors)
    measured = calibration.step_factors(gpu, spec.stack) if calibration is not None else None
    if measured is None or measured.pilots <= 0:
        return base, None
    out = dict(base)
    for cls, m in measured.factors.items():
        out[cls] = out.get(cls, 1.0) * m
    return out, measured


# --- tokens per second -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Throughput:
    tokens_per_s: float  # all GPUs together
    num_gpus: int
    sharding: str
    flops: FlopsPerToken
    efficiency: Efficiency
    scaling: float  # multi-GPU efficiency: compute time / (compute + exposed communication)
    peak_tflops: float  # per GPU
    step: object = None  # advisor.steptime.roofline.StepTime of one GPU

    @property
    def tokens_per_s_per_gpu(self) -> float:
        return self.tokens_per_s / self.num_gpus

    @property
    def eval_tokens_per_s(self) -> float:
        """Forward-only tokens/s (evaluation): the forward phase of the step alone, no
        communication (FSDP's all-gather is counted in the forward phase, so it stays)."""
        st = self.step
        forward = st.by_phase["forward"] / st.micro_steps if st is not None else 0.0
        if forward <= 0:
            return self.tokens_per_s
        return self.num_gpus * (st.tokens / st.micro_steps) / forward

    @property
    def mfu(self) -> float:
        """Model FLOPs utilization as usually reported (no recompute, after scaling)."""
        return self.tokens_per_s_per_gpu * self.flops.model / (self.peak_tflops * 1e12)

    @property
    def step_s(self) -> float:
        """Seconds of one optimizer step on each GPU."""
        return self.step.seconds if self.step is not None else math.nan

    def breakdown(self) -> dict[str, float]:
        """Share of the step per operator class ("matmul": 0.61, ...), largest first."""
        if self.step is None:
            return {}
        return dict(sorted(self.step.shares().items(), key=lambda kv: -kv[1]))


def estimate_throughput(spec: FinetuneSpec, arch: Architecture, gpu: Gpu, *, num_gpus: int | None = None,
                        sharding: str | None = None, calibration: Calibration | None = None,
                        flops: FlopsPerToken | None = None, groups=None, kernels=None,
                        micro_steps: int | None = None) -> Throughput:
    """Training tokens/s of ``spec`` on ``num_gpus`` x ``gpu`` (data parallel, DDP or FSDP).
    One optimizer step runs ``micro_steps`` forward+backward passes (default: the spec's gradient
    accumulation, as HF Trainer steps the optimizer every gradient_accumulation_steps batches,
    transformers trainer.py _inner_training_loop) and one optimizer step
    (advisor.steptime.roofline.combine), so its cost is spread over the global batch's tokens.
    ``flops``: ``flops_per_token(spec, arch)`` when the caller already has it; ``groups``: the
    step's operator groups (``advisor.steptime.model.step_groups``) when the caller caches them
    (the ranking prices one spec on every GPU); ``kernels``: a kernel profile other than the
    spec's stack (a pilot's runtime)."""
    from advisor.steptime.model import finish, prepare

    n = num_gpus or spec.num_gpus
    shard = sharding or spec.sharding
    flops = flops or flops_per_token(spec, arch)
    factors, measured = efficiency_factors(spec, gpu, calibration, kernels)
    steps = spec.gradient_accumulation_steps if micro_steps is None else micro_steps
    st = finish(prepare(spec, arch, gpu, num_gpus=n, sharding=shard, groups=groups, kernels=kernels,
                        micro_steps=steps), factors)
    peak = gpu.dense_tflops(spec.precision)
    per_gpu = st.tokens_per_s
    comm = st.by_class.get("communication", 0.0)
    scale = (st.seconds - comm) / st.seconds if st.seconds > 0 else 1.0
    eff = Efficiency(value=per_gpu * flops.executed / (peak * 1e12),
                     source="calibrated" if measured is not None else "prior",
                     pilots=measured.pilots if measured is not None else 0, factors=factors)
    return Throughput(tokens_per_s=per_gpu * n, num_gpus=n, sharding=shard, flops=flops, efficiency=eff,
                      scaling=scale, peak_tflops=peak, step=st)


def measured_mfu(tokens_per_s: float, spec: FinetuneSpec, arch: Architecture, gpu: Gpu,
                 num_gpus: int = 1) -> float:
    """A pilot's measured efficiency: executed FLOPs per second per GPU over the dense peak."""
    if not (tokens_per_s > 0 and math.isfinite(tokens_per_s)):
        raise ValueError("tokens_per_s must be a positive number")
    per_gpu = tokens_per_s / num_gpus
    return per_gpu * flops_per_token(spec, arch).executed / (gpu.dense_tflops(spec.precision) * 1e12)
