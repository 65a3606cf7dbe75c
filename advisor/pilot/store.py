"""Pilot state, measured results and spend, in the state database (ADVISOR_STATE_DB).

The state database (``advisor.statedb``: a SQLite file, or PostgreSQL shared by several bot
processes) is shared with the bot's own tables (threads, outbox, ...), so this module only
touches tables named ``pilot*`` and migrates them under its own owner name (``pilot``), never
``PRAGMA user_version``. Bolt's worker threads, the pilot watcher and a CLI in another process
can all use it at once; every state change is one transaction (``transition`` moves a pilot only
from the states it names, so two processes never both confirm or both finish one pilot).

States of a pilot:

    proposed --confirm--> pending --started--> running --> finished
        |                    |                    |-----> failed (reason: oom, cancelled, ...)
        +--> declined        +--> failed (pending_timeout, cancelled, ...)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import PilotError
from advisor.pilot.launchers.base import PilotHandle, PilotStatus
from advisor.pilot.spec import PilotSpec
from advisor.statedb import StateDB, Tx

OWNER = "pilot"

ACTIVE = ("pending", "running")
TERMINAL = ("finished", "failed", "declined")

MIGRATIONS: list[str] = [
    # 1: pilots and measured results
    """
    CREATE TABLE IF NOT EXISTS pilots (
        id TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        state TEXT NOT NULL,               -- proposed|declined|pending|running|finished|failed
        reason TEXT,                       -- failure reason (oom, cancelled, timed_out, ...)
        message TEXT,
        launcher TEXT NOT NULL,
        handle TEXT,                       -- JSON PilotHandle (re-attach after a restart)
        pilot_spec TEXT NOT NULL,          -- JSON PilotSpec
        gpu TEXT,
        method TEXT NOT NULL,
        stack TEXT NOT NULL,
        requested_by TEXT,
        confirmed_by TEXT,
        confirmed_at REAL,
        channel TEXT,
        thread_ts TEXT,
        status_ts TEXT,                    -- the status message edited in place
        lang TEXT NOT NULL DEFAULT 'en',
        prediction TEXT,                   -- JSON: what the estimate said it would measure
        estimated_cost_usd REAL,
        estimated_duration_s REAL,
        cost_usd REAL,                     -- node time actually used x price (when ended)
        events_seen INTEGER NOT NULL DEFAULT 0,
        last_progress TEXT,                -- JSON
        result TEXT,                       -- JSON result (finished) or partial result (failed)
        notified INTEGER NOT NULL DEFAULT 0 -- the final message is in the thread
    );
    CREATE INDEX IF NOT EXISTS pilots_state ON pilots(state);
    CREATE INDEX IF NOT EXISTS pilots_created ON pilots(created_at);
    CREATE TABLE IF NOT EXISTS pilot_results (
        pilot_id TEXT PRIMARY KEY,
        at REAL NOT NULL,
        gpu TEXT,                          -- catalog id the pilot was for
        device TEXT NOT NULL,              -- cuda | cpu
        device_name TEXT,
        on_target INTEGER NOT NULL,        -- ran on the GPU it was for (calibration uses only these)
        method TEXT NOT NULL,
        stack TEXT NOT NULL,
        runtime TEXT NOT NULL,
        model_id TEXT,
        seq_len INTEGER NOT NULL,
        micro_batch INTEGER NOT NULL,
        tokens_per_s REAL,
        efficiency REAL,                   -- executed FLOPs / dense peak (Calibration.mfu basis)
        mfu REAL,                          -- model FLOPs / dense peak
        peak_allocated_bytes INTEGER,
        peak_reserved_bytes INTEGER,
        reserved_ratio REAL,
        nvml_peak_bytes INTEGER,
        checkpoint_s REAL,
        checkpoint_bytes INTEGER,
        spec TEXT NOT NULL,                -- JSON FinetuneSpec
        hardware TEXT NOT NULL,            -- JSON environment
        result TEXT NOT NULL               -- JSON, the whole result
    );
    CREATE INDEX IF NOT EXISTS pilot_results_gpu ON pilot_results(gpu, method);
    """,
]

_JSON_FIELDS = ("handle", "pilot_spec", "prediction", "last_progress", "result")


@dataclass
class PilotRecord:
    id: str
    state: str
    launcher: str
    pilot_spec: PilotSpec
    created_at: float
    updated_at: float
    gpu: str | None = None
    method: str = "lora"
    stack: str = "hf"
    reason: str | None = None
    message: str | None = None
    handle: PilotHandle | None = None
    requested_by: str | None = None
    confirmed_by: str | None = None
    confirmed_at: float | None = None
    channel: str | None = None
    thread_ts: str | None = None
    status_ts: str | None = None
    lang: str = "en"
    prediction: dict[str, Any] | None = None
    estimated_cost_usd: float | None = None
    estimated_duration_s: float | None = None
    cost_usd: float | None = None
    events_seen: int = 0
    last_progress: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    notified: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("pilot_spec", "handle", "extra")}
        out["handle"] = self.handle.model_dump() if self.handle else None
        out["spec"] = self.pilot_spec.spec.model_dump(mode="json")
        out["steps"] = self.pilot_spec.steps
        return out


def _row_to_record(row: dict[str, Any]) -> PilotRecord:
    d = dict(row)
    for k in _JSON_FIELDS:
        d[k] = json.loads(d[k]) if d[k] is not None else None
    d["pilot_spec"] = PilotSpec.model_validate(d["pilot_spec"])
    d["handle"] = PilotHandle.model_validate(d["handle"]) if d["handle"] else None
    d["notified"] = bool(d["notified"])
    return PilotRecord(**d)


class PilotStore:
    """The pilot tables of a state database (a SQLite path, a PostgreSQL URL or a ``StateDB``)."""

    def __init__(self, target: "str | Path | StateDB"):
        self.db = StateDB.open(target)
        self.db.migrate(OWNER, MIGRATIONS)

    @property
    def path(self) -> Path | None:
        return self.db.path

    def schema_version(self) -> int:
        return self.db.version(OWNER)

    # --- pilots --------------------------------------------------------------------------------

    def create(self, pspec: PilotSpec, *, launcher: str, state: str = "proposed", requested_by: str | None = None,
               channel: str | None = None, thread_ts: str | None = None, lang: str = "en",
               prediction: dict[str, Any] | None = None, estimated_cost_usd: float | None = None,
               estimated_duration_s: float | None = None) -> PilotRecord:
        now = time.time()
        self.db.execute(
            "INSERT INTO pilots (id, created_at, updated_at, state, launcher, pilot_spec, gpu, method, stack, "
            "requested_by, channel, thread_ts, lang, prediction, estimated_cost_usd, estimated_duration_s) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pspec.pilot_id, now, now, state, launcher, pspec.model_dump_json(), pspec.gpu,
             pspec.spec.method, pspec.spec.stack, requested_by, channel, thread_ts, lang,
             json.dumps(prediction) if prediction is not None else None,
             estimated_cost_usd, estimated_duration_s),
        )
        return self.require(pspec.pilot_id)

    def get(self, pilot_id: str, tx: Tx | None = None) -> PilotRecord | None:
        sql = "SELECT * FROM pilots WHERE id = ?"
        rows = tx.execute(sql, (pilot_id,)).rows if tx else self.db.query(sql, (pilot_id,))
        return _row_to_record(rows[0]) if rows else None

    def require(self, pilot_id: str, tx: Tx | None = None) -> PilotRecord:
        rec = self.get(pilot_id, tx)
        if rec is None:
            raise PilotError(f"No pilot {pilot_id!r} in this state database; `advisor pilot history` lists them.")
        return rec

    @staticmethod
    def _stored(fields: dict[str, Any]) -> dict[str, Any]:
        stored = {k: (json.dumps(v, default=str) if k in _JSON_FIELDS and v is not None and k != "handle"
                      else v.model_dump_json() if k == "handle" and v is not None else v)
                  for k, v in fields.items()}
        if "notified" in stored and isinstance(stored["notified"], bool):
            stored["notified"] = int(stored["notified"])
        stored["updated_at"] = time.time()
        return stored

    def update(self, pilot_id: str, tx: Tx | None = None, **fields: Any) -> PilotRecord:
        if fields:
            stored = self._stored(fields)
            cols = ", ".join(f"{k} = ?" for k in stored)
            sql = f"UPDATE pilots SET {cols} WHERE id = ?"  # noqa: S608 - column names are ours
            if tx is not None:
                tx.execute(sql, (*stored.values(), pilot_id))
            else:
                self.db.execute(sql, (*stored.values(), pilot_id))
        return self.require(pilot_id, tx)

    def transition(self, pilot_id: str, from_states: tuple[str, ...], to_state: str, tx: Tx | None = None,
                   **fields: Any) -> bool:
        """Move a pilot from one of ``from_states`` to ``to_state``, with ``fields``, in one
        statement; False when it was not in one of them (a second click on Confirm, a cancel after
        the end, another process that got there first)."""
        marks = ", ".join("?" for _ in from_states)
        stored = self._stored({**fields, "state": to_state})
        cols = ", ".join(f"{k} = ?" for k in stored)
        sql = f"UPDATE pilots SET {cols} WHERE id = ? AND state IN ({marks})"  # noqa: S608
        params = (*stored.values(), pilot_id, *from_states)
        if tx is not None:
            return tx.execute(sql, params).rowcount == 1
        return self.db.execute(sql, params).rowcount == 1

    def set_handle(self, pilot_id: str, handle: PilotHandle) -> bool:
        """Record the handle of a started pilot, only while it is pending without one (False:
        it was cancelled or ended while it was being submitted)."""
        return self.db.execute("UPDATE pilots SET handle = ?, updated_at = ? WHERE id = ? AND state = 'pending' "
                               "AND handle IS NULL", (handle.model_dump_json(), time.time(), pilot_id)).rowcount == 1

    def records(self, *, states: tuple[str, ...] | None = None, limit: int = 100) -> list[PilotRecord]:
        query, args = "SELECT * FROM pilots", []
        if states:
            query += f" WHERE state IN ({', '.join('?' for _ in states)})"
            args += list(states)
        query += " ORDER BY created_at DESC LIMIT ?"
        return [_row_to_record(r) for r in self.db.query(query, (*args, limit))]

    def active(self) -> list[PilotRecord]:
        """Pilots a restarted process must re-attach to."""
        return self.records(states=ACTIVE, limit=10_000)

    def unnotified(self) -> list[PilotRecord]:
        """Pilots started from a Slack thread that ended but whose end is not in the thread yet
        (the bot stopped in between): a restarted bot posts them."""
        rows = self.db.query(
            "SELECT * FROM pilots WHERE notified = 0 AND channel IS NOT NULL AND state IN ('finished', 'failed') "
            "ORDER BY updated_at")
        return [_row_to_record(r) for r in rows]

    def apply_status(self, pilot_id: str, status: PilotStatus) -> PilotRecord:
        """Record what a launcher reports; on the end, the cost and (when finished) the result,
        in one transaction (the end is recorded once, by whichever process gets there first)."""
        rec = self.require(pilot_id)
        if rec.terminal:
            return rec
        fields: dict[str, Any] = {"events_seen": status.events}
        if status.last_progress is not None:
            fields["last_progress"] = status.last_progress
        if status.terminal:
            fields.update(reason=status.reason, message=status.message, result=status.result)
            price = rec.pilot_spec.price_usd_per_hour
            started = rec.confirmed_at or rec.created_at
            if price is not None:
                fields["cost_usd"] = max(0.0, time.time() - started) * price / 3600
        with self.db.transaction() as tx:
            if self.transition(pilot_id, ACTIVE + ("proposed",), status.state, tx=tx, **fields):
                if status.state == "finished" and status.result:
                    self.record_result(rec.pilot_spec, status.result, tx=tx)
        return self.require(pilot_id)

    def spent_since(self, since: float) -> float:
        """USD committed to pilots confirmed since ``since``: what they cost when they have ended,
        their estimate while they run."""
        rows = self.db.query(
            "SELECT COALESCE(SUM(COALESCE(cost_usd, estimated_cost_usd, 0)), 0) AS spent FROM pilots "
            "WHERE confirmed_at IS NOT NULL AND confirmed_at >= ?", (since,))
        return float(rows[0]["spent"])

    # --- measured results (calibration) --------------------------------------------------------

    def record_result(self, pspec: PilotSpec, result: dict[str, Any], tx: Tx | None = None) -> None:
        spec = pspec.spec
        mem = result.get("memory") or {}
        ckpt = result.get("checkpoint") or {}
        env = result.get("environment") or {}
        columns = ("pilot_id, at, gpu, device, device_name, on_target, method, stack, runtime, model_id, seq_len, "
                   "micro_batch, tokens_per_s, efficiency, mfu, peak_allocated_bytes, peak_reserved_bytes, "
                   "reserved_ratio, nvml_peak_bytes, checkpoint_s, checkpoint_bytes, spec, hardware, result")
        updates = ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in columns.split(",")[1:])
        sql = (f"INSERT INTO pilot_results ({columns}) VALUES ({', '.join('?' for _ in columns.split(','))}) "  # noqa: S608
               f"ON CONFLICT (pilot_id) DO UPDATE SET {updates}")
        with (self.db.transaction() if tx is None else _same(tx)) as t:
            t.execute(
                sql,
                (pspec.pilot_id, time.time(), pspec.gpu, result.get("device", "cpu"), env.get("gpu_name"),
                 int(bool(result.get("on_target_gpu"))), spec.method, spec.stack,
                 (result.get("stack_ran") or {}).get("runtime", pspec.runtime), pspec.model_id,
                 spec.seq_len, spec.micro_batch, result.get("tokens_per_s"), result.get("efficiency"),
                 result.get("mfu"), mem.get("peak_allocated_bytes"), mem.get("peak_reserved_bytes"),
                 mem.get("reserved_over_allocated"), mem.get("nvml_device_peak_bytes"), ckpt.get("save_s"),
                 ckpt.get("bytes"), spec.model_dump_json(), json.dumps(env, default=str),
                 json.dumps(result, default=str)),
            )

    def results(self, *, gpu: str | None = None, method: str | None = None, on_target_only: bool = False,
                limit: int = 1000) -> list[dict[str, Any]]:
        query, args = "SELECT * FROM pilot_results WHERE 1=1", []
        for col, val in (("gpu", gpu), ("method", method)):
            if val is not None:
                query += f" AND {col} = ?"
                args.append(val)
        if on_target_only:
            query += " AND on_target = 1"
        query += " ORDER BY at DESC LIMIT ?"
        rows = self.db.query(query, (*args, limit))
        out = []
        for r in rows:
            d = dict(r)
            for k in ("spec", "hardware", "result"):
                d[k] = json.loads(d[k])
            d["on_target"] = bool(d["on_target"])
            out.append(d)
        return out


class _same:
    """A transaction the caller already holds, as a context manager."""

    def __init__(self, tx: Tx):
        self.tx = tx

    def __enter__(self) -> Tx:
        return self.tx

    def __exit__(self, *exc: object) -> None:
        return None
