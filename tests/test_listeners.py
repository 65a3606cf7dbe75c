"""Per-listener unit tests, in the bolt-python starter template's style: each listener is called
as the plain function it is, with a mocked ``ack`` (what Bolt would pass), and what it did is
read back from the real state store (SQLite in a temporary directory), so a listener change
fails here in a second instead of in the end-to-end suites (tests/test_bot_e2e.py,
tests/test_faults.py), which drive the same listeners through Bolt over signed HTTP.

Listeners only record a job (with its claims) and ack; the jobs are run by the outbox workers
(bot/jobs.py), which these tests do not start.
"""

from __future__ import annotations

import json
from unittest.mock import Mock

import pytest
from slack_bolt import BoltContext
from slack_sdk import WebClient

from advisor.answer import Advisor
from advisor.catalog import Catalog
from advisor.spec import SpecRequest
from bot.listeners.actions.clicked import on_click
from bot.listeners.commands.finetune import finetune_command
from bot.listeners.events.messages import on_message
from bot.pilot.listeners import on_confirm, on_run
from bot.pilot.render import ACTION_CONFIRM
from bot.render.answer import ACTION_CHART, ACTION_PILOT, ACTION_VERIFY
from bot.services import build_services
from bot.settings import Settings
from tests.conftest import ROOT
from tests.fakeslack import BOT_TOKEN, SIGNING_SECRET

CHANNEL, USER = "CLISTEN", "UALICE"


@pytest.fixture
def services(slack, tmp_path):
    settings = Settings.from_env({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                                  "SLACK_API_URL": slack.api_url, "ADVISOR_STATE_DB": str(tmp_path / "state.db"),
                                  "ADVISOR_CATALOG": str(ROOT / "catalog.db")})
    catalog = Catalog.open(settings.catalog_path)
    made = build_services(settings, WebClient(token=BOT_TOKEN, base_url=slack.api_url), advisor=Advisor(catalog))
    yield made
    made.close()


def context(services) -> BoltContext:
    return BoltContext({"services": services, "bot_user_id": "UBOT"})


def command(text: str, trigger: str = "T1") -> dict:
    return {"command": "/finetune", "text": text, "channel_id": CHANNEL, "user_id": USER, "trigger_id": trigger,
            "response_url": "http://127.0.0.1:9/response"}


# --- /finetune ---------------------------------------------------------------------------------


def test_the_finetune_command_records_the_question_and_acks_once(services):
    ack = Mock()
    finetune_command(ack=ack, command=command("qlora llama-3-70b seq 8192"), context=context(services))
    ack.assert_called_once_with()
    job = services.store.job("command:T1")
    assert job["kind"] == "question" and job["state"] == "pending"
    assert json.loads(job["payload"])["question"]["text"] == "qlora llama-3-70b seq 8192"


def test_a_retried_command_is_acked_and_not_recorded_twice(services):
    for _ in range(2):
        ack = Mock()
        finetune_command(ack=ack, command=command("lora llama-3.1-8b", trigger="T2"), context=context(services))
        ack.assert_called_once_with()
    assert services.store.db.query("SELECT COUNT(*) AS n FROM outbox")[0]["n"] == 1


@pytest.mark.parametrize("text, kind", [("help", "private"), ("ayuda", "private"), ("", "private"),
                                        ("catalog", "private"), ("pilot lora llama-3.1-8b", "private")])
def test_subcommands_become_private_jobs(services, text, kind):
    ack = Mock()
    finetune_command(ack=ack, command=command(text, trigger=f"T-{text}"), context=context(services))
    ack.assert_called_once_with()
    assert services.store.job(f"command:T-{text}")["kind"] == kind  # no pilot flow wired: "pilots are off"


# --- a reply in a thread -------------------------------------------------------------------------


def message(text: str, ts: str, thread_ts: str | None = None, **extra) -> dict:
    return {"type": "message", "channel": CHANNEL, "channel_type": "channel", "user": USER, "text": text, "ts": ts,
            **({"thread_ts": thread_ts} if thread_ts else {}), **extra}


def test_a_reply_in_a_thread_we_answered_is_a_follow_up_in_the_thread_lane(services):
    services.store.save_thread(CHANNEL, "100.1", SpecRequest(method="lora", model="llama-3.1-8b"), "en", "100.2")
    event = message("what about 16k?", "100.3", thread_ts="100.1")
    on_message(body={"event_id": "Ev1", "event": event}, event=event, context=context(services))
    job = services.store.job(f"message:{CHANNEL}:100.3")
    assert job["kind"] == "question" and job["lane"] == f"thread:{CHANNEL}:100.1"
    assert json.loads(job["payload"])["question"]["thread_ts"] == "100.1"


@pytest.mark.parametrize("event", [
    message("chatter", "200.1"),  # top-level channel chatter (a mention comes as app_mention)
    message("in a thread we never answered", "200.3", thread_ts="200.2"),
    message("edited", "200.4", thread_ts="100.1", subtype="message_changed"),
    message("a bot", "200.5", thread_ts="100.1", bot_id="B1"),
])
def test_messages_not_for_the_bot_record_nothing(services, event):
    services.store.save_thread(CHANNEL, "100.1", SpecRequest(), "en", "100.2")
    on_message(body={"event": event}, event=event, context=context(services))
    assert services.store.db.query("SELECT COUNT(*) AS n FROM outbox")[0]["n"] == 0


# --- a click -------------------------------------------------------------------------------------


def click(action_id: str, trigger: str, message_ts: str = "300.1", value: str = "verify") -> dict:
    return {"type": "block_actions", "trigger_id": trigger, "user": {"id": USER}, "channel": {"id": CHANNEL},
            "container": {"type": "message", "channel_id": CHANNEL, "message_ts": message_ts},
            "message": {"ts": message_ts}, "actions": [{"action_id": action_id, "value": value}],
            "response_url": "http://127.0.0.1:9/response"}


@pytest.mark.parametrize("action_id", [ACTION_VERIFY, ACTION_CHART])
def test_a_click_claims_its_answer_once(services, action_id):
    ack = Mock()
    on_click(ack=ack, body=click(action_id, "C1"), context=context(services))
    ack.assert_called_once_with()
    assert services.store.job("click:C1")["kind"] == "click"
    assert services.store.claimed(f"action:{action_id}:{CHANNEL}:300.1")
    second = Mock()
    on_click(ack=second, body=click(action_id, "C2"), context=context(services))
    second.assert_called_once_with()
    assert services.store.job("click:C2") is None  # the second click on the same answer is told "already"


def test_a_link_button_is_acked_and_nothing_is_recorded(services):
    ack = Mock()
    body = click("open_docs", "C3")
    body["actions"][0]["url"] = "https://example.org"
    on_click(ack=ack, body=body, context=context(services))
    ack.assert_called_once_with()
    assert services.store.job("click:C3") is None


# --- pilot confirmation --------------------------------------------------------------------------


def test_a_pilot_confirmation_is_recorded_in_the_pilots_lane(services):
    ack = Mock()
    on_confirm(ack=ack, body=click(ACTION_CONFIRM, "P1", value="p-123"), context=context(services))
    ack.assert_called_once_with()
    job = services.store.job("click:P1")
    assert job["kind"] == "pilot_confirm" and job["lane"] == "pilot:p-123"


def test_run_pilot_on_an_answer_is_recorded_outside_any_pilot_lane(services):
    ack = Mock()
    on_run(ack=ack, body=click(ACTION_PILOT, "P2", value='{"gpu": "l40s", "num_gpus": 1}'), context=context(services))
    ack.assert_called_once_with()
    job = services.store.job("click:P2")
    assert job["kind"] == "pilot_run" and job["lane"] != "pilot:p-123"


def test_the_pilot_wing_registers_its_buttons_before_the_generic_click_listener():
    from slack_bolt import App

    from bot.listeners import actions
    from bot.pilot import listeners

    app = App(token=BOT_TOKEN, signing_secret=SIGNING_SECRET, token_verification_enabled=False)
    listeners.register(app)
    actions.register(app)
    order = [lst.ack_function.__name__ for lst in app._listeners]
    assert order[:5] == ["on_run", "on_run", "on_confirm", "on_decline", "on_cancel"] and order[-1] == "on_click"
