"""The bot's state database, the same tests against both backends (a SQLite file, a real
PostgreSQL server): threads, answers and processed keys survive a restart; claims and job leases
are exactly-once under threads and processes; the outbox keeps a thread's jobs in order and hands
a dead worker's job to another; deliveries remember what was posted; other owners migrate their
own tables in the same database."""

import subprocess
import sys
import threading
import time

import pytest

from advisor.errors import StateUnavailable
from advisor.spec import SpecRequest
from advisor.statedb import StateDB
from bot.store import NewJob, StateStore
from tests.conftest import ROOT


def reopened(target):
    """The same database as a restarted process sees it (a new StateDB, new connections)."""
    StateDB.open(target).close()
    return StateStore(target)


def test_thread_survives_a_restart(state_target):
    request = SpecRequest(method="qlora", model="llama-3-70b", seq_len=8192)
    StateStore(state_target).save_thread("C1", "1.000100", request, "es", "1.000200")
    store = reopened(state_target)
    state = store.thread("C1", "1.000100")
    assert (state.request, state.lang, state.last_answer_ts) == (request, "es", "1.000200")
    assert store.thread("C1", "9.9") is None


def test_saving_a_thread_again_replaces_request_and_keeps_last_answer(state_target):
    store = StateStore(state_target)
    store.save_thread("C1", "1.1", SpecRequest(seq_len=8192), "en", "1.2")
    store.save_thread("C1", "1.1", SpecRequest(seq_len=16384), "en", None)
    state = store.thread("C1", "1.1")
    assert (state.request.seq_len, state.last_answer_ts) == (16384, "1.2")


def test_answer_round_trip(state_target):
    data = {"recommended": "h100-sxm", "options": [{"gpu": "h100-sxm", "fits": True}]}
    StateStore(state_target).save_answer("C1", "2.2", "1.1", "estimate", "en", SpecRequest(model="llama-3-8b"), data)
    got = reopened(state_target).answer("C1", "2.2")
    assert (got.thread_ts, got.kind, got.request.model, got.data) == ("1.1", "estimate", "llama-3-8b", data)


def test_claim_is_once_even_across_restarts_until_released(state_target):
    assert StateStore(state_target).claim("event:Ev1", "event") is True
    assert reopened(state_target).claim("event:Ev1", "event") is False
    StateStore(state_target).release("event:Ev1")
    assert reopened(state_target).claim("event:Ev1", "event") is True


def test_claims_are_exactly_once_under_threads(state_target):
    store, won, lock = StateStore(state_target), [], threading.Lock()

    def worker():
        for i in range(100):
            if store.claim(f"k{i}", "test"):
                with lock:
                    won.append(i)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(won) == list(range(100))


def test_prune_forgets_only_old_claims(state_target):
    store = StateStore(state_target)
    store.claim("old", "event")
    assert store.prune(older_than_s=3600, now=10**10) == 1
    store.claim("new", "event")
    assert store.prune(older_than_s=3600) == 0 and store.claim("new", "event") is False


def test_other_owners_migrate_their_own_tables_in_the_same_database(state_target):
    steps = ["CREATE TABLE extra (id TEXT PRIMARY KEY, state TEXT)", "ALTER TABLE extra ADD COLUMN gpu TEXT"]
    store = StateStore(state_target)
    bot_version = store.version("bot")
    assert store.migrate("extra", steps[:1]) == 1
    assert reopened(state_target).migrate("extra", steps) == 2
    assert (store.version("bot"), store.version("extra")) == (bot_version, 2) and bot_version >= 2
    with store.transaction() as tx:
        tx.execute("INSERT INTO extra VALUES ('p1', 'started', 'h100-sxm')")
    assert store.db.query("SELECT gpu FROM extra") == [{"gpu": "h100-sxm"}]


def test_a_failed_transaction_rolls_back(state_target):
    store = StateStore(state_target)
    with pytest.raises(ZeroDivisionError), store.transaction() as tx:
        tx.execute("INSERT INTO processed (key, kind, created_at) VALUES ('x', 'test', 0)")
        1 / 0
    assert store.claim("x", "test") is True


def test_the_sqlite_file_is_in_wal_mode(tmp_path):
    import sqlite3

    StateStore(tmp_path / "state.db")
    assert sqlite3.connect(tmp_path / "state.db").execute("PRAGMA journal_mode").fetchone() == ("wal",)


# --- the outbox --------------------------------------------------------------------------------


def job(key, lane=None, queue="answers", **payload):
    return NewJob(key, "question", {"n": key, **payload}, lane=lane, queue=queue)


def test_a_job_is_written_with_its_claims_or_not_at_all(state_target):
    store = StateStore(state_target)
    assert store.enqueue(job("message:C:1"), [("event:Ev1", "event"), ("request:sig1", "request")])
    # a retry (same event id, new signature) and a replay (same signature) are both duplicates
    assert store.enqueue_or_conflict(job("message:C:1b"), [("request:sig2", "request"), ("event:Ev1", "event")]) == "event:Ev1"
    assert store.enqueue_or_conflict(job("message:C:1c"), [("request:sig1", "request")]) == "request:sig1"
    # and nothing of the refused ones was kept: their other claims are free
    assert store.claim("request:sig2", "request") is True
    assert [r["key"] for r in store.db.query("SELECT key FROM outbox")] == ["message:C:1"]


def test_jobs_of_one_lane_run_one_at_a_time_in_order(state_target):
    store = StateStore(state_target)
    for key in ("a1", "b1", "a2", "a3"):
        store.enqueue(job(key, lane="thread:C:1" if key.startswith("a") else "thread:C:2"))
    first, second = store.lease("answers", "w1", 30), store.lease("answers", "w2", 30)
    assert (first.key, second.key) == ("a1", "b1")
    assert store.lease("answers", "w3", 30) is None  # a2 waits behind a1, the lane's running job
    assert store.finish(first)
    assert store.lease("answers", "w3", 30).key == "a2"


def test_a_dead_workers_job_is_leased_again_and_its_late_finish_is_refused(state_target):
    store = StateStore(state_target)
    store.enqueue(job("k1"))
    dead = store.lease("answers", "dead", lease_s=30)
    assert store.lease("answers", "alive", lease_s=30) is None  # leased and renewed: not taken
    taken = store.lease("answers", "alive", lease_s=30, now=time.time() + 31)  # the lease ran out
    assert (taken.key, taken.attempts) == ("k1", 2)
    assert not store.finish(dead) and store.finish(taken)


def test_a_heartbeat_keeps_a_long_job_leased(state_target):
    store = StateStore(state_target)
    store.enqueue(job("long"))
    store.lease("answers", "w1", lease_s=1)
    assert store.renew("w1", lease_s=60) == 1
    assert store.lease("answers", "w2", lease_s=1, now=time.time() + 5) is None


def test_a_retried_job_waits_for_its_backoff(state_target):
    store = StateStore(state_target)
    store.enqueue(job("r1"))
    leased = store.lease("answers", "w1", 30)
    store.retry_later(leased, 60, "ratelimited")
    assert store.lease("answers", "w1", 30) is None
    assert store.lease("answers", "w1", 30, now=time.time() + 61).key == "r1"


def test_queues_are_leased_separately(state_target):
    store = StateStore(state_target)
    store.enqueue(job("trace", queue="heavy"))
    assert store.lease("answers", "w", 30) is None and store.lease("heavy", "w", 30).key == "trace"
    assert store.backlog()["heavy"]["jobs"] == 1


def test_jobs_are_leased_once_across_threads(state_target):
    store = StateStore(state_target)
    for i in range(60):
        store.enqueue(job(f"j{i}"))
    got, lock = [], threading.Lock()

    def worker(n):
        while (leased := store.lease("answers", f"w{n}", 30)) is not None:
            with lock:
                got.append(leased.key)
            store.finish(leased)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert sorted(got) == sorted(f"j{i}" for i in range(60))


LEASER = """
import sys, json
from bot.store import StateStore
store = StateStore(sys.argv[1])
got = []
while (job := store.lease("answers", sys.argv[2], 30)) is not None:
    got.append(job.key)
    store.finish(job)
print(json.dumps(got))
"""


def test_jobs_are_leased_once_across_processes(state_target):
    """Two bot processes (two replicas) on one database: every job is run by exactly one."""
    store = StateStore(state_target)
    for i in range(80):
        store.enqueue(job(f"p{i}"))
    procs = [subprocess.Popen([sys.executable, "-c", LEASER, state_target, f"proc{n}"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(3)]
    import json

    got = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        got += json.loads(out.strip().splitlines()[-1])
    assert sorted(got) == sorted(f"p{i}" for i in range(80))


def test_a_delivery_remembers_what_was_posted(state_target):
    store = StateStore(state_target)
    first = store.begin_delivery("job#answer", job_id=None, channel="C", thread_ts=None)
    assert (first.state, first.attempts) == ("posting", 1)
    again = store.begin_delivery("job#answer", job_id=None, channel="C", thread_ts=None)
    assert again.attempts == 2 and not again.posted  # the first may have posted: look before posting
    with store.transaction() as tx:
        store.posted("job#answer", "1700.1", tx)
    done = reopened(state_target).begin_delivery("job#answer", job_id=None, channel="C", thread_ts=None)
    assert done.posted and done.ts == "1700.1"


def test_one_named_lease_holder_at_a_time(state_target):
    store = StateStore(state_target)
    assert store.hold("pilot-watcher", "a", 30) and not store.hold("pilot-watcher", "b", 30)
    assert store.hold("pilot-watcher", "a", 30)  # the holder renews
    store.db.execute("UPDATE leases SET until = 0")  # a holder that stopped renewing
    assert store.hold("pilot-watcher", "b", 30) and not store.hold("pilot-watcher", "a", 30)


def test_an_unwritable_sqlite_file_is_reported_plainly(tmp_path):
    path = tmp_path / "state.db"
    StateStore(path).db.close()
    StateDB.open(path).close()
    store = StateStore(path)
    store.db.execute("PRAGMA max_page_count = 1")  # as full as a disk can be, for this connection
    with pytest.raises(StateUnavailable, match="cannot be written"):
        for i in range(500):
            store.enqueue(job(f"fill{i}", text="x" * 2000))
