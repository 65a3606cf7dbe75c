"""The bot's runtime state, in the state database (``advisor.statedb``: a SQLite file by default,
PostgreSQL with ``ADVISOR_STATE_URL`` when more than one process shares it), never the catalog.

What lives here, and why it must survive a restart (or another replica):

- ``threads``: for each Slack thread the bot answered, the request understood so far (a
  ``SpecRequest`` as JSON), the language of the conversation and the ts of the last answer, so a
  follow-up ("what about 16k?") after a restart is still a delta against the right spec.
- ``answers``: each posted answer message (request and the answer's data), so its buttons
  ("Verify exactly", "Show chart") work on the numbers that message shows.
- ``processed``: keys already claimed (event ids, message keys, the signature of a request body,
  action keys), so a retried delivery (``X-Slack-Retry-Num``), a replayed body or a double click
  is processed once, across restarts and replicas.
- ``outbox``: the work behind every acknowledged request (bot/outbox.py). A listener writes the
  job *in the same transaction* as the claims, before the ack leaves; workers lease jobs, and a
  job whose worker died (kill -9) is leased again when its lease runs out. Jobs of one ``lane``
  (a Slack thread) run one at a time in the order they were acked.
- ``deliveries``: one row per message the bot posts, keyed by an idempotency key, written before
  the post and completed (with the message ts) in the same transaction as what the post means
  (the thread's new spec, the stored answer, the job done). A post resumed after a crash first
  looks for a message carrying its key (bot/delivery.py), so nothing is posted twice.
- ``leases``: named leases (the pilot watcher runs in one process of all that share the database).
- ``health``: the row ``/healthz`` writes to prove the database takes writes.

Other modules (the pilot store, the audit log) keep their own tables in the same database and
migrate them under their own owner name (``StateDB.migrate``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.spec import SpecRequest
from advisor.statedb import StateDB, Tx

OWNER = "bot"
# Processed keys older than this are pruned: Slack retries an event 3 times within about
# 5 minutes (Events API docs, "Retries") and refuses a request signature older than 5 minutes
# ("Verifying requests from Slack"); a day is a wide margin for restarts and double clicks.
PROCESSED_TTL_S = 24 * 3600
# Finished outbox jobs and their deliveries are kept this long (for "was this answered?" and
# the tests' and operators' queries), then pruned with the processed keys.
OUTBOX_TTL_S = 24 * 3600
PRUNE_EVERY_CLAIMS = 1000  # a long-running bot forgets old claims as it goes, not only at start

MIGRATIONS: list[str] = [
    # 1: threads, answers, processed keys
    """
    CREATE TABLE IF NOT EXISTS threads (
        channel TEXT NOT NULL,
        thread_ts TEXT NOT NULL,
        request_json TEXT NOT NULL,
        lang TEXT NOT NULL,
        last_answer_ts TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (channel, thread_ts)
    );
    CREATE TABLE IF NOT EXISTS answers (
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
    CREATE TABLE IF NOT EXISTS processed (
        key TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS processed_created ON processed (created_at);
    """,
    # 2: durable work (outbox), idempotent deliveries, named leases, the health probe
    """
    CREATE TABLE IF NOT EXISTS outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key TEXT NOT NULL UNIQUE,          -- what was acked: event:Ev.., command:<trigger>, ...
        kind TEXT NOT NULL,                -- question, private, click, verify_trace, ...
        queue TEXT NOT NULL,               -- answers | heavy (traces and charts)
        lane TEXT NOT NULL,                -- one job of a lane at a time, in id order (a thread)
        payload TEXT NOT NULL,             -- JSON: everything the job needs
        state TEXT NOT NULL,               -- pending | running | done | failed
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before REAL NOT NULL,          -- a retried job waits until then (backoff)
        lease_owner TEXT,                  -- the worker running it
        lease_until REAL,                  -- renewed while it runs; expired: a dead worker
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        error TEXT,
        result TEXT                        -- JSON: what was delivered (ts of the answer, ...)
    );
    CREATE INDEX IF NOT EXISTS outbox_ready ON outbox (queue, state, id);
    CREATE INDEX IF NOT EXISTS outbox_lane ON outbox (lane, id);
    CREATE TABLE IF NOT EXISTS deliveries (
        key TEXT PRIMARY KEY,              -- idempotency key of one post (job key + '#' + part)
        job_id INTEGER,
        channel TEXT NOT NULL,
        thread_ts TEXT,
        state TEXT NOT NULL,               -- posting | posted
        ts TEXT,                           -- the message Slack made for it
        file_id TEXT,                      -- an upload in progress (files.getUploadURLExternal)
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS deliveries_created ON deliveries (created_at);
    CREATE TABLE IF NOT EXISTS leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        until REAL NOT NULL
    );
    CREATE TABLE IF NOT EXISTS health (
        owner TEXT PRIMARY KEY,
        at REAL NOT NULL
    );
    """,
    # 3: partial indexes over the unfinished jobs only. A lease looks at open jobs of its queue and
    # at the open jobs ahead of each in its lane; without these, every lease (and every idle
    # poll) scanned all finished jobs, payloads included, under the write lock: measured with
    # benchmarks/load.py at 100/s, CPU per request 9.6 ms after 10 s and 45 ms after 60 s, ack p99
    # 2.5 s. SQLite (3.8+) and PostgreSQL both use a partial index when the query's WHERE
    # implies the index's (``state IN ('pending', 'running')`` written out in the query).
    """
    CREATE INDEX IF NOT EXISTS outbox_open ON outbox (queue, id) WHERE state IN ('pending', 'running');
    CREATE INDEX IF NOT EXISTS outbox_open_lane ON outbox (lane, id) WHERE state IN ('pending', 'running');
    CREATE INDEX IF NOT EXISTS outbox_running_owner ON outbox (lease_owner) WHERE state = 'running'
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


@dataclass(frozen=True)
class Job:
    """One leased outbox row."""

    id: int
    key: str
    kind: str
    queue: str
    lane: str
    payload: dict[str, Any]
    attempts: int
    created_at: float
    lease_owner: str | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Job":
        return cls(id=int(row["id"]), key=row["key"], kind=row["kind"], queue=row["queue"], lane=row["lane"],
                   payload=json.loads(row["payload"]), attempts=int(row["attempts"]),
                   created_at=float(row["created_at"]), lease_owner=row.get("lease_owner"))


@dataclass(frozen=True)
class NewJob:
    """A job to write to the outbox; ``key`` is unique (a second enqueue of it does nothing)."""

    key: str
    kind: str
    payload: dict[str, Any]
    lane: str | None = None  # None: a lane of its own
    queue: str = "answers"
    not_before: float = 0.0


@dataclass(frozen=True)
class Delivery:
    key: str
    state: str
    ts: str | None
    file_id: str | None
    attempts: int
    created_at: float

    @property
    def posted(self) -> bool:
        return self.state == "posted"


class StateStore:
    """The bot's tables of a state database (a SQLite path or a PostgreSQL URL)."""

    def __init__(self, target: str | Path | StateDB):
        self.db = StateDB.open(target)
        self._claims = 0
        self.migrate(OWNER, MIGRATIONS)

    @property
    def path(self) -> Path | None:
        return self.db.path

    def close(self) -> None:
        self.db.close()

    # --- transactions and migrations (shared with other owners of tables in this database) ----

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self.db.transaction() as tx:
            yield tx

    def migrate(self, owner: str, steps: Sequence[str]) -> int:
        return self.db.migrate(owner, steps)

    def version(self, owner: str) -> int:
        return self.db.version(owner)

    # --- threads -------------------------------------------------------------------------------

    def thread(self, channel: str, thread_ts: str, tx: Tx | None = None) -> ThreadState | None:
        sql = "SELECT request_json, lang, last_answer_ts FROM threads WHERE channel = ? AND thread_ts = ?"
        rows = tx.execute(sql, (channel, thread_ts)).rows if tx else self.db.query(sql, (channel, thread_ts))
        if not rows:
            return None
        row = rows[0]
        return ThreadState(channel, thread_ts, SpecRequest.model_validate_json(row["request_json"]), row["lang"],
                           row["last_answer_ts"])

    def save_thread(self, channel: str, thread_ts: str, request: SpecRequest, lang: str,
                    last_answer_ts: str | None, tx: Tx | None = None) -> None:
        with self._tx(tx) as t:
            t.execute(
                "INSERT INTO threads (channel, thread_ts, request_json, lang, last_answer_ts, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (channel, thread_ts) DO UPDATE SET "
                "request_json = excluded.request_json, lang = excluded.lang, "
                "last_answer_ts = COALESCE(excluded.last_answer_ts, threads.last_answer_ts), "
                "updated_at = excluded.updated_at",
                (channel, thread_ts, request.model_dump_json(exclude_none=True), lang, last_answer_ts, time.time()),
            )

    def touch_thread(self, channel: str, thread_ts: str, lang: str, last_answer_ts: str, tx: Tx | None = None) -> None:
        """Record an answer in a known thread that did not change its request (a FAQ reply)."""
        with self._tx(tx) as t:
            t.execute("UPDATE threads SET lang = ?, last_answer_ts = ?, updated_at = ? WHERE channel = ? AND thread_ts = ?",
                      (lang, last_answer_ts, time.time(), channel, thread_ts))

    # --- answers -------------------------------------------------------------------------------

    def save_answer(self, channel: str, ts: str, thread_ts: str, kind: str, lang: str,
                    request: SpecRequest | None, data: dict[str, Any], tx: Tx | None = None) -> None:
        with self._tx(tx) as t:
            t.execute(
                "INSERT INTO answers (channel, ts, thread_ts, kind, lang, request_json, data_json, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (channel, ts) DO UPDATE SET "
                "thread_ts = excluded.thread_ts, kind = excluded.kind, lang = excluded.lang, "
                "request_json = excluded.request_json, data_json = excluded.data_json",
                (channel, ts, thread_ts, kind, lang,
                 request.model_dump_json(exclude_none=True) if request is not None else None,
                 json.dumps(data, default=str), time.time()),
            )

    def answer(self, channel: str, ts: str) -> StoredAnswer | None:
        rows = self.db.query("SELECT thread_ts, kind, lang, request_json, data_json FROM answers "
                             "WHERE channel = ? AND ts = ?", (channel, ts))
        if not rows:
            return None
        row = rows[0]
        request = SpecRequest.model_validate_json(row["request_json"]) if row["request_json"] else None
        return StoredAnswer(channel, ts, row["thread_ts"], row["kind"], row["lang"], request, json.loads(row["data_json"]))

    # --- processed keys (dedup) ----------------------------------------------------------------

    def claim(self, key: str, kind: str, tx: Tx | None = None) -> bool:
        """True the first time ``key`` is claimed (go ahead), False for every later claim."""
        with self._tx(tx) as t:
            claimed = t.execute("INSERT INTO processed (key, kind, created_at) VALUES (?, ?, ?) "
                                "ON CONFLICT (key) DO NOTHING", (key, kind, time.time())).rowcount == 1
        self._claims += 1
        if tx is None and self._claims % PRUNE_EVERY_CLAIMS == 0:
            self.prune()
        return claimed

    def claimed(self, key: str) -> bool:
        return bool(self.db.query("SELECT 1 AS x FROM processed WHERE key = ?", (key,)))

    def release(self, key: str, tx: Tx | None = None) -> None:
        """Forget a claim whose work failed, so the user can try again."""
        with self._tx(tx) as t:
            t.execute("DELETE FROM processed WHERE key = ?", (key,))

    def prune(self, older_than_s: float = PROCESSED_TTL_S, now: float | None = None) -> int:
        cutoff = (time.time() if now is None else now) - older_than_s
        with self.transaction() as tx:
            n = tx.execute("DELETE FROM processed WHERE created_at < ?", (cutoff,)).rowcount
            outbox_cutoff = (time.time() if now is None else now) - OUTBOX_TTL_S
            tx.execute("DELETE FROM outbox WHERE state IN ('done', 'failed') AND updated_at < ?", (outbox_cutoff,))
            tx.execute("DELETE FROM deliveries WHERE updated_at < ?", (outbox_cutoff,))
        return n

    # --- the outbox ----------------------------------------------------------------------------

    def enqueue(self, job: NewJob, claims: Iterable[tuple[str, str]] = (), tx: Tx | None = None) -> bool:
        """Claim every ``(key, kind)`` and write ``job``, in one transaction; False (nothing
        written) when any claim or the job's key was taken before: a duplicate."""
        return self.enqueue_or_conflict(job, claims, tx) is None

    def enqueue_or_conflict(self, job: NewJob, claims: Iterable[tuple[str, str]] = (),
                            tx: Tx | None = None) -> str | None:
        """Like ``enqueue``; None when written, else the first key that was already taken."""
        try:
            with self._tx(tx) as t:
                for key, kind in claims:
                    if t.execute("INSERT INTO processed (key, kind, created_at) VALUES (?, ?, ?) "
                                 "ON CONFLICT (key) DO NOTHING", (key, kind, time.time())).rowcount != 1:
                        raise _Duplicate(key)
                if not self._insert_job(t, job):
                    raise _Duplicate(job.key)
        except _Duplicate as dup:
            if tx is not None:
                raise
            return str(dup)
        return None

    @staticmethod
    def _insert_job(tx: Tx, job: NewJob) -> bool:
        now = time.time()
        return tx.execute(
            "INSERT INTO outbox (key, kind, queue, lane, payload, state, attempts, not_before, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
            (job.key, job.kind, job.queue, job.lane or f"own:{job.key}", json.dumps(job.payload, default=str),
             job.not_before or now, now, now)).rowcount == 1

    def add_job(self, job: NewJob, tx: Tx | None = None) -> bool:
        """Write a job (no claims); False when a job with that key exists already."""
        with self._tx(tx) as t:
            return self._insert_job(t, job)

    def lease(self, queue: str, owner: str, lease_s: float, now: float | None = None) -> Job | None:
        """The oldest job of ``queue`` that may run now, leased to ``owner`` for ``lease_s``:
        pending (and past its backoff) or running under an expired lease (its worker died), and
        not behind an unfinished job of its lane."""
        now = time.time() if now is None else now
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT o.id FROM outbox o WHERE o.queue = ? AND o.state IN ('pending', 'running') "
                "AND ((o.state = 'pending' AND o.not_before <= ?) OR (o.state = 'running' AND o.lease_until < ?)) "
                "AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.lane = o.lane AND p.id < o.id "
                "AND p.state IN ('pending', 'running')) ORDER BY o.id LIMIT 1"
                + self.db.skip_locked, (queue, now, now)).one()
            if row is None:
                return None
            leased = tx.execute(
                "UPDATE outbox SET state = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1, "
                "updated_at = ? WHERE id = ? RETURNING *", (owner, now + lease_s, now, row["id"])).one()
        return Job.from_row(leased) if leased else None

    def renew(self, owner: str, lease_s: float) -> int:
        """Extend every lease ``owner`` holds (its heartbeat); returns how many."""
        now = time.time()
        with self.transaction() as tx:
            n = tx.execute("UPDATE outbox SET lease_until = ? WHERE lease_owner = ? AND state = 'running'",
                           (now + lease_s, owner)).rowcount
            tx.execute("UPDATE leases SET until = ? WHERE owner = ?", (now + lease_s, owner))
        return n

    def finish(self, job: Job, result: dict[str, Any] | None = None, tx: Tx | None = None) -> bool:
        """Mark a leased job done (inside the delivery's transaction when ``tx`` is given).
        False when the lease was lost (another worker took the job over)."""
        with self._tx(tx) as t:
            return t.execute("UPDATE outbox SET state = 'done', result = ?, updated_at = ?, lease_owner = NULL "
                             "WHERE id = ? AND state = 'running' AND lease_owner = ?",
                             (json.dumps(result or {}, default=str), time.time(), job.id, job.lease_owner)).rowcount == 1

    def retry_later(self, job: Job, delay_s: float, error: str) -> None:
        self.db.execute("UPDATE outbox SET state = 'pending', not_before = ?, lease_owner = NULL, lease_until = NULL, "
                        "error = ?, updated_at = ? WHERE id = ? AND lease_owner = ?",
                        (time.time() + delay_s, error[:2000], time.time(), job.id, job.lease_owner))

    def fail(self, job: Job, error: str) -> None:
        self.db.execute("UPDATE outbox SET state = 'failed', error = ?, lease_owner = NULL, updated_at = ? "
                        "WHERE id = ? AND lease_owner = ?", (error[:2000], time.time(), job.id, job.lease_owner))

    def job(self, key: str) -> dict[str, Any] | None:
        rows = self.db.query("SELECT * FROM outbox WHERE key = ?", (key,))
        return rows[0] if rows else None

    def backlog(self) -> dict[str, Any]:
        """Jobs not finished, per queue, and the age of the oldest (for /healthz)."""
        rows = self.db.query("SELECT queue, COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox "
                             "WHERE state IN ('pending', 'running') GROUP BY queue")
        now = time.time()
        return {r["queue"]: {"jobs": int(r["n"]), "oldest_s": round(now - float(r["oldest"]), 1)} for r in rows}

    # --- deliveries (idempotent posts) ---------------------------------------------------------

    def begin_delivery(self, key: str, *, job_id: int | None, channel: str, thread_ts: str | None) -> Delivery:
        """Record that ``key`` is about to be posted (committed before the post); returns the
        row: ``posted`` when an earlier attempt completed it, ``attempts > 1`` when an earlier
        attempt may have posted it without recording the result."""
        now = time.time()
        with self.transaction() as tx:
            row = tx.execute(
                "INSERT INTO deliveries (key, job_id, channel, thread_ts, state, attempts, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, 'posting', 1, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                "attempts = deliveries.attempts + 1, updated_at = excluded.updated_at RETURNING *",
                (key, job_id, channel, thread_ts, now, now)).one()
        return Delivery(row["key"], row["state"], row["ts"], row["file_id"], int(row["attempts"]), float(row["created_at"]))

    def delivery(self, key: str) -> Delivery | None:
        rows = self.db.query("SELECT * FROM deliveries WHERE key = ?", (key,))
        if not rows:
            return None
        r = rows[0]
        return Delivery(r["key"], r["state"], r["ts"], r["file_id"], int(r["attempts"]), float(r["created_at"]))

    def note_file(self, key: str, file_id: str) -> None:
        self.db.execute("UPDATE deliveries SET file_id = ?, updated_at = ? WHERE key = ?", (file_id, time.time(), key))

    def posted(self, key: str, ts: str, tx: Tx) -> None:
        tx.execute("UPDATE deliveries SET state = 'posted', ts = ?, updated_at = ? WHERE key = ?", (ts, time.time(), key))

    # --- named leases --------------------------------------------------------------------------

    def hold(self, name: str, owner: str, lease_s: float) -> bool:
        """Take or keep the lease ``name`` for ``lease_s``; True while ``owner`` holds it."""
        now = time.time()
        with self.transaction() as tx:
            row = tx.execute(
                "INSERT INTO leases (name, owner, until) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                "owner = excluded.owner, until = excluded.until WHERE leases.owner = excluded.owner "
                "OR leases.until < ? RETURNING owner", (name, owner, now + lease_s, now)).one()
        return row is not None and row["owner"] == owner

    # --- health --------------------------------------------------------------------------------

    def probe_write(self, owner: str) -> None:
        """One write transaction (raises StateUnavailable when the database takes none)."""
        with self.transaction() as tx:
            tx.execute("INSERT INTO health (owner, at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET at = excluded.at",
                       (owner, time.time()))

    @contextmanager
    def _tx(self, tx: Tx | None) -> Iterator[Tx]:
        if tx is not None:
            yield tx
            return
        with self.transaction() as t:
            yield t


class _Duplicate(Exception):
    pass
