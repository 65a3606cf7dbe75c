"""How fast a fine-tuning run trains: FLOPs per token, efficiency (MFU), tokens per second.

    tokens/s = dense peak of the GPU for the spec's precision x efficiency / FLOPs per token
               x GPUs x multi-GPU scaling efficiency

FLOPs per trained token come from first principles (``flops_per_token``): a matmul with weight
W (in x out) costs 2 x in x out FLOPs per token forward, and its backward costs the same again
for the input gradient plus the same again for the weight gradient (Kaplan et al. 2020, "Scaling
Laws", section 2.1: C = 6N per token for training). Frozen weights (LoRA, QLoRA) need no weight
gradient: about 4N. Gradient checkpointing recomputes the forward of the blocks: about 2N more.
Attention adds 4 x seq x q_dim per layer and token forward, halved for a causal mask when the
kernel skips masked blocks (flash); eager attention computes the whole seq x seq score matrix.
These counts reproduce the "model TFLOPs" NVIDIA NeMo AutoModel reports for Llama 3 8B and 70B
(tests/data/throughput_measurements.json).

Efficiency is the fraction of the dense peak that executed FLOPs achieve (recompute included,
so it equals the usual MFU whenever gradient checkpointing is off). Priors per method come from
published measurements on an A100 (cited at each constant), carried over to other GPUs by a
two-term roofline (compute-bound matmuls scale with peak FLOPS, the memory-bound rest with memory
bandwidth), and reduced for short micro-batches. A measured pilot on the same GPU and method
replaces the prior (``Calibration``); pilots compute what they measured with ``measured_mfu``,
so calibration and prediction use the same FLOP count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from advisor.arch import Architecture
from advisor.catalog import Gpu
from advisor.spec import FinetuneSpec

# --- FLOP counting ---------------------------------------------------------------------------------

FLOPS_PER_MAC = 2  # one multiply-accumulate = 2 FLOPs (the convention of every MFU figure)
CAUSAL_FLASH_FRACTION = 0.5
"""Fraction of the seq x seq score work a causal flash kernel does: it skips blocks above the
diagonal. Megatron/NeMo count causal attention as half (the NeMo Llama 3 70B pre-training row in
tests/data/throughput_measurements.json matches only with this halving)."""
ATTENTION_BACKWARD_RATIO = 2.0
"""Backward of softmax(QK^T)V: dQ, dK (two seq x seq x d products) and dV, dP (two more) = 2x the
forward's two products (FlashAttention-2 paper, Dao 2023, section 3.2: backward ~2.5x forward
including recomputation of P, which flash does inside; 2x without it, as MFU accounting uses)."""


@dataclass(frozen=True)
class FlopsPerToken:
    """FLOPs per trained token of one training step, by named term."""

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
    # QK^T and (softmax)V: each seq x q_dim MACs per token and layer
    attention = FLOPS_PER_MAC * 2 * arch.layers * arch.q_dim * spec.seq_len * causal
    adapter_fwd = FLOPS_PER_MAC * _adapter_macs_per_token(spec, arch)
    adapters = 3 * adapter_fwd  # forward, input gradient, weight gradient
    weight_grads = 0.0 if spec.trains_adapters else matmul
    backward = matmul + weight_grads + ATTENTION_BACKWARD_RATIO * attention
    recompute = (matmul - head + attention + adapter_fwd) if spec.gradient_checkpointing else 0.0
    return FlopsPerToken(forward_matmul=matmul, forward_attention=attention, adapters=adapters,
                         backward=backward, recompute=recompute)


# --- efficiency priors -----------------------------------------------------------------------------

REFERENCE_GPU_PEAK_TFLOPS = 312.0  # A100 SXM dense BF16 (NVIDIA A100 datasheet), where priors were measured
REFERENCE_GPU_BANDWIDTH_GBS = 2039.0  # A100 80GB SXM HBM2e (NVIDIA A100 datasheet)

MFU_PRIOR: dict[str, tuple[float, str]] = {
    "full": (0.40, "full fine-tune with FSDP on A100: 35-50% MFU (PyTorch FSDP Llama 2 fine-tuning "
                   "blog, HF accelerate FSDP benchmarks); the middle-low end for HF Trainer"),
    "lora": (0.30, "HF Trainer + PEFT LoRA: 25-35% MFU (NeMo AutoModel reaches ~40% on H100 with "
                   "fused TE/triton kernels: Llama 3 8B 402 model TFLOPs/GPU of 989)"),
    "qlora": (0.30 * 0.65, "QLoRA with bitsandbytes NF4 runs at 0.5-0.8x LoRA's throughput "
                           "(dequantization on every forward and backward; bitsandbytes issues "
                           "#465, #667); 0.65 x the LoRA prior"),
}
MEMORY_BOUND_SHARE = 0.25
"""Share of an HF fine-tuning step's time on the reference A100 spent in memory-bound kernels
(norms, activations, RoPE, casts, dropout, residual adds). Fused-kernel projects (Liger Kernel,
Unsloth) report ~20-30% end-to-end speed-ups from fusing exactly these ops, which bounds their
share from below. Used to carry priors from A100 to GPUs with another FLOPs-to-bandwidth ratio."""
ROCM_STACK_FACTOR = 0.7
"""ROCm training stacks reach a lower share of MI300X's peak than CUDA stacks of H100's: public
BF16 training benchmarks (SemiAnalysis, "MI300X vs H100 vs H200 Benchmark Part 1: Training",
Dec 2024) show MI300X at or below H100 throughput despite a 1.32x higher dense peak."""
SHORT_SEQ_TOKENS = 256
"""Tokens per micro-batch at which fixed per-step costs (kernel launches, optimizer step, data
loading) would halve efficiency; priors above were measured at 2-4k tokens per micro-batch."""
REFERENCE_TOKENS_PER_MICRO_BATCH = 4096  # NeMo AutoModel and HF recipe measurements: seq 4096


class Calibration(Protocol):
    """Measured pilot results, stored by the pilot subsystem, that override priors.

    ``mfu`` returns (efficiency, number of pilots) for a GPU and method, where efficiency is what
    ``measured_mfu`` computes from a pilot's tokens/s (executed FLOPs / dense peak), or None.
    ``reserved_ratio`` returns the measured peak reserved / peak allocated for a GPU and stack.
    """

    def mfu(self, gpu_id: str, method: str) -> tuple[float, int] | None: ...

    def reserved_ratio(self, gpu_id: str, stack: str) -> float | None: ...


@dataclass(frozen=True)
class Efficiency:
    value: float  # fraction of the dense peak achieved by executed FLOPs, one GPU
    source: str  # "prior" or "calibrated"
    pilots: int = 0
    base: float = 0.0  # method prior on the reference GPU
    gpu_factor: float = 1.0  # roofline transfer from the reference GPU
    seq_factor: float = 1.0  # short micro-batches


def gpu_factor(gpu: Gpu, precision: str) -> float:
    """How a reference-GPU efficiency carries over to ``gpu``: matmuls scale with peak FLOPS,
    the memory-bound share with bandwidth (a two-term roofline), so a GPU with more FLOPS per
    byte of bandwidth than an A100 reaches a smaller fraction of its peak."""
    peak_ratio = REFERENCE_GPU_PEAK_TFLOPS / gpu.dense_tflops(precision)
    bandwidth_ratio = REFERENCE_GPU_BANDWIDTH_GBS / gpu.memory_bandwidth_gbs
    relative_time = (1 - MEMORY_BOUND_SHARE) * peak_ratio + MEMORY_BOUND_SHARE * bandwidth_ratio
    factor = peak_ratio / relative_time
    if gpu.vendor == "AMD":
        factor *= ROCM_STACK_FACTOR
    return factor


def seq_factor(tokens_per_micro_batch: int) -> float:
    """Efficiency lost to fixed per-step costs when a micro-batch holds few tokens (1.0 at and
    above the reference size): (1 + T0/T_ref) / (1 + T0/T)."""
    t0, ref = SHORT_SEQ_TOKENS, REFERENCE_TOKENS_PER_MICRO_BATCH
    return min(1.0, (1 + t0 / ref) / (1 + t0 / tokens_per_micro_batch))


def efficiency(spec: FinetuneSpec, gpu: Gpu, calibration: Calibration | None = None) -> Efficiency:
    """Single-GPU efficiency for a spec on a GPU: a measured pilot when there is one, else the
    prior for the method carried over to this GPU and micro-batch size."""
    base = MFU_PRIOR[spec.method][0]
    g = gpu_factor(gpu, spec.precision)
    s = seq_factor(spec.seq_len * spec.micro_batch)
    measured = calibration.mfu(gpu.id, spec.method) if calibration is not None else None
    if measured is not None and measured[1] > 0 and 0 < measured[0] <= 1:
        return Efficiency(value=measured[0], source="calibrated", pilots=measured[1],
                          base=base, gpu_factor=g, seq_factor=s)
    return Efficiency(value=base * g * s, source="prior", base=base, gpu_factor=g, seq_factor=s)


# --- multi-GPU scaling -----------------------------------------------------------------------------

GPUS_PER_NODE = 8  # HGX/DGX and 8-card PCIe servers
NVLINK_BUSBW_FRACTION = 0.4
"""All-reduce bus bandwidth as a fraction of the catalog's total NVLink bandwidth: nccl-tests
all_reduce_perf reaches ~230-240 GB/s busbw on DGX A100 (600 GB/s NVLink 3) and ~360-480 GB/s
on DGX H100 (900 GB/s NVLink 4)."""
PCIE_BUSBW_GBS = {"Gen4": 12.0, "Gen5": 24.0}
"""All-reduce bus bandwidth between PCIe cards without NVLink (traffic through the host; P2P is
disabled on GeForce cards): nccl-tests on 8x RTX 4090 / L40S servers report ~10-15 GB/s (Gen4)."""
INTER_NODE_BUSBW_GBS = {"nvlink": 40.0, "pcie": 1.5}
"""Per-GPU bus bandwidth across nodes: HGX nodes with one 400 Gb/s InfiniBand NIC per GPU reach
~40 GB/s busbw; PCIe-card nodes typically share one 100 GbE link among 8 GPUs (12.5/8 GB/s)."""
COMM_OVERLAP = 0.7
"""Fraction of a micro-step's compute time that can hide communication: DDP overlaps bucketed
all-reduce with backward, FSDP prefetches the next all-gather (PyTorch FSDP paper, Zhao et al.
2023, section 5: 'communication mostly overlapped')."""


def _bus_bandwidth_gbs(gpu: Gpu, num_gpus: int) -> float:
    if num_gpus > GPUS_PER_NODE:
        return INTER_NODE_BUSBW_GBS["nvlink" if gpu.nvlink else "pcie"]
    if gpu.nvlink:
        return NVLINK_BUSBW_FRACTION * gpu.interconnect_gbs
    return PCIE_BUSBW_GBS["Gen5" if gpu.pcie_gen.startswith("Gen5") else "Gen4"]


def _weight_bytes_per_param(spec: FinetuneSpec) -> float:
    """Bytes per parameter that FSDP all-gathers (its param_dtype, or the 4-bit storage)."""
    if spec.method == "qlora":
        return 0.5 if spec.quant == "nf4" else 1.0
    return 4.0 if spec.precision == "fp32" else 2.0


def comm_bytes_per_micro_step(spec: FinetuneSpec, arch: Architecture, num_gpus: int, sharding: str) -> float:
    """Bytes each GPU sends per micro-step. Ring all-reduce moves 2(n-1)/n of the gradients;
    FSDP all-gathers the weights twice (forward, backward) and reduce-scatters the gradients,
    (n-1)/n each (ZeRO paper, Rajbhandari et al. 2020, section 7: 1.5x DDP's volume)."""
    if num_gpus <= 1:
        return 0.0
    n = num_gpus
    trainable = trainable_params(spec, arch)
    grad_bytes = trainable * (2.0 if spec.precision == "bf16" else 4.0)
    if sharding == "fsdp":
        weights = arch.params_total * _weight_bytes_per_param(spec)
        return (n - 1) / n * (2 * weights + grad_bytes)
    # DDP syncs once per optimizer step; counted per micro-step (no accumulation assumed)
    return 2 * (n - 1) / n * grad_bytes


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


def scaling_efficiency(compute_s: float, comm_bytes: float, bus_gbs: float) -> float:
    """Share of ideal n-GPU throughput kept after communication that compute cannot hide."""
    if comm_bytes <= 0:
        return 1.0
    comm_s = comm_bytes / (bus_gbs * 1e9)
    exposed = max(0.0, comm_s - COMM_OVERLAP * compute_s)
    return compute_s / (compute_s + exposed)


# --- tokens per second -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Throughput:
    tokens_per_s: float  # all GPUs together
    num_gpus: int
    sharding: str
    flops: FlopsPerToken
    efficiency: Efficiency
    scaling: float  # multi-GPU efficiency (1.0 on one GPU)
    peak_tflops: float  # per GPU

    @property
    def tokens_per_s_per_gpu(self) -> float:
        return self.tokens_per_s / self.num_gpus

    @property
    def eval_tokens_per_s(self) -> float:
        """Forward-only tokens/s (evaluation) at the same efficiency, no communication."""
        return (self.num_gpus * self.peak_tflops * 1e12 * self.efficiency.value) / self.flops.forward

    @property
    def mfu(self) -> float:
        """Model FLOPs utilization as usually reported (no recompute, after scaling)."""
        return self.tokens_per_s_per_gpu * self.flops.model / (self.peak_tflops * 1e12)


def estimate_throughput(spec: FinetuneSpec, arch: Architecture, gpu: Gpu, *, num_gpus: int | None = None,
                        sharding: str | None = None, calibration: Calibration | None = None,
                        flops: FlopsPerToken | None = None) -> Throughput:
    """Training tokens/s of ``spec`` on ``num_gpus`` x ``gpu`` (data parallel, DDP or FSDP).
    ``flops``: ``flops_per_token(spec, arch)`` when the caller already has it (the ranking)."""
    n = num_gpus or spec.num_gpus
    shard = sharding or spec.sharding
    flops = flops or flops_per_token(spec, arch)
    eff = efficiency(spec, gpu, calibration)
    peak = gpu.dense_tflops(spec.precision)
    per_gpu = peak * 1e12 * eff.value / flops.executed
    tokens_per_micro_step = spec.seq_len * spec.micro_batch
    compute_s = tokens_per_micro_step / per_gpu
    scale = scaling_efficiency(compute_s, comm_bytes_per_micro_step(spec, arch, n, shard),
                               _bus_bandwidth_gbs(gpu, n))
    return Throughput(tokens_per_s=per_gpu * n * scale, num_gpus=n, sharding=shard, flops=flops,
                      efficiency=eff, scaling=scale, peak_tflops=peak)


def measured_mfu(tokens_per_s: float, spec: FinetuneSpec, arch: Architecture, gpu: Gpu,
                 num_gpus: int = 1) -> float:
    """The efficiency a pilot measured, on the basis ``Calibration.mfu`` expects: executed FLOPs
    per second per GPU over the dense peak for the spec's precision."""
    if not (tokens_per_s > 0 and math.isfinite(tokens_per_s)):
        raise ValueError("tokens_per_s must be a positive number")
    per_gpu = tokens_per_s / num_gpus
    return per_gpu * flops_per_token(spec, arch).executed / (gpu.dense_tflops(spec.precision) * 1e12)
