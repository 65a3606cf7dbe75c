"""The answer to a fine-tuning spec, as numbers and codes: one typed, versioned object.

``advisor.recommend.recommend`` returns an ``Answer``; ``advisor estimate --json`` prints its
``model_dump(mode="json")``; the text table (advisor.report) and the Block Kit message
(bot.render.answer) both read the same object, and the bot's state database keeps its dump so a
thread's buttons still work after an upgrade (``Answer.load`` reads every schema stored so far).

No sentence and no language lives here: levers, reasons and notes are codes with the numbers
their words are made from; advisor.report (and through it advisor.i18n) turns them into English
or Spanish at the edge.

Schema versions:

1. ``Recommendation.to_json()`` before issue #15 (no ``schema_version`` key): an option's
   ``memory`` as the device bytes, ``levers`` with a ``description`` sentence and a ``detail``
   dict, ``reason`` and ``notes`` as sentences in the answer's ``lang``, ``assumed`` as a
   name -> value dict, ``planning_windows`` as {gpu, job_gpu_hours, windows}. ``load`` turns the
   levers back into codes (their ``detail`` holds every number) and keeps the sentences of
   reasons and notes verbatim in ``text`` (they cannot be rebuilt from what was stored).
2. Issue #15's typed answer (``schema_version: 2``).
3. This module (``schema_version: 3``, issue #16): each option's ``plan`` (its rentable layout,
   nodes x GPUs per node, and the levers applied), the answer's ``verdict`` (the question asked,
   answered first), ``Reason.needs_gpus`` (a job past the GPU ceiling), ``Planning.num_gpus``
   (windows priced for the plan's count), ``Change.micro_batch``/``accumulation``. ``load``
   upgrades 1 and 2: the new fields are absent there, so an old thread's answer has no verdict
   (the renderers then show none) and its windows stay as they were stored (priced for one GPU,
   ``Planning.num_gpus`` 1); its buttons read ``recommended`` and the options, unchanged.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from advisor.spec import FinetuneSpec

SCHEMA_VERSION = 3

ChangeKind = Literal["micro_batch", "optimizer_8bit", "gradient_checkpointing", "flash_attention", "qlora", "lora",
                     "expandable_segments", "shorter_seq", "fused_ce"]
LeverKind = Literal["micro_batch", "optimizer_8bit", "gradient_checkpointing", "flash_attention", "qlora", "lora",
                    "expandable_segments", "shorter_seq", "fused_ce", "fsdp", "combined"]
ReasonKind = Literal["one_gpu", "no_count", "over_ceiling", "stated_count"]
# what of the job as asked a change alters (a lever that alters nothing keeps the training the same:
# same method, sequence length, global batch and trained tokens, and every setting the user stated)
Alteration = Literal["method", "seq_len", "global_batch", "optimizer", "gradient_checkpointing", "attention"]
VerdictQuestion = Literal["gpu", "one_card", "count"]  # "can we ... on a 4090?" / "does it fit on one card?" /
#   "... on 4 GPUs" (a count stated, more than one)
VerdictAnswer = Literal["yes", "no", "over_ceiling"]
NoteCode = Literal[
    "recommend", "recommend_rate", "no_dataset", "itemized", "windows", "windows_fit", "windows_over", "tie",
    "faster", "hourly_trap", "tight", "calibrated", "prior", "asked_gpu_fits", "asked_gpu_no", "nothing_fits",
    "would_fit_gpu", "would_fit_lever", "stack", "legacy", "rounded_count", "multi_node", "over_ceiling",
    "global_batch", "nothing_fits_stated",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Memory(_Frozen):
    """Peak memory of one training step on each GPU (advisor.memory.MemoryBreakdown's figures)."""

    num_gpus: int
    allocated_bytes: int  # torch.cuda.max_memory_allocated
    reserved_bytes: int  # torch.cuda.max_memory_reserved
    device_bytes: int  # what nvidia-smi shows: reserved plus the CUDA context
    need_bytes: int  # what the fit rule compares (advisor.fit): reserved at equal lengths plus the context
    peak_phase: str
    terms: dict[str, int]  # the parts of allocated_bytes (advisor.memory_terms)

    def largest_term(self) -> str:
        return max(self.terms, key=lambda k: self.terms[k])


class Change(_Frozen):
    """One change to the spec that lowers memory (a part of a combined lever)."""

    kind: ChangeKind
    seq_len: int | None = None  # shorter_seq: the sequence length proposed
    factor: int | None = None  # micro_batch: the micro-batch divided by (down to 1)
    micro_batch: int | None = None  # micro_batch: the new micro-batch ...
    accumulation: int | None = None  # ... and the gradient accumulation keeping the global batch


class Lever(_Frozen):
    """What would make the spec fit on a GPU, with the memory and cost it would have there.

    ``kind="fsdp"``: shard over ``num_gpus`` GPUs; ``kind="combined"``: ``parts`` at once;
    ``fsdp_gpus``: the change needs FSDP over that many GPUs as well (nothing fits without)."""

    kind: LeverKind
    seq_len: int | None = None
    factor: int | None = None
    micro_batch: int | None = None
    accumulation: int | None = None
    parts: tuple[Change, ...] = ()
    fsdp_gpus: int | None = None
    device_bytes: int  # per GPU with the lever
    fits: bool  # on this GPU, at num_gpus (advisor.fit)
    num_gpus: int = 1
    cost_factor: float | None = None  # GPU-time per trained token relative to the spec on one GPU
    alters: tuple[Alteration, ...] = ()  # what of the job as asked it changes (empty: the same training)

    @property
    def keeps_job(self) -> bool:
        return not self.alters

    def changes(self) -> tuple[Change, ...]:
        """The changes this lever makes, one by one (a combined lever's parts; none for FSDP)."""
        if self.kind == "combined":
            return self.parts
        if self.kind == "fsdp":
            return ()
        return (Change.model_construct(kind=self.kind, seq_len=self.seq_len, factor=self.factor,
                                       micro_batch=self.micro_batch, accumulation=self.accumulation),)


class Reason(_Frozen):
    """Why the spec does not fit on one GPU (``no_count``: nor at any count searched)."""

    kind: ReasonKind
    need_bytes: int | None = None  # on one GPU
    usable_bytes: int | None = None
    term: str | None = None  # the largest part of the memory
    term_bytes: int | None = None
    max_gpus: int | None = None  # no_count: the largest count searched; over_ceiling: the ceiling ...
    need_at_max_bytes: int | None = None  # ... and what each GPU needs there
    needs_gpus: int | None = None  # over_ceiling: the rentable count it would fit at (past the ceiling);
    #   stated_count: the count it would fit at, past the count the user stated (in ``max_gpus``)
    text: str | None = None  # schema 1 only: the stored sentence


class RunTime(_Frozen):
    """Seconds of one run by phase (advisor.cost.RunTime)."""

    training_s: float
    evaluation_s: float
    checkpoint_s: float
    startup_s: float
    pilot_s: float
    run_s: float
    saves: int | None = None

    @property
    def hours(self) -> float:
        return self.run_s / 3600


class Cost(_Frozen):
    """USD to an accepted checkpoint, itemized (advisor.cost.CostBreakdown)."""

    training_usd: float
    overhead_usd: float
    failures_usd: float
    evaluation_usd: float
    pilot_usd: float
    storage_usd: float
    storage_gb: float
    gpu_hours: float
    total_usd: float


class StepTime(_Frozen):
    seconds: float  # one optimizer step on each GPU (advisor.steptime)
    shares: dict[str, float]  # share of the step per operator class, largest first


class Plan(_Frozen):
    """What to rent and run: ``num_gpus`` of ``gpu`` as ``nodes`` machines of ``gpus_per_node``
    (a node shape the provider rents, advisor.catalog.shapes), with ``changes`` applied to the
    spec; ``alters`` says what of the job as asked they change (empty: the same training).
    Figures are the plan's own: memory per GPU, tokens/s from its own step time, its cost."""

    gpu: str
    num_gpus: int
    gpus_per_node: int
    nodes: int = 1
    network_gbps: float | None = None  # between nodes, per node (multi-node plans)
    region: str | None = None  # where this layout is rented (None: any / not rented)
    sharding: str
    changes: tuple[Change, ...] = ()
    alters: tuple[Alteration, ...] = ()
    micro_batch: int
    accumulation: int
    seq_len: int
    method: str
    device_bytes: int
    tokens_per_s: float
    global_batch: int | None = None  # sequences per optimizer step: num_gpus x micro_batch x accumulation
    #   (None in a dump stored before it); differs from the job's only with "global_batch" in ``alters``
    hours: float | None = None
    cost_usd: float | None = None
    price_per_million_tokens: float | None = None
    price_usd_per_hour: float | None = None  # the whole plan: per-GPU price x num_gpus

    @property
    def keeps_job(self) -> bool:
        return not self.alters

    @property
    def money(self) -> float | None:
        return self.cost_usd if self.cost_usd is not None else self.price_per_million_tokens


class Option(_Frozen):
    """One catalog GPU for the spec."""

    gpu: str
    gpu_name: str
    offered: bool
    price_usd_per_hour: float | None
    usable_bytes: int  # Gpu.usable_memory_bytes
    fits: bool
    num_gpus: int | None  # smallest count that fits (None: none does)
    sharding: str | None
    device_bytes: int  # per GPU at num_gpus as nvidia-smi shows it, at most usable_bytes (one GPU when nothing fits)
    memory: Memory | None  # the breakdown at that count
    tokens_per_s: float | None
    mfu: float | None
    efficiency_source: str | None  # "prior" or "calibrated"
    pilots: int = 0
    hours: float | None = None  # wall-clock of the accepted run (None without a dataset size)
    time: RunTime | None = None
    cost_usd: float | None = None  # to an accepted checkpoint (GPUs with a price)
    cost: Cost | None = None
    price_per_million_tokens: float | None = None
    reason: Reason | None = None  # why it does not fit on one GPU
    levers: tuple[Lever, ...] = ()
    step: StepTime | None = None
    plan: Plan | None = None  # schema 3: the row's plan (layout and levers applied); None when nothing fits
    rounded_from: int | None = None  # schema 3: the count asked, when rounded up to a rentable shape

    @property
    def money(self) -> float | None:
        """What the ranking compares: cost to an accepted checkpoint, or price per million trained
        tokens when no dataset size was given (None when the GPU has no price)."""
        return self.cost_usd if self.cost_usd is not None else self.price_per_million_tokens

    @property
    def headroom_bytes(self) -> int:
        return self.usable_bytes - self.device_bytes


class Note(_Frozen):
    """A short note, as a code and the options it is about (``gpu``, ``other``); the figures are
    the options' own. ``stack``: ``behaviour`` names a stack behaviour decided at run time."""

    code: NoteCode
    gpu: str | None = None
    other: str | None = None
    lever: Lever | None = None  # would_fit_lever
    max_gpus: int | None = None  # nothing_fits, over_ceiling: the ceiling
    num_gpus: int | None = None  # rounded_count: the count asked; over_ceiling: the count needed
    behaviour: str | None = None  # stack
    text: str | None = None  # legacy (schema 1): the stored sentence


class Window(_Frozen):
    hours: int  # wall-clock hours of the plan (schema 1-2: of one GPU)
    price_usd: float  # hours x price per GPU x the plan's GPUs
    fits: bool  # the job's wall-clock hours (GPU-hours / GPUs) fit in this window


class Planning(_Frozen):
    gpu: str  # the recommended GPU
    job_gpu_hours: float | None
    windows: tuple[Window, ...]
    num_gpus: int = 1  # schema 3: the plan's GPU count the windows are priced for


class Verdict(_Frozen):
    """The question asked, answered first, as codes and numbers (advisor.report.verdict_text).

    ``question``: "gpu" when the user named a GPU ("can we ... on a 4090?"), else "one_card"
    (does it fit on one card). ``answer``: "yes" when ``plan`` (on the GPU asked, or one card)
    keeps the job as asked (levers that change nothing of it, e.g. gradient accumulation at the
    same global batch); "no" otherwise, with ``cheapest`` the recommended plan; "over_ceiling"
    when nothing fits within ``max_gpus`` (``needs_gpus``: the count it would take, if any).
    ``job_changes``: plans on one card that fit only by changing the job (shorter sequences,
    QLoRA instead of LoRA...): options, never the verdict's yes.
    ``stated_gpus``: the GPU count the user stated ("on 1 GPU", "on 4 H100"): every plan stays on
    it, so a plan on more GPUs is never the yes; when nothing fits on it, ``cheapest`` is the
    plan that would (on more GPUs, from the ranking without the stated count)."""

    question: VerdictQuestion
    gpu: str | None = None
    answer: VerdictAnswer
    plan: Plan | None = None
    cheapest: Plan | None = None
    job_changes: tuple[Plan, ...] = ()
    max_gpus: int
    needs_gpus: int | None = None
    stated_gpus: int | None = None


class Answer(_Frozen):
    """Every catalog GPU for a spec, ranked (the recommendation first), with notes as codes."""

    schema_version: int = SCHEMA_VERSION
    spec: FinetuneSpec
    model: str  # the model's label ("Llama 3 70B")
    memory: Memory  # the spec as given, at its own GPU count
    options: tuple[Option, ...]
    recommended: str | None
    notes: tuple[Note, ...] = ()
    assumed: tuple[str, ...] = ()  # spec fields the user did not say (their values are in spec)
    planning: Planning | None = None
    verdict: Verdict | None = None  # schema 3 (None in an upgraded dump of 1 or 2)

    def option(self, gpu_id: str) -> Option:
        return next(o for o in self.options if o.gpu == gpu_id)

    @property
    def best(self) -> Option | None:
        return next((o for o in self.options if o.gpu == self.recommended), None)

    @property
    def global_batch(self) -> int:
        """The job's global batch in sequences: micro-batch x accumulation x GPUs as asked (or
        assumed); every plan keeps it or says how it differs (``Plan.global_batch``)."""
        s = self.spec
        return s.micro_batch * s.gradient_accumulation_steps * s.num_gpus

    def gpu_name(self, gpu_id: str | None) -> str | None:
        return next((o.gpu_name for o in self.options if o.gpu == gpu_id), gpu_id)

    def dump(self) -> dict[str, Any]:
        """The JSON of ``advisor estimate --json`` and of the bot's stored answer."""
        return self.model_dump(mode="json")

    @classmethod
    def load(cls, data: dict[str, Any]) -> "Answer":
        """An Answer from any stored dump (keys other than the model's, e.g. the chat reply's
        ``head`` or ``understood``, are ignored); schema 1 is upgraded (module docstring)."""
        version = data.get("schema_version", 1)
        if version == 1:
            data = _upgrade_v1(data)
        elif version > SCHEMA_VERSION:
            raise ValueError(f"answer schema {version} is newer than this advisor's {SCHEMA_VERSION}")
        # schema 2 -> 3 adds only fields with a "not stored" default (module docstring)
        return cls.model_validate({**{k: v for k, v in data.items() if k in cls.model_fields},
                                   "schema_version": SCHEMA_VERSION})


# --- schema 1 -> 2 ----------------------------------------------------------------------------

_V1_LEVER = {"seq_len": "shorter_seq"}  # schema 1 called the shorter-sequence lever "seq_len"


def _v1_change(code: str, detail: dict[str, Any]) -> dict[str, Any]:
    kind = _V1_LEVER.get(code, code)
    out: dict[str, Any] = {"kind": kind}
    if kind == "shorter_seq":
        out["seq_len"] = detail.get("seq_len")
    if kind == "micro_batch":
        out["factor"] = detail.get("factor")
    return out


def _v1_lever(lv: dict[str, Any]) -> dict[str, Any]:
    detail = dict(lv.get("detail") or {})
    out = _v1_change(lv["lever"], detail)
    if out["kind"] == "combined":
        out["parts"] = [_v1_change(c, d) for c, d in detail.get("parts") or []]
    if "fsdp_n" in detail:
        out["fsdp_gpus"] = detail["fsdp_n"]
    return {**out, "device_bytes": int(lv.get("memory_bytes") or 0), "fits": bool(lv.get("fits")),
            "num_gpus": lv.get("num_gpus") or 1, "cost_factor": lv.get("cost_factor")}


def _v1_memory(m: dict[str, Any] | None, num_gpus: int) -> dict[str, Any] | None:
    if not m:
        return None
    device = int(m.get("device_bytes") or 0)
    return {"num_gpus": m.get("num_gpus") or num_gpus, "allocated_bytes": int(m.get("allocated_bytes") or 0),
            "reserved_bytes": int(m.get("reserved_bytes") or 0), "device_bytes": device,
            "need_bytes": int(m.get("need_bytes") or device), "peak_phase": m.get("peak_phase") or "backward",
            "terms": {k: int(v) for k, v in (m.get("breakdown") or m.get("terms") or {}).items()}}


def _v1_option(o: dict[str, Any]) -> dict[str, Any]:
    mem = o.get("memory")
    device = int(mem.get("device_bytes") or 0) if isinstance(mem, dict) else int(mem or 0)
    breakdown = o.get("breakdown") if isinstance(o.get("breakdown"), dict) else (mem if isinstance(mem, dict) else None)
    if breakdown is not None and "breakdown" not in breakdown:  # a bare term -> bytes dict
        breakdown = {"breakdown": breakdown, "device_bytes": device}
    time = o.get("time_s")
    step = o.get("step_time")
    return {
        "gpu": o["gpu"], "gpu_name": o.get("gpu_name") or o["gpu"], "offered": o.get("offered", True),
        "price_usd_per_hour": o.get("price_usd_per_hour"),
        "usable_bytes": int(o.get("usable_bytes") or o.get("capacity_bytes") or 0), "fits": bool(o.get("fits")),
        "num_gpus": o.get("num_gpus"), "sharding": o.get("sharding"), "device_bytes": device,
        "memory": _v1_memory(breakdown, o.get("num_gpus") or 1), "tokens_per_s": o.get("tokens_per_s"),
        "mfu": o.get("mfu"), "efficiency_source": o.get("efficiency_source"), "pilots": o.get("pilots") or 0,
        "hours": o.get("hours"),
        "time": {"training_s": time["training"], "evaluation_s": time["evaluation"],
                 "checkpoint_s": time["checkpoint"], "startup_s": time["startup"], "pilot_s": time["pilot"],
                 "run_s": time["run"]} if time else None,
        "cost_usd": o.get("cost_usd"), "cost": o.get("cost"),
        "price_per_million_tokens": o.get("price_per_million_tokens"),
        "reason": {"kind": "one_gpu", "text": o["reason"]} if o.get("reason") else None,
        "levers": [_v1_lever(lv) for lv in o.get("levers") or []],
        "step": {"seconds": step["seconds"], "shares": step.get("shares") or {}} if step and step.get("seconds") else None,
    }


def _v1_planning(p: Any, recommended: str | None) -> dict[str, Any] | None:
    if isinstance(p, list):  # the oldest spelling: a bare list of windows
        p = {"gpu": recommended, "job_gpu_hours": None, "windows": p}
    if not p or not p.get("gpu"):
        return None
    windows = [{"hours": w["hours"], "price_usd": w.get("price_usd", w.get("cost_usd")),
                "fits": bool(w.get("fits", w.get("fits_job")))} for w in p.get("windows") or []]
    return {"gpu": p["gpu"], "job_gpu_hours": p.get("job_gpu_hours"), "windows": windows}


def _upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> the current one (schema 2 needs no rewrite: every field schema 3 added has a
    default meaning "not stored", module docstring)."""
    spec = data.get("spec") or {}
    assumed = data.get("assumed") or []
    return {
        "schema_version": SCHEMA_VERSION, "spec": spec, "model": data.get("model") or spec.get("model") or "",
        "memory": _v1_memory(data.get("memory"), spec.get("num_gpus") or 1),
        "options": [_v1_option(o) for o in data.get("options") or []], "recommended": data.get("recommended"),
        "notes": [{"code": "legacy", "text": str(n)} for n in data.get("notes") or []],
        "assumed": list(assumed),  # a dict's keys or a list of names
        "planning": _v1_planning(data.get("planning_windows"), data.get("recommended")),
    }
