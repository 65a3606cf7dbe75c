"""Fault injection, end to end: the real bot (`python -m bot`: gunicorn, the WSGI adapter, the
outbox workers) against a fake Slack that misbehaves like Slack (429 with Retry-After, 5xx before
or after doing the work, slow answers, dropped connections), ``kill -9`` of the bot and of one of
its worker processes mid-answer, a full disk under the state database, a read-only PostgreSQL,
replayed and malformed signed requests.

What every test checks, in the end, is what a team sees in Slack: every acknowledged request
answered exactly once (each answer carries its idempotency key in message metadata, so the fake's
conversations can be counted per key), the thread's spec right for the next follow-up, and a
person told plainly when the bot could not record their request. Waits are bounded polls on an
observable condition (a call the fake received, a row the bot committed), never a fixed sleep
followed by an assertion."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from advisor.i18n import t
from tests.fakeslack import BotProcess, FakeSlack, command_body, event_body, message_text, sign

ANSWER_TIMEOUT_S = 60
UNRECORDED = t("bot.unrecorded", "en")
APOLOGY = t("bot.error.apology", "en")


@pytest.fixture
def slack():
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def bots():
    started: list[BotProcess] = []
    yield started
    for bot in started:
        bot.stop()


def start(bots, slack, tmp_path, name="bot", **kwargs) -> BotProcess:
    bot = BotProcess(slack, tmp_path / name, **kwargs).start()
    bots.append(bot)
    return bot


def answers_in(slack: FakeSlack, channel: str, thread_ts: str | None = None) -> list[dict]:
    msgs = slack.in_conversation(channel, thread_ts)
    return [m for m in msgs if m["ts"] != thread_ts] if thread_ts else [m for m in msgs if not m.get("thread_ts")]


def wait_until(condition, timeout=ANSWER_TIMEOUT_S, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} not met within {timeout}s")


def exactly_once(slack: FakeSlack, bot: BotProcess, *, timeout=ANSWER_TIMEOUT_S) -> Counter:
    """Every job the bot recorded is done and each posted its answer once; returns the counts."""
    bot.wait_jobs_done(timeout)
    counts = slack.posts_per_key()
    jobs = bot.query("SELECT key, state, kind FROM outbox")
    assert all(j["state"] == "done" for j in jobs), [j for j in jobs if j["state"] != "done"]
    answers = {f"{j['key']}#answer" for j in jobs if j["kind"] == "question"}
    assert answers <= set(counts), answers - set(counts)
    assert all(counts[k] == 1 for k in counts), {k: n for k, n in counts.items() if n != 1}
    return counts


def ask(bot: BotProcess, slack: FakeSlack, channel: str, text: str = "lora llama-3.1-8b seq 4096") -> str:
    """A slash command whose answer starts a thread; returns the thread's ts once remembered."""
    assert bot.command(text, channel=channel).status == 200
    [answer] = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == channel and c.result.get("ok"),
                              timeout=ANSWER_TIMEOUT_S)
    bot.wait_remembered(channel, answer.result["ts"])
    return answer.result["ts"]


def spec_of(bot: BotProcess, channel: str, ts: str) -> dict:
    """The request behind the answer posted as ``ts`` (what its numbers were computed for), once
    the bot has recorded it (in the transaction right after the post returns)."""
    rows = wait_until(lambda: bot.query("SELECT request_json FROM answers WHERE channel = ? AND ts = ?", (channel, ts)),
                      what=f"the answer {ts} recorded")
    return json.loads(rows[0]["request_json"])


def reply(bot: BotProcess, channel: str, root: str, text: str, ts: str, **kw):
    return bot.event({"type": "message", "channel": channel, "user": "UBOB", "text": text, "ts": ts,
                      "thread_ts": root, "channel_type": "channel"}, **kw)


# --- Slack misbehaving ---------------------------------------------------------------------------


@pytest.mark.parametrize("fault", [
    dict(kind="ratelimited", retry_after=1),
    dict(kind="server_error", status=500),
    dict(kind="server_error", status=503, times=2),
    dict(kind="server_error", status=500, after=True),  # posted, but the answer lost
    dict(kind="drop"),
    dict(kind="drop", after=True),  # posted, then the connection dropped
    dict(kind="slow", delay=4),  # posted, the answer later than the client waits
], ids=["429", "500", "503x2", "500-after-posting", "dropped", "dropped-after-posting", "slow"])
def test_one_misbehaving_post_still_gives_exactly_one_answer(slack, bots, tmp_path, fault):
    bot = start(bots, slack, tmp_path, env={"ADVISOR_SLACK_TIMEOUT_S": "2"})
    slack.fault("chat.postMessage", where=lambda a: a.get("channel") == "CFAULT", **fault)
    assert bot.command("qlora llama-3-70b seq 8192", channel="CFAULT").status == 200
    wait_until(lambda: answers_in(slack, "CFAULT"), what="the answer")
    exactly_once(slack, bot)
    [answer] = answers_in(slack, "CFAULT")
    assert "Llama 3 70B" in message_text(answer["blocks"]) and APOLOGY not in answer["text"]
    root = answer["ts"]
    bot.wait_remembered("CFAULT", root)  # the thread was recorded with the delivery, whatever happened
    assert reply(bot, "CFAULT", root, "what about 16k?", "1800000000.100001").status == 200
    wait_until(lambda: answers_in(slack, "CFAULT", root), what="the follow-up")
    assert "8,192 → 16,384" in message_text(answers_in(slack, "CFAULT", root)[0]["blocks"])


def test_slack_down_for_longer_than_the_retry_budget_answers_later_not_never(slack, bots, tmp_path):
    """Six 503s in a row outlast one call's retries (ADVISOR_SLACK_RETRY_S=2): the outbox tries
    the job again with backoff, and the answer still arrives, once, with no apology."""
    bot = start(bots, slack, tmp_path, env={"ADVISOR_SLACK_RETRY_S": "2"})
    slack.fault("chat.postMessage", "server_error", status=503, times=6, where=lambda a: a.get("channel") == "CDOWN")
    assert bot.command("lora llama-3.1-8b seq 4096", channel="CDOWN").status == 200
    wait_until(lambda: answers_in(slack, "CDOWN"), what="the answer")
    exactly_once(slack, bot)
    assert [r["attempts"] for r in bot.query("SELECT attempts FROM outbox")][0] >= 2
    assert not [c for c in slack.calls_to("chat.postMessage") if APOLOGY in (c.args.get("text") or "")]


def test_a_rate_limited_chart_upload_is_uploaded_once(slack, bots, tmp_path):
    bot = start(bots, slack, tmp_path)
    root = ask(bot, slack, "CCHART")
    slack.fault("files.getUploadURLExternal", "ratelimited", retry_after=1)
    slack.fault("files.completeUploadExternal", "ratelimited", retry_after=1)
    assert bot.action("show_chart", "chart", channel="CCHART", message_ts=root).status == 200
    [done] = slack.wait_for("files.completeUploadExternal", lambda c: c.result.get("ok"), timeout=ANSWER_TIMEOUT_S)
    bot.wait_jobs_done()
    uploads = [m for m in answers_in(slack, "CCHART", root) if m.get("files")]
    assert len(uploads) == 1 and uploads[0]["files"][0]["name"].endswith(".png")


def test_a_chart_that_failed_can_be_asked_for_again(slack, bots, tmp_path):
    bot = start(bots, slack, tmp_path)
    root = ask(bot, slack, "CCHART2")
    slack.fault("files.completeUploadExternal", "error", error="invalid_channel")  # not worth retrying
    bot.action("show_chart", "chart", channel="CCHART2", message_ts=root)
    [told] = slack.wait_for("chat.postEphemeral", lambda c: c.args.get("channel") == "CCHART2", timeout=ANSWER_TIMEOUT_S)
    assert "could not upload the chart" in told.args["text"] and "invalid_channel" in told.args["text"]
    bot.action("show_chart", "chart", channel="CCHART2", message_ts=root)  # asked again: it works
    slack.wait_for("files.completeUploadExternal", lambda c: c.result.get("ok"), timeout=ANSWER_TIMEOUT_S)
    assert len([m for m in answers_in(slack, "CCHART2", root) if m.get("files")]) == 1


def test_verify_when_the_trace_queue_is_full_says_so_instead_of_a_stuck_placeholder(slack, bots, tmp_path):
    """No heavy worker in this process (another process would run the traces): the queue fills;
    the next click is told to come back, and no placeholder says "Tracing..." for it."""
    from bot.services import MAX_PENDING_HEAVY

    bot = start(bots, slack, tmp_path, env={"ADVISOR_BOT_HEAVY_WORKERS": "0"})
    roots = [ask(bot, slack, f"CV{i}", "lora tiny-test seq 128") for i in range(MAX_PENDING_HEAVY + 1)]
    for i, root in enumerate(roots[:-1]):
        bot.action("verify_exactly", "verify", channel=f"CV{i}", message_ts=root)
        slack.wait_for("chat.postMessage", lambda c, i=i: c.args.get("channel") == f"CV{i}" and c.args.get("thread_ts"),
                       timeout=ANSWER_TIMEOUT_S)
    # the traces are queued in the transactions that record their placeholders: wait for them all
    wait_until(lambda: len(bot.query("SELECT 1 AS x FROM outbox WHERE queue = 'heavy' AND state = 'pending'"))
               == MAX_PENDING_HEAVY, what="a full trace queue")
    last = f"CV{MAX_PENDING_HEAVY}"
    bot.action("verify_exactly", "verify", channel=last, message_ts=roots[-1])
    [told] = slack.wait_for("chat.postEphemeral", lambda c: c.args.get("channel") == last, timeout=ANSWER_TIMEOUT_S)
    assert f"{MAX_PENDING_HEAVY} exact traces are already waiting" in told.args["text"]
    assert answers_in(slack, last, roots[-1]) == []


# --- requests: replays, order, malformed ----------------------------------------------------------


def test_the_same_signed_body_replayed_is_processed_once(slack, bots, tmp_path):
    bot = start(bots, slack, tmp_path)
    body, ctype = command_body("lora llama-3.1-8b seq 4096", channel="CREPLAY")
    headers = {"Content-Type": ctype, **sign(body)}
    for _ in range(3):  # the very same bytes, signature and timestamp
        assert bot.post(body, ctype, headers=headers, signed=False).status == 200
    sentinel = bot.command("lora llama-3.1-8b seq 2048", channel="CREPLAY")
    assert sentinel.status == 200
    wait_until(lambda: len(answers_in(slack, "CREPLAY")) >= 2, what="the sentinel's answer")
    exactly_once(slack, bot)
    assert len(answers_in(slack, "CREPLAY")) == 2


def test_two_follow_ups_sent_together_are_answered_in_order(slack, bots, tmp_path):
    bot = start(bots, slack, tmp_path)
    root = ask(bot, slack, "CORDER", "lora llama-3.1-8b seq 4096")
    for i, text in enumerate(["what about 16k?", "and micro-batch 2?", "and rank 64?"]):
        assert reply(bot, "CORDER", root, text, f"1800000000.20000{i}").status == 200
    wait_until(lambda: len(answers_in(slack, "CORDER", root)) == 3, what="three follow-ups")
    exactly_once(slack, bot)
    first, second, third = (spec_of(bot, "CORDER", m["ts"]) for m in answers_in(slack, "CORDER", root))
    assert (first["seq_len"], first.get("micro_batch")) == (16384, None)
    assert (second["seq_len"], second["micro_batch"]) == (16384, 2)  # computed on the first's spec
    assert (third["seq_len"], third["micro_batch"], third["lora_rank"]) == (16384, 2, 64)
    assert "seq 16,384" in message_text(answers_in(slack, "CORDER", root)[1]["blocks"])


@pytest.mark.parametrize("body, ctype, problem", [
    ('{"type": "event_callback", "event": "string", "event_id": "EvS"}', "application/json", "event is not an object"),
    ("command=%2Ffinetune&text=help&user_id=U1", "application/x-www-form-urlencoded", "channel_id"),
    ("command=%2Ffinetune&text=help&channel_id=C1", "application/x-www-form-urlencoded", "user_id"),
    ('{"type": "event_callback", "event": {"type": "message"}, "event_id": 7}', "application/json", "event_id"),
    ("payload=%7B%22type%22%3A+%22block_actions%22%2C+%22user%22%3A+%22x%22%7D",
     "application/x-www-form-urlencoded", "payload.user"),
])
def test_a_malformed_signed_payload_is_a_400_with_a_log_line(slack, bots, tmp_path, body, ctype, problem):
    bot = start(bots, slack, tmp_path)
    reply_ = bot.post(body, ctype)
    assert reply_.status == 400 and json.loads(reply_.body)["problem"].startswith(problem.split()[0])
    wait_until(lambda: "not a Slack payload" in bot.output(), what="the log line")
    assert "Traceback" not in bot.output() and bot.health()[0] == 200


# --- the state database unavailable ---------------------------------------------------------------


def _mount_tmpfs(path: Path, size: str) -> str | None:
    path.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True,
                         text=True)
    return None if out.returncode == 0 else (out.stderr.strip() or "mount failed")


@pytest.fixture
def small_disk(tmp_path):
    """A real 4 MiB filesystem (tmpfs) for the state database; needs the right to mount."""
    mount = tmp_path / "disk"
    problem = _mount_tmpfs(mount, "4m") if shutil.which("mount") and os.geteuid() == 0 else "not root"
    if problem:
        pytest.skip(f"cannot mount a small filesystem here ({problem}): the full-disk test needs one")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_fails_healthz_and_is_said_plainly_then_recovers(slack, bots, tmp_path, small_disk):
    bot = BotProcess(slack, tmp_path / "full", env={"ADVISOR_STATE_DB": str(small_disk / "state.db")})
    bot.state_db = small_disk / "state.db"
    bots.append(bot.start())
    ask(bot, slack, "CBEFORE")
    filler = small_disk / "filler"
    with open(filler, "wb") as fh:  # fill the disk to the last byte
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    # Writes that still fit in space SQLite had already (its WAL) succeed; once they do not, the
    # bot says so: bounded by the disk, not by time.
    refused = None
    for i in range(400):
        reply_ = bot.command(f"lora llama-3.1-8b seq {1024 + i}", channel=f"CFULL{i}")
        assert reply_.status == 200
        if "could not record your request" in reply_.body:
            refused = i
            break
    assert refused is not None, "the disk never filled"
    assert "could not record your request" in json.loads(bot.command("help", channel="CFULLX").body)["text"]
    status, report = bot.health()
    assert status == 503 and report["state"]["writable"] is False and "cannot be written" in report["state"]["error"]
    assert not [c for c in slack.calls if APOLOGY in (c.args.get("text") or "")]
    filler.unlink()  # space again: healthy, and the next request is answered
    wait_until(lambda: bot.health()[0] == 200, what="healthz back to 200")
    assert bot.command("lora llama-3.1-8b seq 512", channel="CAFTER").status == 200
    wait_until(lambda: answers_in(slack, "CAFTER"), what="an answer after the disk was freed")


def test_a_state_database_that_cannot_be_written_at_start_is_said_plainly(slack, tmp_path):
    import sys

    from tests.fakeslack import BOT_TOKEN, ROOT, SIGNING_SECRET

    target = tmp_path / "missing-dir" / "state.db"
    (tmp_path / "missing-dir").write_text("a file where the folder should be")
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": slack.api_url,
           "ADVISOR_STATE_DB": str(target), "PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "bot", "worker"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr and "ADVISOR_STATE_DB" in out.stderr


def test_a_read_only_postgresql_fails_healthz_and_says_it_cannot_record(slack, bots, tmp_path, pg_server):
    url = pg_server.create_database()
    bot = start(bots, slack, tmp_path, state_url=url)
    ask(bot, slack, "CPGBEFORE")
    database = url.rsplit("/", 1)[1]
    pg_server.sql(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
    pg_server.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' "
                  "AND pid <> pg_backend_pid()")  # the bot's pooled connections reconnect read-only
    try:
        wait_until(lambda: bot.health()[0] == 503, what="healthz failing")
        body = bot.command("lora llama-3.1-8b seq 2048", channel="CPGRO").body
        assert "could not record your request" in json.loads(body)["text"]
    finally:
        pg_server.sql(f'ALTER DATABASE "{database}" SET default_transaction_read_only = off')
        pg_server.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' "
                      "AND pid <> pg_backend_pid()")
    wait_until(lambda: bot.health()[0] == 200, what="healthz back")
    assert bot.command("lora llama-3.1-8b seq 2048", channel="CPGOK").status == 200
    wait_until(lambda: answers_in(slack, "CPGOK"), what="the answer after")


# --- kill -9 --------------------------------------------------------------------------------------


def test_kill_9_mid_answers_then_restart_answers_every_acked_request_once(slack, bots, tmp_path):
    """Ten follow-ups acked, the posts slow, the bot killed while some are posted but their answers
    not yet back and others not started: after the restart each is answered once, and the thread
    spec is the one its last answer showed."""
    bot = start(bots, slack, tmp_path, env={"ADVISOR_SLACK_TIMEOUT_S": "60"})  # the kill comes first
    roots = {f"CK{i}": ask(bot, slack, f"CK{i}") for i in range(5)}
    slack.fault("chat.postMessage", "slow", delay=30, times=100, where=lambda a: a.get("thread_ts") in roots.values())
    for n in range(10):
        channel = f"CK{n % 5}"
        assert reply(bot, channel, roots[channel], f"what about seq {2048 + 1024 * (n // 5)}?",
                     f"1800000000.3{n:05d}").status == 200
    slack.wait_for("chat.postMessage", lambda c: c.args.get("thread_ts") in roots.values(), timeout=ANSWER_TIMEOUT_S)
    bot.kill_9()
    in_flight = {r["key"] for r in bot.query("SELECT key FROM deliveries WHERE state = 'posting'")}
    assert in_flight & set(slack.posts_per_key()), "no answer was posted-but-unrecorded at the kill"  # the hard case
    slack.clear_faults()
    bot.restart()
    wait_until(lambda: sum(len(answers_in(slack, c, r)) for c, r in roots.items()) >= 10, what="ten answers")
    exactly_once(slack, bot)
    for channel, root in roots.items():
        first, second = (spec_of(bot, channel, m["ts"]) for m in answers_in(slack, channel, root))
        assert (first["seq_len"], second["seq_len"]) == (2048, 3072)  # in the order they were acked
        assert reply(bot, channel, root, "and micro-batch 2?", f"1800000000.4{channel[-1]}0000").status == 200
        wait_until(lambda c=channel, r=root: len(answers_in(slack, c, r)) == 3, what="the next follow-up")
        after = spec_of(bot, channel, answers_in(slack, channel, root)[-1]["ts"])
        assert (after["seq_len"], after["micro_batch"]) == (3072, 2)  # on the spec the last answer showed
    exactly_once(slack, bot)


def test_kill_9_of_one_worker_process_loses_nothing(slack, bots, tmp_path):
    """Two gunicorn workers; one is killed while it holds answers. gunicorn starts a new one, and
    the dead one's jobs are taken over when their leases run out: every acked command answered."""
    bot = start(bots, slack, tmp_path, web_workers=2, env={"ADVISOR_SLACK_TIMEOUT_S": "60"})
    slack.fault("chat.postMessage", "slow", delay=15, times=200, where=lambda a: a.get("channel", "").startswith("CW"))
    for i in range(12):
        assert bot.command("lora llama-3.1-8b seq 4096", channel=f"CW{i:02d}").status == 200

    def posted_unrecorded():  # (worker pid, delivery key) of an answer posted whose reply is pending
        rows = bot.query("SELECT d.key, o.lease_owner FROM deliveries d JOIN outbox o ON o.id = d.job_id "
                         "WHERE d.state = 'posting' AND o.state = 'running'")
        posted = set(slack.posts_per_key())
        return next(((int(r["lease_owner"].split(":")[1]), r["key"]) for r in rows if r["key"] in posted), None)

    victim, key = wait_until(posted_unrecorded, what="an answer posted while its worker waits")
    assert victim in bot.workers()
    os.kill(victim, signal.SIGKILL)
    slack.clear_faults()
    wait_until(lambda: len(bot.workers()) == 2 and victim not in bot.workers(), what="gunicorn's new worker")
    wait_until(lambda: all(answers_in(slack, f"CW{i:02d}") for i in range(12)), what="twelve answers")
    exactly_once(slack, bot)
    assert all(len(answers_in(slack, f"CW{i:02d}")) == 1 for i in range(12))


# --- two replicas on one PostgreSQL -------------------------------------------------------------


def test_two_replicas_on_one_postgresql_answer_each_request_once(slack, bots, tmp_path, pg_url):
    """Two bot processes behind one URL (requests and Slack's retries land on either); one is
    killed with kill -9 halfway; every acked request is answered once, threads stay coherent."""
    a = start(bots, slack, tmp_path, "a", state_url=pg_url)
    b = start(bots, slack, tmp_path, "b", state_url=pg_url)
    root = ask(a, slack, "CREP")
    for i in range(6):  # each event delivered to both replicas while both live (a retry on the other)
        body, ctype = event_body({"type": "message", "channel": "CREP", "user": "UBOB", "text": f"and rank {8 << i}?",
                                  "ts": f"1800000000.5{i:05d}", "thread_ts": root, "channel_type": "channel"},
                                 event_id=f"EvREP{i}")
        for n, replica in enumerate([a, b] if i <= 2 else [b]):
            headers = {"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_timeout"} if n else {}
            assert replica.post(body, ctype, headers=headers).status == 200
        target = a if i in (1, 2) else b
        assert target.command("lora llama-3.1-8b seq 4096", channel=f"CREPC{i}").status == 200
        if i == 2:
            a.kill_9()  # it may hold jobs: b takes them over when their leases run out
    wait_until(lambda: len(answers_in(slack, "CREP", root)) >= 6, what="six follow-ups")
    b.wait_jobs_done()
    counts = slack.posts_per_key()
    assert all(n == 1 for n in counts.values()), counts
    assert len(answers_in(slack, "CREP", root)) == 6
    wait_until(lambda: all(answers_in(slack, f"CREPC{i}") for i in range(6)), what="six commands answered")
    b.wait_jobs_done()
    assert all(len(answers_in(slack, f"CREPC{i}")) == 1 for i in range(6))
    texts = [message_text(m["blocks"]) for m in answers_in(slack, "CREP", root)]
    assert "rank 256" in texts[-1]  # in order: the last follow-up's answer came last
