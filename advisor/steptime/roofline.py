"""Time of one training step on a GPU: each operator group priced by a roofline against the
GPU's sustainable rates, the host's launch time beside it, communication on top.

Per group (``advisor.steptime.inventory.Group``):

    matmul      max(FLOPs / (dtype peak x MAMF x SM-wave use of its 128x128 tiles),
                    bytes / sustained bandwidth) + kernels x tail
    attention   max(FLOPs x causal share / (peak x flash fraction x SM-wave use of its
                    batch x heads x query-block blocks), bytes / bandwidth) + kernels x tail
    the rest    bytes / sustained bandwidth + kernels x tail      (memory-bound)

each divided by the class's efficiency factor (fitted per stack, ``advisor.steptime.fit``, and
refined by pilots). A phase (forward, backward, optimizer) takes max(GPU time, host time): the
GPU runs behind the host's launches (``advisor.steptime.host``); the excess of host time over GPU
time is reported as ``overhead``. This is the roofline of torch's RuntimeEstimator
(``_roofline_estimate``: max(compute, transfer) per operator), with the catalog GPU's peaks, the
achievable fractions of published microbenchmarks, and the host.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.steptime import classes as C
from advisor.steptime.device import FLASH_BLOCK, GEMM_TILE, KERNEL_TAIL_S, Device
from advisor.steptime.host import (
    HOST_COST_S,
    HOST_MICRO_STEP_S,
    HOST_OPTIMIZER_STEP_S,
    HOST_PER_FOREACH_TENSOR_S,
    HOST_SCALAR_S,
)


def causal_fraction(seq: float, block: int = FLASH_BLOCK) -> float:
    """Share of the score blocks a causal flash kernel computes: (n + 1) / 2n with n blocks
    per side (advisor.steptime.record.causal_fraction)."""
    n = max(1, math.ceil(seq / block))
    return (n + 1) / (2 * n)


@dataclass(frozen=True)
class Shape:
    """The sizes the roofline needs beyond the groups' own."""

    batch: int
    seq: int
    heads: int
    tokens: int  # per micro-batch
    trainable_tensors: int = 1


@dataclass(frozen=True)
class StepTime:
    """One optimizer step on one GPU (``micro_steps`` micro-batches of ``tokens`` each)."""

    seconds: float
    tokens: int  # trained tokens per optimizer step (all micro-steps)
    micro_steps: int
    by_class: dict[str, float]  # seconds per optimizer step; sums to ``seconds``
    by_phase: dict[str, float]  # forward, backward, optimizer, host fixed
    gpu_by_phase: dict[str, float] = field(default_factory=dict)
    host_by_phase: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds

    def shares(self) -> dict[str, float]:
        return {c: t / self.seconds for c, t in self.by_class.items() if t > 0}

    def to_json(self) -> dict:
        return {"seconds": self.seconds, "tokens": self.tokens, "micro_steps": self.micro_steps,
                "tokens_per_s": self.tokens_per_s, "by_class": dict(self.by_class),
                "by_phase": dict(self.by_phase), "shares": self.shares()}


def group_seconds(g, dev: Device, shape: Shape, attention_kernel: str = "fa2") -> float:
    """GPU seconds of one operator group at full efficiency (factor 1)."""
    mem = g.bytes / dev.memory_rate()
    tail = g.kernels * KERNEL_TAIL_S
    if g.cls == C.MATMUL:
        rate = dev.matmul_rate(g.dtype)
        if g.mnk is not None:
            m, n, _ = g.mnk
            tiles = math.ceil(max(m, 1) / GEMM_TILE) * math.ceil(max(n, 1) / GEMM_TILE)
            rate *= dev.waves(tiles)
        return max(g.flops / rate, mem) + tail
    if g.cls == C.ATTENTION:
        frac = dev.flash_fraction(attention_kernel, g.phase if g.phase == "forward" else "backward")
        flops = g.flops * (causal_fraction(shape.seq) if g.causal else 1.0)
        blocks = shape.batch * shape.heads * math.ceil(shape.seq / FLASH_BLOCK)
        rate = dev.peak_flops.get(g.dtype, dev.peak_flops["bf16"]) * frac * dev.waves(blocks)
        return max(flops / rate, mem) + tail
    return mem + tail


def host_seconds(groups, mode: str) -> dict[tuple[str, str], float]:
    """Host seconds per (phase, class): a cost per operator call (``advisor.steptime.host``)."""
    cost = HOST_COST_S[mode]
    out: dict[tuple[str, str], float] = {}
    for g in groups:
        if g.kernels <= 0 and g.cls == C.OPTIMIZER:
            t = g.ops * HOST_SCALAR_S
        elif g.cls == C.OPTIMIZER:
            t = g.ops * cost["optimizer"]
        elif g.cls == C.DEQUANTIZE:
            t = g.ops * cost["dequantize"]
        else:
            per = cost["forward"] if g.phase == "forward" else cost["backward"]
            t = (g.ops if mode == "eager" else max(g.kernels, 0)) * per
        key = (g.phase, g.cls)
        out[key] = out.get(key, 0.0) + t
    return out


@dataclass(frozen=True)
class Components:
    """A step's times before efficiency factors: GPU seconds per (phase, class) at factor 1,
    host seconds per phase, fixed host seconds per micro-step and per optimizer step. Cheap to
    recombine under other factors (``combine``), which is what fitting and calibration do."""

    gpu: dict[tuple[str, str], float]
    host: dict[tuple[str, str], float]
    host_micro_step: float
    host_step: float
    tokens: int  # per micro-step
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Compact:
    """A step's groups reduced for pricing on many GPUs: GEMMs (key, flops, bytes, kernels,
    128x128 tiles, dtype), attention (key, flops, bytes, kernels, causal, dtype, forward?), and
    the memory-bound rest summed per key (bytes, kernels)."""

    mm: tuple
    attn: tuple
    mem: tuple


def compact(groups) -> Compact:
    mm, attn, mem = [], [], {}
    for g in groups:
        key = (g.phase, g.cls)
        if g.cls == C.MATMUL:
            m, n = (g.mnk[0], g.mnk[1]) if g.mnk is not None else (1e9, 1e9)
            tiles = math.ceil(max(m, 1) / GEMM_TILE) * math.ceil(max(n, 1) / GEMM_TILE)
            mm.append((key, g.flops, g.bytes, g.kernels, tiles, g.dtype))
        elif g.cls == C.ATTENTION:
            attn.append((key, g.flops, g.bytes, g.kernels, g.causal, g.dtype, g.phase == "forward"))
        else:
            acc = mem.setdefault(key, [0.0, 0.0])
            acc[0] += g.bytes
            acc[1] += g.kernels
    return Compact(tuple(mm), tuple(attn), tuple((k, b, n) for k, (b, n) in mem.items()))


def gpu_seconds(groups, dev: Device, shape: Shape, attention_kernel: str = "fa2",
                packed: Compact | None = None) -> dict[tuple[str, str], float]:
    """GPU seconds per (phase, class) at factor 1: ``group_seconds`` summed, written out for
    speed (a ranking prices every spec variant on every GPU)."""
    cp = packed or compact(groups)
    mem_rate = dev.memory_rate()
    sms = dev.sms
    tail = KERNEL_TAIL_S
    out: dict[tuple[str, str], float] = {}
    for key, nbytes, kernels in cp.mem:
        out[key] = nbytes / mem_rate + kernels * tail
    rates: dict[str, float] = {}
    for key, flops, nbytes, kernels, tiles, dtype in cp.mm:
        rate = rates.get(dtype)
        if rate is None:
            rate = rates[dtype] = dev.matmul_rate(dtype)
        waves = -(-tiles // sms)
        c = flops * waves * sms / (rate * tiles)
        t = nbytes / mem_rate
        out[key] = out.get(key, 0.0) + (c if c > t else t) + kernels * tail
    if cp.attn:
        attn_wave = dev.waves(shape.batch * shape.heads * math.ceil(shape.seq / FLASH_BLOCK))
        causal = causal_fraction(shape.seq)
        for key, flops, nbytes, kernels, is_causal, dtype, forward in cp.attn:
            frac = dev.flash_fraction(attention_kernel, "forward" if forward else "backward")
            rate = dev.peak_flops.get(dtype, dev.peak_flops["bf16"]) * frac * attn_wave
            c = flops * (causal if is_causal else 1.0) / rate
            t = nbytes / mem_rate
            out[key] = out.get(key, 0.0) + (c if c > t else t) + kernels * tail
    return out


def components(groups, dev: Device, shape: Shape, *, mode: str = "eager", attention_kernel: str = "fa2",
               host: dict[tuple[str, str], float] | None = None, packed: Compact | None = None) -> Components:
    """The factor-free times of a step (``host``: ``host_seconds(groups, mode)`` and ``packed``:
    ``compact(groups)`` when the caller caches them)."""
    gpu = gpu_seconds(groups, dev, shape, attention_kernel, packed)
    if host is None:
        host = host_seconds(groups, mode)
    host = dict(host)
    key = ("optimizer", C.OPTIMIZER)
    host[key] = host.get(key, 0.0) + shape.trainable_tensors * HOST_PER_FOREACH_TENSOR_S
    return Components(gpu=gpu, host=host, host_micro_step=HOST_MICRO_STEP_S, host_step=HOST_OPTIMIZER_STEP_S,
                      tokens=shape.tokens, notes=dev.notes)


def phase_seconds(comp: Components, factors: dict[str, float] | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """(GPU seconds, host seconds) per phase under ``factors``."""
    f = factors or {}
    gpu = {p: 0.0 for p in C.PHASES}
    for (p, cls), t in comp.gpu.items():
        gpu[p] += t / f.get(cls, 1.0)
    return gpu, host_by_phase(comp.host, f)


def host_by_phase(host: dict[tuple[str, str], float], f: dict[str, float]) -> dict[str, float]:
    """Host seconds per phase under factors: ``overhead`` divides all host time; the
    dequantization calls' host time is divided by the ``dequantize`` factor as well (a class's
    factor covers its operators' time wherever it is spent)."""
    ov = f.get(C.OVERHEAD, 1.0)
    out = {p: 0.0 for p in C.PHASES}
    for (p, cls), t in host.items():
        out[p] += t / ov / (f.get(C.DEQUANTIZE, 1.0) if cls == C.DEQUANTIZE else 1.0)
    return out


def combine(comp: Components, factors: dict[str, float] | None = None, *, micro_steps: int = 1,
            comm: dict[str, float] | None = None) -> StepTime:
    """One optimizer step: ``micro_steps`` forward+backward passes and one optimizer step, each
    phase max(GPU, host), plus exposed communication and the fixed host costs.

    ``factors``: efficiency per class (a class's GPU time is divided by it; ``overhead``
    divides the host's). ``comm``: exposed communication seconds per phase (forward and
    backward per micro-step, optimizer per step) and ``backward_sync``, the last micro-step's
    backward only (FSDP's reduce-scatter: gradient accumulation runs the others without
    gradient sync; ``advisor.steptime.comm``)."""
    f = factors or {}
    gpu, host = phase_seconds(comp, f)
    comm = comm or {}
    by_class = {c: 0.0 for c in C.CLASSES}
    by_phase: dict[str, float] = {}
    for phase in C.PHASES:
        reps = micro_steps if phase != "optimizer" else 1
        once = comm.get("backward_sync", 0.0) if phase == "backward" else 0.0
        by_phase[phase] = reps * (max(gpu[phase], host[phase]) + comm.get(phase, 0.0)) + once
        by_class[C.OVERHEAD] += reps * max(0.0, host[phase] - gpu[phase])
        by_class[C.COMMUNICATION] += reps * comm.get(phase, 0.0) + once
    for (p, cls), t in comp.gpu.items():
        by_class[cls] += (micro_steps if p != "optimizer" else 1) * t / f.get(cls, 1.0)
    fixed = (micro_steps * comp.host_micro_step + comp.host_step) / f.get(C.OVERHEAD, 1.0)
    by_phase["host"] = fixed
    by_class[C.OVERHEAD] += fixed
    return StepTime(seconds=sum(by_phase.values()), tokens=comp.tokens * micro_steps, micro_steps=micro_steps,
                    by_class=by_class, by_phase=by_phase, gpu_by_phase=gpu, host_by_phase=host, notes=comp.notes)


def step_time(groups, dev: Device, shape: Shape, *, mode: str = "eager", attention_kernel: str = "fa2",
              factors: dict[str, float] | None = None, micro_steps: int = 1,
              comm: dict[str, float] | None = None) -> StepTime:
    """``combine(components(...))``: one optimizer step of these operator groups on ``dev``."""
    comp = components(groups, dev, shape, mode=mode, attention_kernel=attention_kernel)
    return combine(comp, factors, micro_steps=micro_steps, comm=comm)
