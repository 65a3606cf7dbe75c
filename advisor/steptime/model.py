"""The step-time model, assembled: the closed-form operator inventory of the step
(``inventory``), priced on a catalog GPU (``device``, ``roofline``), with the host's launch time
(``host``), multi-GPU communication (``comm``) and the stack's efficiency factors (``fit``).

    prepare(spec, arch, gpu, ...) -> Prepared      everything that does not depend on factors
    finish(prepared, factors) -> StepTime          one GPU's optimizer step (microseconds)
    predict(...) = finish(prepare(...), factors)

Used by every chat answer through ``advisor.throughput`` (the inventory of a configuration is
compiled once and cached), by ``benchmarks/throughput_accuracy.py`` on published measurements,
and by pilot calibration (which refits factors on prepared steps).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.steptime import classes as C
from advisor.steptime import comm as comm_mod
from advisor.steptime.device import device as device_for
from advisor.steptime.host import host_mode
from advisor.steptime.inventory import Group, compile_step, config_for, evaluate, point_for
from advisor.steptime.kernels import Kernels, for_spec
from advisor.steptime.roofline import (
    Components,
    Shape,
    StepTime,
    combine,
    compact,
    components,
    host_seconds,
    phase_seconds,
)


def weight_bytes_per_param(spec) -> float:
    """Bytes per parameter FSDP gathers: the 16-bit param_dtype (fp32 for fp32 runs), or the
    packed 4-bit / 8-bit storage of a quantized base."""
    if spec.method == "qlora":
        return 0.5 if (spec.quant or "nf4") == "nf4" else 1.0
    return 4.0 if spec.precision == "fp32" else 2.0


def grad_bytes_per_param(spec) -> float:
    """Gradients are reduced in the trainable parameters' dtype: 16-bit under pure bf16, fp32
    otherwise (fp32 master weights, PEFT's fp32 adapters)."""
    return 2.0 if spec.precision == "bf16" else 4.0


@dataclass
class StepGroups:
    """A spec's operator groups and the counts the roofline and the communication need: the
    GPU-independent part of a step, computed once per spec (a ranking prices it on every GPU).
    ``host`` caches the host seconds per mode (they do not depend on the GPU either)."""

    groups: tuple[Group, ...]
    tensors: int  # trainable tensors (foreach lists, host work per tensor)
    trainable: float  # trainable parameters
    kernels: Kernels | None = None
    host: dict = field(default_factory=dict)

    def host_seconds(self, mode: str) -> dict:
        hit = self.host.get(mode)
        if hit is None:
            hit = self.host[mode] = host_seconds(self.groups, mode)
        return hit

    def packed(self, n: int = 1, sharded: bool = False):
        """``roofline.compact`` of the groups (the optimizer's work divided by ``n`` when FSDP
        shards it), cached."""
        key = ("packed", n if sharded else 1)
        hit = self.host.get(key)
        if hit is None:
            gs = [g.scaled(1 / n) if sharded and n > 1 and g.phase == "optimizer" else g for g in self.groups]
            hit = self.host[key] = compact(gs)
        return hit


def step_groups(spec, arch, kernels: Kernels | None = None, stack=None) -> StepGroups:
    kern = kernels or for_spec(spec)
    step = compile_step(config_for(spec, arch, kern, stack))
    pt = point_for(spec, arch, stack, step)
    return StepGroups(groups=tuple(evaluate(step, pt)), tensors=int(pt.vals[-1]),
                      trainable=pt(step.trainable), kernels=kern)


@dataclass(frozen=True)
class Prepared:
    """A run's step before efficiency factors (``finish`` applies them)."""

    comp: Components
    micro_steps: int
    sharding: str
    num_gpus: int
    volumes: comm_mod.Volumes | None = None
    link: comm_mod.Link | None = None


def prepare(spec, arch, gpu, *, num_gpus: int | None = None, sharding: str | None = None,
            kernels: Kernels | None = None, stack=None, micro_steps: int = 1,
            weight_bytes: float | None = None, groups: StepGroups | None = None) -> Prepared:
    """Price ``spec``'s step on one ``gpu`` of ``num_gpus`` (data parallel) at factor 1.

    ``kernels``: the stack's kernel profile (default: the spec's stack, compiled when the spec
    says so); ``stack``: an ``advisor.stacks.StackProfile`` overriding the spec's;
    ``micro_steps``: gradient accumulation; ``weight_bytes``: bytes per parameter FSDP
    gathers (default ``weight_bytes_per_param``); ``groups``: ``step_groups(spec, arch,
    kernels, stack)`` when the caller has it."""
    n = num_gpus or spec.num_gpus
    shard = sharding or spec.sharding
    kern = kernels or for_spec(spec)
    sg = groups or step_groups(spec, arch, kern, stack)
    sharded = n > 1 and shard in ("fsdp", "zero2")  # each GPU updates only its 1/n shard
    shape = Shape(batch=spec.micro_batch, seq=spec.seq_len, heads=arch.heads, tokens=spec.seq_len * spec.micro_batch,
                  trainable_tensors=sg.tensors)
    mode = host_mode(kern)
    comp = components(sg.groups, device_for(gpu), shape, mode=mode, attention_kernel=kern.attention,
                      host=sg.host_seconds(mode), packed=sg.packed(n, sharded))
    if n <= 1:
        return Prepared(comp=comp, micro_steps=micro_steps, sharding=shard, num_gpus=1)
    wb = weight_bytes if weight_bytes is not None else weight_bytes_per_param(spec)
    vol = comm_mod.volumes(shard, n, arch.params_total * wb, sg.trainable * grad_bytes_per_param(spec), arch.layers)
    return Prepared(comp=comp, micro_steps=micro_steps, sharding=shard, num_gpus=n, volumes=vol,
                    link=comm_mod.link(gpu, n))


def finish(prep: Prepared, factors: dict[str, float] | None = None) -> StepTime:
    """The optimizer step under ``factors`` (efficiency per operator class)."""
    exposed = None
    if prep.volumes is not None:
        gpu, host = phase_seconds(prep.comp, factors)
        fwd = max(gpu["forward"], host["forward"])
        bwd = max(gpu["backward"], host["backward"])
        exposed = comm_mod.exposed(prep.volumes, prep.link, fwd, bwd, prep.sharding)
    return combine(prep.comp, factors, micro_steps=prep.micro_steps, comm=exposed)


def predict(spec, arch, gpu, *, factors: dict[str, float] | None = None, **kw) -> StepTime:
    """One optimizer step of ``spec`` on one ``gpu`` (see ``prepare`` for the keywords)."""
    return finish(prepare(spec, arch, gpu, **kw), factors)


def groups_for(spec, arch, kernels: Kernels | None = None, stack=None) -> list[Group]:
    """The operator groups of ``spec`` (for a breakdown or a test)."""
    return list(step_groups(spec, arch, kernels, stack).groups)


__all__ = ["C", "Prepared", "StepGroups", "StepTime", "finish", "groups_for", "predict", "prepare", "step_groups"]
