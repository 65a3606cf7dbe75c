"""Connections to the state database (ADVISOR_STATE_DB): one SQLite file shared by the bot's
threads, the pilot store and the audit log, each owning its own tables.

WAL mode lets readers (the CLI, an operator's sqlite3 shell) read while the bot writes;
``busy_timeout`` makes a writer wait for another writer's transaction instead of failing
(tests/test_crash_safety.py: 16 threads and 4 processes writing at once lose nothing).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# How long a writer waits for another's transaction. Transactions here are single-row writes
# (milliseconds); 10 s only runs out when something holds the database far longer than it should.
BUSY_TIMEOUT_MS = 10_000


@contextmanager
def connect(path: str | Path, *, rows: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Iterator[sqlite3.Connection]:
    """A short-lived autocommit connection (transactions with explicit BEGIN IMMEDIATE)."""
    conn = sqlite3.connect(path, timeout=busy_timeout_ms / 1000, isolation_level=None)
    if rows:
        conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
    try:
        yield conn
    finally:
        conn.close()


def prepare(path: str | Path) -> Path:
    """Create the file's folder and switch the database to WAL (a property of the file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with connect(path) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
    return path
