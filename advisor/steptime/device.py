"""What a catalog GPU can sustain per operator class: peaks and bandwidth from the catalog, and
the fraction of them that published microbenchmarks reach.

Every fraction is a measurement someone can repeat, cited at its constant; a GPU without a
measurement takes the median of the measured NVIDIA parts and says so (``Device.notes``).
Stack-specific differences (a slower dequantization kernel, Python overhead) are not here: they
are the fitted efficiency factors of ``advisor.steptime.fit``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

MAMF = {
    # Maximum Achievable Matmul FLOPS / dense peak, BF16, best shape of a brute-force search
    # (stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS
    # comparison table": A100 SXM 271.2 of 312, H100 SXM 794.5 of 989 "H200 is the same",
    # B200 SXM 1745 of 2250, A100 PCIe 252.9 of 312, MI300X 668.4 of 1300).
    "a100-80gb": 0.869, "a100-40gb": 0.869, "h100-sxm": 0.803, "h200": 0.803, "b200": 0.776,
    "mi300x": 0.514,
    # H100 PCIe: not in the table; the SXM figure scaled by A100's PCIe/SXM ratio (252.9/271.2:
    # the 300-350 W PCIe parts hold lower clocks).
    "h100-pcie": 0.803 * 252.9 / 271.2,
}
MAMF_UNMEASURED = 0.80
"""Median of the NVIDIA rows of the MAMF table (0.776-0.869); used for the Ada and GA102
cards (RTX 4090, L40S, L4, A10G, RTX 6000 Ada), which the table does not measure."""

MEMORY_FRACTION = 0.90
"""Sustained / datasheet DRAM bandwidth of a streaming kernel (copy, STREAM triad): 0.87-0.93
on A100 and H100 HBM (e.g. 3.0-3.1 of 3.35 TB/s measured with CUDA-event-timed device copies on
H100 SXM; ~1.8 of 2.04 TB/s on A100 80GB), GDDR6/6X cards alike; 0.90."""

FLASH = {
    # FlashAttention-2 (Dao 2023, "FlashAttention-2: Faster Attention with Better Parallelism",
    # section 4.1): forward up to 73% of A100's peak (230 TFLOPS), forward+backward 50-70%
    # (backward about 0.55-0.63); Ada runs the same sm80 kernels.
    ("fa2", "ampere"): (0.70, 0.55),
    ("fa2", "ada"): (0.70, 0.55),
    # On H100, FlashAttention-2 reaches only ~35% of the peak (Shah et al. 2024,
    # "FlashAttention-3", section 1: "FlashAttention-2 achieves only 35% utilization on the
    # H100"); FlashAttention-3 reaches 75% forward (740 TFLOPS FP16) and 1.5-1.75x FA2's backward.
    ("fa2", "hopper"): (0.35, 0.30),
    ("fa3", "hopper"): (0.75, 0.50),
    ("cudnn", "hopper"): (0.60, 0.45),  # cuDNN 9 fused attention on H100: between FA2 and FA3 (FA3 paper, fig. 5)
    ("fa2", "blackwell"): (0.35, 0.30),
    ("fa2", "cdna"): (0.35, 0.25),  # ROCm CK flash attention on MI300X (AMD ROCm blogs): ~1/3 of peak
}
FLASH_BLOCK = 128  # query rows per thread block (FA2 Algorithm 1, B_r = 128 for head dim 128)
GEMM_TILE = 128  # output tile edge of the cuBLAS/CUTLASS kernels chosen for large bf16 GEMMs
KERNEL_TAIL_S = 2.0e-6
"""GPU time a kernel costs beyond its bytes and FLOPs (launch latency on the device, the ramp
up and the tail of its last wave): ~2 us for small kernels on A100/H100 (an empty kernel's
back-to-back launch-to-launch time on the GPU is 1.5-3 us)."""


@dataclass(frozen=True)
class Device:
    """One GPU's sustainable rates, per operator class."""

    gpu_id: str
    arch: str  # ampere | ada | hopper | blackwell | cdna
    peak_flops: dict[str, float]  # dtype -> dense FLOP/s
    bandwidth: float  # bytes/s, datasheet
    sms: int
    mamf: float
    memory_fraction: float = MEMORY_FRACTION
    notes: tuple[str, ...] = field(default=())

    def matmul_rate(self, dtype: str) -> float:
        return self.peak_flops.get(dtype, self.peak_flops["bf16"]) * self.mamf

    def memory_rate(self) -> float:
        return self.bandwidth * self.memory_fraction

    def flash_fraction(self, kernel: str, phase: str) -> float:
        fa = FLASH.get((kernel, self.arch)) or FLASH.get(("fa2", self.arch)) or FLASH[("fa2", "ampere")]
        return fa[0] if phase == "forward" else fa[1]

    def waves(self, blocks: float) -> float:
        """Utilization of the SMs by ``blocks`` equal thread blocks: the last wave runs partly
        empty (tile and wave quantization, NVIDIA "Matrix Multiplication Background User's
        Guide")."""
        if blocks <= 0:
            return 1.0
        waves = math.ceil(blocks / self.sms)
        return blocks / (waves * self.sms)


_ARCH = {"Ampere": "ampere", "Ada Lovelace": "ada", "Hopper": "hopper", "Blackwell": "blackwell", "CDNA 3": "cdna"}


_DEVICES: dict[tuple, Device] = {}


def device(gpu) -> Device:
    """The Device of a catalog ``Gpu`` (cached on the fields it reads)."""
    key = (gpu.id, gpu.architecture, gpu.bf16_tflops, gpu.fp16_tflops, gpu.fp32_tflops, gpu.memory_bandwidth_gbs,
           getattr(gpu, "sm_count", 0))
    hit = _DEVICES.get(key)
    if hit is None:
        hit = _DEVICES[key] = _device(gpu)
    return hit


def _device(gpu) -> Device:
    arch = _ARCH.get(gpu.architecture, "ampere")
    notes = []
    mamf = MAMF.get(gpu.id)
    if mamf is None:
        mamf = MAMF_UNMEASURED
        notes.append(f"{gpu.display_name}: no published maximum-achievable-matmul measurement; "
                     f"the median of the measured NVIDIA GPUs ({MAMF_UNMEASURED:.0%}) is assumed")
    peaks = {"bf16": gpu.bf16_tflops * 1e12, "fp16": gpu.fp16_tflops * 1e12, "fp32": gpu.fp32_tflops * 1e12}
    sms = int(getattr(gpu, "sm_count", 0) or 108)
    return Device(gpu_id=gpu.id, arch=arch, peak_flops=peaks, bandwidth=gpu.memory_bandwidth_gbs * 1e9, sms=sms,
                  mamf=mamf, notes=tuple(notes))
