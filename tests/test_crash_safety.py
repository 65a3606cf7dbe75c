"""Crash safety, for real: the state database under many writers, `kill -9` of the bot in the
middle of a pilot, and a runner that dies. Real processes throughout: the bot (`python -m bot`)
against the fake Slack, real pilot runner subprocesses on this CPU (tiny model, fp32)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from advisor.pilot.store import PilotStore
from advisor.spec import SpecRequest
from bot.audit import AuditLog
from bot.store import StateStore
from tests.conftest import ROOT, have
from tests.fakeslack import BotProcess, FakeSlack, message_text

SPEC = {"model": "tiny-test", "method": "lora", "precision": "fp32", "seq_len": 32}
PILOT_TIMEOUT_S = 120  # a tiny pilot takes 5-20 s on a loaded 2-core CI machine (tests/test_pilot_slack.py)


# --- the state database ---------------------------------------------------------------------------


def test_every_owner_of_the_state_db_uses_wal(tmp_path):
    path = tmp_path / "state.db"
    StateStore(path).close()
    PilotStore(path)
    AuditLog(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        owners = dict(conn.execute("SELECT owner, version FROM schema_versions").fetchall())
    assert owners["bot"] >= 1 and owners["audit"] >= 1


THREADS, PER_THREAD = 16, 50


def test_many_threads_writing_at_once_lose_nothing(tmp_path):
    """Bolt's worker threads share one StateStore; the pilot store and the audit log open their
    own connections to the same file. Every write lands, and every claim is won exactly once."""
    path = tmp_path / "state.db"
    store, pilots, audit = StateStore(path), PilotStore(path), AuditLog(path)
    won: list[str] = []
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(PER_THREAD):
                store.save_thread(f"C{n}", f"{i}.0", SpecRequest(seq_len=i + 1), "en", f"{i}.1")
                if store.claim(f"event:Ev{i}", "event"):  # every thread races for the same 50 keys
                    won.append(f"Ev{i}")
                audit.record(actor=f"U{n}", action="test.write", outcome="ok", target=str(i))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert errors == [] and sorted(won) == sorted(f"Ev{i}" for i in range(PER_THREAD))
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM threads").fetchone()[0] == THREADS * PER_THREAD
        assert conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0] == THREADS * PER_THREAD
    assert store.thread("C7", "49.0").request.seq_len == 50 and pilots.records() == []


WRITER = """
import sys
from bot.audit import AuditLog
from bot.store import StateStore
path, n, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store, audit = StateStore(path), AuditLog(path)
for i in range(count):
    store.claim(f"proc:{n}:{i}", "test")
    audit.record(actor=f"P{n}", action="test.write", outcome="ok", target=str(i))
"""


def test_several_processes_writing_at_once_lose_nothing(tmp_path):
    """A CLI, an operator's script and the bot may write the same file: SQLite's busy timeout
    makes each writer wait its turn instead of failing."""
    path, procs, count = tmp_path / "state.db", 4, 100
    StateStore(path).close()
    running = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(n), str(count)], cwd=ROOT,
                                stderr=subprocess.PIPE, text=True) for n in range(procs)]
    for p in running:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM processed WHERE kind = 'test'").fetchone()[0] == procs * count
        assert conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0] == procs * count


def test_a_write_killed_mid_transaction_leaves_the_last_commit_intact(tmp_path):
    """kill -9 inside an open transaction: WAL recovery keeps every committed row and none of the
    uncommitted ones."""
    path = tmp_path / "state.db"
    StateStore(path).close()
    script = ("import os, signal, sys; from bot.store import StateStore; s = StateStore(sys.argv[1]); "
              "[s.claim(f'k{i}', 'test') for i in range(20)]; cm = s.transaction(); tx = cm.__enter__(); "
              "tx.execute(\"INSERT INTO processed VALUES ('half', 'test', 0)\"); os.kill(os.getpid(), signal.SIGKILL)")
    assert subprocess.run([sys.executable, "-c", script, str(path)], cwd=ROOT).returncode == -signal.SIGKILL
    store = StateStore(path)
    assert all(not store.claim(f"k{i}", "test") for i in range(20)) and store.claim("half", "test")


# --- the bot killed during a pilot ---------------------------------------------------------------


@pytest.fixture
def slack():
    with FakeSlack() as fake:
        yield fake


def pilot_bot(slack: FakeSlack, work: Path, steps: int) -> BotProcess:
    env = {"ADVISOR_PILOT_USERS": "UALICE", "ADVISOR_PILOT_STEPS": str(steps), "ADVISOR_PILOT_DIR": str(work / "runs")}
    return BotProcess(slack, work, env=env).start()


def in_thread(channel: str, thread: str):
    return lambda c: c.args.get("channel") == channel and c.args.get("thread_ts") == thread


def start_pilot(bot: BotProcess, slack: FakeSlack, channel: str, root: str = "1700000000.000001") -> tuple[str, str]:
    """Run pilot -> confirm -> wait until the runner has reported progress. (pilot id, status ts)."""
    value = json.dumps({"spec": SPEC, "gpu": "a100", "lang": "en"})
    assert bot.action("run_pilot", value, channel=channel, message_ts=root, user="UALICE").status == 200
    [ask] = slack.wait_for("chat.postMessage", in_thread(channel, root))
    pilot_id = next(e["value"] for b in ask.args["blocks"] if b["type"] == "actions" for e in b["elements"]
                    if e["action_id"] == "pilot_confirm")
    bot.action("pilot_confirm", pilot_id, channel=channel, message_ts=ask.result["ts"], thread_ts=root, user="UALICE")
    status = slack.wait_for("chat.postMessage", in_thread(channel, root), count=2, timeout=PILOT_TIMEOUT_S)[1]
    deadline = time.monotonic() + PILOT_TIMEOUT_S
    while not (pilot_row(bot, pilot_id)["last_progress"] and pilot_row(bot, pilot_id)["handle"]):
        assert time.monotonic() < deadline, "the runner reported no progress"
        time.sleep(0.1)
    return pilot_id, status.result["ts"]


def pilot_row(bot: BotProcess, pilot_id: str) -> dict:
    with sqlite3.connect(f"file:{bot.state_db}?mode=ro", uri=True) as conn:
        conn.row_factory = sqlite3.Row
        return dict(conn.execute("SELECT * FROM pilots WHERE id = ?", (pilot_id,)).fetchone())


STABLE = {  # what must survive a crash, per table: columns that never change once written
    "threads": "channel, thread_ts", "answers": "channel, ts, data_json", "processed": "key",
    "pilots": "id, requested_by, confirmed_by, channel, thread_ts, status_ts, estimated_cost_usd",
}


def snapshot(bot: BotProcess) -> dict[str, set]:
    with sqlite3.connect(f"file:{bot.state_db}?mode=ro", uri=True) as conn:
        return {table: set(conn.execute(f"SELECT {cols} FROM {table}").fetchall())  # noqa: S608
                for table, cols in STABLE.items()}


def kill_9(bot: BotProcess) -> None:
    bot.proc.send_signal(signal.SIGKILL)
    assert bot.proc.wait(timeout=10) == -signal.SIGKILL


def finals(slack: FakeSlack, channel: str, root: str, pilot_id: str) -> list:
    return slack.calls_to("chat.postMessage", lambda c: in_thread(channel, root)(c)
                          and any((b.get("block_id") or "") == f"pilot_final_{pilot_id}" for b in c.args.get("blocks") or []))


def wait_final(bot: BotProcess, slack: FakeSlack, channel: str, root: str, pilot_id: str):
    """The pilot's end as posted, once. The end is the outbox job ``pilot-final:<id>`` (a unique
    key: a second enqueue does nothing), so once that job is done no second final can follow:
    wait for that, not for a fixed time."""
    deadline = time.monotonic() + PILOT_TIMEOUT_S
    key = f"pilot-final:{pilot_id}"
    while not (finals(slack, channel, root, pilot_id)
               and bot.query("SELECT 1 AS x FROM outbox WHERE key = ? AND state = 'done'", (key,))):
        assert time.monotonic() < deadline, f"no final message in the thread (or job {key} not done)"
        time.sleep(0.1)
    [final] = finals(slack, channel, root, pilot_id)
    return final


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(not have("torch"), reason="needs torch")
@pytest.mark.parametrize("runner_survives", [True, False], ids=["runner-survives", "runner-dies-too"])
def test_kill_9_of_the_bot_mid_pilot_then_restart(slack, tmp_path, runner_survives):
    """The runner keeps going while the bot is down (its own session): the restarted bot
    re-attaches and posts the result once. If the runner died too, the pilot is marked failed with
    the last progress it sent. Either way nothing the bot had recorded is missing."""
    bot = pilot_bot(slack, tmp_path, steps=8 if runner_survives else 10_000)
    try:
        asked = bot.command("lora llama-3.1-8b seq 4096", channel="CBEFORE")
        assert asked.status == 200
        root_q = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CBEFORE")[0].result["ts"]
        pilot_id, _ = start_pilot(bot, slack, "CPILOT")
        before, progress = snapshot(bot), json.loads(pilot_row(bot, pilot_id)["last_progress"])
        kill_9(bot)
        if not runner_survives:
            os.killpg(json.loads(pilot_row(bot, pilot_id)["handle"])["ref"]["pid"], signal.SIGKILL)
        bot.restart()
        final = wait_final(bot, slack, "CPILOT", "1700000000.000001", pilot_id)
        text = message_text(final.args["blocks"])
        if runner_survives:
            assert "predicted" in text and "measured" in text and pilot_row(bot, pilot_id)["state"] == "finished"
        else:
            row = pilot_row(bot, pilot_id)
            steps = json.loads(row["last_progress"])["steps_completed"]
            assert (row["state"], row["reason"]) == ("failed", "killed") and steps >= progress["steps_completed"]
            assert "stopped without a result" in text and f"after {steps} of " in text
        after = snapshot(bot)
        assert all(before[table] <= after[table] for table in STABLE), {t: before[t] - after[t] for t in STABLE}
        bot.event({"type": "message", "channel": "CBEFORE", "user": "UBOB", "text": "what about 8k?",
                   "ts": "1800000000.000900", "thread_ts": root_q, "channel_type": "channel"})
        [follow] = slack.wait_for("chat.postMessage", in_thread("CBEFORE", root_q))
        assert "4,096 → 8,192" in message_text(follow.args["blocks"])
    finally:
        bot.stop()


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(not have("torch"), reason="needs torch")
def test_a_killed_runner_is_reported_failed_with_its_last_progress(slack, tmp_path):
    bot = pilot_bot(slack, tmp_path, steps=10_000)
    try:
        pilot_id, _ = start_pilot(bot, slack, "CRUNNER")
        handle = json.loads(pilot_row(bot, pilot_id)["handle"])
        os.killpg(handle["ref"]["pid"], signal.SIGKILL)
        final = wait_final(bot, slack, "CRUNNER", "1700000000.000001", pilot_id)
        row = pilot_row(bot, pilot_id)
        steps = json.loads(row["last_progress"])["steps_completed"]
        assert (row["state"], row["reason"]) == ("failed", "killed") and steps >= 1
        assert f"after {steps} of " in message_text(final.args["blocks"])
        assert bot.proc.poll() is None
    finally:
        bot.stop()
