"""The bot's state database: threads, answers and processed keys survive a restart; claims are
exactly-once under threads; other owners migrate their own tables in the same file."""

import sqlite3
import threading

import pytest

from advisor.spec import SpecRequest
from bot.store import StateStore


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "state.db"


def test_thread_survives_a_restart(store_path):
    request = SpecRequest(method="qlora", model="llama-3-70b", seq_len=8192)
    StateStore(store_path).save_thread("C1", "1.000100", request, "es", "1.000200")
    state = StateStore(store_path).thread("C1", "1.000100")
    assert (state.request, state.lang, state.last_answer_ts) == (request, "es", "1.000200")
    assert StateStore(store_path).thread("C1", "9.9") is None


def test_saving_a_thread_again_replaces_request_and_keeps_last_answer(store_path):
    store = StateStore(store_path)
    store.save_thread("C1", "1.1", SpecRequest(seq_len=8192), "en", "1.2")
    store.save_thread("C1", "1.1", SpecRequest(seq_len=16384), "en", None)
    state = store.thread("C1", "1.1")
    assert (state.request.seq_len, state.last_answer_ts) == (16384, "1.2")


def test_answer_round_trip(store_path):
    data = {"recommended": "h100-sxm", "options": [{"gpu": "h100-sxm", "fits": True}]}
    StateStore(store_path).save_answer("C1", "2.2", "1.1", "estimate", "en", SpecRequest(model="llama-3-8b"), data)
    got = StateStore(store_path).answer("C1", "2.2")
    assert (got.thread_ts, got.kind, got.request.model, got.data) == ("1.1", "estimate", "llama-3-8b", data)


def test_claim_is_once_even_across_restarts_until_released(store_path):
    assert StateStore(store_path).claim("event:Ev1", "event") is True
    assert StateStore(store_path).claim("event:Ev1", "event") is False
    StateStore(store_path).release("event:Ev1")
    assert StateStore(store_path).claim("event:Ev1", "event") is True


def test_claims_are_exactly_once_under_threads(store_path):
    store, won, lock = StateStore(store_path), [], threading.Lock()

    def worker():
        for i in range(200):
            if store.claim(f"k{i}", "test"):
                with lock:
                    won.append(i)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(won) == list(range(200))


def test_prune_forgets_only_old_claims(store_path):
    store = StateStore(store_path)
    store.claim("old", "event")
    assert store.prune(older_than_s=3600, now=10**10) == 1
    store.claim("new", "event")
    assert store.prune(older_than_s=3600) == 0 and store.claim("new", "event") is False


def test_other_owners_migrate_their_own_tables_in_the_same_file(store_path):
    steps = ["CREATE TABLE pilots (id TEXT PRIMARY KEY, state TEXT)", "ALTER TABLE pilots ADD COLUMN gpu TEXT"]
    store = StateStore(store_path)
    assert store.migrate("pilots", steps[:1]) == 1
    assert StateStore(store_path).migrate("pilots", steps) == 2
    assert (store.version("bot"), store.version("pilots")) == (1, 2)
    with store.transaction() as conn:
        conn.execute("INSERT INTO pilots VALUES ('p1', 'started', 'h100-sxm')")
    assert sqlite3.connect(store_path).execute("SELECT gpu FROM pilots").fetchone() == ("h100-sxm",)


def test_a_failed_transaction_rolls_back(store_path):
    store = StateStore(store_path)
    with pytest.raises(ZeroDivisionError), store.transaction() as conn:
        conn.execute("INSERT INTO processed (key, kind, created_at) VALUES ('x', 'test', 0)")
        1 / 0
    assert store.claim("x", "test") is True


def test_the_file_is_in_wal_mode(store_path):
    StateStore(store_path)
    assert sqlite3.connect(store_path).execute("PRAGMA journal_mode").fetchone() == ("wal",)
