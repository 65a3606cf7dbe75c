"""The bot's runtime state: one SQLite file (``ADVISOR_STATE_DB``), never the catalog.

What lives here, and why it must survive a restart:

- ``threads``: for each Slack thread the bot answered, the request understood so far (a
  ``SpecRequest`` as JSON), the language of the conversation and the ts of the last answer, so a
  follow-up ("what about 16k?") after a restart is still a delta against the right spec.
- ``answers``: each posted answer message (request and the answer's data), so its buttons
  ("Verify exactly", "Show chart") work on the numbers that message shows, even after a restart.
- ``processed``: event ids, message keys and action keys already handled, so a retried delivery
  (``X-Slack-Retry-Num``) or a double click is processed once, across restarts too.

Sharing the file. Other modules (the pilot flow) keep their own tables in the same file: they
call ``StateStore.migrate(owner, steps)`` with their own owner name, and each owner's schema
version is tracked separately in ``schema_versions`` (a table-per-owner approach, so owners never
renumber each other's migrations). All access goes through one connection guarded by a lock:
every operation is a few microseconds, Bolt's worker threads and the HTTP server's per-request
threads come and go, and SQLite serializes writers anyway. WAL mode lets a second process (the
CLI, an operator's ``sqlite3`` shell) read while the bot writes; ``busy_timeout`` makes a writer
wait for a lock instead of failing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.spec import SpecRequest

OWNER = "bot"
# How long a writer waits for another process's lock before failing (ms). 5 s is far above any
# transaction here (microseconds) and below Slack's retry interval (1 minute).
BUSY_TIMEOUT_MS = 5000
# Processed keys older than this are pruned: Slack retries an event 3 times within about
# 5 minutes (Events API docs, "Retries"); a day is a wide margin for restarts and double clicks.
PROCESSED_TTL_S = 24 * 3600
PRUNE_EVERY_CLAIMS = 1000  # a long-running bot forgets old claims as it goes, not only at start

MIGRATIONS: list[str] = [
    # 1: threads, answers, processed keys
    """
    CREATE TABLE threads (
        channel TEXT NOT NULL,
        thread_ts TEXT NOT NULL,
        request_json TEXT NOT NULL,
        lang TEXT NOT NULL,
        last_answer_ts TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (channel, thread_ts)
    );
    CREATE TABLE answers (
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,
        thread_ts TEXT NOT NULL,
        kind TEXT NOT NULL,
        lang TEXT NOT NULL,
        request_json TEXT,
        data_json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (channel, ts)
    );
    CREATE TABLE processed (
        key TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX processed_created ON processed (created_at);
    """,
]


@dataclass(frozen=True)
class ThreadState:
    channel: str
    thread_ts: str
    request: SpecRequest
    lang: str
    last_answer_ts: str | None


@dataclass(frozen=True)
class StoredAnswer:
    channel: str
    ts: str
    thread_ts: str
    kind: str
    lang: str
    request: SpecRequest | None
    data: dict[str, Any]


class StateStore:
    """Thread-safe access to the state database. Open once per process and share it."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._claims = 0
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                                     timeout=BUSY_TIMEOUT_MS / 1000)
        self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable across application crashes in WAL mode (SQLite docs, "synchronous");
        # only a power loss may drop the last transactions.
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        self.migrate(OWNER, MIGRATIONS)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # --- transactions and migrations (shared with other owners of tables in this file) ---------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception), under the lock."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def migrate(self, owner: str, steps: Sequence[str]) -> int:
        """Apply ``steps[version:]`` for ``owner`` (each step a SQL script) in one transaction
        each; returns the owner's version afterwards. Steps are append-only."""
        with self._lock:
            version = self.version(owner)
            for number, script in enumerate(steps[version:], start=version + 1):
                with self.transaction() as conn:
                    for statement in _statements(script):
                        conn.execute(statement)
                    conn.execute(
                        "INSERT INTO schema_versions (owner, version) VALUES (?, ?) "
                        "ON CONFLICT(owner) DO UPDATE SET version = excluded.version",
                        (owner, number),
                    )
            return self.version(owner)

    def version(self, owner: str) -> int:
        with self._lock:
            row = self._conn.execute("SELECT version FROM schema_versions WHERE owner = ?", (owner,)).fetchone()
        return row[0] if row else 0

    # --- threads -------------------------------------------------------------------------------

    def thread(self, channel: str, thread_ts: str) -> ThreadState | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT request_json, lang, last_answer_ts FROM threads WHERE channel = ? AND thread_ts = ?",
                (channel, thread_ts),
            ).fetchone()
        if row is None:
            return None
        return ThreadState(channel, thread_ts, SpecRequest.model_validate_json(row[0]), row[1], row[2])

    def save_thread(self, channel: str, thread_ts: str, request: SpecRequest, lang: str,
                    last_answer_ts: str | None) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO threads (channel, thread_ts, request_json, lang, last_answer_ts, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(channel, thread_ts) DO UPDATE SET "
                "request_json = excluded.request_json, lang = excluded.lang, "
                "last_answer_ts = COALESCE(excluded.last_answer_ts, threads.last_answer_ts), "
                "updated_at = excluded.updated_at",
                (channel, thread_ts, request.model_dump_json(exclude_none=True), lang, last_answer_ts, time.time()),
            )

    def touch_thread(self, channel: str, thread_ts: str, lang: str, last_answer_ts: str) -> None:
        """Record an answer in a known thread that did not change its request (a FAQ reply)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE threads SET lang = ?, last_answer_ts = ?, updated_at = ? WHERE channel = ? AND thread_ts = ?",
                (lang, last_answer_ts, time.time(), channel, thread_ts),
            )

    def forget_thread(self, channel: str, thread_ts: str) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM threads WHERE channel = ? AND thread_ts = ?", (channel, thread_ts))

    # --- answers -------------------------------------------------------------------------------

    def save_answer(self, channel: str, ts: str, thread_ts: str, kind: str, lang: str,
                    request: SpecRequest | None, data: dict[str, Any]) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO answers (channel, ts, thread_ts, kind, lang, request_json, data_json, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (channel, ts, thread_ts, kind, lang,
                 request.model_dump_json(exclude_none=True) if request is not None else None,
                 json.dumps(data, default=str), time.time()),
            )

    def answer(self, channel: str, ts: str) -> StoredAnswer | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT thread_ts, kind, lang, request_json, data_json FROM answers WHERE channel = ? AND ts = ?",
                (channel, ts),
            ).fetchone()
        if row is None:
            return None
        request = SpecRequest.model_validate_json(row[3]) if row[3] else None
        return StoredAnswer(channel, ts, row[0], row[1], row[2], request, json.loads(row[4]))

    # --- processed keys (dedup) ----------------------------------------------------------------

    def claim(self, key: str, kind: str) -> bool:
        """True the first time ``key`` is claimed (go ahead), False for every later claim."""
        with self.transaction() as conn:
            cur = conn.execute("INSERT OR IGNORE INTO processed (key, kind, created_at) VALUES (?, ?, ?)",
                               (key, kind, time.time()))
            claimed = cur.rowcount == 1
            self._claims += 1
            if self._claims % PRUNE_EVERY_CLAIMS == 0:
                conn.execute("DELETE FROM processed WHERE created_at < ?", (time.time() - PROCESSED_TTL_S,))
        return claimed

    def release(self, key: str) -> None:
        """Forget a claim whose work failed, so the user can try again."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM processed WHERE key = ?", (key,))

    def prune(self, older_than_s: float = PROCESSED_TTL_S, now: float | None = None) -> int:
        cutoff = (time.time() if now is None else now) - older_than_s
        with self.transaction() as conn:
            return conn.execute("DELETE FROM processed WHERE created_at < ?", (cutoff,)).rowcount


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (sqlite3.execute runs one at a time; unlike
    executescript it does not commit the surrounding transaction)."""
    return [s.strip() for s in script.split(";") if s.strip()]
