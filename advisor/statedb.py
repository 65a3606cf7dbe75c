"""The state database: runtime state shared by the bot's threads and processes, the pilot store
and the audit log, each owning its own tables. Two backends behind one small interface:

- **SQLite** (the embedded default): a file (``ADVISOR_STATE_DB``, ``./state.db``). WAL mode lets
  readers (the CLI, an operator's ``sqlite3`` shell) read while the bot writes; ``busy_timeout``
  makes a writer wait for another writer's transaction instead of failing (SQLite serializes
  writers; ``BEGIN IMMEDIATE`` takes the write lock at the start, so a transaction that reads
  then writes never dead-locks against another). One connection per thread.
- **PostgreSQL** (``ADVISOR_STATE_URL=postgresql://...``, psycopg 3): what more than one bot
  process or replica shares. A small pool of autocommit connections per process; a transaction
  is ``conn.transaction()`` (psycopg docs, "Transactions management": BEGIN ... COMMIT, ROLLBACK on
  an exception). READ COMMITTED (PostgreSQL's default) is enough for what runs here: single-row
  upserts, ``INSERT ... ON CONFLICT DO NOTHING`` claims (the second of two concurrent inserts of
  one key waits for the first to commit, then does nothing: PostgreSQL docs, "INSERT", "ON
  CONFLICT Clause"), and job leases taken with ``FOR UPDATE SKIP LOCKED``.

The SQL is written once, in the subset both speak (``?`` placeholders, ``ON CONFLICT``,
``RETURNING``: SQLite >= 3.35); ``?`` becomes ``%s`` for psycopg, and migration scripts get
PostgreSQL's types (``REAL`` is 4 bytes there: timestamps need ``DOUBLE PRECISION``; ``INTEGER``
is 4 bytes: byte counts need ``BIGINT``). Failures a person can fix (a full or read-only disk, a
database that does not answer) raise :class:`advisor.errors.StateUnavailable` with what to do.

    db = StateDB.open("state.db")                       # or "postgresql://user:pw@host/db"
    with db.transaction() as tx:
        tx.execute("INSERT INTO t (k) VALUES (?) ON CONFLICT (k) DO NOTHING", ("a",))
    rows = db.query("SELECT * FROM t WHERE k = ?", ("a",))   # list of dicts
"""

from __future__ import annotations

import os
import queue
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from advisor.errors import StateUnavailable

# How long a SQLite writer waits for another's transaction. Transactions here are single-row
# writes (milliseconds); 10 s only runs out when something holds the database far longer than it
# should.
BUSY_TIMEOUT_MS = 10_000
# PostgreSQL connections one process keeps: the answer workers, the HTTP threads and the pilot
# watcher each hold one for a few milliseconds at a time.
PG_POOL_SIZE = 8
# How long a thread waits for a free pooled connection, and for the server to accept one.
PG_ACQUIRE_TIMEOUT_S = 10.0
PG_CONNECT_TIMEOUT_S = 5

Dialect = Literal["sqlite", "postgresql"]

# SQLite error texts that mean "the disk, not the code" (sqlite3 exposes no error codes before
# Python 3.11's sqlite_errorcode; both are checked).
_SQLITE_FULL, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CANTOPEN, _SQLITE_BUSY = 13, 8, 10, 14, 5


def is_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://", "sqlite://"))


def redact(target: str | Path) -> str:
    """The target without a password, for messages and logs."""
    text = str(target)
    if not is_url(text):
        return text
    parts = urlsplit(text)
    if parts.password:
        netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    return text


@dataclass(frozen=True)
class Result:
    """What ``Tx.execute`` returns: rows as dicts (a SELECT or ``RETURNING``) and the row count."""

    rows: list[dict[str, Any]]
    rowcount: int

    def one(self) -> dict[str, Any] | None:
        return self.rows[0] if self.rows else None


class Tx:
    """One open transaction (or one autocommit read); ``execute`` takes ``?`` placeholders."""

    def __init__(self, db: "StateDB", conn: Any):
        self.db, self._conn = db, conn

    @property
    def dialect(self) -> Dialect:
        return self.db.dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        if self.db.dialect == "postgresql":
            cur = self._conn.execute(sql.replace("?", "%s"), tuple(params) or None)
            rows = cur.fetchall() if cur.description is not None else []
            return Result([dict(r) for r in rows], cur.rowcount)
        cur = self._conn.execute(sql, tuple(params))
        rows = cur.fetchall() if cur.description is not None else []
        return Result([dict(r) for r in rows], cur.rowcount)


class StateDB:
    """A state database (SQLite file or PostgreSQL URL). Thread-safe; share one per process:
    ``StateDB.open(target)`` returns the same object for the same target in one process."""

    _shared: dict[tuple[int, str], "StateDB"] = {}
    _shared_lock = threading.Lock()

    def __init__(self, target: str | Path):
        self.target = str(target)
        self._pid = os.getpid()
        self._lock = threading.Lock()
        if is_url(self.target) and not self.target.startswith("sqlite://"):
            self.dialect: Dialect = "postgresql"
            self.path: Path | None = None
            self._pool: queue.LifoQueue = queue.LifoQueue()
            self._made = 0
            self._check_psycopg()
        else:
            self.dialect = "sqlite"
            raw = self.target.removeprefix("sqlite:///") if self.target.startswith("sqlite://") else self.target
            self.path = Path(raw)
            self._local = threading.local()
            self._all: list[sqlite3.Connection] = []
            if raw != ":memory:":
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StateUnavailable(self._advice(exc)) from exc
            with self._sqlite_guard():
                self._sqlite().execute("PRAGMA journal_mode = WAL")

    @classmethod
    def open(cls, target: "str | Path | StateDB") -> "StateDB":
        if isinstance(target, StateDB):
            return target
        key = (os.getpid(), str(target))
        with cls._shared_lock:
            db = cls._shared.get(key)
            if db is None:
                db = cls._shared[key] = cls(target)
            return db

    def describe(self) -> str:
        return redact(self.target)

    def __repr__(self) -> str:
        return f"StateDB({self.describe()!r})"

    # --- connections ---------------------------------------------------------------------------

    @staticmethod
    def _check_psycopg() -> None:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            from advisor.errors import MissingExtra

            raise MissingExtra("A PostgreSQL state database (ADVISOR_STATE_URL=postgresql://...)",
                               "postgres", "psycopg") from None

    def _sqlite(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # NORMAL is durable across application crashes (kill -9) in WAL mode (SQLite docs,
            # "PRAGMA synchronous"); only a power loss may drop the last transactions.
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _pg_acquire(self) -> Any:
        import psycopg
        from psycopg.rows import dict_row

        try:
            return self._pool.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            make = self._made < PG_POOL_SIZE
            if make:
                self._made += 1
        if make:
            try:
                return psycopg.connect(self.target, autocommit=True, row_factory=dict_row,
                                       connect_timeout=PG_CONNECT_TIMEOUT_S)
            except BaseException:
                with self._lock:
                    self._made -= 1
                raise
        try:
            return self._pool.get(timeout=PG_ACQUIRE_TIMEOUT_S)
        except queue.Empty:
            raise StateUnavailable(f"All {PG_POOL_SIZE} connections to the state database {self.describe()} "
                                   f"stayed busy for {PG_ACQUIRE_TIMEOUT_S:.0f} s.") from None

    def _pg_release(self, conn: Any, broken: bool) -> None:
        if broken or conn.closed or conn.info.transaction_status != 0:  # 0: idle
            try:
                conn.close()
            finally:
                with self._lock:
                    self._made -= 1
            return
        self._pool.put(conn)

    def _after_fork(self) -> None:
        """A forked child (a gunicorn worker) never shares its parent's connections."""
        if os.getpid() != self._pid:
            self._pid = os.getpid()
            if self.dialect == "sqlite":
                self._local = threading.local()
                self._all = []
            else:
                self._pool = queue.LifoQueue()
                self._made = 0

    # --- transactions --------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A write transaction: committed when the block ends, rolled back on any exception."""
        self._after_fork()
        if self.dialect == "sqlite":
            with self._sqlite_guard():
                conn = self._sqlite()
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield Tx(self, conn)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            return
        with self._pg_guard() as conn:
            with conn.transaction():
                yield Tx(self, conn)

    @contextmanager
    def reading(self) -> Iterator[Tx]:
        """Autocommit reads (each statement sees the latest committed state)."""
        self._after_fork()
        if self.dialect == "sqlite":
            with self._sqlite_guard():
                yield Tx(self, self._sqlite())
            return
        with self._pg_guard() as conn:
            yield Tx(self, conn)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.reading() as tx:
            return tx.execute(sql, params).rows

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        """One statement in its own transaction."""
        with self.transaction() as tx:
            return tx.execute(sql, params)

    @contextmanager
    def _sqlite_guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            primary = code & 0xFF if isinstance(code, int) else None
            text = str(exc).lower()
            if primary in (_SQLITE_FULL, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CANTOPEN, _SQLITE_BUSY) or any(
                    w in text for w in ("full", "readonly", "read-only", "disk i/o", "unable to open", "locked")):
                raise StateUnavailable(self._advice(exc)) from exc
            raise

    @contextmanager
    def _pg_guard(self) -> Iterator[Any]:
        import psycopg
        from psycopg import errors as pgerr

        try:
            conn = self._pg_acquire()
        except psycopg.OperationalError as exc:
            raise StateUnavailable(self._advice(exc)) from exc
        broken = False
        try:
            yield conn
        except (psycopg.OperationalError, pgerr.ReadOnlySqlTransaction, pgerr.DiskFull,
                pgerr.InsufficientResources, pgerr.AdminShutdown) as exc:
            broken = isinstance(exc, psycopg.OperationalError)
            raise StateUnavailable(self._advice(exc)) from exc
        except BaseException:
            broken = True  # an interrupted transaction: do not hand the connection to someone else
            raise
        finally:
            self._pg_release(conn, broken)

    def _advice(self, exc: BaseException) -> str:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if self.dialect == "sqlite":
            return (f"The state database {self.describe()} cannot be written ({first}): free disk space or make "
                    "its folder writable (ADVISOR_STATE_DB), or point ADVISOR_STATE_URL at a PostgreSQL server.")
        return (f"The state database {self.describe()} is not available ({first}): check that the PostgreSQL "
                "server runs, accepts writes and has disk space (ADVISOR_STATE_URL).")

    # --- schema --------------------------------------------------------------------------------

    def ddl(self, script: str) -> list[str]:
        """A migration script as statements for this dialect (``--`` comments dropped first, so a
        comment may say anything, semicolons included)."""
        script = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
        statements = [s.strip() for s in script.split(";") if s.strip()]
        if self.dialect == "sqlite":
            return statements
        out = []
        for s in statements:
            s = re.sub(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", s)
            s = re.sub(r"\bREAL\b", "DOUBLE PRECISION", s)
            s = re.sub(r"\bINTEGER\b", "BIGINT", s)
            out.append(s)
        return out

    def migrate(self, owner: str, steps: Sequence[str]) -> int:
        """Apply ``steps[version:]`` for ``owner`` (each a SQL script), one transaction each, and
        return the owner's version. Steps are append-only; each owner is versioned on its own in
        ``schema_versions`` so owners never renumber each other's migrations. Safe when several
        processes start at once: the version row is locked (PostgreSQL) or the database is
        (SQLite ``BEGIN IMMEDIATE``) while a step runs."""
        with self.transaction() as tx:
            if self.dialect == "postgresql":
                # CREATE TABLE IF NOT EXISTS is not safe against itself in PostgreSQL (two
                # creators race on the system catalog): every migration of this database runs
                # under one transaction-scoped advisory lock.
                tx.execute("SELECT pg_advisory_xact_lock(hashtext('advisor-migrate'))")
            tx.execute("CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        while True:
            with self.transaction() as tx:
                if self.dialect == "postgresql":
                    tx.execute("SELECT pg_advisory_xact_lock(hashtext('advisor-migrate'))")
                row = tx.execute("SELECT version FROM schema_versions WHERE owner = ?", (owner,)).one()
                version = row["version"] if row else 0
                if version > len(steps):
                    raise StateUnavailable(
                        f"The state database {self.describe()} has {owner} schema {version}, newer than this "
                        f"advisor knows ({len(steps)}): upgrade the advisor.")
                if version == len(steps):
                    return version
                for statement in self.ddl(steps[version]):
                    tx.execute(statement)
                tx.execute("INSERT INTO schema_versions (owner, version) VALUES (?, ?) "
                           "ON CONFLICT (owner) DO UPDATE SET version = excluded.version", (owner, version + 1))

    def version(self, owner: str) -> int:
        try:
            rows = self.query("SELECT version FROM schema_versions WHERE owner = ?", (owner,))
        except (sqlite3.OperationalError, StateUnavailable):
            return 0
        except Exception as exc:  # psycopg.errors.UndefinedTable before the first migration
            if type(exc).__name__ == "UndefinedTable":
                return 0
            raise
        return rows[0]["version"] if rows else 0

    # --- dialect snippets ----------------------------------------------------------------------

    @property
    def skip_locked(self) -> str:
        """Row locking for job leases: PostgreSQL locks the chosen row and lets other workers skip
        it; SQLite's BEGIN IMMEDIATE already serializes every writer."""
        return " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" else ""

    def close(self) -> None:
        if self.dialect == "sqlite":
            with self._lock:
                conns, self._all = self._all, []
            for conn in conns:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._local = threading.local()
        else:
            while True:
                try:
                    self._pool.get_nowait().close()
                except queue.Empty:
                    break
            self._made = 0
        with StateDB._shared_lock:
            for key, db in list(StateDB._shared.items()):
                if db is self:
                    del StateDB._shared[key]


def open_state(target: "str | Path | StateDB") -> StateDB:
    return StateDB.open(target)


# --- plain SQLite connections to a state file (advisor.hub's config cache) ------------------------


@contextmanager
def connect(path: str | Path, *, rows: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Iterator[sqlite3.Connection]:
    """A short-lived autocommit sqlite3 connection to a state *file* (for tables that are a
    per-machine cache beside the shared ones, such as advisor.hub's hub_configs)."""
    conn = sqlite3.connect(str(path), timeout=busy_timeout_ms / 1000, isolation_level=None)
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
