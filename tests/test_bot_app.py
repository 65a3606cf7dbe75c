"""The app as wired (in-process, against the fake Slack): the manifest and the listeners agree,
Socket Mode uses the same listeners and SLACK_API_URL, and the work pools bound their backlog and
route failures to the error handler."""

import threading
import time

import pytest
import yaml
from slack_bolt import BoltRequest

from bot.app import build_app
from bot.conversation import clean_text
from bot.listeners.commands.finetune import COMMAND, subcommand
from bot.server import EVENTS_PATH
from bot.settings import Settings
from advisor.i18n import t
from bot.work import Busy, WorkPool
from tests.conftest import ROOT
from tests.fakeslack import BOT_TOKEN, SIGNING_SECRET, command_body, event_body, sign

MANIFEST = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
# manifest bot event -> the event Slack sends for it
EVENTS = {"app_mention": {"type": "app_mention"}, "message.channels": {"type": "message", "channel_type": "channel"},
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


def test_a_full_pool_says_busy_and_a_failure_reaches_the_error_handler():
    errors, gate = [], threading.Event()
    pool = WorkPool("t", workers=1, max_pending=2, on_error=lambda exc, where: errors.append((str(exc), where)))
    pool.submit(gate.wait, 5)
    pool.submit(lambda: 1 / 0, where={"channel": "C1"})
    with pytest.raises(Busy):
        pool.submit(print)
    gate.set()
    pool.shutdown(wait=True)
    assert errors == [("division by zero", {"channel": "C1"})] and pool.pending == 0


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


def test_a_full_pool_tells_the_person_busy_off_the_listener_thread(slack):
    from slack_sdk import WebClient

    from bot.listeners.submit import submit

    gate = threading.Event()
    pool = WorkPool("t", workers=1, max_pending=1, on_error=lambda exc, where: None)
    pool.submit(gate.wait, 5)
    where = {"channel": "CBUSY", "user": "U1", "response_url": slack.response_url("busy"), "lang": "es"}
    client = WebClient(token=BOT_TOKEN, base_url=slack.api_url)
    assert submit(pool, client, where, print) is False
    [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == "busy")
    assert call.args["response_type"] == "ephemeral" and call.args["text"] == t("bot.busy", "es")
    gate.set()
    pool.shutdown(wait=True)
