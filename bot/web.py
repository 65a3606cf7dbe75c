"""HTTP mode: the Bolt app through slack_bolt's WSGI adapter (slack_bolt/adapter/wsgi, the adapter
Bolt's docs name for production servers), served by gunicorn (``gthread`` workers: several
processes, several threads each, a worker timeout; gunicorn docs, "Design" and "Settings").

Bolt's own ``SlackRequestHandler`` is wrapped with what must happen before Bolt sees a body:

    POST /slack/events   size limit (413), Slack's signature checked on the raw bytes before
                         anything parses them (401), a signed body that is not a Slack payload
                         (not JSON, an event that is not an object, a command without
                         channel_id, ...) refused with 400 and a log line, then Bolt
    GET  /healthz        200 when the state database takes a write and the Web API answers,
                         503 (with what is wrong) otherwise

Each gunicorn worker builds its own app after the fork (``GunicornApp.load``), so no
connection, thread or lock crosses a fork.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.adapter.wsgi.http_request import WsgiHttpRequest
from slack_bolt.adapter.wsgi.http_response import WsgiHttpResponse

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
# Slack's largest payloads (a block_actions payload carrying a 50-block message) are tens of KB;
# anything above 1 MiB is not from Slack and is refused before reading it.
MAX_BODY_BYTES = 1024 * 1024
# Slack's replay window: a request whose timestamp is further than this from now is refused
# (Slack docs, "Verifying requests from Slack").
SIGNATURE_MAX_AGE_S = 5 * 60
JSON_HEADERS = {"content-type": ["application/json;charset=utf-8"]}

logger = logging.getLogger(__name__)


def signed_by_slack(secret: str, raw: bytes, headers: dict[str, str], now: float | None = None) -> bool:
    """v0=HMAC-SHA256(secret, "v0:{ts}:{body}") over the raw bytes, with a timestamp inside
    Slack's window. Checked before the body is parsed, so a forged or malformed request costs
    nothing and learns nothing; a malformed timestamp is a refusal, not a server error."""
    lower = {k.lower(): v for k, v in headers.items()}
    ts, signature = lower.get("x-slack-request-timestamp", ""), lower.get("x-slack-signature", "")
    if not (ts.isascii() and ts.isdigit() and signature.startswith("v0=")):
        return False
    if abs((time.time() if now is None else now) - int(ts)) > SIGNATURE_MAX_AGE_S:
        return False
    expected = "v0=" + hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def _strings(obj: dict[str, Any], *names: str) -> str | None:
    for name in names:
        if not isinstance(obj.get(name), str) or not obj[name]:
            return f"{name} missing or not a string"
    return None


def malformed(raw: bytes, content_type: str) -> str | None:
    """Why a signed body is not a Slack payload (None when it is one Bolt can route)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if "application/json" in content_type:
        try:
            body = json.loads(text)
        except ValueError:
            return "not JSON"
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            return "not a JSON object with a type"
        if body["type"] == "event_callback":
            if not isinstance(body.get("event"), dict):
                return "event is not an object"
            if not isinstance(body["event"].get("type"), str):
                return "event has no type"
            if "event_id" in body and not isinstance(body["event_id"], str):
                return "event_id is not a string"
        return None
    form = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
    if "payload" in form:
        try:
            payload = json.loads(form["payload"])
        except ValueError:
            return "payload is not JSON"
        if not isinstance(payload, dict) or not isinstance(payload.get("type"), str):
            return "payload is not an object with a type"
        for name in ("user", "channel", "container"):
            if name in payload and payload[name] is not None and not isinstance(payload[name], dict):
                return f"payload.{name} is not an object"
        if "actions" in payload and payload["actions"] is not None and not isinstance(payload["actions"], list):
            return "payload.actions is not a list"
        return None
    if "command" in form:
        return _strings(form, "command", "channel_id", "user_id")
    if form.get("ssl_check"):
        return None
    return "neither an event, an interaction nor a command"


class BotWSGI(SlackRequestHandler):
    """slack_bolt's WSGI handler with the pre-checks above and /healthz."""

    def __init__(self, app: App, health: Callable[[], dict[str, Any]], signing_secret: str | None):
        super().__init__(app, path=EVENTS_PATH)
        self.health, self.signing_secret = health, signing_secret

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        response = self._respond(environ)
        start_response(response.status, response.get_headers())
        return response.get_body()

    def _respond(self, environ: dict[str, Any]) -> WsgiHttpResponse:
        request = WsgiHttpRequest(environ)
        if request.path == HEALTH_PATH and request.method == "GET":
            try:
                report = self.health()
            except Exception:  # the health check reports, it must not crash the worker thread
                logger.exception("health check failed")
                return _json(503, {"ok": False})
            return _json(200 if report.get("ok") else 503, report)
        if request.path != EVENTS_PATH or request.method != "POST":
            return _json(404, {"ok": False, "error": "not_found"})
        length = str(environ.get("CONTENT_LENGTH") or "0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            return _json(413 if length.isdigit() else 400, {"ok": False, "error": "bad_content_length"})
        raw = environ["wsgi.input"].read(int(length)) if int(length) else b""
        headers = {k: v for k, v in request.get_headers().items() if isinstance(v, str)}
        if self.signing_secret is not None and not signed_by_slack(self.signing_secret, raw, headers):
            return _json(401, {"ok": False, "error": "invalid_signature"})
        problem = malformed(raw, headers.get("content-type", ""))
        if problem:
            logger.warning("refused a signed request that is not a Slack payload (%s): %r", problem, raw[:200])
            return _json(400, {"ok": False, "error": "invalid_payload", "problem": problem})
        environ["wsgi.input"] = _Body(raw)
        try:
            bolt = self.dispatch(WsgiHttpRequest(environ))
        except Exception:  # Bolt's own parsing failed on this payload (listener errors never get here)
            logger.warning("refused a signed request Bolt could not dispatch", exc_info=True)
            return _json(400, {"ok": False, "error": "invalid_payload"})
        return WsgiHttpResponse(status=bolt.status, headers=bolt.headers, body=bolt.body)


class _Body:
    """The body already read, for Bolt's WsgiHttpRequest.get_body()."""

    def __init__(self, raw: bytes):
        self.raw = raw

    def read(self, n: int = -1) -> bytes:
        return self.raw if n < 0 else self.raw[:n]


def _json(status: int, payload: dict[str, Any]) -> WsgiHttpResponse:
    return WsgiHttpResponse(status=status, headers=JSON_HEADERS, body=json.dumps(payload, default=str))


_SERVICES: list[Any] = []  # the services of this worker process (gunicorn loads one app per worker)


def _close_services(server: Any, worker: Any) -> None:
    while _SERVICES:
        try:
            _SERVICES.pop().close()
        except Exception:
            logger.exception("closing the bot's services failed")


def gunicorn_app(settings: Any, *, deliver: bool, role: str, bind: str | None = None):
    """gunicorn serving BotWSGI: ``settings.web_workers`` processes of ``settings.web_threads``
    threads (``gthread``), each building its own app after the fork."""
    from gunicorn.app.base import BaseApplication

    class GunicornApp(BaseApplication):
        def load_config(self) -> None:
            config = {
                "bind": bind or f"0.0.0.0:{settings.port}",
                "workers": settings.web_workers,
                "worker_class": "gthread",
                "threads": settings.web_threads,
                # A worker silent this long is killed and replaced (it cannot heartbeat its
                # arbiter: a stuck process); acks take milliseconds.
                "timeout": settings.web_timeout_s,
                "graceful_timeout": 10,
                "keepalive": 5,
                # Pending connections the kernel keeps while every thread is busy (a burst).
                "backlog": 512,
                "accesslog": None,
                "errorlog": "-",
                "loglevel": settings.log_level.lower(),
                "preload_app": False,
                # gunicorn 23+ opens a control socket at one fixed path per user: two bots on
                # one host would fight over it, and nothing here uses it.
                "control_socket_disable": True,
                "proc_name": f"advisor-{role}",
                # On a graceful stop each worker stops leasing jobs and lets the running ones end
                # (their leases would hand them over anyway, only later).
                "worker_exit": _close_services,
            }
            for key, value in config.items():
                if key in self.cfg.settings:  # control_socket_disable exists from gunicorn 23 on
                    self.cfg.set(key, value)

        def load(self):
            from bot.app import build_app, health

            app, services = build_app(settings, deliver=deliver, role=role)
            _SERVICES.append(services)
            return BotWSGI(app, lambda: health(services, "http"), settings.signing_secret)

    return GunicornApp()
