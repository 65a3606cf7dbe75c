"""What pilots actually cost, per pilot, per user and per UTC day: numbers and codes only (the CLI
``advisor pilot spend`` and ``/finetune spend`` word them, advisor/i18n/home.py).

One pilot's cost is ``wall_s x price_usd_per_hour / 3600 x gpus``, each term from the pilot's
own record (advisor/pilot/store.py):

- ``wall_s``: the node time the pilot held, from its confirmation (``confirmed_at``: the launch
  follows it at once, bot/pilot/flow.py ``on_confirm``) to the end its launcher reported.
  ``PilotStore.apply_status`` measures exactly that span when a pilot ends and stores it priced
  per GPU as ``cost_usd = (end - confirmed_at) x price / 3600``; the span is read back from it
  (the store keeps no separate end time). A pilot without a stored price falls back to the
  runner's own clock (``result.wall_s`` when it finished, ``result.elapsed_s`` of the partial
  result when it failed: advisor/pilot/runner.py ``Runner._result`` / ``Runner.partial``), which
  leaves out the node's start-up. A pilot still running has cost ``now - confirmed_at`` so far.
- ``price_usd_per_hour``: the catalog price of the GPU when the pilot was proposed, copied into
  the pilot spec by ``advisor.pilot.spec.pilot_spec_for`` (``gpu.price_usd_per_hour``): what the
  node was rented at, even if an admin changed the catalog since.
- ``gpus``: what the launcher asked for: one GPU for a pilot with a catalog GPU and a device that
  is not the CPU, none otherwise (advisor/pilot/launchers/ray.py ``RayLauncher.submit``:
  ``entrypoint_num_gpus = 1 if spec.device != "cpu" and spec.gpu is not None else 0``; the
  runner trains one process on one device, ``advisor.pilot.spec.one_gpu_only``).

A pilot that failed still cost its time (an OOM after four minutes is four minutes of the node).
Pilots that cost nothing say why (``basis``):

    rented       wall x price x GPUs (a Ray pilot: its node is rented while the job holds it)
    running      the same, so far (still running)
    local        the local launcher runs on the bot's own machine, which is paid for whether or
                 not a pilot runs: no GPU is rented for it (cost 0)
    cpu          it ran on the CPU (device cpu): no GPU held (cost 0)
    not_started  confirmed, but no launcher ever took it (``handle`` never set): no node (cost 0)
    no_price     the GPU has no catalog price: the time is known, the cost is not (cost None)

Only confirmed pilots appear: a proposal that was declined or never confirmed started nothing.
The policy's daily budget (bot/pilot/policy.py) is a separate, cautious figure: it counts every
confirmed pilot at its per-GPU price, estimates included while they run
(``PilotStore.spent_since``).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from advisor.pilot.store import ACTIVE, PilotRecord, PilotStore

BASES = ("rented", "running", "local", "cpu", "not_started", "no_price")
FREE_BASES = ("local", "cpu", "not_started")
# Confirmed pilots read per report: ten capped pilots a day for a year (bot/pilot/policy.py
# DEFAULT_DAILY_BUDGET_USD / DEFAULT_COST_CAP_USD), far beyond any team's history.
MAX_PILOTS = 10_000


@dataclass(frozen=True)
class PilotCost:
    """One confirmed pilot's spend."""

    pilot_id: str
    user: str | None  # who asked for it (requested_by), else who confirmed it
    confirmed_by: str | None
    day: str  # UTC date of its confirmation, YYYY-MM-DD
    started_at: float  # confirmed_at (epoch seconds)
    state: str
    reason: str | None
    launcher: str
    gpu: str | None
    gpu_name: str | None
    device: str | None  # cuda | cpu | None (never reported)
    gpus: int  # GPUs held
    wall_s: float | None  # node time held (None: not known)
    wall_source: str | None  # store_cost | runner_clock | so_far | None
    price_usd_per_hour: float | None
    cost_usd: float | None  # None: no catalog price
    basis: str  # one of BASES

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SpendReport:
    """Pilots' spend, newest first, with totals per user, per day and per (user, day)."""

    pilots: tuple[PilotCost, ...]
    since: float | None
    user: str | None
    generated_at: float
    by_user: dict[str, float] = field(default_factory=dict)
    by_day: dict[str, float] = field(default_factory=dict)
    by_user_day: dict[str, dict[str, float]] = field(default_factory=dict)
    total_usd: float = 0.0
    unpriced: int = 0  # pilots with no catalog price (their cost is unknown, not 0)

    def to_json(self) -> dict[str, Any]:
        return {"since": self.since, "user": self.user, "generated_at": self.generated_at,
                "total_usd": self.total_usd, "unpriced": self.unpriced, "by_user": self.by_user,
                "by_day": self.by_day, "by_user_day": self.by_user_day,
                "pilots": [p.to_json() for p in self.pilots]}


def day_of(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def _device(rec: PilotRecord) -> str | None:
    """The device the pilot ran on: the finished result's ``device``; a failed pilot's partial
    result names its memory source (``torch.cuda`` or the process RSS on a CPU: advisor/pilot/
    runner.py ``Runner._memory``); else what the spec forced (``device``), else unknown."""
    result = rec.result or {}
    if result.get("device") in ("cuda", "cpu"):
        return result["device"]
    source = str((result.get("memory") or {}).get("source") or "")
    if source.startswith("torch.cuda"):
        return "cuda"
    if source.startswith("process-rss"):
        return "cpu"
    return "cpu" if rec.pilot_spec.device == "cpu" else ("cuda" if rec.pilot_spec.device == "cuda" else None)


def gpus_held(rec: PilotRecord) -> int:
    """GPUs the launcher asked for (advisor/pilot/launchers/ray.py ``RayLauncher.submit``)."""
    return 1 if rec.pilot_spec.device != "cpu" and rec.pilot_spec.gpu is not None else 0


def _wall(rec: PilotRecord, now: float) -> tuple[float | None, str | None]:
    started = rec.confirmed_at or rec.created_at
    if rec.state in ACTIVE:
        return max(0.0, now - started), "so_far"
    price = rec.pilot_spec.price_usd_per_hour
    if rec.cost_usd is not None and price:  # PilotStore.apply_status: (end - confirmed_at) x price / 3600
        return rec.cost_usd * 3600 / price, "store_cost"
    result = rec.result or {}
    for key in ("wall_s", "elapsed_s"):
        if isinstance(result.get(key), (int, float)):
            return float(result[key]), "runner_clock"
    return None, None


def pilot_cost(rec: PilotRecord, now: float | None = None) -> PilotCost:
    """What one confirmed pilot cost (module docstring)."""
    now = time.time() if now is None else now
    device = _device(rec)
    wall_s, wall_source = _wall(rec, now)
    price = rec.pilot_spec.price_usd_per_hour
    gpus = gpus_held(rec)
    if rec.handle is None and rec.state not in ACTIVE:
        basis, wall_s, wall_source = "not_started", 0.0, None
    elif device == "cpu" or gpus == 0:
        basis = "cpu"
    elif rec.launcher == "local":
        basis = "local"
    elif price is None:
        basis = "no_price"
    else:
        basis = "running" if rec.state in ACTIVE else "rented"
    if basis in FREE_BASES:
        cost: float | None = 0.0
    elif basis == "no_price" or wall_s is None:
        cost = None
    else:
        cost = wall_s * price / 3600 * gpus
    started = rec.confirmed_at or rec.created_at
    return PilotCost(pilot_id=rec.id, user=rec.requested_by or rec.confirmed_by, confirmed_by=rec.confirmed_by,
                     day=day_of(started), started_at=started, state=rec.state, reason=rec.reason,
                     launcher=rec.launcher, gpu=rec.pilot_spec.gpu, gpu_name=rec.pilot_spec.gpu_name, device=device,
                     gpus=gpus, wall_s=wall_s, wall_source=wall_source, price_usd_per_hour=price, cost_usd=cost,
                     basis=basis)


def pilot_spend(store: PilotStore, *, user: str | None = None, since: float | None = None,
                until: float | None = None, now: float | None = None) -> SpendReport:
    """Every confirmed pilot since ``since`` (epoch seconds, by confirmation time; None: all),
    of ``user`` (who asked for it, or confirmed it; None: everyone), priced; with totals."""
    now = time.time() if now is None else now
    sql = "SELECT id FROM pilots WHERE confirmed_at IS NOT NULL"
    args: list[Any] = []
    if since is not None:
        sql += " AND confirmed_at >= ?"
        args.append(since)
    if until is not None:
        sql += " AND confirmed_at < ?"
        args.append(until)
    if user is not None:
        sql += " AND (requested_by = ? OR (requested_by IS NULL AND confirmed_by = ?))"
        args += [user, user]
    sql += " ORDER BY confirmed_at DESC LIMIT ?"
    ids = [r["id"] for r in store.db.query(sql, (*args, MAX_PILOTS))]
    costs = tuple(pilot_cost(rec, now) for rec in (store.get(i) for i in ids) if rec is not None)
    by_user: dict[str, float] = {}
    by_day: dict[str, float] = {}
    by_user_day: dict[str, dict[str, float]] = {}
    for c in costs:
        amount = c.cost_usd or 0.0
        who = c.user or "-"
        by_user[who] = by_user.get(who, 0.0) + amount
        by_day[c.day] = by_day.get(c.day, 0.0) + amount
        by_user_day.setdefault(who, {})
        by_user_day[who][c.day] = by_user_day[who].get(c.day, 0.0) + amount
    return SpendReport(pilots=costs, since=since, user=user, generated_at=now,
                       by_user=dict(sorted(by_user.items(), key=lambda kv: (-kv[1], kv[0]))),
                       by_day=dict(sorted(by_day.items(), reverse=True)),
                       by_user_day={u: dict(sorted(d.items(), reverse=True)) for u, d in by_user_day.items()},
                       total_usd=float(sum(c.cost_usd or 0.0 for c in costs)),
                       unpriced=sum(1 for c in costs if c.cost_usd is None))
