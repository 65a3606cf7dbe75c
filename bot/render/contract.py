"""The answer's JSON as the renderers read it.

The advisor's ``data`` follows docs/DESIGN.md's contract, which is extended over time; this module
reads both spellings seen so far (an option's ``memory`` as a dict or as device bytes;
``capacity_bytes`` or ``usable_bytes``; ``assumed`` as a list of names or a name -> value dict;
``planning_windows`` as a list or as {gpu, job_gpu_hours, windows}) into one shape, so a renderer
never guesses and a missing optional part is simply not shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    gpu: str
    name: str
    offered: bool
    fits: bool
    num_gpus: int | None
    device_bytes: int
    capacity_bytes: int
    breakdown: dict[str, int] | None  # per GPU, at num_gpus; None when the data does not carry it
    allocated_bytes: int | None
    reserved_bytes: int | None
    tokens_per_s: float | None
    hours: float | None
    cost_usd: float | None
    sharding: str | None
    price_usd_per_hour: float | None
    price_per_million_tokens: float | None
    reason: str | None
    levers: list[dict[str, Any]]
    step_s: float | None = None  # one optimizer step per GPU (advisor.steptime), when the data has it
    time_shares: dict[str, float] | None = None  # share of the step per operator class


@dataclass(frozen=True)
class Window:
    hours: float | None
    cost_usd: float | None
    fits_job: bool


@dataclass(frozen=True)
class AnswerData:
    spec: dict[str, Any]
    model: str | None
    memory: dict[str, Any]
    options: list[Option]
    recommended: str | None
    notes: list[str]
    assumed: list[tuple[str, Any]]
    windows: list[Window]
    windows_gpu: str | None = None
    job_gpu_hours: float | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def best(self) -> Option | None:
        return next((o for o in self.options if o.gpu == self.recommended), None)

    def gpu_name(self, gpu_id: str | None) -> str | None:
        return next((o.name for o in self.options if o.gpu == gpu_id), gpu_id)


def read(data: dict[str, Any]) -> AnswerData:
    spec = data.get("spec") or {}
    assumed = data.get("assumed") or []
    assumed_pairs = list(assumed.items()) if isinstance(assumed, dict) else [(f, spec.get(f)) for f in assumed]
    windows_raw = data.get("planning_windows") or []
    windows_gpu = job_hours = None
    if isinstance(windows_raw, dict):
        windows_gpu, job_hours = windows_raw.get("gpu"), windows_raw.get("job_gpu_hours")
        windows_raw = windows_raw.get("windows") or []
    windows = [Window(w.get("hours"), _first(w, "cost_usd", "price_usd"), bool(_first(w, "fits_job", "fits")))
               for w in windows_raw]
    return AnswerData(spec=spec, model=data.get("model"), memory=data.get("memory") or {},
                      options=[_option(o) for o in data.get("options") or []], recommended=data.get("recommended"),
                      notes=[str(n) for n in data.get("notes") or []], assumed=assumed_pairs, windows=windows,
                      windows_gpu=windows_gpu, job_gpu_hours=job_hours, raw=data)


def _option(o: dict[str, Any]) -> Option:
    mem = o.get("memory")
    mem = mem if isinstance(mem, dict) else {"device_bytes": mem or 0}
    breakdown = mem.get("breakdown") or o.get("breakdown")
    if isinstance(breakdown, dict) and "breakdown" in breakdown:  # a MemoryBreakdown.to_json()
        mem = {**breakdown, **mem}
        breakdown = breakdown["breakdown"]
    return Option(
        gpu=o["gpu"], name=o.get("gpu_name") or o["gpu"], offered=o.get("offered", True), fits=bool(o.get("fits")),
        num_gpus=o.get("num_gpus"), device_bytes=int(mem.get("device_bytes") or 0),
        capacity_bytes=int(_first(o, "capacity_bytes", "usable_bytes") or 0),
        breakdown={k: int(v) for k, v in breakdown.items()} if isinstance(breakdown, dict) else None,
        allocated_bytes=mem.get("allocated_bytes"), reserved_bytes=mem.get("reserved_bytes"),
        tokens_per_s=o.get("tokens_per_s"), hours=o.get("hours"), cost_usd=o.get("cost_usd"),
        sharding=o.get("sharding"), price_usd_per_hour=o.get("price_usd_per_hour"),
        price_per_million_tokens=o.get("price_per_million_tokens"), reason=o.get("reason"), levers=list(o.get("levers") or []),
        step_s=(o.get("step_time") or {}).get("seconds"), time_shares=(o.get("step_time") or {}).get("shares"),
    )


def _first(d: dict[str, Any], *keys: str) -> Any:
    return next((d[k] for k in keys if d.get(k) is not None), None)
