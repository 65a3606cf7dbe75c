"""What the "Show chart" PNG draws, as plain numbers: no matplotlib, no words.

``points(answer)`` is the one adapter between the answer's representation
(advisor.answer_model.Answer: options, levers, plans) and the chart (bot.chart). Everything the
chart draws comes from the ``ChartPoints`` it returns; when the answer's plans or levers change
shape, this function is the one to change.

Schema 3 (issue #16): each row is its ``Option.plan`` (its layout, the changes it applies and its
own hours, cost and tokens/s); a one-card lever plan (gradient accumulation, Liger CE...) is
a point like any other and the starred one when recommended, its changes named in its label.
The plan's factor ``cf_plan`` is then the cost factor of the lever the plan is made of (same
count, same changes: ``_is_the_plan``), and a lever the plan already applies, or one that lands
on the plan's marker (``MIN_MOVE``), is no arrow. Schemas 1-2 (no ``plan``) chart as before.

Main panel: one ``Plan`` per offered GPU and count that fits (deduplicated by (GPU, count)), at
(wall-clock time, cost) to an accepted checkpoint; without a dataset size, at (time per million
trained tokens, $ per million trained tokens), the table's own "$/M" figure. In both modes
lower-left is better. A ``LeverPoint`` per lever that fits and changes the plan, with the arrow
from its plan's point.

A lever's point, from the option's figures and the lever's ``cost_factor``
(advisor.recommend._levers: ``cost_factor = n * base_tps / tps``, GPU-time per trained token
relative to the spec on ONE GPU of this type, ``base_tps``). The plan itself is the lever
``fsdp`` at the option's count (same spec variant, advisor.recommend._find_fit and _levers both
key it ``("fit", n, sharding)``), so its factor ``cf_plan`` is there too (1 when the plan is one
GPU, by definition). Then, with ``N``/``T`` the plan's count and tokens/s, ``n``/``cf`` the
lever's:

- GPU-time per token relative to the plan: ``g = cf / cf_plan``;
- the job's tokens/s: ``T' = n * base_tps / cf = T * (n / N) / g``  (speed-up ``s = T'/T``);
- no dataset: ``$/M' = $/M * g`` and time per million tokens ``1e6 / T'``;
- with a dataset (advisor.cost.estimate_time / estimate_cost): training and evaluation seconds
  scale by ``1/s``; start-up and checkpoint saves do not depend on the lever's speed; every
  USD term is seconds x ``price * n / 3600``, failures keep their fraction of
  (training + overhead) (``failed_run_fraction``), the pilot's cost scales with the GPU count,
  storage is unchanged, except that a lever that turns a full fine-tune into LoRA or QLoRA
  saves adapters instead of the whole model and its optimizer (advisor.cost.checkpoint_bytes):
  its saves take no time and the kept checkpoints (their size read back from the plan's
  ``checkpoint_s`` at STORAGE_WRITE_BYTES_PER_S) leave the storage bill. A stored answer
  without the itemized phases and cost scales the total hours by ``1/s`` and the cost by ``g``.

GPUs that do not fit at any count are not points (they have no time or cost; a hollow marker at
an invented place would read as a plan): ``not_fitting`` names them for a footnote, and the
memory panel shows why.

Memory panel: one ``Bar`` per offered (GPU, count), never the same bar twice, with the parts of
the memory per GPU, what nvidia-smi shows and the GPU's usable memory.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from advisor.answer_model import Answer, Change, Lever, Option
from advisor.cost import GB, STORAGE_WRITE_BYTES_PER_S

log = logging.getLogger(__name__)

SECONDS_PER_HOUR = 3600.0
MILLION = 1e6
# a lever whose point moves less than this fraction on both axes lands on its plan's marker (the
# panel spans at least 60% of its values, bot.chart._limits: 0.5% is under a marker's radius there)
# and is no arrow; e.g. QLoRA 70B on 4 x L40S: Liger CE + 8-bit AdamW + FSDP vs the plan's Liger CE
# + FSDP, +0.15% in time and cost
MIN_MOVE = 0.005


@dataclass(frozen=True)
class Plan:
    gpu: str  # catalog id
    gpu_name: str
    num_gpus: int
    hours: float  # wall-clock to an accepted checkpoint, or per million trained tokens
    usd: float  # cost to an accepted checkpoint, or per million trained tokens
    recommended: bool
    changes: tuple[Change, ...] = ()  # schema 3: the levers the plan applies (Option.plan.changes)
    nodes: int = 1  # schema 3: machines of gpus_per_node (multi-node layouts past one node)
    gpus_per_node: int | None = None


@dataclass(frozen=True)
class LeverPoint:
    gpu: str
    gpu_name: str
    lever: Lever  # the answer's lever (its kind and numbers name it)
    num_gpus: int  # GPUs with the lever
    start: tuple[float, float]  # (hours, usd): the plan's point
    end: tuple[float, float]  # (hours, usd) with the lever


@dataclass(frozen=True)
class Bar:
    gpu: str
    gpu_name: str
    num_gpus: int
    fits: bool
    recommended: bool
    terms: dict[str, int]  # parts of the allocated memory per GPU (bytes)
    device_bytes: int  # per GPU as nvidia-smi shows it (the whole need on one GPU when nothing fits)
    usable_bytes: int


@dataclass(frozen=True)
class ChartPoints:
    per_million: bool  # no dataset size: the axes are per million trained tokens
    plans: tuple[Plan, ...]
    levers: tuple[LeverPoint, ...]
    bars: tuple[Bar, ...]
    not_fitting: tuple[str, ...] = field(default=())  # ids of offered GPUs that fit at no count


def _offered(answer: Answer) -> list[Option]:
    """Offered, priced options, the first of each (GPU, count) in the answer's ranking."""
    seen: set[tuple[str, int | None]] = set()
    out = []
    for o in answer.options:
        if not o.offered or o.price_usd_per_hour is None:
            continue
        key = (o.gpu, o.num_gpus)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def _plan_xy(o: Option, per_million: bool) -> tuple[float, float] | None:
    """The row's point: its plan's own figures (schema 3), else the option's (schemas 1-2)."""
    p = o.plan
    if p is not None:
        if per_million:
            if not p.tokens_per_s or p.price_per_million_tokens is None:
                return None
            return MILLION / p.tokens_per_s / SECONDS_PER_HOUR, p.price_per_million_tokens
        if p.hours is None or p.cost_usd is None:
            return None
        return p.hours, p.cost_usd
    if per_million:
        if not o.tokens_per_s or o.price_per_million_tokens is None:
            return None
        return MILLION / o.tokens_per_s / SECONDS_PER_HOUR, o.price_per_million_tokens
    if o.hours is None or o.cost_usd is None:
        return None
    return o.hours, o.cost_usd


def _plan_count(o: Option) -> int:
    return o.plan.num_gpus if o.plan is not None else (o.num_gpus or 1)


def _plan_changes(o: Option) -> tuple[Change, ...]:
    return o.plan.changes if o.plan is not None else ()


def _is_the_plan(lv: Lever, o: Option) -> bool:
    """Whether ``lv`` is the lever the row's plan is made of: same GPU count and the same changes
    (advisor.recommend._option prices a fitting one-card lever, or FSDP at the fitting count, and
    the best of them is the row's plan; ``Lever.changes`` is () for FSDP)."""
    return (lv.num_gpus or 1) == _plan_count(o) and set(lv.changes()) == set(_plan_changes(o))


def _plan_factor(o: Option) -> float | None:
    """The plan's GPU-time per token relative to the spec on one GPU (module docstring): 1 for
    the spec as asked on one GPU, else the cost factor of the lever the plan is made of."""
    if _plan_count(o) == 1 and not _plan_changes(o):
        return 1.0
    same = [lv for lv in o.levers if lv.cost_factor and (_is_the_plan(lv, o) if o.plan is not None else
                                                         (lv.kind == "fsdp" and lv.num_gpus == o.num_gpus))]
    return same[0].cost_factor if same else None


def _changes_plan(lv: Lever, o: Option) -> bool:
    """A lever worth an arrow: it fits, has a cost, and is not the plan itself nor already
    applied by it (every change it makes is in the plan, at the plan's count)."""
    if not lv.fits or lv.cost_factor is None:
        return False
    if lv.kind == "fsdp" and lv.num_gpus == _plan_count(o):
        return False
    applied = set(_plan_changes(o))
    return not ((lv.num_gpus or 1) == _plan_count(o) and lv.changes() and set(lv.changes()) <= applied)


def _adapters_only(lv: Lever, method: str) -> bool:
    """Whether the lever turns a full fine-tune's checkpoint into adapters (LoRA or QLoRA)."""
    kinds = {lv.kind, *(c.kind for c in lv.parts)}
    return method == "full" and bool(kinds & {"lora", "qlora"})


def _lever_xy(o: Option, lv: Lever, cf_plan: float, per_million: bool, answer_method: str,
              checkpoints_kept: int) -> tuple[float, float] | None:
    n_plan, n = _plan_count(o), lv.num_gpus or 1
    g = lv.cost_factor / cf_plan
    speedup = (n / n_plan) / g
    if per_million:
        tps = o.plan.tokens_per_s if o.plan is not None else o.tokens_per_s
        money = o.plan.price_per_million_tokens if o.plan is not None else o.price_per_million_tokens
        return MILLION / (tps * speedup) / SECONDS_PER_HOUR, money * g
    if o.time is None or o.cost is None:  # a stored answer without the itemized phases and cost
        return o.hours / speedup, o.cost_usd * g
    tm, c = o.time, o.cost
    training_s = tm.training_s / speedup
    evaluation_s = tm.evaluation_s / speedup
    checkpoint_s, storage_usd = tm.checkpoint_s, c.storage_usd
    if _adapters_only(lv, answer_method):
        # a full fine-tune's checkpoint is the whole model and its optimizer; with LoRA or QLoRA it is
        # the adapters (advisor.cost.checkpoint_bytes), taken here as nothing next to the base model
        full_bytes = tm.checkpoint_s * STORAGE_WRITE_BYTES_PER_S / max(1, tm.saves or 1)
        kept_gb = checkpoints_kept * full_bytes / GB
        if c.storage_gb > 0:
            storage_usd = c.storage_usd * max(0.0, c.storage_gb - kept_gb) / c.storage_gb
        checkpoint_s = 0.0
    fixed_s = checkpoint_s + tm.startup_s
    rate = o.price_usd_per_hour * n / SECONDS_PER_HOUR
    base = c.training_usd + c.overhead_usd
    failed_fraction = c.failures_usd / base if base > 0 else 0.0
    training, overhead = training_s * rate, fixed_s * rate
    usd = (training + overhead) * (1 + failed_fraction) + evaluation_s * rate + c.pilot_usd * n / n_plan + storage_usd
    return (training_s + evaluation_s + fixed_s) / SECONDS_PER_HOUR, usd


def points(answer: Answer) -> ChartPoints:
    """The chart's points, arrows and bars for ``answer`` (module docstring). The one place that
    reads the answer's options and levers. Schema 3: each row's point is its ``Option.plan``'s
    own figures (a one-card lever plan, e.g. gradient accumulation, is the row and can be the
    recommendation), its changes name it, and the levers it already applies are not arrows."""
    per_million = answer.spec.dataset_tokens is None or all(o.cost_usd is None for o in answer.options if o.fits)
    offered = _offered(answer)
    plans: list[Plan] = []
    levers: list[LeverPoint] = []
    bars: list[Bar] = []
    not_fitting: list[str] = []
    for o in offered:
        recommended = o.gpu == answer.recommended
        mem_terms = dict(o.memory.terms) if o.memory else {}
        bars.append(Bar(o.gpu, o.gpu_name, o.num_gpus or 1, o.fits, recommended and o.fits, mem_terms,
                        o.device_bytes, o.usable_bytes))
        xy = _plan_xy(o, per_million) if o.fits else None
        if xy is None:
            if not o.fits:
                not_fitting.append(o.gpu)
            continue
        pl = o.plan
        plans.append(Plan(o.gpu, o.gpu_name, _plan_count(o), xy[0], xy[1], recommended, _plan_changes(o),
                          pl.nodes if pl is not None else 1, pl.gpus_per_node if pl is not None else None))
        cf_plan = _plan_factor(o)
        ends: set[tuple[float, float]] = set()
        for lv in o.levers:
            if not _changes_plan(lv, o):
                continue
            if cf_plan is None:
                log.debug("no plan factor for %s x%s: lever %s not drawn", o.gpu, o.num_gpus, lv.kind)
                continue
            end = _lever_xy(o, lv, cf_plan, per_million, answer.spec.method, answer.spec.costs.checkpoints_kept)
            if end is None or (round(end[0], 9), round(end[1], 9)) in ends:
                continue
            ends.add((round(end[0], 9), round(end[1], 9)))
            if abs(end[0] / xy[0] - 1) < MIN_MOVE and abs(end[1] / xy[1] - 1) < MIN_MOVE:
                continue  # it lands on the plan's marker: an arrow of no length, a second label on the plan
            levers.append(LeverPoint(o.gpu, o.gpu_name, lv, lv.num_gpus or 1, xy, end))
    return ChartPoints(per_million, tuple(plans), tuple(levers), tuple(bars), tuple(not_fitting))
