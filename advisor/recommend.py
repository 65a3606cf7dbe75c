"""Every catalog GPU for a spec: fit, GPU count, memory per GPU, tokens/s, hours, cost to an
accepted checkpoint, and the levers that would make a bigger job fit; ranked, with a
recommendation and short notes, as numbers and codes (advisor.answer_model.Answer). The words
are advisor.report's (and the bot's renderer's): nothing here writes a sentence.

What must fit: ``MemoryBreakdown.need_bytes`` under a GPU's usable memory, by the one fit rule
(advisor.fit: FIT_MARGIN kept free). On variable-length batches nvidia-smi shows more
(``device_bytes``: cache torch frees and retries when the GPU is full, advisor.allocator.closed_form).

GPU counts tried: only counts a provider rents (issue #16): the node shapes of each GPU type in
the spec's region (advisor.catalog.shapes: 1/2/4/8 per machine, whole machines where multi-node
is offered), the spec's own count rounded up to one of them, never past ``max_gpus`` (the
ceiling, DEFAULT_MAX_GPUS: one 8-GPU node, set at the edge). DDP replicates the model, so more
DDP GPUs never make a job fit; beyond the spec's count the search shards with FSDP (the option
says so in ``sharding``). A plan spanning nodes prices its step with the network between them
(advisor.steptime.comm.link on the plan's node shape).

Plans: each GPU's row is its cheapest plan that keeps the job as asked: the smallest count that
fits, or ONE card with levers that change nothing of the training (gradient accumulation at a
smaller micro-batch keeping the global batch, fused cross-entropy, 8-bit AdamW or gradient
checkpointing where the user did not state otherwise, expandable segments), each priced with its
own step time (a smaller micro-batch is slower per token: the step-time model says how much).
Levers that change the job (shorter sequences, QLoRA instead of LoRA, a full fine-tune as LoRA)
are never a row's plan: they are options (``Verdict.job_changes``, the levers). The answer's
``verdict`` answers the question asked first (advisor.answer_model.Verdict).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from advisor.answer_model import (Answer, Change, Cost, Lever, Memory, Note, Option, Plan, Planning, Reason, RunTime,
                                  StepTime, Verdict, Window)
from advisor.arch import Architecture
from advisor.catalog import Catalog, Gpu
from advisor.catalog.shapes import DEFAULT_MAX_GPUS, Layout, layouts, round_up
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
from advisor.throughput import Calibration, FlopsPerToken, Throughput, estimate_throughput, flops_per_token

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
MAX_GPUS_SEARCHED = 64
"""How far past the ceiling the search looks to say what a job would need ("needs 16 x L40S,
past the 8-GPU ceiling"): 8 nodes of 8, the old search's reach; never proposed as a plan."""
MIN_LEVER_SEQ = 256  # shortest sequence a lever proposes
MAX_JOB_CHANGES = 3  # plans that change the job, listed in the verdict


class _Ctx:
    """Caches for one ranking. Spec variants (GPU counts, levers) are built once under a short
    key, and their memory, FLOPs and checkpoint size computed once: none depends on the GPU.
    (Hashing a pydantic spec costs more than most of the arithmetic, so caches key on ids of
    the variants this object keeps alive.)"""

    def __init__(self, arch: Architecture, base: FinetuneSpec, calibration: Calibration | None,
                 catalog: Catalog | None = None, max_gpus: int = DEFAULT_MAX_GPUS,
                 assumed: tuple[str, ...] = (), stated_gpus: bool = False, said: tuple[str, ...] = ()):
        self.arch, self.base, self.calibration = arch, base, calibration
        # a GPU count the user stated ("on 1 GPU", "en una sola GPU", "on 4 H100") is kept: every
        # plan runs on it (rounded up to a rentable shape); unstated, the search finds the count
        self.stated_gpus, self.said = stated_gpus, set(said)
        self.catalog, self.max_gpus, self.assumed = catalog, max_gpus, set(assumed)
        # the job's global batch in sequences: per-device micro-batch x accumulation x world size
        # (transformers TrainingArguments: train_batch_size x gradient_accumulation_steps x
        # world_size is the batch each optimizer step sees); every plan keeps it (_split)
        self.global_batch = base.micro_batch * base.gradient_accumulation_steps * base.num_gpus
        self._node_gpus: dict[tuple, Gpu] = {}
        self._job_changes: dict[str, list[tuple[Gpu, "_Priced"]]] = {}  # per GPU: one-card plans changing the job

        self._variants: dict[tuple, FinetuneSpec] = {}
        self._memory: dict[tuple, MemoryBreakdown] = {}
        self._flops: dict[int, FlopsPerToken] = {}
        self._groups: dict[int, Any] = {}
        self._tp: dict[tuple, Throughput] = {}
        self._checkpoint: dict[int, int] = {}

    def job_changes(self, gpu_id: str, most: int = MAX_JOB_CHANGES) -> list[Plan]:
        """The cheapest ``most`` one-card plans on ``gpu_id`` that fit by changing the job
        (their Plan objects are built only for what the verdict lists)."""
        ranked = sorted(self._job_changes.get(gpu_id, ()), key=lambda gp: gp[1].money)[:most]
        return [priced.plan(gpu) for gpu, priced in ranked]

    def split(self, n: int, micro_cap: int | None = None) -> tuple[int, int]:
        """(micro-batch, accumulation) per GPU that keep the job's global batch on ``n`` data-parallel
        GPUs (DDP and FSDP alike: each rank takes micro-batch x accumulation sequences per step):
        the largest micro-batch up to ``micro_cap`` (the asked one: never more memory per GPU than
        asked) that divides the per-GPU share. When ``n`` does not divide the global batch the
        share is rounded up (each GPU takes at least one sequence): the plan then trains a larger
        global batch, which it says (``Plan.global_batch``, alteration "global_batch")."""
        cap = self.base.micro_batch if micro_cap is None else micro_cap
        per_gpu = -(-self.global_batch // n)
        micro = next(d for d in range(min(cap, per_gpu), 0, -1) if per_gpu % d == 0)
        return micro, per_gpu // micro

    def at(self, key: tuple, n: int, micro_cap: int | None = None, **update: Any) -> FinetuneSpec:
        """The variant ``key`` on ``n`` GPUs with the micro-batch and accumulation that keep the
        global batch (``split``) and ``update`` applied (a key names one variant: built once)."""
        hit = self._variants.get(key)
        if hit is not None:
            return hit
        micro, accumulation = self.split(n, micro_cap)
        return self.variant(key, num_gpus=n, **update, micro_batch=micro, gradient_accumulation_steps=accumulation)

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

    def layouts(self, gpu: Gpu, ceiling: int | None = None) -> list[Layout]:
        ceiling = self.max_gpus if ceiling is None else ceiling
        if self.catalog is None:  # no catalog at hand: the default 8-GPU shapes
            from advisor.catalog.shapes import default_shapes

            return layouts(default_shapes(gpu.id, gpu.gpus_per_node, gpu.network_gbps or None), ceiling)
        return self.catalog.layouts(gpu, self.base.region, ceiling)

    def on_layout(self, gpu: Gpu, lay: Layout | None) -> Gpu:
        """``gpu`` as the machines of ``lay`` have it: a multi-node plan's ring crosses the
        network of its node shape (advisor.steptime.comm.link reads gpus_per_node and
        network_gbps); a single-node plan runs on the GPU's own links."""
        if lay is None or lay.nodes == 1:
            return gpu
        key = (gpu.id, lay.gpus_per_node, lay.network_gbps)
        hit = self._node_gpus.get(key)
        if hit is None:
            hit = self._node_gpus[key] = gpu.model_copy(update={"gpus_per_node": lay.gpus_per_node,
                                                                "network_gbps": lay.network_gbps or 0.0})
        return hit

    def count_layout(self, gpu: Gpu) -> Layout | None:
        """The layout every plan on ``gpu`` runs on when the user stated a count (the count rounded
        up to a rentable shape within the ceiling; None: none); None when no count was stated."""
        return round_up(self.base.num_gpus, self.layouts(gpu)) if self.stated_gpus else None

    def stated(self, field: str) -> bool:
        """Whether the user said this field (a default we filled in is in ``assumed``)."""
        return field not in self.assumed

    def throughput(self, spec: FinetuneSpec, gpu: Gpu, n: int, lay: Layout | None = None) -> Throughput:
        gpu = self.on_layout(gpu, lay)
        key = (id(spec), gpu.id, n, gpu.gpus_per_node, gpu.network_gbps)
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
    return _trusted(Memory, dict(num_gpus=m.num_gpus, allocated_bytes=m.allocated_bytes,
                                  reserved_bytes=m.reserved_bytes, device_bytes=m.device_bytes,
                                  need_bytes=m.need_bytes, peak_phase=m.peak_phase, terms=dict(m.terms)))


def _time(t: Any) -> RunTime | None:
    if t is None:
        return None
    return _trusted(RunTime, dict(training_s=t.training_s, evaluation_s=t.evaluation_s, checkpoint_s=t.checkpoint_s,
                                   startup_s=t.startup_s, pilot_s=t.pilot_s, run_s=t.run_s, saves=t.saves))


def _cost(c: Any) -> Cost | None:
    if c is None:
        return None
    return _trusted(Cost, dict(training_usd=c.training_usd, overhead_usd=c.overhead_usd, failures_usd=c.failures_usd,
                                evaluation_usd=c.evaluation_usd, pilot_usd=c.pilot_usd, storage_usd=c.storage_usd,
                                storage_gb=c.storage_gb, gpu_hours=c.gpu_hours, total_usd=c.total_usd))


_Fit = tuple[FinetuneSpec, MemoryBreakdown, Layout]


def _find_fit(ctx: _Ctx, gpu: Gpu, limit: float, rr: float | None, ceiling: int | None = None,
              keep_count: bool = True) -> _Fit | None:
    """The spec at the smallest rentable GPU count (and sharding) at which it fits under
    ``limit``: the spec's own count rounded up to a shape, then the larger shapes and whole
    multi-node machines, up to ``ceiling`` (the answer's max_gpus); only the spec's own count when
    the user stated it (``keep_count``: False to say what count it would take)."""
    base = ctx.base
    lays = ctx.layouts(gpu, ceiling)
    start = round_up(base.num_gpus, lays)
    if start is None:
        return None
    tried = [(lay, base.sharding if lay is start else "fsdp") for lay in lays[lays.index(start):]]
    if ctx.stated_gpus and keep_count:
        # the count stated, as asked; sharded with FSDP there when DDP's replicas do not fit and
        # the user named no sharding (HF Trainer runs FSDP once configured, at the same count)
        tried = tried[:1] + ([(start, "fsdp")] if start.num_gpus > 1 and base.sharding == "ddp"
                             and "sharding" not in ctx.said else [])
    for lay, sharding in tried:
        n = lay.num_gpus
        spec = ctx.at(("fit", n, sharding), n, sharding=sharding)
        mem = ctx.memory(spec, n, rr)
        if mem.need_bytes <= limit:
            return spec, mem, lay
    return None


_LEVER_FIELDS = ("micro_batch", "gradient_accumulation_steps", "optimizer", "gradient_checkpointing", "attention",
                 "method", "quant", "expandable_segments", "liger_kernel")

# a lever while it is searched: its code fields (Lever minus the figures) and the spec fields it changes
_Single = tuple[dict[str, Any], dict[str, Any]]


def _accumulation(spec: FinetuneSpec, micro_batch: int) -> _Single:
    """Micro-batch ``micro_batch`` on one GPU with the gradient accumulation that keeps the global
    batch asked (micro_batch x accumulation x GPUs: HF TrainingArguments' per_device_train_batch_size
    x gradient_accumulation_steps x world size), so the optimizer sees the same batches. ``spec``
    is the job on one GPU (``_Ctx.split(1)``: its micro-batch x accumulation is the global batch)."""
    accumulation = spec.micro_batch * spec.gradient_accumulation_steps // micro_batch
    return ({"kind": "micro_batch", "factor": spec.micro_batch // micro_batch, "micro_batch": micro_batch,
             "accumulation": accumulation},
            {"micro_batch": micro_batch, "gradient_accumulation_steps": accumulation})


def _lever_updates(spec: FinetuneSpec) -> list[_Single]:
    """Single changes that lower memory on one GPU (``spec``: the job there): (the change as Lever
    fields, the spec fields to change)."""
    out: list[_Single] = []
    if spec.micro_batch > 1:
        out.append(_accumulation(spec, 1))
    if spec.stack == "hf" and not spec.liger_kernel:
        # Liger's fused linear cross-entropy never materializes the logits (liger_kernel 0.8.5
        # ops/fused_linear_cross_entropy.py; advisor.memory's logits_loss term): same loss, same math
        out.append(({"kind": "fused_ce"}, {"liger_kernel": True}))
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
    parts = [Change(**{k: v for k, v in code.items() if k in Change.model_fields}) for code, _ in singles]
    for _, fields in singles:
        update.update(fields)
    if spec.method == "full":
        update.update(method="qlora", quant="nf4")
        parts.append(Change(kind="qlora"))
    return {"kind": "combined", "parts": tuple(parts)}, update


_ALTERS_ALWAYS = {"qlora": ("method",), "lora": ("method",), "shorter_seq": ("seq_len",)}
_ALTERS_STATED = {"optimizer_8bit": "optimizer", "gradient_checkpointing": "gradient_checkpointing",
                  "flash_attention": "attention"}


def _alters(ctx: _Ctx, code: dict[str, Any]) -> tuple[str, ...]:
    """What of the job as asked a lever changes: the method, the sequence length, the global batch,
    or a setting the user stated (an optimizer, checkpointing or attention they chose). Gradient
    accumulation keeps the global batch (``_accumulation``), fused cross-entropy and expandable
    segments the math: those alter nothing."""
    if code["kind"] == "combined":
        out: list[str] = []
        for part in code["parts"]:
            out += [a for a in _alters(ctx, {"kind": part.kind}) if a not in out]
        return tuple(out)
    if code["kind"] in _ALTERS_ALWAYS:
        return _ALTERS_ALWAYS[code["kind"]]
    field = _ALTERS_STATED.get(code["kind"])
    return (field,) if field is not None and ctx.stated(field) else ()


def _levers(ctx: _Ctx, gpu: Gpu, limit: float, rr: float | None,
            fit: _Fit | None, n0: int = 1) -> list[tuple[Lever, FinetuneSpec]]:
    """What would make the spec fit on ``gpu``: single changes, all of them together, a shorter
    sequence, FSDP; when nothing fits at any count, each change with the FSDP count that makes
    it fit. Fitting levers first, cheapest first (GPU-time per token relative to the spec).
    Each lever comes with its spec (the plan it makes, advisor.recommend._option prices it).
    ``n0``: the GPU count the levers are tried on (1, or the count the user stated)."""
    single = ctx.at(("fit", n0, ctx.base.sharding), n0)
    found: list[tuple[Lever, FinetuneSpec]] = []

    def add(code: dict[str, Any], key: tuple, update: dict[str, Any], n: int = n0,
            below: int | None = None) -> Lever | None:
        """The lever, with its memory and GPU-time; None when it does not bring the memory
        ``below`` (then its step time is never priced: the ranking's milliseconds). A lever that
        does not fit is not priced either (``cost_factor`` None): no plan, arrow or ranking reads
        the GPU-time of a change that leaves the job out of memory (fitting levers sort by it,
        the others by their memory), and pricing one is a step-time model of its own spec."""
        if n > 1:  # sharded over n GPUs: the global batch split among them (_Ctx.split)
            rest = {k: v for k, v in update.items() if k not in ("micro_batch", "gradient_accumulation_steps")}
            spec = ctx.at(key, n, update.get("micro_batch"), **rest)
        else:
            spec = ctx.variant(key, num_gpus=n, **update)
        mem = ctx.memory(spec, n, rr)
        if below is not None and mem.device_bytes >= below:
            return None
        fits = mem.need_bytes <= limit
        factor = None
        if fits:  # GPU-time per trained token relative to the spec as asked on n0 GPUs
            base_tps = ctx.throughput(single, gpu, n0).tokens_per_s
            factor = n * base_tps / (n0 * ctx.throughput(spec, gpu, n).tokens_per_s)
        lv = _trusted(Lever, {**_LEVER_DEFAULTS, **code, "device_bytes": mem.device_bytes, "fits": fits,
                              "num_gpus": n, "cost_factor": factor, "alters": _alters(ctx, code)})
        found.append((lv, spec))
        return lv

    before = ctx.memory(single, n0, rr).device_bytes
    singles = []
    for code, update in _lever_updates(single):
        if code["kind"] == "micro_batch":  # the largest micro-batch that fits, accumulation keeping the batch
            for mb in sorted((d for d in range(2, single.micro_batch) if single.micro_batch % d == 0), reverse=True):
                c, u = _accumulation(single, mb)
                spec = ctx.at(("lever", "micro_batch", mb), n0, mb)
                if ctx.memory(spec, n0, rr).need_bytes <= limit:
                    code, update = c, u
                    break
        # a change that does not lower memory here is no lever (e.g. QLoRA's fp32 casts)
        if add(code, ("lever", code["kind"], code.get("micro_batch")), update, below=before) is not None:
            singles.append((code, update))
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
    elif fit is None and not ctx.stated_gpus and not any(lv.fits for lv, _ in found):  # no count fits, no change alone does
        for lv, spec in list(found):
            n = _fsdp_count(ctx, gpu, spec, limit, rr)
            if n is not None:
                update = {k: getattr(spec, k) for k in (*_LEVER_FIELDS, "seq_len")}
                sharded = ctx.variant(("fsdp", n, id(spec)))  # built by _fsdp_count: the batch split over n
                code = {"kind": lv.kind, "seq_len": lv.seq_len, "factor": lv.factor, "parts": lv.parts,
                        "micro_batch": sharded.micro_batch if lv.micro_batch is not None else None,
                        "accumulation": sharded.gradient_accumulation_steps if lv.accumulation is not None else None,
                        "fsdp_gpus": n}
                add(code, ("fsdp", n, id(spec)), {**update, "sharding": "fsdp"}, n=n)
    return sorted(found, key=lambda p: (not p[0].fits, p[0].cost_factor if p[0].fits else p[0].device_bytes,
                                        p[0].num_gpus))


_LEVER_DEFAULTS = {"seq_len": None, "factor": None, "micro_batch": None, "accumulation": None, "parts": (),
                   "fsdp_gpus": None}


def _shorter_seq(ctx: _Ctx, single: FinetuneSpec, update: dict[str, Any], limit: float,
                 rr: float | None) -> int | None:
    """The longest halved sequence length (with ``update`` applied) that fits under ``limit``."""
    seq, n = single.seq_len // 2, single.num_gpus
    while seq >= MIN_LEVER_SEQ:
        rest = {k: v for k, v in update.items() if k not in ("micro_batch", "gradient_accumulation_steps")}
        spec = ctx.at(("seq", seq, *sorted(update.items())), n, update.get("micro_batch"), seq_len=seq, **rest)
        if ctx.memory(spec, n, rr).need_bytes <= limit:
            return seq
        seq //= 2
    return None


def _fsdp_count(ctx: _Ctx, gpu: Gpu, spec: FinetuneSpec, limit: float, rr: float | None) -> int | None:
    """The smallest rentable FSDP GPU count (within the ceiling) at which ``spec`` fits."""
    update = {k: getattr(spec, k) for k in (*_LEVER_FIELDS, "seq_len")}
    for n in (lay.num_gpus for lay in ctx.layouts(gpu) if lay.num_gpus > 1):
        rest = {k: v for k, v in update.items() if k not in ("micro_batch", "gradient_accumulation_steps")}
        sharded = ctx.at(("fsdp", n, id(spec)), n, spec.micro_batch, sharding="fsdp", **rest)
        if ctx.memory(sharded, n, rr).need_bytes <= limit:
            return n
    return None


_set = object.__setattr__
_REQUIRED = object()
_FIELD_DEFAULTS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _trusted(cls: type, values: dict[str, Any]) -> Any:
    """A frozen answer model from values this module computed: what pydantic's
    ``BaseModel.model_construct`` does (pydantic 2.x main.py: defaults for the fields not given,
    ``__dict__`` in field order, ``__pydantic_fields_set__`` the fields given, no extra, no
    private) with the per-class default search done once, not on every call (it cost more than
    a plan's arithmetic, benchmarks/ranking.py: a dozen options, plans and levers per answer)."""
    fields = _FIELD_DEFAULTS.get(cls)
    if fields is None:
        if any(f.default_factory is not None for f in cls.model_fields.values()):
            raise TypeError(f"{cls.__name__} has a default_factory: use model_construct")
        fields = _FIELD_DEFAULTS[cls] = tuple((name, _REQUIRED if f.is_required() else f.default)
                                              for name, f in cls.model_fields.items())
    data = {}
    for name, default in fields:
        value = values.get(name, default)
        if value is _REQUIRED:
            raise TypeError(f"{cls.__name__}.{name} is required")
        data[name] = value
    m = cls.__new__(cls)
    _set(m, "__dict__", data)
    _set(m, "__pydantic_fields_set__", set(values) if len(values) < len(fields) else set(data))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


class _Priced:
    """A plan while it is ranked: the spec it runs, its memory, layout, throughput, time, cost."""

    __slots__ = ("spec", "mem", "lay", "tp", "time", "cost", "per_million", "lever", "job_batch")

    def __init__(self, ctx: _Ctx, gpu: Gpu, spec: FinetuneSpec, mem: MemoryBreakdown, lay: Layout,
                 storage_price: float, lever: Lever | None = None):
        self.spec, self.mem, self.lay, self.lever = spec, mem, lay, lever
        self.job_batch = ctx.global_batch
        n = lay.num_gpus
        self.tp = ctx.throughput(spec, gpu, n, lay)
        checkpoint = ctx.checkpoint(spec)
        self.time = estimate_time(spec, ctx.arch, self.tp, checkpoint=checkpoint)
        self.cost = self.per_million = None
        if gpu.price_usd_per_hour is not None:
            self.per_million = price_per_million_tokens(gpu.price_usd_per_hour, n, self.tp.tokens_per_s)
            if self.time is not None:
                self.cost = estimate_cost(spec, ctx.arch, self.time, price_per_hour=gpu.price_usd_per_hour,
                                          num_gpus=n, storage_usd_per_gb_month=storage_price, checkpoint=checkpoint)

    @property
    def money(self) -> float:
        if self.cost is not None:
            return self.cost.total_usd
        return self.per_million if self.per_million is not None else math.inf

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step: GPUs x micro-batch x accumulation."""
        return self.lay.num_gpus * self.spec.micro_batch * self.spec.gradient_accumulation_steps

    def plan(self, gpu: Gpu) -> Plan:
        lay, spec, lv = self.lay, self.spec, self.lever
        alters = lv.alters if lv is not None else ()
        if self.global_batch != self.job_batch and "global_batch" not in alters:
            alters = (*alters, "global_batch")  # more GPUs than the global batch has sequences: said, never silent
        # on variable-length batches the allocator's cache grows until the GPU is full, then torch
        # frees it and retries: nvidia-smi shows at most the whole GPU (advisor.allocator.closed_form)
        shown = min(self.mem.device_bytes, gpu.usable_memory_bytes)
        return _trusted(Plan, dict(
            gpu=gpu.id, num_gpus=lay.num_gpus, gpus_per_node=lay.gpus_per_node, nodes=lay.nodes,
            network_gbps=lay.network_gbps if lay.nodes > 1 else None, region=lay.region, sharding=spec.sharding,
            changes=lv.changes() if lv is not None else (), alters=alters,
            micro_batch=spec.micro_batch, accumulation=spec.gradient_accumulation_steps, seq_len=spec.seq_len,
            global_batch=self.global_batch,
            method=spec.method, device_bytes=shown, tokens_per_s=self.tp.tokens_per_s,
            hours=self.time.hours if self.time else None, cost_usd=self.cost.total_usd if self.cost else None,
            price_per_million_tokens=self.per_million,
            price_usd_per_hour=gpu.price_usd_per_hour * lay.num_gpus if gpu.price_usd_per_hour is not None else None))


def _choose(plans: list[_Priced]) -> _Priced:
    """A GPU's plan: the cheapest to the checkpoint; within COST_TIE_BAND of it the one on fewer
    machines, then fewer GPUs (one card needs no FSDP and no collective over PCIe, and the
    throughput priors cannot tell a few percent apart), then the cheaper."""
    keeping = [p for p in plans if p.global_batch == p.job_batch]
    plans = keeping or plans  # a plan that trains another global batch only when none keeps it
    cheapest = min(p.money for p in plans)
    if math.isinf(cheapest):  # a GPU we do not rent: the fewest GPUs, then the fastest
        return min(plans, key=lambda p: (p.lay.num_gpus, -p.tp.tokens_per_s))
    band = [p for p in plans if p.money <= cheapest * (1 + COST_TIE_BAND)]
    return min(band, key=lambda p: (p.lay.nodes, p.lay.num_gpus, p.money))


def _one_card(ctx: _Ctx, gpu: Gpu) -> Layout:
    lays = ctx.layouts(gpu)
    return lays[0] if lays and lays[0].num_gpus == 1 else Layout(1, 1, 1, None, None)


def _option(ctx: _Ctx, gpu: Gpu, storage_price: float, with_levers: bool = True) -> Option:
    spec, calibration = ctx.base, ctx.calibration
    rr = calibration.reserved_ratio(gpu.id, spec.stack) if calibration is not None else None
    limit = fit_limit(gpu.usable_memory_bytes)  # the one fit rule (advisor.fit), for every count and lever
    fit = _find_fit(ctx, gpu, limit, rr)
    # the count levers are tried on: one card, or the count the user stated (rounded up to a shape)
    stated_lay = ctx.count_layout(gpu)
    n0 = stated_lay.num_gpus if stated_lay is not None else 1
    one = ctx.memory(ctx.at(("fit", n0, spec.sharding), n0), n0, rr)
    pairs: list[tuple[Lever, FinetuneSpec]] = []
    reason = None
    if one.need_bytes > limit:
        pairs = _levers(ctx, gpu, limit, rr, fit, n0) if with_levers else []
        term = one.largest_term()
        why: dict[str, Any] = {"kind": "one_gpu", "need_bytes": one.need_bytes, "usable_bytes": gpu.usable_memory_bytes,
                               "term": term, "term_bytes": one.terms[term], "max_gpus": None,
                               "need_at_max_bytes": None, "needs_gpus": None, "text": None}
        if fit is None:
            within = _find_fit(ctx, gpu, limit, rr, keep_count=False) if ctx.stated_gpus else None
            beyond = _find_fit(ctx, gpu, limit, rr, MAX_GPUS_SEARCHED, keep_count=False) if within is None else None
            if within is not None:  # it fits on more GPUs than the user stated: say how many, propose nothing
                why.update(kind="stated_count", max_gpus=n0, needs_gpus=within[2].num_gpus)
            elif beyond is not None:  # it fits, past the ceiling: say what it would take, propose nothing
                why.update(kind="over_ceiling", max_gpus=ctx.max_gpus, needs_gpus=beyond[2].num_gpus)
            else:  # not even at the largest count rented (whole nodes up to MAX_GPUS_SEARCHED where clustered)
                n_max = max(lay.num_gpus for lay in ctx.layouts(gpu, MAX_GPUS_SEARCHED))
                most = ctx.memory(ctx.at(("fit", n_max, "fsdp"), n_max, sharding="fsdp"), n_max, rr)
                why.update(kind="no_count", max_gpus=n_max, need_at_max_bytes=most.need_bytes)
        reason = _trusted(Reason, dict(**why))
    # one-card plans through levers: those that keep the job compete for the row, the others are options
    candidates = [_Priced(ctx, gpu, *fit, storage_price)] if fit is not None else []
    changing: list[tuple[Gpu, _Priced]] = []
    if pairs and gpu.offered and (spec.num_gpus == 1 or stated_lay is not None):  # a count the user asked is kept
        card = _one_card(ctx, gpu) if stated_lay is None else stated_lay
        for lv, lspec in pairs:
            if lv.fits and lv.num_gpus == n0 and lv.kind != "fsdp" and lv.fsdp_gpus is None:
                priced = _Priced(ctx, gpu, lspec, ctx.memory(lspec, n0, rr), card, storage_price, lever=lv)
                if lv.keeps_job:
                    candidates.append(priced)
                else:
                    changing.append((gpu, priced))
            elif lv.fits and lv.fsdp_gpus is not None and lv.keeps_job and fit is None and stated_lay is None:
                # nothing fits as asked at any rentable count: the same job with a lever, sharded
                lay = round_up(lv.num_gpus, ctx.layouts(gpu))
                if lay is not None and lay.num_gpus == lv.num_gpus:
                    candidates.append(_Priced(ctx, gpu, lspec, ctx.memory(lspec, lv.num_gpus, rr), lay,
                                              storage_price, lever=lv))
    ctx._job_changes[gpu.id] = changing
    rounded = spec.num_gpus if fit is not None and fit[2].num_gpus != spec.num_gpus and spec.num_gpus > 1 \
        and fit[0].sharding == spec.sharding else None
    base = dict(gpu=gpu.id, gpu_name=gpu.display_name, offered=gpu.offered,
                price_usd_per_hour=gpu.price_usd_per_hour, usable_bytes=gpu.usable_memory_bytes,
                levers=tuple(lv for lv, _ in pairs), reason=reason)
    if not candidates:
        return _trusted(Option, dict(**base, fits=False, num_gpus=None, sharding=None, device_bytes=one.device_bytes,
                      memory=_memory(one), tokens_per_s=None, mfu=None, efficiency_source=None))
    best = _choose(candidates)
    plan = best.plan(gpu)
    tp, time, cost = best.tp, best.time, best.cost
    if best.lever is not None and reason is not None and reason.kind != "one_gpu":
        reason = reason.model_copy(update={"kind": "one_gpu"})  # it fits on one card, with the lever
    step = _trusted(StepTime, dict(seconds=tp.step_s, shares=tp.breakdown())) if tp.step_s is not None else None
    # model_construct: every field is computed here, typed already (validation would cost more than
    # the ranking's arithmetic, benchmarks/ranking.py); tests/test_verdict.py validates a dump of each
    return _trusted(Option, dict(**{**base, "reason": reason}, fits=True, num_gpus=plan.num_gpus, sharding=best.spec.sharding,
                  device_bytes=plan.device_bytes, memory=_memory(best.mem), tokens_per_s=tp.tokens_per_s, mfu=tp.mfu,
                  efficiency_source=tp.efficiency.source, pilots=tp.efficiency.pilots,
                  hours=time.hours if time else None, time=_time(time),
                  cost_usd=cost.total_usd if cost else None, cost=_cost(cost),
                  price_per_million_tokens=best.per_million, step=step, plan=plan,
                  rounded_from=rounded if best.lever is None else None))


def _nodes(o: Option) -> int:
    return o.plan.nodes if o.plan is not None else 1


def _money(o: Option) -> float:
    return o.money if o.money is not None else math.inf


def _pick(ranked: list[Option]) -> Option | None:
    """The recommendation among fitting options: cheapest, unless another within COST_TIE_BAND
    needs fewer nodes or finishes sooner (ties by time, as the issue asks)."""
    fitting = [o for o in ranked if o.fits]
    if not fitting:
        return None
    # the job as asked first: a plan training another global batch (more GPUs than it has
    # sequences) is recommended only when no GPU keeps it
    keeping = [o for o in fitting if o.plan is None or "global_batch" not in o.plan.alters]
    fitting = keeping or fitting
    cheapest = min(_money(o) for o in fitting)
    band = [o for o in fitting if _money(o) <= cheapest * (1 + COST_TIE_BAND)]
    return min(band, key=lambda o: (_nodes(o), _rank_key(o)[2], _money(o)))


def _rank_key(o: Option) -> tuple:
    speed = o.hours if o.hours is not None else (1 / o.tokens_per_s if o.tokens_per_s else math.inf)
    return (not o.fits, _money(o), speed, o.device_bytes)


def build_verdict(ctx: _Ctx, options: list[Option], best: Option | None, would: Plan | None = None) -> Verdict:
    """The question asked, answered first (advisor.answer_model.Verdict). With a GPU count
    stated, every plan is on it: ``would`` is the plan on more GPUs that fits when nothing does
    on the count stated (the ranking without it), named and never the yes."""
    spec = ctx.base
    offered = [o for o in options if o.offered and o.price_usd_per_hour is not None]
    asked = next((o for o in options if o.gpu == spec.gpu), None) if spec.gpu else None
    cheapest = best.plan if best is not None else None
    stated = spec.num_gpus if ctx.stated_gpus else None
    if best is None and would is not None:  # nothing on the count stated; more GPUs would
        return Verdict(question="gpu" if asked is not None else ("count" if stated > 1 else "one_card"),
                       gpu=asked.gpu if asked else None, answer="no", cheapest=would, max_gpus=ctx.max_gpus,
                       needs_gpus=would.num_gpus, stated_gpus=stated,
                       job_changes=tuple(ctx.job_changes(asked.gpu)) if asked is not None else ())
    if best is None:
        needs = [o.reason.needs_gpus for o in offered if o.reason is not None and o.reason.kind == "over_ceiling"]
        changes = sorted((p for o in offered for p in ctx.job_changes(o.gpu, 1)),
                         key=lambda p: p.money if p.money is not None else math.inf)
        return Verdict(question="gpu" if asked is not None else "one_card", gpu=asked.gpu if asked else None,
                       answer="over_ceiling", max_gpus=ctx.max_gpus, needs_gpus=min(needs) if needs else None,
                       job_changes=tuple(changes[:MAX_JOB_CHANGES]), stated_gpus=stated)
    if asked is not None:
        if asked.fits:
            return Verdict(question="gpu", gpu=asked.gpu, answer="yes", plan=asked.plan,
                           cheapest=cheapest if cheapest is not None and cheapest.gpu != asked.gpu else None,
                           max_gpus=ctx.max_gpus, stated_gpus=stated,
                           job_changes=() if asked.plan.num_gpus == 1 else tuple(ctx.job_changes(asked.gpu)))
        changes = tuple(ctx.job_changes(asked.gpu))
        needs = asked.reason.needs_gpus if asked.reason is not None else None
        return Verdict(question="gpu", gpu=asked.gpu, answer="no", cheapest=cheapest, max_gpus=ctx.max_gpus,
                       needs_gpus=needs, job_changes=changes, stated_gpus=stated)
    question = "count" if stated is not None and stated > 1 else "one_card"
    # with a count stated every fitting plan is on it; else the one-card plans answer "does it fit on one card"
    one_card = [o for o in offered if o.fits and o.plan is not None and (stated is not None or o.plan.num_gpus == 1)]
    if one_card:
        plan = (best if any(o is best for o in one_card) else min(one_card, key=_money)).plan
        return Verdict(question=question, answer="yes", plan=plan,
                       cheapest=cheapest if cheapest is not plan else None, max_gpus=ctx.max_gpus, stated_gpus=stated)
    changes = sorted((p for o in offered for p in ctx.job_changes(o.gpu, 1)),
                     key=lambda p: p.money if p.money is not None else math.inf)
    return Verdict(question=question, answer="no", cheapest=cheapest, max_gpus=ctx.max_gpus,
                   job_changes=tuple(changes[:MAX_JOB_CHANGES]), stated_gpus=stated)


def build_notes(spec: FinetuneSpec, options: list[Option], best: Option | None,
                planning: Planning | None, max_gpus: int = DEFAULT_MAX_GPUS, stated_gpus: bool = False) -> list[Note]:
    """The short notes of a ranking, as codes (advisor.report.note_text says them)."""
    offered = [o for o in options if o.offered and o.price_usd_per_hour is not None]
    over = sorted((o for o in offered if o.reason is not None and o.reason.kind == "over_ceiling"),
                  key=lambda o: o.reason.needs_gpus)
    if best is None:
        notes = [Note(code="nothing_fits_stated", num_gpus=spec.num_gpus) if stated_gpus
                 else Note(code="nothing_fits", max_gpus=max_gpus)]
        notes += [Note(code="over_ceiling", gpu=o.gpu, num_gpus=o.reason.needs_gpus, max_gpus=max_gpus)
                  for o in over[:1]]
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
    if best.plan is not None and best.plan.nodes > 1:
        notes.append(Note(code="multi_node", gpu=best.gpu))
    if best.rounded_from is not None:
        notes.append(Note(code="rounded_count", gpu=best.gpu, num_gpus=best.rounded_from))
    # every offered plan that trains another global batch than the job's says so (never silent)
    notes += [Note(code="global_batch", gpu=o.gpu) for o in [best] + [o for o in offered if o is not best]
              if o.fits and o.plan is not None and "global_batch" in o.plan.alters]
    if planning is not None:
        fits = any(w.fits for w in planning.windows)
        code = "windows" if planning.job_gpu_hours is None else ("windows_fit" if fits else "windows_over")
        notes.append(Note(code=code, gpu=best.gpu))
    fitting = [o for o in offered if o.fits]
    keeping = [o for o in fitting if o.plan is None or "global_batch" not in o.plan.alters]
    fitting = keeping if any(o is best for o in keeping) else fitting  # compared with plans training the same job (_pick)
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
    cheaper_past = [o for o in over if o.price_usd_per_hour < best.price_usd_per_hour]
    if cheaper_past:  # a cheaper GPU type that would take more GPUs than the ceiling allows
        o = cheaper_past[0]
        notes.append(Note(code="over_ceiling", gpu=o.gpu, num_gpus=o.reason.needs_gpus, max_gpus=max_gpus))
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


_CHANGE_FIELDS = {"optimizer_8bit": {"optimizer": "adamw-8bit"}, "gradient_checkpointing": {"gradient_checkpointing": True},
                  "flash_attention": {"attention": "flash"}, "qlora": {"method": "qlora", "quant": "nf4"},
                  "lora": {"method": "lora"}, "expandable_segments": {"expandable_segments": True},
                  "fused_ce": {"liger_kernel": True}}


def plan_update(plan: Plan) -> dict[str, Any]:
    """The spec fields a plan sets (a FinetuneSpec's or a SpecRequest's): its GPU, count and
    sharding, the per-GPU micro-batch and accumulation that keep the global batch, the sequence
    length, and every change it applies."""
    update: dict[str, Any] = {"num_gpus": plan.num_gpus, "sharding": plan.sharding, "gpu": plan.gpu,
                              "micro_batch": plan.micro_batch, "gradient_accumulation_steps": plan.accumulation,
                              "seq_len": plan.seq_len}
    for change in plan.changes:
        update.update(_CHANGE_FIELDS.get(change.kind, {}))
    return update


def plan_spec(spec: FinetuneSpec, plan: Plan) -> FinetuneSpec:
    """The spec a plan runs (what a launch config or a pilot must use): ``plan_update`` applied."""
    return spec.model_copy(update=plan_update(plan))


def recommend(resolved: "Resolved", catalog: Catalog, *, calibration: Calibration | None = None,
              max_gpus: int = DEFAULT_MAX_GPUS, keep_count: bool = True) -> Answer:
    """Rank every catalog GPU for ``resolved`` (offered first) and recommend the cheapest offered
    plan that fits, by cost to an accepted checkpoint (or price per million tokens without a
    dataset size), ties by time. Plans use only rentable counts up to ``max_gpus`` (the ceiling:
    a setting of the caller, the CLI's --max-gpus / ADVISOR_MAX_GPUS, the bot's settings).
    A GPU count the user stated (``"num_gpus" in resolved.said``: "on 1 GPU", "on 4 H100") keeps
    every plan on it (``keep_count``: False ranks as if no count was said, to name what would fit)."""
    if max_gpus < 1:
        raise ValueError(f"max_gpus must be at least 1, got {max_gpus}")
    spec = resolved.spec
    stated = keep_count and "num_gpus" in getattr(resolved, "said", ())
    said = tuple(getattr(resolved, "said", ()))
    ctx = _Ctx(resolved.arch, spec, calibration, catalog, max_gpus, tuple(resolved.assumed), stated_gpus=stated,
               said=said)
    rr_spec = calibration.reserved_ratio(spec.gpu, spec.stack) if (calibration and spec.gpu) else None
    memory = ctx.memory(spec, spec.num_gpus, rr_spec)
    storage_price = catalog.storage_price(spec.region)
    rentable = [g for g in catalog.gpus() if g.offered and g.price_usd_per_hour is not None]
    offered = sorted((_option(ctx, g, storage_price) for g in rentable), key=_rank_key)
    # levers for GPUs we do not rent only matter when nothing we rent fits (they cost time: the
    # ranking must stay within milliseconds, benchmarks/ranking.py)
    others_levers = not any(o.fits for o in offered)
    rented = {g.id for g in rentable}  # by id: comparing Gpu models field by field costs more than the ranking's sums
    others = sorted((_option(ctx, g, storage_price, others_levers) for g in catalog.gpus() if g.id not in rented),
                    key=_rank_key)
    best = _pick(offered)
    if best is not None:  # the recommendation leads the table
        offered = [best] + [o for o in offered if o is not best]
    ranked = offered + others
    planning = None
    if best is not None:
        job_hours = best.cost.gpu_hours if best.cost is not None else None
        n = best.num_gpus or 1
        windows = tuple(Window(hours=w.hours, price_usd=w.price_usd, fits=w.fits)
                        for w in planning_windows(best.price_usd_per_hour, job_hours, num_gpus=n))
        planning = Planning(gpu=best.gpu, job_gpu_hours=job_hours, windows=windows, num_gpus=n)
    would = None
    if best is None and stated:  # nothing on the count stated: what would fit on more GPUs (named, not proposed)
        would = recommend(resolved, catalog, calibration=calibration, max_gpus=max_gpus, keep_count=False).best
        would = would.plan if would is not None else None
    return Answer(spec=spec, model=resolved.label, memory=_memory(memory), options=tuple(ranked),
                  recommended=best.gpu if best else None,
                  notes=tuple(build_notes(spec, ranked, best, planning, max_gpus, stated)),
                  assumed=tuple(resolved.assumed), planning=planning,
                  verdict=build_verdict(ctx, ranked, best, would))
