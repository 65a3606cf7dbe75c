"""Every catalog GPU for a spec: fit, GPU count, memory per GPU, tokens/s, hours, cost to an
accepted checkpoint, and the levers that would make a bigger job fit; ranked, with a
recommendation and short notes in the asker's language.

What must fit: ``MemoryBreakdown.need_bytes`` (the allocator's reserved memory at equal batch
lengths plus the CUDA context; on variable-length batches nvidia-smi shows more,
``device_bytes``: cache torch frees and retries when the GPU is full, advisor.allocator.closed_form)
under ``Gpu.usable_memory_bytes`` (torch's total_memory, the memory a process can use, the
context included), keeping ``FIT_MARGIN`` of it free.

GPU counts tried: the spec's count, then 1, 2, 4, 8 per node and 16, 32, 64 over several nodes.
DDP replicates the model, so more DDP GPUs never make a job fit; beyond the spec's count the
search shards with FSDP (the option says so in ``sharding``).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict

from advisor.arch import Architecture
from advisor.catalog import Catalog, Gpu
from advisor.cost import (
    CostBreakdown,
    checkpoint_bytes,
    PlanningWindow,
    RunTime,
    estimate_cost,
    estimate_time,
    planning_windows,
    price_per_million_tokens,
)
from advisor.memory import MemoryBreakdown, estimate_memory
from advisor.report import build_notes, lever_text, reason_text
from advisor.resolve import Resolved
from advisor.spec import FinetuneSpec
from advisor.throughput import GPUS_PER_NODE, Calibration, FlopsPerToken, Throughput, estimate_throughput, flops_per_token

FIT_MARGIN = 0.05
# Options whose cost is within this fraction of the cheapest are a tie: the throughput priors are
# only good to about +-20% until a pilot measures them (advisor.throughput), so a few percent is
# not a difference worth a second node. Within the band the recommendation prefers fewer nodes
# (a multi-node job needs a cluster and fails in more ways), then the sooner finish.
COST_TIE_BAND = 0.10
"""Share of usable memory kept free: the analytic model's error against published peaks (see
tests/test_memory.py) and spikes from longer-than-average batches."""
TIGHT_MARGIN = 0.10  # below this much headroom, a note recommends the pilot before the run
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)  # 8 per node, then whole nodes (up to 8 nodes)
MIN_LEVER_SEQ = 256  # shortest sequence a lever proposes


class Lever(BaseModel):
    model_config = ConfigDict(frozen=True)

    lever: str  # gradient_checkpointing, qlora, lora, seq_len, micro_batch, optimizer_8bit, flash_attention, fsdp, combined
    description: str  # in the recommendation's language (advisor.report.lever_text)
    detail: dict[str, Any] = {}  # what the description is rendered from (seq_len, factor, n, parts)
    memory_bytes: int  # device bytes per GPU with the lever
    fits: bool  # on this GPU (with the lever's num_gpus)
    num_gpus: int = 1
    cost_factor: float | None = None  # GPU-time per trained token relative to the spec on one GPU

    def to_json(self) -> dict:
        return self.model_dump()


class GpuOption(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    gpu: str
    gpu_name: str
    offered: bool
    price_usd_per_hour: float | None
    usable_bytes: int
    fits: bool
    num_gpus: int | None  # smallest count that fits (None: none does)
    sharding: str | None
    memory_bytes: int  # device bytes per GPU at num_gpus (at one GPU when nothing fits)
    breakdown: Any  # MemoryBreakdown at that count
    tokens_per_s: float | None
    mfu: float | None
    efficiency_source: str | None  # "prior" or "calibrated"
    pilots: int = 0
    hours: float | None  # wall-clock of the accepted run (None without a dataset size)
    time: Any = None  # RunTime
    cost_usd: float | None = None  # to an accepted checkpoint (offered GPUs with a price)
    cost: Any = None  # CostBreakdown
    price_per_million_tokens: float | None = None
    reason: str | None = None  # why it does not fit on one GPU (advisor.report.reason_text)
    reason_detail: dict[str, Any] | None = None  # what the reason is rendered from
    levers: list[Lever] = []
    step_s: float | None = None  # one optimizer step on each GPU (advisor.steptime)
    time_shares: dict[str, float] | None = None  # share of the step per operator class, largest first

    @property
    def money(self) -> float | None:
        """What the ranking compares: cost to an accepted checkpoint, or price per million trained
        tokens when no dataset size was given (None when the GPU has no price)."""
        return self.cost_usd if self.cost_usd is not None else self.price_per_million_tokens

    @property
    def headroom_bytes(self) -> int:
        return self.usable_bytes - self.memory_bytes

    def to_json(self) -> dict:
        out = {
            "gpu": self.gpu, "fits": self.fits, "num_gpus": self.num_gpus, "memory": self.memory_bytes,
            "tokens_per_s": self.tokens_per_s, "hours": self.hours, "cost_usd": self.cost_usd,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        out.update({
            "gpu_name": self.gpu_name, "offered": self.offered, "price_usd_per_hour": self.price_usd_per_hour,
            "usable_bytes": self.usable_bytes, "sharding": self.sharding, "mfu": self.mfu,
            "efficiency_source": self.efficiency_source, "pilots": self.pilots,
            "price_per_million_tokens": self.price_per_million_tokens,
            "cost": self.cost.to_json() if self.cost is not None else None,
            "time_s": _time_json(self.time),
            "levers": [lv.to_json() for lv in self.levers],
            "breakdown": self.breakdown.to_json() if self.breakdown is not None else None,
            "step_time": ({"seconds": self.step_s, "shares": dict(self.time_shares or {})}
                          if self.step_s is not None else None),
        })
        return out


class Recommendation(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    spec: FinetuneSpec
    model_label: str
    memory: Any  # MemoryBreakdown of the spec as given
    options: list[GpuOption]
    recommended: str | None
    notes: list[str]
    assumed: list[str]
    planning_windows: list[PlanningWindow] = []
    planning_gpu: str | None = None
    job_gpu_hours: float | None = None
    lang: str = "en"

    def option(self, gpu_id: str) -> GpuOption:
        return next(o for o in self.options if o.gpu == gpu_id)

    def to_json(self) -> dict:
        m = self.memory
        return {
            "spec": self.spec.model_dump(mode="json"),
            "memory": {"allocated_bytes": m.allocated_bytes, "reserved_bytes": m.reserved_bytes,
                       "device_bytes": m.device_bytes, "breakdown": dict(m.terms),
                       "peak_phase": m.peak_phase, "num_gpus": m.num_gpus},
            "options": [o.to_json() for o in self.options],
            "recommended": self.recommended,
            "notes": list(self.notes),
            "assumed": {name: getattr(self.spec, name) for name in self.assumed},
            "planning_windows": {
                "gpu": self.planning_gpu, "job_gpu_hours": self.job_gpu_hours,
                "windows": [{"hours": w.hours, "price_usd": w.price_usd, "fits": w.fits}
                            for w in self.planning_windows],
            } if self.planning_gpu else None,
            "price_per_million_tokens": self.spec.dataset_tokens is None,
            "model": self.model_label,
            "lang": self.lang,
        }


def _time_json(time: RunTime | None) -> dict | None:
    if time is None:
        return None
    return {"training": time.training_s, "evaluation": time.evaluation_s, "checkpoint": time.checkpoint_s,
            "startup": time.startup_s, "pilot": time.pilot_s, "run": time.run_s}


class _Ctx:
    """Caches for one ranking. Spec variants (GPU counts, levers) are built once under a short
    key, and their memory, FLOPs and checkpoint size computed once: none depends on the GPU.
    (Hashing a pydantic spec costs more than most of the arithmetic, so caches key on ids of
    the variants this object keeps alive.)"""

    def __init__(self, arch: Architecture, base: FinetuneSpec, calibration: Calibration | None):
        self.arch, self.base, self.calibration = arch, base, calibration
        self._variants: dict[tuple, FinetuneSpec] = {}
        self._memory: dict[tuple, MemoryBreakdown] = {}
        self._flops: dict[int, FlopsPerToken] = {}
        self._groups: dict[int, Any] = {}
        self._tp: dict[tuple, Throughput] = {}
        self._checkpoint: dict[int, int] = {}

    def variant(self, key: tuple, **update: Any) -> FinetuneSpec:
        spec = self._variants.get(key)
        if spec is None:
            changed = {k: v for k, v in update.items() if getattr(self.base, k) != v}
            spec = self._variants[key] = self.base.model_copy(update=changed) if changed else self.base
        return spec

    def memory(self, spec: FinetuneSpec, n: int, rr: float | None) -> MemoryBreakdown:
        key = (id(spec), n, rr)
        hit = self._memory.get(key)
        if hit is None:
            hit = self._memory[key] = estimate_memory(spec, self.arch, num_gpus=n, reserved_ratio=rr)
        return hit

    def throughput(self, spec: FinetuneSpec, gpu: Gpu, n: int) -> Throughput:
        key = (id(spec), gpu.id, n)
        hit = self._tp.get(key)
        if hit is not None:
            return hit
        flops = self._flops.get(id(spec))
        if flops is None:
            flops = self._flops[id(spec)] = flops_per_token(spec, self.arch)
        groups = self._groups.get(id(spec))
        if groups is None:  # the step's operators do not depend on the GPU: price them once
            from advisor.steptime.model import step_groups

            groups = self._groups[id(spec)] = step_groups(spec, self.arch)
        hit = self._tp[key] = estimate_throughput(spec, self.arch, gpu, num_gpus=n, calibration=self.calibration,
                                                  flops=flops, groups=groups)
        return hit

    def checkpoint(self, spec: FinetuneSpec) -> int:
        size = self._checkpoint.get(id(spec))
        if size is None:
            size = self._checkpoint[id(spec)] = checkpoint_bytes(spec, self.arch)
        return size


def _limit(gpu: Gpu) -> float:
    return gpu.usable_memory_bytes * (1 - FIT_MARGIN)


def _counts(spec: FinetuneSpec) -> list[int]:
    return [spec.num_gpus] + [c for c in GPU_COUNTS if c > spec.num_gpus]


def _find_fit(ctx: _Ctx, gpu: Gpu, rr: float | None) -> tuple[FinetuneSpec, MemoryBreakdown] | None:
    """The spec at the smallest GPU count (and sharding) at which it fits on ``gpu``."""
    base = ctx.base
    for i, n in enumerate(_counts(base)):
        sharding = base.sharding if i == 0 else "fsdp"
        spec = ctx.variant(("fit", n, sharding), num_gpus=n, sharding=sharding)
        mem = ctx.memory(spec, n, rr)
        if mem.need_bytes <= _limit(gpu):
            return spec, mem
    return None


_LEVER_FIELDS = ("micro_batch", "optimizer", "gradient_checkpointing", "attention", "method", "quant",
                 "expandable_segments")


def _lever_updates(spec: FinetuneSpec) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Single changes that lower memory: (code, fields to change, detail for its text)."""
    out: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    if spec.micro_batch > 1:
        out.append(("micro_batch", {"micro_batch": 1}, {"factor": spec.micro_batch}))
    if spec.optimizer == "adamw":
        out.append(("optimizer_8bit", {"optimizer": "adamw-8bit"}, {}))
    if not spec.gradient_checkpointing:
        out.append(("gradient_checkpointing", {"gradient_checkpointing": True}, {}))
    if spec.attention == "eager":
        out.append(("flash_attention", {"attention": "flash"}, {}))
    if spec.method == "lora":
        out.append(("qlora", {"method": "qlora", "quant": "nf4"}, {}))
    if spec.method == "full":
        out.append(("lora", {"method": "lora"}, {}))
    if spec.length_distribution is not None and not spec.expandable_segments:
        # variable-length batches leave the caching allocator holding blocks of many sizes;
        # expandable segments grow one segment instead (advisor.allocator.closed_form)
        out.append(("expandable_segments", {"expandable_segments": True}, {}))
    return out


def _combined(spec: FinetuneSpec, singles: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Every single lever at once (a full fine-tune goes as far as QLoRA)."""
    if len(singles) < 2:
        return None
    update: dict[str, Any] = {}
    parts = [[code, detail] for code, _, detail in singles]
    for _, fields, _ in singles:
        update.update(fields)
    if spec.method == "full":
        update.update(method="qlora", quant="nf4")
        parts.append(["qlora", {}])
    return update, {"parts": parts}


def _levers(ctx: _Ctx, gpu: Gpu, rr: float | None, fit: tuple[FinetuneSpec, MemoryBreakdown] | None,
            lang: str) -> list[Lever]:
    """What would make the spec fit on ``gpu``: single changes, all of them together, a shorter
    sequence, FSDP; when nothing fits at any count, each change with the FSDP count that makes
    it fit. Fitting levers first, cheapest first (GPU-time per token relative to the spec)."""
    single = ctx.variant(("fit", 1, ctx.base.sharding), num_gpus=1)
    base_tps = ctx.throughput(single, gpu, 1).tokens_per_s
    limit = _limit(gpu)
    found: list[tuple[Lever, FinetuneSpec]] = []

    def add(code: str, key: tuple, update: dict[str, Any], detail: dict[str, Any], n: int = 1) -> Lever:
        spec = ctx.variant(key, num_gpus=n, **update)
        mem = ctx.memory(spec, n, rr)
        tps = ctx.throughput(spec, gpu, n).tokens_per_s
        lv = Lever(lever=code, description=lever_text(code, detail, lang), detail=detail,
                   memory_bytes=mem.device_bytes, fits=mem.need_bytes <= limit, num_gpus=n,
                   cost_factor=n * base_tps / tps)
        found.append((lv, spec))
        return lv

    before = ctx.memory(single, 1, rr).device_bytes
    singles = []
    for code, update, detail in _lever_updates(single):
        if add(code, ("lever", code), update, detail).memory_bytes < before:
            singles.append((code, update, detail))
        else:  # a change that does not lower memory here is no lever (e.g. QLoRA's fp32 casts)
            found.pop()
    combined = _combined(single, singles) if not any(lv.fits for lv, _ in found) else None
    if combined is not None:
        add("combined", ("combined",), *combined)
    seq = _shorter_seq(ctx, single, {}, limit, rr)
    if seq is not None:
        add("seq_len", ("seq", seq), {"seq_len": seq}, {"seq_len": seq})
    elif combined is not None and not found[-1][0].fits:
        seq = _shorter_seq(ctx, single, combined[0], limit, rr)
        if seq is not None:
            parts = combined[1]["parts"] + [["seq_len", {"seq_len": seq}]]
            add("combined", ("seq", seq, *sorted(combined[0].items())), {**combined[0], "seq_len": seq}, {"parts": parts})
    if fit is not None and fit[0].num_gpus > 1:
        n = fit[0].num_gpus
        add("fsdp", ("fit", n, fit[0].sharding), {"sharding": fit[0].sharding}, {"n": n}, n=n)
    elif fit is None and not any(lv.fits for lv, _ in found):  # no count fits, no change alone does
        for lv, spec in list(found):
            n = _fsdp_count(ctx, spec, gpu, rr)
            if n is not None:
                update = {k: getattr(spec, k) for k in (*_LEVER_FIELDS, "seq_len")}
                add(lv.lever, ("fsdp", n, id(spec)), {**update, "sharding": "fsdp"}, {**lv.detail, "fsdp_n": n}, n=n)
    levers = [lv for lv, _ in found]
    return sorted(levers, key=lambda lv: (not lv.fits, lv.cost_factor if lv.fits else lv.memory_bytes, lv.num_gpus))


def _shorter_seq(ctx: _Ctx, single: FinetuneSpec, update: dict[str, Any], limit: float,
                 rr: float | None) -> int | None:
    """The longest halved sequence length (with ``update`` applied) that fits under ``limit``."""
    seq = single.seq_len // 2
    while seq >= MIN_LEVER_SEQ:
        spec = ctx.variant(("seq", seq, *sorted(update.items())), num_gpus=1, seq_len=seq, **update)
        if ctx.memory(spec, 1, rr).need_bytes <= limit:
            return seq
        seq //= 2
    return None


def _fsdp_count(ctx: _Ctx, spec: FinetuneSpec, gpu: Gpu, rr: float | None) -> int | None:
    """The smallest FSDP GPU count at which ``spec`` fits on ``gpu``."""
    update = {k: getattr(spec, k) for k in (*_LEVER_FIELDS, "seq_len")}
    for n in GPU_COUNTS[1:]:
        sharded = ctx.variant(("fsdp", n, id(spec)), num_gpus=n, sharding="fsdp", **update)
        if ctx.memory(sharded, n, rr).need_bytes <= _limit(gpu):
            return n
    return None


def _option(ctx: _Ctx, gpu: Gpu, storage_price: float, lang: str, with_levers: bool = True) -> GpuOption:
    spec, arch, calibration = ctx.base, ctx.arch, ctx.calibration
    rr = calibration.reserved_ratio(gpu.id, spec.stack) if calibration is not None else None
    fit = _find_fit(ctx, gpu, rr)
    one = ctx.memory(ctx.variant(("fit", 1, spec.sharding), num_gpus=1), 1, rr)
    levers: list[Lever] = []
    reason = reason_detail = None
    if one.need_bytes > _limit(gpu):
        levers = _levers(ctx, gpu, rr, fit, lang) if with_levers else []
        term = one.largest_term()
        reason_detail = {"need": one.need_bytes, "usable": gpu.usable_memory_bytes, "term": term,
                         "term_size": one.terms[term]}
        if fit is None:
            n_max = GPU_COUNTS[-1]
            most = ctx.memory(ctx.variant(("fit", n_max, "fsdp"), num_gpus=n_max, sharding="fsdp"), n_max, rr)
            reason_detail.update(n=n_max, need_n=most.need_bytes)
        reason = reason_text(reason_detail, lang)
    base = dict(gpu=gpu.id, gpu_name=gpu.display_name, offered=gpu.offered,
                price_usd_per_hour=gpu.price_usd_per_hour, usable_bytes=gpu.usable_memory_bytes, levers=levers)
    if fit is None:
        return GpuOption(**base, fits=False, num_gpus=None, sharding=None, memory_bytes=one.device_bytes,
                         breakdown=one, tokens_per_s=None, mfu=None, efficiency_source=None, hours=None,
                         reason=reason, reason_detail=reason_detail)
    fit_spec, mem = fit
    n = fit_spec.num_gpus
    tp = ctx.throughput(fit_spec, gpu, n)
    checkpoint = ctx.checkpoint(fit_spec)
    time = estimate_time(fit_spec, arch, tp, checkpoint=checkpoint)
    cost: CostBreakdown | None = None
    per_million = None
    if gpu.price_usd_per_hour is not None:
        per_million = price_per_million_tokens(gpu.price_usd_per_hour, n, tp.tokens_per_s)
        if time is not None:
            cost = estimate_cost(fit_spec, arch, time, price_per_hour=gpu.price_usd_per_hour, num_gpus=n,
                                 storage_usd_per_gb_month=storage_price, checkpoint=checkpoint)
    # on variable-length batches the allocator's cache grows until the GPU is full, then torch
    # frees it and retries: nvidia-smi shows at most the whole GPU (advisor.allocator.closed_form)
    shown = min(mem.device_bytes, gpu.usable_memory_bytes)
    return GpuOption(**base, fits=True, num_gpus=n, sharding=fit_spec.sharding, memory_bytes=shown,
                     breakdown=mem, tokens_per_s=tp.tokens_per_s, mfu=tp.mfu,
                     efficiency_source=tp.efficiency.source, pilots=tp.efficiency.pilots,
                     hours=time.hours if time else None, time=time,
                     cost_usd=cost.total_usd if cost else None, cost=cost,
                     price_per_million_tokens=per_million, reason=reason, reason_detail=reason_detail,
                     step_s=tp.step_s, time_shares=tp.breakdown())


def _nodes(o: GpuOption) -> int:
    return math.ceil((o.num_gpus or 1) / GPUS_PER_NODE)


def _money(o: GpuOption) -> float:
    return o.money if o.money is not None else math.inf


def _pick(ranked: list[GpuOption]) -> GpuOption | None:
    """The recommendation among fitting options: cheapest, unless another within COST_TIE_BAND
    needs fewer nodes or finishes sooner (ties by time, as the issue asks)."""
    fitting = [o for o in ranked if o.fits]
    if not fitting:
        return None
    cheapest = min(_money(o) for o in fitting)
    band = [o for o in fitting if _money(o) <= cheapest * (1 + COST_TIE_BAND)]
    return min(band, key=lambda o: (_nodes(o), _rank_key(o)[2], _money(o)))


def _rank_key(o: GpuOption) -> tuple:
    speed = o.hours if o.hours is not None else (1 / o.tokens_per_s if o.tokens_per_s else math.inf)
    return (not o.fits, _money(o), speed, o.memory_bytes)


def recommend(resolved: Resolved, catalog: Catalog, *, calibration: Calibration | None = None,
              lang: str = "en") -> Recommendation:
    """Rank every catalog GPU for ``resolved`` (offered first) and recommend the cheapest offered
    GPU that fits, by cost to an accepted checkpoint (or price per million tokens without a
    dataset size), ties by time."""
    spec = resolved.spec
    ctx = _Ctx(resolved.arch, spec, calibration)
    rr_spec = calibration.reserved_ratio(spec.gpu, spec.stack) if (calibration and spec.gpu) else None
    memory = ctx.memory(spec, spec.num_gpus, rr_spec)
    storage_price = catalog.storage_price(spec.region)
    rentable = [g for g in catalog.gpus() if g.offered and g.price_usd_per_hour is not None]
    offered = sorted((_option(ctx, g, storage_price, lang) for g in rentable), key=_rank_key)
    # levers for GPUs we do not rent only matter when nothing we rent fits (they cost time: the
    # ranking must stay within milliseconds, benchmarks/ranking.py)
    others_levers = not any(o.fits for o in offered)
    others = sorted((_option(ctx, g, storage_price, lang, others_levers) for g in catalog.gpus() if g not in rentable),
                    key=_rank_key)
    best = _pick(offered)
    if best is not None:  # the recommendation leads the table
        offered = [best] + [o for o in offered if o is not best]
    ranked = offered + others
    windows, job_hours = [], None
    if best is not None:
        job_hours = best.cost.gpu_hours if best.cost is not None else None
        windows = planning_windows(best.price_usd_per_hour, job_hours)
    notes = build_notes(spec, ranked, best, windows, job_hours, lang)
    return Recommendation(spec=spec, model_label=resolved.label, memory=memory, options=ranked,
                          recommended=best.gpu if best else None, notes=notes, assumed=list(resolved.assumed),
                          planning_windows=windows, planning_gpu=best.gpu if best else None,
                          job_gpu_hours=job_hours, lang=lang)
