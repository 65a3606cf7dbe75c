"""Who did what, when, and what came of it: the ``audit`` table of the state database.

Every attempt that touches money or the catalog lands here: a catalog edit from Slack (made or
refused), a pilot start (confirmed or refused, with the figures). The catalog keeps its own audit
of the rows it changed (``catalog.db``, table ``audit``, written by ``Catalog.update_gpu``); this
table adds what the catalog cannot see: who was *refused*, and Slack-side context.

    audit = AuditLog(settings.state_db)
    audit.record(actor="U123", action="catalog.set-price", target="h100-sxm", outcome="refused",
                 detail={"reason": "not_admin", "args": ["h100", "2.49"]})
    audit.entries(actor="U123")  # newest first

The table shares the state database (``advisor.statedb``: SQLite or PostgreSQL) with
``bot.store`` and the pilot store, migrated under the owner ``audit`` (``StateDB.migrate``);
every write is one transaction.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from advisor.statedb import StateDB

OWNER = "audit"
# Rows kept when pruning: a year of a busy team's pilots and edits is well under this.
DEFAULT_KEEP_ROWS = 1_000_000

Outcome = Literal["ok", "refused", "invalid", "failed"]
OUTCOMES: tuple[str, ...] = ("ok", "refused", "invalid", "failed")

MIGRATIONS: list[str] = [
    # 1: one row per attempt
    """
    CREATE TABLE IF NOT EXISTS audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,                  -- unix seconds
        actor TEXT NOT NULL,               -- Slack user id (or cli:<user>)
        action TEXT NOT NULL,              -- catalog.set-price, pilot.start, ...
        target TEXT,                       -- what it was about: a GPU id, a pilot id
        outcome TEXT NOT NULL,             -- ok | refused | invalid | failed
        detail TEXT                        -- JSON: reason, figures, arguments
    );
    CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
    CREATE INDEX IF NOT EXISTS audit_actor ON audit (actor, at)
    """,
]


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: float
    actor: str
    action: str
    target: str | None
    outcome: str
    detail: dict[str, Any]


class AuditLog:
    """The audit table of a state database (created on first use)."""

    def __init__(self, target: "str | Path | StateDB"):
        self.db = StateDB.open(target)
        self.db.migrate(OWNER, MIGRATIONS)

    def record(self, *, actor: str, action: str, outcome: Outcome, target: str | None = None,
               detail: dict[str, Any] | None = None, at: float | None = None) -> int:
        """Append one row (its own transaction); returns its id."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}; got {outcome!r}")
        row = self.db.execute(
            "INSERT INTO audit (at, actor, action, target, outcome, detail) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (time.time() if at is None else at, actor, action, target, outcome,
             json.dumps(detail or {}, default=str, ensure_ascii=False)),
        ).one()
        return int(row["id"])

    def entries(self, *, actor: str | None = None, action: str | None = None, outcome: str | None = None,
                since: float | None = None, limit: int = 100) -> list[AuditEntry]:
        """Rows matching every filter given, newest first."""
        query, args = "SELECT id, at, actor, action, target, outcome, detail FROM audit WHERE 1=1", []
        for column, value in (("actor", actor), ("action", action), ("outcome", outcome)):
            if value is not None:
                query += f" AND {column} = ?"
                args.append(value)
        if since is not None:
            query += " AND at >= ?"
            args.append(since)
        query += " ORDER BY id DESC LIMIT ?"
        rows = self.db.query(query, (*args, max(0, min(int(limit), 2**62))))
        return [AuditEntry(r["id"], r["at"], r["actor"], r["action"], r["target"], r["outcome"],
                           json.loads(r["detail"] or "{}")) for r in rows]

    def prune(self, keep_rows: int = DEFAULT_KEEP_ROWS) -> int:
        """Delete all but the newest ``keep_rows`` rows; returns how many went."""
        return self.db.execute("DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?", (keep_rows,)).rowcount
