"""Every catalog GPU for a spec: fit, GPU count, memory per GPU, tokens/s, hours, cost to an
accepted checkpoint, and the levers that would make a bigger job fit; ranked, with a
recommendation and short notes, as numbers and codes (advisor.answer_model.Answer). The words
are advisor.report's (and the bot's renderer's): nothing here writes a sentence.

What must fit: ``MemoryBreakdown.need_bytes`` under a GPU's usable memory, by the one fit rule
(advisor.fit: FIT_MARGIN kept free). On variable-length batches nvidia-smi shows more
(``device_bytes``: cache torch frees and retries when the GPU is full, advisor.allocator.closed_form).

GPU counts tried: the spec's count, then 1, 2, 4, 8 per node and 16, 32, 64 over several nodes.
DDP replicates the model, so more DDP GPUs never make a job fit; beyond the spec's count the
search shards with FSDP (the option says so in ``sharding``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from advisor.answer_model import (Answer, Change, Cost, Lever, Memory, Note, Option, Planning, Reason, RunTime,
                                  StepTime, Window)
from advisor.arch import Architecture
from advisor.catalog import Catalog, Gpu
from advisor.cost import (
    checkpoint_bytes,
    estimate_cost,
    estimate_time,
    planning_windows,
    price_per_million_tokens,
)
from advisor.fit import fit_limit, is_tight
from advisor.memory import MemoryBreakdown, estimate_memory
from advisor.spec import FinetuneSpec
from advisor.stacks import unread_behaviours
from advisor.throughput import GPUS_PER_NODE, Calibration, FlopsPerToken, Throughput, estimate_throughput, flops_per_token

if TYPE_CHECKING:  # resolving names (advisor.resolve, advisor.hub) is the caller's step, above the ranking
    from advisor.resolve import Resolved

# Options whose cost is within this fraction of the cheapest are a tie: the throughput priors are
# only good to about +-20% until a pilot measures them (advisor.throughput), so a few percent is
# not a difference worth a second node. Within the band the recommendation prefers fewer nodes
# (a multi-node job needs a cluster and fails in more ways), then the sooner finish.
COST_TIE_BAND = 0.10
# A notably faster GPU is worth a note when it beats the recommendation by more than this
# fraction of tokens/s (below, the throughput priors' error hides the difference).
FASTER_NOTE = 0.05
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)  # 8 per node, then whole nodes (up to 8 nodes)
MAX_GPUS_SEARCHED = GPU_COUNTS[-1]
MIN_LEVER_SEQ = 256  # shortest sequence a lever proposes


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


def _memory(m: MemoryBreakdown) -> Memory:
    """The answer's figures of a MemoryBreakdown (model_construct: its fields are typed already,
    and validation would cost more than the ranking's arithmetic, benchmarks/ranking.py)."""
    return Memory.model_construct(num_gpus=m.num_gpus, allocated_bytes=m.allocated_bytes,
                                  reserved_bytes=m.reserved_bytes, device_bytes=m.device_bytes,
                                  need_bytes=m.need_bytes, peak_phase=m.peak_phase, terms=dict(m.terms))


def _time(t: Any) -> RunTime | None:
    if t is None:
        return None
    return RunTime.model_construct(training_s=t.training_s, evaluation_s=t.evaluation_s, checkpoint_s=t.checkpoint_s,
                                   startup_s=t.startup_s, pilot_s=t.pilot_s, run_s=t.run_s, saves=t.saves)


def _cost(c: Any) -> Cost | None:
    if c is None:
        return None
    return Cost.model_construct(training_usd=c.training_usd, overhead_usd=c.overhead_usd, failures_usd=c.failures_usd,
                                evaluation_usd=c.evaluation_usd, pilot_usd=c.pilot_usd, storage_usd=c.storage_usd,
                                storage_gb=c.storage_gb, gpu_hours=c.gpu_hours, total_usd=c.total_usd)


def _counts(spec: FinetuneSpec) -> list[int]:
    return [spec.num_gpus] + [c for c in GPU_COUNTS if c > spec.num_gpus]


def _find_fit(ctx: _Ctx, limit: float, rr: float | None) -> tuple[FinetuneSpec, MemoryBreakdown] | None:
    """The spec at the smallest GPU count (and sharding) at which it fits under ``limit``."""
    base = ctx.base
    for i, n in enumerate(_counts(base)):
        sharding = base.sharding if i == 0 else "fsdp"
        spec = ctx.variant(("fit", n, sharding), num_gpus=n, sharding=sharding)
        mem = ctx.memory(spec, n, rr)
        if mem.need_bytes <= limit:
            return spec, mem
    return None


_LEVER_FIELDS = ("micro_batch", "optimizer", "gradient_checkpointing", "attention", "method", "quant",
                 "expandable_segments")

# a lever while it is searched: its code fields (Lever minus the figures) and the spec fields it changes
_Single = tuple[dict[str, Any], dict[str, Any]]


def _lever_updates(spec: FinetuneSpec) -> list[_Single]:
    """Single changes that lower memory: (the change as Lever fields, the spec fields to change)."""
    out: list[_Single] = []
    if spec.micro_batch > 1:
        out.append(({"kind": "micro_batch", "factor": spec.micro_batch}, {"micro_batch": 1}))
    if spec.optimizer == "adamw":
        out.append(({"kind": "optimizer_8bit"}, {"optimizer": "adamw-8bit"}))
    if not spec.gradient_checkpointing:
        out.append(({"kind": "gradient_checkpointing"}, {"gradient_checkpointing": True}))
    if spec.attention == "eager":
        out.append(({"kind": "flash_attention"}, {"attention": "flash"}))
    if spec.method == "lora":
        out.append(({"kind": "qlora"}, {"method": "qlora", "quant": "nf4"}))
    if spec.method == "full":
        out.append(({"kind": "lora"}, {"method": "lora"}))
    if spec.length_distribution is not None and not spec.expandable_segments:
        # variable-length batches leave the caching allocator holding blocks of many sizes;
        # expandable segments grow one segment instead (advisor.allocator.closed_form)
        out.append(({"kind": "expandable_segments"}, {"expandable_segments": True}))
    return out


def _combined(spec: FinetuneSpec, singles: list[_Single]) -> _Single | None:
    """Every single lever at once (a full fine-tune goes as far as QLoRA)."""
    if len(singles) < 2:
        return None
    update: dict[str, Any] = {}
    parts = [Change(**code) for code, _ in singles]
    for _, fields in singles:
        update.update(fields)
    if spec.method == "full":
        update.update(method="qlora", quant="nf4")
        parts.append(Change(kind="qlora"))
    return {"kind": "combined", "parts": tuple(parts)}, update


def _levers(ctx: _Ctx, gpu: Gpu, limit: float, rr: float | None,
            fit: tuple[FinetuneSpec, MemoryBreakdown] | None) -> list[Lever]:
    """What would make the spec fit on ``gpu``: single changes, all of them together, a shorter
    sequence, FSDP; when nothing fits at any count, each change with the FSDP count that makes
    it fit. Fitting levers first, cheapest first (GPU-time per token relative to the spec)."""
    single = ctx.variant(("fit", 1, ctx.base.sharding), num_gpus=1)
    base_tps = ctx.throughput(single, gpu, 1).tokens_per_s
    found: list[tuple[Lever, FinetuneSpec]] = []

    def add(code: dict[str, Any], key: tuple, update: dict[str, Any], n: int = 1) -> Lever:
        spec = ctx.variant(key, num_gpus=n, **update)
        mem = ctx.memory(spec, n, rr)
        tps = ctx.throughput(spec, gpu, n).tokens_per_s
        lv = Lever.model_construct(**{**_LEVER_DEFAULTS, **code}, device_bytes=mem.device_bytes,
                                   fits=mem.need_bytes <= limit, num_gpus=n, cost_factor=n * base_tps / tps)
        found.append((lv, spec))
        return lv

    before = ctx.memory(single, 1, rr).device_bytes
    singles = []
    for code, update in _lever_updates(single):
        if add(code, ("lever", code["kind"]), update).device_bytes < before:
            singles.append((code, update))
        else:  # a change that does not lower memory here is no lever (e.g. QLoRA's fp32 casts)
            found.pop()
    combined = _combined(single, singles) if not any(lv.fits for lv, _ in found) else None
    if combined is not None:
        add(combined[0], ("combined",), combined[1])
    seq = _shorter_seq(ctx, single, {}, limit, rr)
    if seq is not None:
        add({"kind": "shorter_seq", "seq_len": seq}, ("seq", seq), {"seq_len": seq})
    elif combined is not None and not found[-1][0].fits:
        seq = _shorter_seq(ctx, single, combined[1], limit, rr)
        if seq is not None:
            parts = (*combined[0]["parts"], Change(kind="shorter_seq", seq_len=seq))
            add({"kind": "combined", "parts": parts}, ("seq", seq, *sorted(combined[1].items())),
                {**combined[1], "seq_len": seq})
    if fit is not None and fit[0].num_gpus > 1:
        n = fit[0].num_gpus
        add({"kind": "fsdp"}, ("fit", n, fit[0].sharding), {"sharding": fit[0].sharding}, n=n)
    elif fit is None and not any(lv.fits for lv, _ in found):  # no count fits, no change alone does
        for lv, spec in list(found):
            n = _fsdp_count(ctx, spec, limit, rr)
            if n is not None:
                update = {k: getattr(spec, k) for k in (*_LEVER_FIELDS, "seq_len")}
                code = {"kind": lv.kind, "seq_len": lv.seq_len, "factor": lv.factor, "parts": lv.parts,
                        "fsdp_gpus": n}
                add(code, ("fsdp", n, id(spec)), {**update, "sharding": "fsdp"}, n=n)
    levers = [lv for lv, _ in found]
    return sorted(levers, key=lambda lv: (not lv.fits, lv.cost_factor if lv.fits else lv.device_bytes, lv.num_gpus))


_LEVER_DEFAULTS = {"seq_len": None, "factor": None, "parts": (), "fsdp_gpus": None}


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


def _fsdp_count(ctx: _Ctx, spec: FinetuneSpec, limit: float, rr: float | None) -> int | None:
    """The smallest FSDP GPU count at which ``spec`` fits under ``limit``."""
    update = {k: getattr(spec, k) for k in (*_LEVER_FIELDS, "seq_len")}
    for n in GPU_COUNTS[1:]:
        sharded = ctx.variant(("fsdp", n, id(spec)), num_gpus=n, sharding="fsdp", **update)
        if ctx.memory(sharded, n, rr).need_bytes <= limit:
            return n
    return None


def _option(ctx: _Ctx, gpu: Gpu, storage_price: float, with_levers: bool = True) -> Option:
    spec, arch, calibration = ctx.base, ctx.arch, ctx.calibration
    rr = calibration.reserved_ratio(gpu.id, spec.stack) if calibration is not None else None
    limit = fit_limit(gpu.usable_memory_bytes)  # the one fit rule (advisor.fit), for every count and lever
    fit = _find_fit(ctx, limit, rr)
    one = ctx.memory(ctx.variant(("fit", 1, spec.sharding), num_gpus=1), 1, rr)
    levers: list[Lever] = []
    reason = None
    if one.need_bytes > limit:
        levers = _levers(ctx, gpu, limit, rr, fit) if with_levers else []
        term = one.largest_term()
        why: dict[str, Any] = {"kind": "one_gpu", "need_bytes": one.need_bytes, "usable_bytes": gpu.usable_memory_bytes,
                               "term": term, "term_bytes": one.terms[term], "max_gpus": None,
                               "need_at_max_bytes": None, "text": None}
        if fit is None:
            n_max = GPU_COUNTS[-1]
            most = ctx.memory(ctx.variant(("fit", n_max, "fsdp"), num_gpus=n_max, sharding="fsdp"), n_max, rr)
            why.update(kind="no_count", max_gpus=n_max, need_at_max_bytes=most.need_bytes)
        reason = Reason.model_construct(**why)
    base = dict(gpu=gpu.id, gpu_name=gpu.display_name, offered=gpu.offered,
                price_usd_per_hour=gpu.price_usd_per_hour, usable_bytes=gpu.usable_memory_bytes,
                levers=tuple(levers), reason=reason)
    if fit is None:
        return Option(**base, fits=False, num_gpus=None, sharding=None, device_bytes=one.device_bytes,
                      memory=_memory(one), tokens_per_s=None, mfu=None, efficiency_source=None)
    fit_spec, mem = fit
    n = fit_spec.num_gpus
    tp = ctx.throughput(fit_spec, gpu, n)
    checkpoint = ctx.checkpoint(fit_spec)
    time = estimate_time(fit_spec, arch, tp, checkpoint=checkpoint)
    cost = None
    per_million = None
    if gpu.price_usd_per_hour is not None:
        per_million = price_per_million_tokens(gpu.price_usd_per_hour, n, tp.tokens_per_s)
        if time is not None:
            cost = estimate_cost(fit_spec, arch, time, price_per_hour=gpu.price_usd_per_hour, num_gpus=n,
                                 storage_usd_per_gb_month=storage_price, checkpoint=checkpoint)
    # on variable-length batches the allocator's cache grows until the GPU is full, then torch
    # frees it and retries: nvidia-smi shows at most the whole GPU (advisor.allocator.closed_form)
    shown = min(mem.device_bytes, gpu.usable_memory_bytes)
    step = StepTime.model_construct(seconds=tp.step_s, shares=tp.breakdown()) if tp.step_s is not None else None
    return Option(**base, fits=True, num_gpus=n, sharding=fit_spec.sharding, device_bytes=shown,
                  memory=_memory(mem), tokens_per_s=tp.tokens_per_s, mfu=tp.mfu,
                  efficiency_source=tp.efficiency.source, pilots=tp.efficiency.pilots,
                  hours=time.hours if time else None, time=_time(time),
                  cost_usd=cost.total_usd if cost else None, cost=_cost(cost),
                  price_per_million_tokens=per_million, step=step)


def _nodes(o: Option) -> int:
    return math.ceil((o.num_gpus or 1) / GPUS_PER_NODE)


def _money(o: Option) -> float:
    return o.money if o.money is not None else math.inf


def _pick(ranked: list[Option]) -> Option | None:
    """The recommendation among fitting options: cheapest, unless another within COST_TIE_BAND
    needs fewer nodes or finishes sooner (ties by time, as the issue asks)."""
    fitting = [o for o in ranked if o.fits]
    if not fitting:
        return None
    cheapest = min(_money(o) for o in fitting)
    band = [o for o in fitting if _money(o) <= cheapest * (1 + COST_TIE_BAND)]
    return min(band, key=lambda o: (_nodes(o), _rank_key(o)[2], _money(o)))


def _rank_key(o: Option) -> tuple:
    speed = o.hours if o.hours is not None else (1 / o.tokens_per_s if o.tokens_per_s else math.inf)
    return (not o.fits, _money(o), speed, o.device_bytes)


def build_notes(spec: FinetuneSpec, options: list[Option], best: Option | None,
                planning: Planning | None) -> list[Note]:
    """The short notes of a ranking, as codes (advisor.report.note_text says them)."""
    offered = [o for o in options if o.offered and o.price_usd_per_hour is not None]
    if best is None:
        notes = [Note(code="nothing_fits", max_gpus=MAX_GPUS_SEARCHED)]
        other = next((o for o in options if not o.offered and o.fits), None)
        if other is not None:
            notes.append(Note(code="would_fit_gpu", gpu=other.gpu))
        for o in sorted(offered, key=lambda o: o.price_usd_per_hour):  # the cheapest GPU a lever makes fit
            lever = next((lv for lv in o.levers if lv.fits), None)
            if lever is not None:
                notes.append(Note(code="would_fit_lever", gpu=o.gpu, lever=lever))
                break
        return notes
    notes = []
    if best.cost is None:
        notes += [Note(code="recommend_rate", gpu=best.gpu), Note(code="no_dataset")]
    else:
        notes += [Note(code="recommend", gpu=best.gpu), Note(code="itemized", gpu=best.gpu)]
    if planning is not None:
        fits = any(w.fits for w in planning.windows)
        code = "windows" if planning.job_gpu_hours is None else ("windows_fit" if fits else "windows_over")
        notes.append(Note(code=code, gpu=best.gpu))
    fitting = [o for o in offered if o.fits]
    cheapest = min(fitting, key=lambda o: o.money)
    if cheapest is not best:  # within the tie band the recommendation took fewer nodes or time
        notes.append(Note(code="tie", gpu=cheapest.gpu, other=best.gpu))
    fastest = max(fitting, key=lambda o: o.tokens_per_s)
    if (fastest is not best and fastest is not cheapest
            and fastest.tokens_per_s > best.tokens_per_s * (1 + FASTER_NOTE) and fastest.money > best.money):
        notes.append(Note(code="faster", gpu=fastest.gpu, other=best.gpu))
    cheaper_hourly = [o for o in fitting if o.price_usd_per_hour < best.price_usd_per_hour and o.money > best.money]
    if cheaper_hourly:  # a dearer GPU per hour is the cheaper one per checkpoint
        cheap = min(cheaper_hourly, key=lambda o: o.price_usd_per_hour)
        notes.append(Note(code="hourly_trap", gpu=best.gpu, other=cheap.gpu))
    if is_tight(best.device_bytes, best.usable_bytes):
        notes.append(Note(code="tight", gpu=best.gpu))
    notes.append(Note(code="calibrated" if best.efficiency_source == "calibrated" else "prior", gpu=best.gpu))
    # stack behaviours decided at run time, counted at their cap (advisor.stacks)
    notes += [Note(code="stack", behaviour=code) for code in unread_behaviours(spec)]
    if spec.gpu is not None and spec.gpu != best.gpu:
        asked = next((o for o in options if o.gpu == spec.gpu), None)
        if asked is not None:
            notes.append(Note(code="asked_gpu_fits" if asked.fits else "asked_gpu_no", gpu=asked.gpu))
    return notes


def recommend(resolved: "Resolved", catalog: Catalog, *, calibration: Calibration | None = None) -> Answer:
    """Rank every catalog GPU for ``resolved`` (offered first) and recommend the cheapest offered
    GPU that fits, by cost to an accepted checkpoint (or price per million tokens without a
    dataset size), ties by time."""
    spec = resolved.spec
    ctx = _Ctx(resolved.arch, spec, calibration)
    rr_spec = calibration.reserved_ratio(spec.gpu, spec.stack) if (calibration and spec.gpu) else None
    memory = ctx.memory(spec, spec.num_gpus, rr_spec)
    storage_price = catalog.storage_price(spec.region)
    rentable = [g for g in catalog.gpus() if g.offered and g.price_usd_per_hour is not None]
    offered = sorted((_option(ctx, g, storage_price) for g in rentable), key=_rank_key)
    # levers for GPUs we do not rent only matter when nothing we rent fits (they cost time: the
    # ranking must stay within milliseconds, benchmarks/ranking.py)
    others_levers = not any(o.fits for o in offered)
    others = sorted((_option(ctx, g, storage_price, others_levers) for g in catalog.gpus() if g not in rentable),
                    key=_rank_key)
    best = _pick(offered)
    if best is not None:  # the recommendation leads the table
        offered = [best] + [o for o in offered if o is not best]
    ranked = offered + others
    planning = None
    if best is not None:
        job_hours = best.cost.gpu_hours if best.cost is not None else None
        windows = tuple(Window(hours=w.hours, price_usd=w.price_usd, fits=w.fits)
                        for w in planning_windows(best.price_usd_per_hour, job_hours))
        planning = Planning(gpu=best.gpu, job_gpu_hours=job_hours, windows=windows)
    return Answer(spec=spec, model=resolved.label, memory=_memory(memory), options=tuple(ranked),
                  recommended=best.gpu if best else None, notes=tuple(build_notes(spec, ranked, best, planning)),
                  assumed=tuple(resolved.assumed), planning=planning)
