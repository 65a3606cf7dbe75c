"""Workers that deliver what was acked: they lease jobs from the outbox (bot/store.py), run them,
and record the outcome. Any process that opens the state database may run them (the all-in-one
``python -m bot``, each gunicorn worker, ``python -m bot worker``); the database decides who runs
what, so two replicas never run one job at once and a job whose process died is taken over.

- A listener writes the job in the same transaction as its claims and then wakes the local
  workers (``notify``); workers of other processes find it on their next poll.
- Each worker holds a lease on its job; one heartbeat thread per process renews the leases of
  everything it runs, every ``lease_s / 3``. A process killed with ``kill -9`` stops renewing:
  its jobs become leasable ``lease_s`` later and another worker (or the restarted process) runs
  them again, resuming their deliveries without posting twice (bot/delivery.py).
- A job that fails because Slack or the database is unavailable is tried again later with
  exponential backoff (``retry_later``) up to ``max_attempts``; a job that fails on a bug, or
  runs out of attempts, is marked failed and ``on_failure`` tells the person (once: the apology
  is a keyed delivery too).
- Jobs of one lane (one Slack thread) run one at a time, in the order they were acked, so the
  second of two quick follow-ups is computed against the spec the first one left.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from advisor.errors import StateUnavailable
from bot.slack import describe, retryable
from bot.store import Job, StateStore

logger = logging.getLogger(__name__)

Handler = Callable[[Job], None]
FailureHandler = Callable[[Job, BaseException], None]

# A job's lease: renewed every third of it while the job runs, so only a worker that stopped
# (killed, frozen) loses it. 30 s: a kill -9 delays that worker's answers by at most this long.
DEFAULT_LEASE_S = 30.0
# How often an idle worker looks for jobs written by other processes (local ones wake it at once).
DEFAULT_POLL_S = 0.5
# Finished jobs, their deliveries and old claims are pruned this often by each process (a
# long-running bot forgets as it goes; bot/store.py keeps a day of them).
PRUNE_EVERY_S = 3600.0
# Retried jobs: 1 s, 2 s, 4 s, ... capped at a minute; the 8th failure is final (a few minutes of
# Slack or database trouble in all).
BACKOFF_S, MAX_BACKOFF_S, DEFAULT_MAX_ATTEMPTS = 1.0, 60.0, 8


def worker_id() -> str:
    """Unique per process start: host, pid and a random part (a recycled pid is a new owner)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Permanent(Exception):
    """A job that cannot succeed by trying again (the handler already told the person why)."""


@dataclass
class QueueSpec:
    name: str
    workers: int


class Outbox:
    """The worker threads of one process for the queues it serves."""

    def __init__(self, store: StateStore, handlers: dict[str, Handler], on_failure: FailureHandler, *,
                 queues: list[QueueSpec], lease_s: float = DEFAULT_LEASE_S, poll_s: float = DEFAULT_POLL_S,
                 max_attempts: int = DEFAULT_MAX_ATTEMPTS, owner: str | None = None):
        self.store, self.handlers, self.on_failure = store, handlers, on_failure
        self.queues, self.lease_s, self.poll_s, self.max_attempts = queues, lease_s, poll_s, max_attempts
        self.owner = owner or worker_id()
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._busy = 0
        self._lock = threading.Lock()

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> "Outbox":
        for q in self.queues:
            for n in range(q.workers):
                t = threading.Thread(target=self._work, args=(q.name,), name=f"outbox-{q.name}-{n}", daemon=True)
                t.start()
                self._threads.append(t)
        hb = threading.Thread(target=self._heartbeat, name="outbox-heartbeat", daemon=True)
        hb.start()
        self._threads.append(hb)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._wake:
            self._wake.notify_all()
        for t in self._threads:
            t.join(timeout=timeout)

    def notify(self) -> None:
        """A job was written by this process: wake a worker now instead of at the next poll."""
        with self._wake:
            self._wake.notify_all()

    @property
    def busy(self) -> int:
        with self._lock:
            return self._busy

    @property
    def workers(self) -> int:
        return sum(q.workers for q in self.queues)

    # --- the loops -----------------------------------------------------------------------------

    def _heartbeat(self) -> None:
        pruned = time.monotonic()
        while not self._stop.wait(self.lease_s / 3):
            try:
                self.store.renew(self.owner, self.lease_s)
                if time.monotonic() - pruned > PRUNE_EVERY_S:
                    pruned = time.monotonic()
                    self.store.prune()
            except Exception:  # the database may be briefly unavailable; the next beat retries
                logger.warning("could not renew the outbox leases of %s", self.owner, exc_info=True)

    def _work(self, queue: str) -> None:
        while not self._stop.is_set():
            try:
                job = self.store.lease(queue, self.owner, self.lease_s)
            except StateUnavailable as exc:
                logger.warning("outbox: %s", exc)
                job = None
            except Exception:
                logger.exception("outbox: could not lease a job")
                job = None
            if job is None:
                with self._wake:
                    self._wake.wait(self.poll_s)
                continue
            with self._lock:
                self._busy += 1
            try:
                self.run(job)
            finally:
                with self._lock:
                    self._busy -= 1

    def run(self, job: Job) -> None:
        handler = self.handlers.get(job.kind)
        try:
            if handler is None:
                raise Permanent(f"no handler for outbox job kind {job.kind!r}")
            handler(job)
        except BaseException as exc:  # every outcome is recorded; nothing is swallowed silently
            self._failed(job, exc)
            if not isinstance(exc, Exception):
                raise
            return
        # Handlers finish their job inside the transaction of their last delivery; one that had
        # nothing to deliver (a duplicate, a quiet thread) is finished here.
        try:
            self.store.finish(job)
        except Exception:
            logger.exception("outbox: could not mark job %s done", job.key)

    def _failed(self, job: Job, exc: BaseException) -> None:
        transient = isinstance(exc, StateUnavailable) or (not isinstance(exc, Permanent) and retryable(exc))
        if transient and job.attempts < self.max_attempts:
            delay = min(MAX_BACKOFF_S, BACKOFF_S * 2 ** (job.attempts - 1))
            logger.warning("job %s (%s) failed on attempt %d (%s); trying again in %.0f s",
                           job.key, job.kind, job.attempts, describe(exc), delay)
            try:
                self.store.retry_later(job, delay, describe(exc))
            except Exception:  # the lease runs out and the job is taken again anyway
                logger.exception("outbox: could not reschedule job %s", job.key)
            return
        if isinstance(exc, Permanent):
            logger.info("job %s (%s) ended: %s", job.key, job.kind, exc)
        else:
            logger.error("job %s (%s) failed for good after %d attempt(s)", job.key, job.kind, job.attempts,
                         exc_info=(type(exc), exc, exc.__traceback__))
        try:
            self.store.fail(job, describe(exc))
        except Exception:
            logger.exception("outbox: could not mark job %s failed", job.key)
        if not isinstance(exc, Permanent):
            try:
                self.on_failure(job, exc)
            except Exception:
                logger.exception("outbox: could not tell anyone that job %s failed", job.key)


def wait_idle(outbox: Outbox, timeout: float) -> bool:
    """Until no local worker runs a job (tests and shutdown); False on timeout."""
    deadline = time.monotonic() + timeout
    while outbox.busy and time.monotonic() < deadline:
        time.sleep(0.05)
    return not outbox.busy

