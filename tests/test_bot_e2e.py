"""End to end: the real bot (`python -m bot`, HTTP mode) in a subprocess, a fake Slack Web API on
loopback, requests signed exactly as Slack signs them. No mocks of our code. One bot per module;
each test uses its own channel so tests do not see each other's messages."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from tests.fakeslack import BOT_USER_ID, BotProcess, FakeSlack, assert_valid_blocks, message_text, sign

PRIVATE = "CPRIVATE"


@pytest.fixture(scope="module")
def slack():
    with FakeSlack(not_in_channel={PRIVATE}) as fake:
        yield fake


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    process = BotProcess(slack, tmp_path_factory.mktemp("bot")).start()
    yield process
    process.stop()


def in_channel(channel, *, thread=None):
    return lambda c: c.args.get("channel") == channel and (thread is None or c.args.get("thread_ts") == thread)


def ask(bot, slack, channel, text):
    """/finetune TEXT in CHANNEL; returns the posted answer call (checked against Block Kit)."""
    reply = bot.command(text, channel=channel, response_url=slack.response_url(channel))
    assert (reply.status, reply.body) == (200, "")
    [call] = slack.wait_for("chat.postMessage", in_channel(channel))
    assert "thread_ts" not in call.args or call.args["thread_ts"] is None
    assert_valid_blocks(call.args["blocks"])
    if call.result.get("ok"):
        bot.wait_remembered(channel, call.result["ts"])
    return call


def reply_in_thread(bot, channel, thread, text, *, ts, user="UBOB", **extra):
    return bot.event({"type": "message", "channel": channel, "user": user, "text": text, "ts": ts,
                      "thread_ts": thread, "channel_type": "channel", **extra})


def test_health(bot):
    with urllib.request.urlopen(f"{bot.url}/healthz", timeout=5) as resp:
        report = json.loads(resp.read())
    assert resp.status == 200 and report["ok"] and report["mode"] == "http" and report["gpus"] >= 4


def test_slash_command_gets_a_threaded_answer_and_a_followup_changes_seq_len(bot, slack):
    first = ask(bot, slack, "CMAIN", "qlora llama-3-70b seq 8192")
    text = message_text(first.args["blocks"])
    assert "Llama 3 70B" in text and "seq 8,192" in text and "<@UALICE> asked" in text
    root = first.result["ts"]
    assert reply_in_thread(bot, "CMAIN", root, "what about 16k?", ts="1800000000.000001").status == 200
    [follow] = slack.wait_for("chat.postMessage", in_channel("CMAIN", thread=root))
    text = message_text(assert_valid_blocks(follow.args["blocks"]))
    assert "seq 16,384" in text and "8,192 → 16,384" in text


def test_spanish_is_answered_in_spanish(bot, slack):
    call = ask(bot, slack, "CSPANISH", "¿puedo hacer qlora de llama-3-70b con secuencia de 8192?")
    text = message_text(call.args["blocks"])
    assert "Entendido" in text and "Recomendado" in text and "Understood" not in text


def test_a_retried_event_is_processed_once(bot, slack):
    root = ask(bot, slack, "CRETRY", "lora llama-3.1-8b seq 4096").result["ts"]
    event = {"type": "message", "channel": "CRETRY", "user": "UBOB", "text": "what about 8k?",
             "ts": "1800000000.000100", "thread_ts": root, "channel_type": "channel"}
    assert bot.event(event, event_id="EvRETRY1").status == 200
    assert bot.event(event, event_id="EvRETRY1", headers={"X-Slack-Retry-Num": "1",
                                                           "X-Slack-Retry-Reason": "http_timeout"}).status == 200
    slack.wait_for("chat.postMessage", in_channel("CRETRY", thread=root))
    reply_in_thread(bot, "CRETRY", root, "and 2k?", ts="1800000000.000200")  # a sentinel after the retry
    slack.wait_for("chat.postMessage", in_channel("CRETRY", thread=root), count=2)
    assert len(slack.calls_to("chat.postMessage", in_channel("CRETRY", thread=root))) == 2


def test_a_mention_in_a_thread_is_answered_once(bot, slack):
    root = ask(bot, slack, "CMENTION", "lora llama-3.1-8b seq 4096").result["ts"]
    text = f"<@{BOT_USER_ID}> what about seq 2048?"
    ts = "1800000000.000300"
    bot.event({"type": "app_mention", "channel": "CMENTION", "user": "UBOB", "text": text, "ts": ts, "thread_ts": root})
    reply_in_thread(bot, "CMENTION", root, text, ts=ts)
    slack.wait_for("chat.postMessage", in_channel("CMENTION", thread=root))
    reply_in_thread(bot, "CMENTION", root, "what about 1k?", ts="1800000000.000301")  # sentinel
    slack.wait_for("chat.postMessage", in_channel("CMENTION", thread=root), count=2)
    assert len(slack.calls_to("chat.postMessage", in_channel("CMENTION", thread=root))) == 2


def test_bots_edits_joins_and_chatter_are_ignored(bot, slack):
    root = ask(bot, slack, "CIGNORE", "lora llama-3.1-8b seq 4096").result["ts"]
    ignored = [{"bot_id": "BOTHER", "text": "seq 1024"}, {"subtype": "bot_message", "text": "seq 1024"},
               {"subtype": "message_changed", "text": "seq 1024"}, {"subtype": "channel_join", "text": "joined"},
               {"text": "thanks, nice"}]
    for i, extra in enumerate(ignored):
        reply_in_thread(bot, "CIGNORE", root, ts=f"1800000000.0004{i:02d}", **extra)
    bot.event({"type": "message", "channel": "CIGNORE", "user": "UBOB", "text": "seq 1024 top level",
               "ts": "1800000000.000499", "channel_type": "channel"})
    reply_in_thread(bot, "CIGNORE", root, "what about 1k?", ts="1800000000.000500")  # sentinel
    [only] = slack.wait_for("chat.postMessage", in_channel("CIGNORE", thread=root))
    bot.wait_jobs_done()  # every recorded message handled: nothing else can arrive late
    assert len(slack.calls_to("chat.postMessage", in_channel("CIGNORE"))) == 2 and "1,024" in message_text(only.args["blocks"])


@pytest.mark.parametrize("headers_for", [
    lambda body: {"X-Slack-Signature": "v0=" + "0" * 64, "X-Slack-Request-Timestamp": str(int(time.time()))},
    lambda body: sign(body, secret="not-the-secret"),
    lambda body: sign(body, timestamp=int(time.time()) - 10 * 60),
    lambda body: {},
])
def test_forged_or_stale_signatures_are_rejected(bot, slack, headers_for):
    from tests.fakeslack import command_body

    body, content_type = command_body("qlora llama-3-70b", channel="CFORGED")
    reply = bot.post(body, content_type, headers=headers_for(body), signed=False)
    assert reply.status == 401
    assert slack.calls_to("chat.postMessage", in_channel("CFORGED")) == []


def test_not_in_channel_answers_through_response_url_with_a_hint(bot, slack):
    bot.command("qlora llama-3-70b seq 8192", channel=PRIVATE, response_url=slack.response_url("private"))
    [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == "private")
    blocks = assert_valid_blocks(call.args["blocks"])
    assert call.args["response_type"] == "in_channel" and "/invite" in message_text(blocks)


@pytest.mark.parametrize("text, lang_word", [("help", "Examples"), ("ayuda", "Ejemplos"), ("", "Examples")])
def test_help_is_ephemeral_in_the_users_language(bot, slack, text, lang_word):
    name = f"help-{text or 'empty'}"
    bot.command(text, channel="CHELP", response_url=slack.response_url(name))
    [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == name)
    assert call.args["response_type"] == "ephemeral" and lang_word in message_text(assert_valid_blocks(call.args["blocks"]))


def test_a_command_the_advisor_cannot_read_is_answered_privately(bot, slack):
    bot.command("make it fast please", channel="CUNCLEAR", response_url=slack.response_url("unclear"))
    [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == "unclear")
    assert call.args["response_type"] == "ephemeral" and assert_valid_blocks(call.args["blocks"])
    assert slack.calls_to("chat.postMessage", in_channel("CUNCLEAR")) == []


def test_catalog_subcommand_lists_rented_gpus(bot, slack):
    bot.command("catalog", channel="CHELP", response_url=slack.response_url("catalog"))
    [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == "catalog")
    assert "H100" in message_text(assert_valid_blocks(call.args["blocks"]))


def test_show_chart_uploads_a_png_to_the_thread(bot, slack):
    answer = ask(bot, slack, "CCHART", "qlora llama-3-70b seq 8192")
    root = answer.result["ts"]
    bot.action("show_chart", "chart", channel="CCHART", message_ts=root)
    [done] = slack.wait_for("files.completeUploadExternal", lambda c: c.args.get("channel_id") == "CCHART", timeout=60)
    assert done.args["thread_ts"] == root and done.result["ok"]
    file_id = json.loads(done.args["files"])[0]["id"] if isinstance(done.args["files"], str) else done.args["files"][0]["id"]
    assert slack.uploads[file_id].startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.slow
def test_verify_exactly_replies_in_the_thread_with_trace_vs_estimate(bot, slack):
    root = ask(bot, slack, "CVERIFY", "lora tiny-test seq 128").result["ts"]
    bot.action("verify_exactly", "verify", channel="CVERIFY", message_ts=root)
    [placeholder] = slack.wait_for("chat.postMessage", in_channel("CVERIFY", thread=root))
    [update] = slack.wait_for("chat.update", lambda c: c.args.get("ts") == placeholder.result["ts"]
                              and c.args.get("text") == "Exact trace vs estimate", timeout=120)  # after the progress edits
    text = message_text(assert_valid_blocks(update.args["blocks"]))
    assert "Exact trace vs estimate" in text and "Weights" in text
    bot.action("verify_exactly", "verify", channel="CVERIFY", message_ts=root)  # a second click
    [told] = slack.wait_for("chat.postEphemeral", in_channel("CVERIFY"))
    assert "Already done" in told.args["text"]


def test_an_error_that_trying_again_cannot_fix_is_logged_and_apologised_for_once(bot, slack):
    root = ask(bot, slack, "CFAIL", "lora llama-3.1-8b seq 4096").result["ts"]
    slack.fail_next("chat.postMessage", "invalid_blocks")
    reply_in_thread(bot, "CFAIL", root, "what about 8k?", ts="1800000000.000600")
    [apology] = slack.wait_for("chat.postMessage", lambda c: in_channel("CFAIL", thread=root)(c) and c.result["ok"])
    assert "Sorry, something went wrong" in apology.args["text"]
    assert "Traceback" in bot.output() and "invalid_blocks" in bot.output()


def test_a_fatal_error_from_slack_is_looked_up_then_posted_again_once(bot, slack):
    """Slack's fatal_error: "it's possible some aspect of the operation succeeded" (chat.postMessage
    docs, Errors). The bot looks for its message before posting again: one answer, no apology."""
    root = ask(bot, slack, "CFATAL", "lora llama-3.1-8b seq 4096").result["ts"]
    slack.fail_next("chat.postMessage", "fatal_error")
    reply_in_thread(bot, "CFATAL", root, "what about 8k?", ts="1800000000.000650")
    [answer] = slack.wait_for("chat.postMessage", lambda c: in_channel("CFATAL", thread=root)(c) and c.result.get("ok"))
    assert "8,192" in message_text(answer.args["blocks"])
    bot.wait_jobs_done()
    replies = [m for m in slack.in_conversation("CFATAL", root) if m["ts"] != root]
    assert len(replies) == 1 and "8,192" in message_text(replies[0]["blocks"])


def test_the_thread_survives_a_restart(bot, slack):
    root = ask(bot, slack, "CRESTART", "qlora llama-3-70b seq 8192").result["ts"]
    bot.restart()
    reply_in_thread(bot, "CRESTART", root, "what about 16k?", ts="1800000000.000700")
    [follow] = slack.wait_for("chat.postMessage", in_channel("CRESTART", thread=root))
    assert "8,192 → 16,384" in message_text(assert_valid_blocks(follow.args["blocks"]))
