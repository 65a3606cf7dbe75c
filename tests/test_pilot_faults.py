"""Pilots under faults, end to end: the real bot against the fake Slack, real pilot runners on this
CPU (tiny model, fp32). A rate-limited or failing ``chat.update`` during Confirm never leaves a
confirmed pilot without a handle; ``kill -9`` during the final post gives one final; two replicas
on one PostgreSQL follow a pilot with one watcher and post its end once, also when the one
watching is killed; and the runner the bot starts has none of the bot's secrets."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.conftest import have
from tests.fakeslack import BotProcess, FakeSlack, message_text

pytestmark = [pytest.mark.torch, pytest.mark.slow, pytest.mark.skipif(not have("torch"), reason="needs torch")]

SPEC = {"model": "tiny-test", "method": "lora", "precision": "fp32", "seq_len": 32}
ROOT_TS = "1700000000.000001"
PILOT_TIMEOUT_S = 180  # a tiny pilot takes 5-20 s on a loaded 2-core machine
LONG_STEPS = "10000"


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


def pilot_bot(bots, slack, work, *, steps="3", name="bot", **kwargs) -> BotProcess:
    env = {"ADVISOR_PILOT_USERS": "UALICE", "ADVISOR_PILOT_STEPS": steps, "ADVISOR_PILOT_DIR": str(work / "runs"),
           **kwargs.pop("env", {})}
    bot = BotProcess(slack, work / name, env=env, **kwargs).start()
    bots.append(bot)
    return bot


def in_thread(channel, thread=ROOT_TS):
    return lambda c: c.args.get("channel") == channel and c.args.get("thread_ts") == thread


def wait_until(condition, timeout=PILOT_TIMEOUT_S, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} not met within {timeout}s")


def propose(bot, slack, channel) -> tuple[str, str]:
    value = json.dumps({"spec": SPEC, "gpu": "a100", "lang": "en"})
    assert bot.action("run_pilot", value, channel=channel, message_ts=ROOT_TS, user="UALICE").status == 200
    [ask] = slack.wait_for("chat.postMessage", in_thread(channel), timeout=60)
    pilot_id = next(e["value"] for b in ask.args["blocks"] if b["type"] == "actions" for e in b["elements"]
                    if e["action_id"] == "pilot_confirm")
    return pilot_id, ask.result["ts"]


def row(bot, pilot_id) -> dict:
    [r] = bot.query("SELECT * FROM pilots WHERE id = ?", (pilot_id,))
    return r


def finals(slack, channel, pilot_id) -> list[dict]:
    return [m for m in slack.in_conversation(channel, ROOT_TS)
            if any((b.get("block_id") or "") == f"pilot_final_{pilot_id}" for b in m.get("blocks") or [])]


def statuses(slack, channel, pilot_id) -> list[dict]:
    return [m for m in slack.in_conversation(channel, ROOT_TS)
            if any((b.get("block_id") or "") == f"pilot_status_{pilot_id}" for b in m.get("blocks") or [])]


@pytest.mark.parametrize("fault", [dict(kind="ratelimited", retry_after=1, times=2),
                                   dict(kind="server_error", status=500, times=2)], ids=["429", "500"])
def test_a_failing_chat_update_during_confirm_never_leaves_the_pilot_pending(slack, bots, tmp_path, fault):
    bot = pilot_bot(bots, slack, tmp_path)
    pilot_id, confirm_ts = propose(bot, slack, "CUPD")
    slack.fault("chat.update", **fault)
    bot.action("pilot_confirm", pilot_id, channel="CUPD", message_ts=confirm_ts, thread_ts=ROOT_TS, user="UALICE")
    wait_until(lambda: row(bot, pilot_id)["handle"], what="the pilot's handle")
    wait_until(lambda: finals(slack, "CUPD", pilot_id), what="the final message")
    bot.wait_jobs_done()
    assert row(bot, pilot_id)["state"] == "finished"
    assert len(finals(slack, "CUPD", pilot_id)) == 1 and len(statuses(slack, "CUPD", pilot_id)) == 1
    decided = slack.calls_to("chat.update", lambda c: c.args.get("ts") == confirm_ts)
    assert decided and "confirmed by <@UALICE>" in message_text(decided[-1].args["blocks"])


def test_kill_9_during_the_final_post_gives_one_final(slack, bots, tmp_path):
    bot = pilot_bot(bots, slack, tmp_path, env={"ADVISOR_SLACK_TIMEOUT_S": "60"})
    pilot_id, confirm_ts = propose(bot, slack, "CFINAL")
    is_final = lambda a: any((b.get("block_id") or "") == f"pilot_final_{pilot_id}" for b in a.get("blocks") or [])  # noqa: E731
    slack.fault("chat.postMessage", "slow", delay=30, where=is_final)  # posted; the answer never arrives
    bot.action("pilot_confirm", pilot_id, channel="CFINAL", message_ts=confirm_ts, thread_ts=ROOT_TS, user="UALICE")
    wait_until(lambda: finals(slack, "CFINAL", pilot_id), what="the final posted")
    bot.kill_9()
    assert row(bot, pilot_id)["notified"] == 0  # the bot never learnt that it was posted
    bot.restart()
    wait_until(lambda: row(bot, pilot_id)["notified"] == 1, what="the final recorded")
    bot.wait_jobs_done()
    assert len(finals(slack, "CFINAL", pilot_id)) == 1
    assert "predicted" in message_text(finals(slack, "CFINAL", pilot_id)[0]["blocks"])


def test_two_replicas_follow_a_pilot_once_and_the_survivor_posts_its_end(slack, bots, tmp_path, pg_url):
    a = pilot_bot(bots, slack, tmp_path, name="a", state_url=pg_url, steps=LONG_STEPS)
    b = pilot_bot(bots, slack, tmp_path, name="b", state_url=pg_url, steps=LONG_STEPS)
    pilot_id, confirm_ts = propose(a, slack, "CREPL")
    b.action("pilot_confirm", pilot_id, channel="CREPL", message_ts=confirm_ts, thread_ts=ROOT_TS, user="UALICE")
    wait_until(lambda: json.loads(row(a, pilot_id)["last_progress"] or "null"), what="progress")
    [lease] = a.query("SELECT owner FROM leases WHERE name = 'pilot-watcher'")
    watcher = a if f":{a.workers()[0]}:" in lease["owner"] else b
    survivor = b if watcher is a else a
    watcher.kill_9()  # the watching replica dies mid-pilot; the runner (its own session) goes on
    handle = json.loads(row(survivor, pilot_id)["handle"])
    os.killpg(handle["ref"]["pid"], 9)  # and the pilot ends (killed) while only the survivor watches
    wait_until(lambda: finals(slack, "CREPL", pilot_id), what="the final from the survivor")
    survivor.wait_jobs_done()
    r = row(survivor, pilot_id)
    assert (r["state"], r["reason"], r["notified"]) == ("failed", "killed", 1)
    assert len(finals(slack, "CREPL", pilot_id)) == 1 and len(statuses(slack, "CREPL", pilot_id)) == 1


def test_the_runner_the_bot_starts_has_none_of_the_bots_secrets(slack, bots, tmp_path):
    secrets = {"MY_VAULT_TOKEN": "vault-s3cret", "ADVISOR_CHILD_ENV_DENY": "MY_VAULT_TOKEN,ADVISOR_STATE_URL"}
    bot = pilot_bot(bots, slack, tmp_path, steps=LONG_STEPS, env=secrets)
    pilot_id, confirm_ts = propose(bot, slack, "CENV")
    bot.action("pilot_confirm", pilot_id, channel="CENV", message_ts=confirm_ts, thread_ts=ROOT_TS, user="UALICE")
    wait_until(lambda: row(bot, pilot_id)["handle"], what="the handle")
    pid = json.loads(row(bot, pilot_id)["handle"])["ref"]["pid"]
    wait_until(lambda: os.path.exists(f"/proc/{pid}/environ"), what="the runner")
    raw = open(f"/proc/{pid}/environ", "rb").read()
    names = {item.split(b"=", 1)[0].decode() for item in raw.split(b"\0") if b"=" in item}
    bot_names = {item.split(b"=", 1)[0].decode() for item in open(f"/proc/{bot.workers()[0]}/environ", "rb").read()
                 .split(b"\0") if b"=" in item}
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "MY_VAULT_TOKEN"} <= bot_names  # the bot has them
    assert not [n for n in names if n.startswith("SLACK_")] and "MY_VAULT_TOKEN" not in names
    assert b"xoxb-" not in raw and b"vault-s3cret" not in raw
    bot.action("pilot_cancel", pilot_id, channel="CENV", message_ts=confirm_ts, thread_ts=ROOT_TS, user="UALICE")
    wait_until(lambda: finals(slack, "CENV", pilot_id), what="the end after the cancel")


def test_a_confirm_job_retried_after_slack_gave_up_goes_on_from_where_the_pilot_is(slack, bots, tmp_path):
    """chat.update keeps answering 429 beyond one call's budget (ADVISOR_SLACK_RETRY_S=2): the
    confirm job fails after the pilot was started and is tried again; the retry does not refuse
    its own confirmation as "already", and posts the one status message."""
    bot = pilot_bot(bots, slack, tmp_path, env={"ADVISOR_SLACK_RETRY_S": "2"})
    pilot_id, confirm_ts = propose(bot, slack, "CRETRYJOB")
    slack.fault("chat.update", "ratelimited", retry_after=1, times=3, where=lambda a: a.get("ts") == confirm_ts)
    bot.action("pilot_confirm", pilot_id, channel="CRETRYJOB", message_ts=confirm_ts, thread_ts=ROOT_TS,
               user="UALICE")
    wait_until(lambda: finals(slack, "CRETRYJOB", pilot_id), what="the final message")
    bot.wait_jobs_done()
    [job] = bot.query("SELECT attempts, state FROM outbox WHERE kind = 'pilot_confirm'")
    assert job["attempts"] >= 2 and job["state"] == "done"
    assert row(bot, pilot_id)["state"] == "finished" and len(statuses(slack, "CRETRYJOB", pilot_id)) == 1
    assert not slack.calls_to("chat.postEphemeral", lambda c: c.args.get("channel") == "CRETRYJOB")
    decided = slack.calls_to("chat.update", lambda c: c.args.get("ts") == confirm_ts)
    assert "confirmed by <@UALICE>" in message_text(decided[-1].args["blocks"])
