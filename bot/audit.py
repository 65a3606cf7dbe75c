"""Who did what, when, and what came of it: the ``audit`` table of the state database.

Every attempt that touches money or the catalog lands here: a catalog edit from Slack (made or
refused), a pilot start (confirmed or refused, with the figures). The catalog keeps its own audit
of the rows it changed (``catalog.db``, table ``audit``, written by ``Catalog.update_gpu``); this
table adds what the catalog cannot see: who was *refused*, and Slack-side context.

    audit = AuditLog(settings.state_db)
    audit.record(actor="U123", action="catalog.set-price", target="h100-sxm", outcome="refused",
                 detail={"reason": "not_admin", "args": ["h100", "2.49"]})
    audit.entries(actor="U123")  # newest first

The table shares the state database with ``bot.store`` and the pilot store: it is created with
the same owner-versioned convention as ``StateStore.migrate`` (``schema_versions``, owner
``audit``). Each call opens a short-lived connection in WAL mode with a busy timeout, so Bolt's
worker threads, the pilot watcher and an operator's ``sqlite3`` shell can use the file at once;
every write is one transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from advisor import statedb

OWNER = "audit"
# Same wait as bot.store: far above any transaction here, below Slack's 3 s ack deadline.
BUSY_TIMEOUT_MS = 5000
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
    """The audit table of a state database file (created on first use)."""

    def __init__(self, path: str | Path):
        self.path = statedb.prepare(path)
        with self._connect() as conn:
            self._migrate(conn)

    def _connect(self):
        return statedb.connect(self.path, busy_timeout_ms=BUSY_TIMEOUT_MS)

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM schema_versions WHERE owner = ?", (OWNER,)).fetchone()
            version = row[0] if row else 0
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, script.split(";")):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_versions (owner, version) VALUES (?, ?) "
                             "ON CONFLICT(owner) DO UPDATE SET version = excluded.version", (OWNER, number))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def record(self, *, actor: str, action: str, outcome: Outcome, target: str | None = None,
               detail: dict[str, Any] | None = None, at: float | None = None) -> int:
        """Append one row (its own transaction); returns its id."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}; got {outcome!r}")
        with self._connect() as conn:
            cur = conn.execute(
                "INSERT INTO audit (at, actor, action, target, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
                (time.time() if at is None else at, actor, action, target, outcome,
                 json.dumps(detail or {}, default=str, ensure_ascii=False)),
            )
            return int(cur.lastrowid)

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
        with self._connect() as conn:
            rows = conn.execute(query, (*args, max(0, min(int(limit), 2**62)))).fetchall()
        return [AuditEntry(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6] or "{}")) for r in rows]

    def prune(self, keep_rows: int = DEFAULT_KEEP_ROWS) -> int:
        """Delete all but the newest ``keep_rows`` rows; returns how many went."""
        with self._connect() as conn:
            return conn.execute("DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?",
                                (keep_rows,)).rowcount
