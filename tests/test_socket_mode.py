"""Socket Mode as its own process, end to end: `python -m bot socket` connects to the fake Slack's
Socket Mode endpoint (apps.connections.open, then a real WebSocket: the RFC 6455 handshake,
hello, envelopes, acks, ping/pong), records and acks what arrives; `python -m bot worker`, a
separate process on the same state database, answers it. A redelivered envelope is answered
once, and killing the socket process after its ack loses nothing."""

from __future__ import annotations

import time

import pytest

from tests.fakeslack import APP_ID, BOT_USER_ID, TEAM_ID, BotProcess, message_text

ANSWER_TIMEOUT_S = 60


@pytest.fixture
def pair(slack, tmp_path):
    env = {"SLACK_APP_TOKEN": "xapp-1-A111-222-fake"}
    socket = BotProcess(slack, tmp_path, env=env, role="socket").start()
    worker = BotProcess(slack, tmp_path, env=env, role="worker").start()
    yield socket, worker
    socket.stop()
    worker.stop()


def command_envelope(envelope_id: str, text: str, channel: str, trigger: str, retry: int = 0) -> dict:
    return {"envelope_id": envelope_id, "type": "slash_commands", "accepts_response_payload": True,
            "retry_attempt": retry, "retry_reason": "timeout" if retry else "",
            "payload": {"token": "legacy", "team_id": TEAM_ID, "team_domain": "fake-team", "channel_id": channel,
                        "channel_name": "general", "user_id": "UALICE", "user_name": "alice", "command": "/finetune",
                        "text": text, "api_app_id": APP_ID, "is_enterprise_install": "false",
                        "response_url": "http://127.0.0.1:9/response/none", "trigger_id": trigger}}


def event_envelope(envelope_id: str, event: dict, event_id: str, retry: int = 0) -> dict:
    return {"envelope_id": envelope_id, "type": "events_api", "accepts_response_payload": False,
            "retry_attempt": retry, "retry_reason": "timeout" if retry else "",
            "payload": {"token": "legacy", "team_id": TEAM_ID, "api_app_id": APP_ID, "type": "event_callback",
                        "event": event, "event_id": event_id, "event_time": int(time.time()),
                        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}]}}


def top_level(slack, channel):
    return [m for m in slack.in_conversation(channel) if not m.get("thread_ts")]


def wait_until(condition, timeout=ANSWER_TIMEOUT_S, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} not met within {timeout}s")


def test_socket_mode_acks_and_a_separate_worker_answers_once(pair, slack):
    socket, worker = pair
    slack.socket_send(command_envelope("env-1", "qlora llama-3-70b seq 8192", "CSOCK", "trig-1"))
    assert slack.wait_socket_ack("env-1")["envelope_id"] == "env-1"
    wait_until(lambda: top_level(slack, "CSOCK"), what="the worker's answer")
    slack.socket_send(command_envelope("env-1", "qlora llama-3-70b seq 8192", "CSOCK", "trig-1", retry=1))
    dm = {"type": "message", "channel": "DSOCK", "user": "UBOB", "text": "lora llama-3.1-8b seq 4096",
          "ts": "1800000900.000001", "channel_type": "im"}
    slack.socket_send(event_envelope("env-2", dm, "EvSOCK1"))
    slack.wait_socket_ack("env-2")
    wait_until(lambda: slack.in_conversation("DSOCK"), what="the DM answer")
    worker.wait_jobs_done()
    assert len(top_level(slack, "CSOCK")) == 1 and "Llama 3 70B" in message_text(top_level(slack, "CSOCK")[0]["blocks"])
    assert len(slack.in_conversation("DSOCK")) == 1
    assert "Traceback" not in socket.output() + worker.output()


def test_killing_the_socket_process_after_its_ack_loses_nothing(pair, slack):
    socket, worker = pair
    for i in range(5):
        slack.socket_send(command_envelope(f"env-k{i}", "lora llama-3.1-8b seq 4096", f"CSK{i}", f"trig-k{i}"))
    for i in range(5):
        slack.wait_socket_ack(f"env-k{i}")
    socket.kill_9()
    wait_until(lambda: all(top_level(slack, f"CSK{i}") for i in range(5)), what="five answers")
    worker.wait_jobs_done()
    assert all(len(top_level(slack, f"CSK{i}")) == 1 for i in range(5))
