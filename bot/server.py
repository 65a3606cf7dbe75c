"""HTTP mode: a threaded server in front of the Bolt app.

Bolt's built-in ``SlackAppHandler`` runs on ``http.server.HTTPServer``, which serves one request at
a time: during a burst every ack waits behind the previous one. ``ThreadingHTTPServer`` (standard
library, no new dependency) gives each connection its own thread; Bolt's ``App.dispatch`` is
thread-safe and returns as soon as the listener has called ``ack()`` (the listener's work runs
after the ack, see ``bot.work``). Routes:

    POST /slack/events   slash commands, Events API and interactivity (signature-checked by Bolt)
    GET  /healthz        200 {"ok": true, ...} when the app, catalog and state db answer
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from slack_bolt import App, BoltRequest, BoltResponse

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
# Slack's largest payloads (a block_actions payload carrying a 50-block message) are tens of KB;
# anything above 1 MiB is not from Slack and is refused before reading it.
MAX_BODY_BYTES = 1024 * 1024
# Pending connections the kernel keeps while every handler thread is busy (a burst of 100/s).
LISTEN_BACKLOG = 512
# Slack's replay window: a request whose timestamp is further than this from now is refused
# (Slack docs, "Verifying requests from Slack").
SIGNATURE_MAX_AGE_S = 5 * 60

logger = logging.getLogger(__name__)


class BotHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG
    allow_reuse_address = True


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


def make_server(app: App, port: int, health: Callable[[], dict[str, Any]], host: str = "0.0.0.0",
                signing_secret: str | None = None) -> BotHTTPServer:
    """A server bound to ``host:port`` (port 0 picks a free one); call ``serve_forever()``.
    With ``signing_secret`` every POST is signature-checked before its body is parsed."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "finetune-advisor"

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("%s %s", self.address_string(), format % args)

        def do_GET(self) -> None:
            path = self.path.partition("?")[0]
            if path != HEALTH_PATH:
                self._send(404, {"ok": False, "error": "not_found"})
                return
            try:
                report = health()
            except Exception:  # the health check reports, it must not crash the server thread
                logger.exception("health check failed")
                self._send(503, {"ok": False})
                return
            self._send(200 if report.get("ok") else 503, report)

        def do_POST(self) -> None:
            path, _, query = self.path.partition("?")
            if path != EVENTS_PATH:
                self._send(404, {"ok": False, "error": "not_found"})
                return
            raw_length = self.headers.get("Content-Length") or "0"
            if not raw_length.isdigit() or int(raw_length) > MAX_BODY_BYTES:
                self.close_connection = True
                self._send(413 if raw_length.isdigit() else 400, {"ok": False, "error": "bad_content_length"})
                return
            raw = self.rfile.read(int(raw_length))
            headers = dict(self.headers.items())
            if signing_secret is not None and not signed_by_slack(signing_secret, raw, headers):
                self._send(401, {"ok": False, "error": "invalid_signature"})
                return
            try:  # Bolt parses the body here; a body that is not a Slack payload is a 400, not a crash
                request = BoltRequest(body=raw.decode("utf-8"), query=query, headers=headers)
            except Exception:
                logger.warning("refused a signed request whose body is not a Slack payload", exc_info=True)
                self._send(400, {"ok": False, "error": "invalid_payload"})
                return
            try:
                response: BoltResponse = app.dispatch(request)
            except Exception:  # Bolt's own parsing failed on this payload (listener errors never get here)
                logger.warning("refused a signed request Bolt could not dispatch", exc_info=True)
                self._send(400, {"ok": False, "error": "invalid_payload"})
                return
            self._send_raw(response.status, response.headers, response.body)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            self._send_raw(status, {"content-type": ["application/json;charset=utf-8"]}, json.dumps(payload))

        def _send_raw(self, status: int, headers: dict[str, Any], body: str) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            for name, values in headers.items():
                if name.lower() == "content-length":
                    continue
                for value in values if isinstance(values, (list, tuple)) else [values]:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return BotHTTPServer((host, port), Handler)
