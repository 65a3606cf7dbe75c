"""The Web API client every call goes through (bot/slack.py): slack_sdk's retry handlers against
the fake Slack's faults, a bounded budget, and no blind retry of a post that may have happened."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError

from bot.delivery import post_once
from bot.slack import make_client
from bot.store import StateStore
from tests.fakeslack import BOT_TOKEN


def client(slack, total_s=20.0):
    return make_client(BOT_TOKEN, slack.api_url, total_s=total_s, timeout=5)


def test_a_rate_limit_is_retried_after_retry_after(slack):
    slack.fault("chat.update", "ratelimited", retry_after=1, where=lambda a: a.get("channel") == "CRL")
    assert client(slack).chat_update(channel="CRL", ts="1.1", text="x")["ok"]
    assert [c.fault for c in slack.calls_to("chat.update", lambda c: c.args.get("channel") == "CRL",
                                            processed_only=False)] == ["ratelimited", None]


def test_the_retry_budget_bounds_a_call(slack):
    """Retry-After 1 s, a budget of 3 s: one retry fits (1 s + its jitter, then 2 s more would
    not), so Slack sees exactly two calls and the caller gets the 429 to retry later."""
    slack.fault("chat.update", "ratelimited", retry_after=1, times=50, where=lambda a: a.get("channel") == "CBUDGET")
    with pytest.raises(SlackApiError) as err:
        client(slack, total_s=3).chat_update(channel="CBUDGET", ts="1.1", text="x")
    assert err.value.response.status_code == 429
    assert len(slack.calls_to("chat.update", lambda c: c.args.get("channel") == "CBUDGET", processed_only=False)) == 2
    slack.clear_faults()


@pytest.mark.parametrize("kind", ["server_error", "drop"])
def test_an_idempotent_call_is_retried_on_5xx_and_drops(slack, kind):
    slack.fault("chat.update", kind, where=lambda a: a.get("channel") == f"CIDEM{kind}")
    assert client(slack).chat_update(channel=f"CIDEM{kind}", ts="1.1", text="x")["ok"]


def test_a_post_is_not_retried_blindly_on_an_ambiguous_failure(slack):
    """A 500 after the post was made: the handlers do not post again (that would double it)."""
    slack.fault("chat.postMessage", "server_error", after=True, where=lambda a: a.get("channel") == "CAMBIG")
    with pytest.raises(SlackApiError):
        client(slack).chat_postMessage(channel="CAMBIG", text="hello")
    assert len(slack.in_conversation("CAMBIG")) == 1


def test_post_once_finds_the_ambiguous_post_instead_of_doubling_it(slack, tmp_path):
    store = StateStore(tmp_path / "state.db")
    slack.fault("chat.postMessage", "drop", after=True, where=lambda a: a.get("channel") == "CONCE")
    ts = post_once(store, client(slack), "job-1#answer", channel="CONCE", thread_ts=None, text="hello")
    again = post_once(store, client(slack), "job-1#answer", channel="CONCE", thread_ts=None, text="hello")
    assert ts == again and [m["ts"] for m in slack.in_conversation("CONCE")] == [ts]
    assert store.delivery("job-1#answer").posted
