"""Correctly signed but malformed requests to the real bot (`python -m bot`, HTTP mode) behind the
fake Slack. Whatever arrives, the process stays up and healthy, the HTTP answer is a deliberate
one (200 with an ack, 400 for a body that is not a Slack payload, 404 for a kind of request the
app does not handle; never 5xx, never a dropped connection), and a person who can be answered
gets a reply that says what to do, not the generic apology.

Bounded: a few hundred requests in all, each answered in milliseconds."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import time
import urllib.request
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.i18n import t
from tests.fakeslack import SIGNING_SECRET, BotProcess, FakeSlack, action_body, command_body

REPLY_TIMEOUT_S = 20
APOLOGY = t("bot.error.apology", "en")
# Slack's own cap on a message is 40,000 characters (chat.postMessage "text" docs); a user can
# paste that much into a thread or a DM.
HUGE_TEXT = 40_000


def budget(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    process = BotProcess(slack, tmp_path_factory.mktemp("fuzz")).start()
    yield process
    assert process.proc.poll() is None, "the bot died during the fuzzing:\n" + process.output()[-3000:]
    process.stop()


def post_raw(bot: BotProcess, body: bytes, content_type: str) -> int | str:
    """Signed POST of raw bytes; the status, or 'dropped' when the server closed the connection
    without an answer (a crashed handler thread)."""
    headers = {"Content-Type": content_type, **_sign_bytes(body)}
    conn = http.client.HTTPConnection("127.0.0.1", bot.port, timeout=10)
    try:
        conn.request("POST", "/slack/events", body=body, headers=headers)
        return conn.getresponse().status
    except (http.client.RemoteDisconnected, ConnectionResetError):
        return "dropped"
    finally:
        conn.close()


def _sign_bytes(body: bytes) -> dict[str, str]:
    """tests.fakeslack.sign for bodies that are not valid UTF-8."""
    ts = str(int(time.time()))
    digest = hmac.new(SIGNING_SECRET.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def healthy(bot: BotProcess) -> bool:
    with urllib.request.urlopen(f"{bot.url}/healthz", timeout=5) as resp:
        return resp.status == 200 and json.loads(resp.read())["ok"] and bot.proc.poll() is None


def replies(slack: FakeSlack, where: str) -> list:
    """What the person at ``where`` (a channel, or a response_url name) was told."""
    with slack._lock:
        return [c for c in slack.calls if (c.method == "response_url" and c.args.get("name") == where)
                or (c.method in ("chat.postMessage", "chat.postEphemeral") and c.args.get("channel") == where)]


def wait_reply(slack: FakeSlack, where: str, timeout: float = REPLY_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = replies(slack, where)
        if found:
            return found[0]
        time.sleep(0.02)
    raise AssertionError(f"nobody answered {where} within {timeout}s")


def said(call) -> str:
    return call.args.get("text") or json.dumps(call.args.get("blocks"))


_counter = iter(range(10**9))


def fresh(prefix: str) -> str:
    return f"{prefix}{next(_counter):05d}"


# --- bodies that are not Slack payloads ----------------------------------------------------------

# bot/web.py answers 400 when a signed body is not a Slack payload (before, the handler thread
# died and the client saw a dropped connection).

@pytest.mark.parametrize("body, content_type", [
    (b"{not json", "application/json"),
    (b"[1, 2, 3]", "application/json"),
    (b'"just a string"', "application/json"),
    (b"\xff\xfe\x00garbage", "application/json"),
    (b"payload=%7Bnot+json", "application/x-www-form-urlencoded"),
    (b"payload=%5B1%5D", "application/x-www-form-urlencoded"),
    (b"%%%zz&&==&payload", "application/x-www-form-urlencoded"),
    (b"", "application/json"),
    (b"{}", "application/json"),
    (b'{"type": "event_callback"}', "application/json"),
])
def test_a_body_that_is_not_a_slack_payload_gets_400_or_404_and_the_bot_lives(bot, body, content_type):
    assert post_raw(bot, body, content_type) in (400, 404)
    assert healthy(bot)


# --- slash commands with hostile text ------------------------------------------------------------

COMMAND_TEXTS = {
    "huge": "lora llama-3.1-8b " + "x" * HUGE_TEXT,
    "emoji": "🚀🦙 qlora llama-3-70b 🔥 seq 8192 🙏",
    "math digits": "qlora llama-3-70b seq 𝟖𝟏𝟗𝟐",
    "rtl and zero-width": "\u202eqlora\u200b llama\u2066-3-70b\u2069",
    "control chars": "lora\x00 llama\x07-3.1-8b\x1b[31m seq 4096",
    "slack markup": "<!channel> *lora* <@U123|bob> <#C1|gen> <https://evil.example|click> ```x``` &lt;b&gt;",
    "url-encoded garbage": "%zz%%41&text=help&command=/other",
    "only punctuation": "?!.,;:()[]{}",
    "absurd numbers": "full fine-tune a 1000000B model at seq 1000000000 batch -5 on 0 gpus",
    "unknown subcommand": "frobnicate the llama",
}


@pytest.mark.parametrize("name", list(COMMAND_TEXTS))
def test_a_hostile_command_text_gets_a_reply_that_says_what_to_do(bot, slack, name):
    channel = fresh("CTXT")
    reply = bot.command(COMMAND_TEXTS[name], channel=channel, response_url=slack.response_url(channel))
    assert (reply.status, reply.body) == (200, "")
    answer = said(wait_reply(slack, channel))
    assert answer.strip() and APOLOGY not in answer


@pytest.mark.parametrize("text, words", [
    ("lora llama-3.1-8b " + "x" * HUGE_TEXT, "8,000"),  # the parser's limit, named in the reply
    ("full fine-tune a 1000000B model", "999"),  # the largest model size we size
    ("lora llama-3.1-8b seq 1000000000", "1,048,576"),  # the longest sequence we size
])
def test_limits_are_named_in_the_reply(bot, slack, text, words):
    channel = fresh("CLIM")
    bot.command(text, channel=channel, response_url=slack.response_url(channel))
    assert words in said(wait_reply(slack, channel))


@budget(40)
@given(text=st.text(max_size=300) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_random_command_text_is_always_answered(bot, slack, text):
    channel = fresh("CRND")
    reply = bot.command(text, channel=channel, response_url=slack.response_url(channel))
    assert reply.status == 200
    assert APOLOGY not in said(wait_reply(slack, channel))


def test_an_unknown_slash_command_is_not_a_server_error(bot):
    body, content_type = command_body("hello", command="/not-ours")
    assert bot.post(body, content_type).status in (200, 404)
    assert healthy(bot)


# --- events --------------------------------------------------------------------------------------

def test_a_huge_direct_message_is_told_the_limit(bot, slack):
    channel = fresh("DHUGE")
    bot.event({"type": "message", "channel": channel, "user": "UEVE", "ts": "1800001000.000001",
               "channel_type": "im", "text": "qlora llama-3-70b " + "🚀" * HUGE_TEXT})
    assert "8,000" in said(wait_reply(slack, channel))


# Shapes Slack never sends; bot/listeners/middleware.py acknowledges and ignores them (before,
# a KeyError or a TypeError in a listener: a 500 and an apology to nobody in particular).
@pytest.mark.parametrize("event", [
    {"type": "message", "channel": "DNOTS", "channel_type": "im", "user": "U1", "text": "hi"},
    {"type": "message"},
    {"type": "message", "channel": "DX", "ts": "1.1", "channel_type": "im", "user": "U1", "text": None},
    {"type": "message", "channel": "DX", "ts": "1.2", "channel_type": "im", "user": "U1", "text": ["a"]},
    {"type": "message", "channel": "DX", "ts": "1.3", "channel_type": "im", "user": "U1", "text": {"a": 1}},
    {"type": "message", "channel": "DX", "ts": "1.4", "thread_ts": "0.0", "user": "U1", "text": "seq 4k?"},
    {"type": "message", "channel": "DX", "ts": "1.8", "thread_ts": ["1.0"], "user": "U1", "text": "hi?"},
    {"type": "message", "channel": "DX", "ts": "1.9", "thread_ts": {"a": 1}, "user": "U1", "text": "hi?"},
    {"type": "app_mention", "channel": "CX", "ts": "1.5"},
    {"type": "no_such_event", "channel": "CX", "ts": "1.6"},
    {"type": "message", "subtype": "message_deleted", "channel": "CX", "ts": "1.7"},
])
def test_a_malformed_event_is_not_a_server_error(bot, event):
    assert bot.event(event).status in (200, 404)
    assert healthy(bot)


JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
RANDOM_EVENTS = st.fixed_dictionaries({"type": st.sampled_from(["message", "app_mention"])}, optional={
    "channel": st.text(min_size=1, max_size=8), "user": st.text(min_size=1, max_size=8),
    "ts": st.sampled_from(["1800002000.000001", "1.2", "x"]), "text": st.text(max_size=200) | JSON_VALUES,
    "thread_ts": st.text(max_size=20) | JSON_VALUES, "channel_type": st.sampled_from(["im", "channel", "group", ""]),
    "subtype": st.sampled_from(["thread_broadcast", "file_share", "bot_message"]) | JSON_LEAVES,
})


@budget(60)
@given(event=RANDOM_EVENTS)
def test_random_well_keyed_events_never_crash_the_bot(bot, event):
    """Events with the keys Slack always sends (channel, ts) and random values elsewhere."""
    event = {**event, "channel": event.get("channel") or "DRANDOM", "ts": event.get("ts") or "1800002000.000002"}
    status = bot.event(event).status
    assert status in (200, 404), (status, event, bot.output()[-1500:])


# --- interactivity -------------------------------------------------------------------------------


@pytest.mark.parametrize("action_id", ["does_not_exist", "", "run_pilot_v0_retired", "🚀" * 100])
def test_an_unknown_button_is_acked_and_the_clicker_told_to_ask_again(bot, slack, action_id):
    """Without a catch-all, Bolt answers 404 and Slack shows the clicker an error icon."""
    channel = fresh("CBTN")
    assert bot.action(action_id, "x", channel=channel, message_ts="1800003000.000001").status == 200
    told = wait_reply(slack, channel)
    assert told.method == "chat.postEphemeral" and said(told) == t("bot.action.gone", "en")


# bot/pilot/flow.py on_run reads the button's JSON value; one that is not a JSON object (an old
# message, a forged payload) is told "not valid; ask again" instead of the generic apology.
@pytest.mark.parametrize("action_id, value", [
    ("pilot_run", "{{not json"),
    ("run_pilot", "not json at all"),
    ("run_pilot", '["a list"]'),
    ("pilot_confirm", "no-such-pilot"),
    ("verify_exactly", "{{"),
    ("show_chart", "\x00"),
])
def test_a_button_with_a_bad_value_is_told_what_to_do(bot, slack, action_id, value):
    channel = fresh("CVAL")
    reply = bot.action(action_id, value, channel=channel, message_ts="1800003000.000002")
    assert reply.status == 200
    assert APOLOGY not in said(wait_reply(slack, channel))


def _payload(**changes) -> str:
    body, _ = action_body("show_chart", "chart", channel="CSHAPE", message_ts="1800003000.000003")
    from urllib.parse import parse_qs

    payload = json.loads(parse_qs(body)["payload"][0])
    for key, value in changes.items():
        if value is None:
            payload.pop(key, None)
        else:
            payload[key] = value
    return urlencode({"payload": json.dumps(payload)})


def test_an_event_that_is_not_an_object_is_refused_and_the_bot_lives(bot):
    """Not a Slack payload: refused with 400 before Bolt sees it (bot/web.py ``malformed``; Bolt's
    authorization middleware used to fail on it with a 500)."""
    body = b'{"type": "event_callback", "event": "not a dict", "event_id": "EvNOTDICT"}'
    assert post_raw(bot, body, "application/json") == 400
    assert healthy(bot)


@pytest.mark.parametrize("changes", [
    {"actions": []},
    {"actions": None},
    {"container": None, "channel": None},
    {"message": None},
    {"user": None},
    {"type": "no_such_interaction"},
    {"type": "view_submission"},
])
def test_a_block_actions_payload_missing_parts_is_not_a_server_error(bot, changes):
    status = post_raw(bot, _payload(**changes).encode(), "application/x-www-form-urlencoded")
    assert status in (200, 400, 404), status
    assert healthy(bot)


def test_after_all_of_that_a_normal_question_is_still_answered(bot, slack):
    channel = fresh("CAFTER")
    bot.command("qlora llama-3-70b seq 8192", channel=channel, response_url=slack.response_url(channel))
    assert "Llama 3 70B" in said(wait_reply(slack, channel)) and healthy(bot)
