"""The app as wired (in-process, against the fake Slack): the manifest and the listeners agree,
Socket Mode uses the same listeners and SLACK_API_URL, the outbox workers run what was recorded
and route failures to the failure handler, and start-up survives a failing auth.test."""

import time

import pytest
import yaml
from slack_bolt import BoltRequest

from bot.app import build_app
from bot.conversation import clean_text
from bot.listeners.commands.finetune import COMMAND, subcommand
from bot.settings import Settings
from bot.web import EVENTS_PATH
from tests.conftest import ROOT
from tests.fakeslack import BOT_TOKEN, SIGNING_SECRET, command_body, event_body, sign

MANIFEST = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
# manifest bot event -> the event Slack sends for it
EVENTS = {"app_home_opened": {"type": "app_home_opened", "tab": "home", "channel": "DHOME"},
          "app_mention": {"type": "app_mention"}, "message.channels": {"type": "message", "channel_type": "channel"},
          "message.groups": {"type": "message", "channel_type": "group"}, "message.im": {"type": "message", "channel_type": "im"}}


def settings_for(slack, tmp_path, **env):
    return Settings.from_env({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                              "SLACK_API_URL": slack.api_url, "ADVISOR_STATE_DB": str(tmp_path / "state.db"),
                              "ADVISOR_CATALOG": str(ROOT / "catalog.db"), **env})


@pytest.fixture(scope="module")
def http_app(slack, tmp_path_factory):
    app, services = build_app(settings_for(slack, tmp_path_factory.mktemp("app")))
    yield app
    services.close()


def dispatch(app, body, content_type):
    headers = {"content-type": content_type, **{k.lower(): v for k, v in sign(body).items()}}
    return app.dispatch(BoltRequest(body=body, headers=headers))


def test_every_url_in_the_manifest_is_the_events_path():
    urls = [MANIFEST["settings"]["event_subscriptions"]["request_url"], MANIFEST["settings"]["interactivity"]["request_url"],
            *(c["url"] for c in MANIFEST["features"]["slash_commands"])]
    assert all(u.endswith(EVENTS_PATH) for u in urls) and MANIFEST["settings"]["interactivity"]["is_enabled"]


def test_the_manifest_command_is_the_registered_one(http_app):
    assert [c["command"] for c in MANIFEST["features"]["slash_commands"]] == [COMMAND]
    assert dispatch(http_app, *command_body("help")).status == 200
    assert dispatch(http_app, *command_body("help", command="/other")).status == 404


@pytest.mark.parametrize("event", MANIFEST["settings"]["event_subscriptions"]["bot_events"])
def test_every_subscribed_event_has_a_listener(http_app, event):
    body = {**EVENTS[event], "channel": "CX", "user": "UBOB", "text": "hello", "ts": f"{time.time():.6f}"}
    assert dispatch(http_app, *event_body(body)).status == 200


def test_the_home_tab_is_enabled_subscribed_listened_to_and_documented(http_app):
    """The Home tab (bot/home.py): the manifest enables it and subscribes app_home_opened, a
    listener answers the event, and the README tells people about it and /finetune spend."""
    home = MANIFEST["features"]["app_home"]
    assert home["home_tab_enabled"] is True and home["messages_tab_enabled"] is True  # DMs are questions
    assert "app_home_opened" in MANIFEST["settings"]["event_subscriptions"]["bot_events"]
    listened = {getattr(getattr(lis, "ack_function", None), "__name__", "") for lis in http_app._listeners}
    assert "on_home_opened" in listened
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "**Home tab**" in readme and "app_home_opened" in readme and "`/finetune spend`" in readme
    assert "spend" in MANIFEST["features"]["slash_commands"][0]["usage_hint"]


def test_the_scopes_cover_what_the_bot_calls():
    needed = {"commands", "chat:write", "files:write", "app_mentions:read", "channels:history", "groups:history", "im:history"}
    assert needed <= set(MANIFEST["oauth_config"]["scopes"]["bot"])


def test_socket_mode_uses_the_same_listeners_and_slack_api_url(slack, tmp_path):
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    app, services = build_app(settings_for(slack, tmp_path, SLACK_APP_TOKEN="xapp-1-fake"))
    try:
        handler = SocketModeHandler(app, "xapp-1-fake")
        assert handler.client.web_client.base_url == slack.api_url == app.client.base_url
        body, _ = command_body("help", response_url=slack.response_url("socket"))
        from urllib.parse import parse_qsl

        response = app.dispatch(BoltRequest(body=dict(parse_qsl(body)), mode="socket_mode"))
        assert response.status == 200
        [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == "socket")
        assert call.args["response_type"] == "ephemeral"
    finally:
        services.close()


@pytest.mark.parametrize("text, expected", [
    ("help", ("help", "", "en")), ("  Ayuda ", ("help", "", "es")), ("", ("help", "", "en")),
    ("catálogo", ("catalog", "", "es")), ("pilot qlora 8b", ("pilot", "qlora 8b", "en")),
    ("piloto qlora 8b", ("pilot", "qlora 8b", "es")), ("qlora llama-3-70b", (None, "qlora llama-3-70b", "en")),
    ("helpful tips", (None, "helpful tips", "en")),
])
def test_subcommands(text, expected):
    assert subcommand(text) == expected


@pytest.mark.parametrize("raw, clean", [
    ("<@UBOT00001> qlora 70b", "qlora 70b"), ("<@UBOT00001|advisor>  seq  8k &amp; rank 8", "seq 8k & rank 8"),
    ("see <https://hf.co/meta-llama|llama 3>", "see llama 3"), ("x &lt;y&gt;", "x <y>"),
])
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


def test_the_outbox_runs_what_was_recorded_and_routes_failures(tmp_path):
    from bot.outbox import Outbox, QueueSpec
    from bot.store import NewJob, StateStore

    store = StateStore(tmp_path / "state.db")
    ran, failed = [], []

    def work(job):
        if job.payload.get("boom"):
            raise ZeroDivisionError("division by zero")
        ran.append(job.key)

    outbox = Outbox(store, {"question": work}, lambda job, exc: failed.append((job.key, str(exc))),
                    queues=[QueueSpec("answers", 2)], lease_s=5, poll_s=0.05).start()
    try:
        for key, boom in (("ok1", False), ("bad", True), ("ok2", False)):
            store.enqueue(NewJob(key, "question", {"boom": boom}))
            outbox.notify()
        deadline = time.monotonic() + 30
        while (len(ran) < 2 or not failed) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        outbox.stop()
    assert sorted(ran) == ["ok1", "ok2"] and failed == [("bad", "division by zero")]
    states = {r["key"]: r["state"] for r in store.db.query("SELECT key, state FROM outbox")}
    assert states == {"ok1": "done", "ok2": "done", "bad": "failed"}


def test_a_transient_failure_is_tried_again_not_apologised_for(tmp_path):
    from slack_sdk.errors import SlackApiError
    from slack_sdk.web import SlackResponse

    from bot.outbox import Outbox, QueueSpec
    from bot.store import NewJob, StateStore

    store = StateStore(tmp_path / "state.db")
    tries, failed = [], []

    def flaky(job):
        tries.append(job.attempts)
        if job.attempts == 1:
            raise SlackApiError("ratelimited", SlackResponse(client=None, http_verb="POST", api_url="x", req_args={},
                                                             data={"ok": False, "error": "ratelimited"},
                                                             headers={}, status_code=429))

    outbox = Outbox(store, {"question": flaky}, lambda job, exc: failed.append(job.key),
                    queues=[QueueSpec("answers", 1)], lease_s=5, poll_s=0.05).start()
    try:
        store.enqueue(NewJob("flaky", "question", {}))
        outbox.notify()
        deadline = time.monotonic() + 30
        while store.job("flaky")["state"] != "done" and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        outbox.stop()
    assert tries == [1, 2] and failed == [] and store.job("flaky")["state"] == "done"


def test_the_bot_starts_without_importing_heavy_extras(slack, tmp_path):
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from bot.settings import Settings\nfrom bot.app import build_app\n"
        f"s = Settings.from_env({{'SLACK_BOT_TOKEN': {BOT_TOKEN!r}, 'SLACK_SIGNING_SECRET': 's', "
        f"'SLACK_API_URL': {slack.api_url!r}, 'ADVISOR_STATE_DB': {str(tmp_path / 's.db')!r}}})\n"
        "app, services = build_app(s)\n"
        "print([m for m in ('torch', 'ray', 'matplotlib') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_start_up_retries_a_failing_auth_test_then_starts(slack, tmp_path):
    """One 500 and one 429 on auth.test at start: retried by the client's handlers, no traceback."""
    slack.fault("auth.test", "server_error", status=500)
    slack.fault("auth.test", "ratelimited", retry_after=1)
    app, services = build_app(settings_for(slack, tmp_path))
    try:
        assert len(slack.calls_to("auth.test", processed_only=False)) >= 3
    finally:
        services.close()


def test_start_up_says_plainly_when_slack_stays_down_or_refuses_the_token(slack, tmp_path):
    import subprocess
    import sys

    from tests.fakeslack import free_port

    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "ADVISOR_STATE_DB": str(tmp_path / "s.db"),
           "ADVISOR_STARTUP_RETRY_S": "3", "ADVISOR_SLACK_RETRY_S": "1", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(ROOT)}
    down = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**env, "SLACK_API_URL": f"http://127.0.0.1:{free_port()}/api/"})
    assert down.returncode == 2 and "Traceback" not in down.stderr
    assert "Could not check the bot token" in down.stderr and "status.slack.com" in down.stderr
    refused = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             env={**env, "SLACK_API_URL": slack.api_url, "SLACK_BOT_TOKEN": "xoxb-wrong"})
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "Slack refused the bot token (invalid_auth)" in refused.stderr


def test_healthz_fails_when_the_web_api_does_not_answer(slack, tmp_path):
    from bot.app import health

    app, services = build_app(settings_for(slack, tmp_path))
    try:
        assert health(services, "http")["ok"] is True
        slack.fault("api.test", "server_error", status=503, times=5)
        services.extra["slack_health"]["at"] = -1e9  # the next check asks Slack again
        report = health(services, "http")
        assert report["ok"] is False and report["slack"]["reachable"] is False and report["state"]["writable"]
        slack.clear_faults()
        assert health(services, "http")["ok"] is True  # a failed check is retried on the next probe
    finally:
        services.close()
