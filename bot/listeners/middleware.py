"""Global middleware: hand the services (and the request's own claim) to listeners, drop malformed events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse

from bot.services import Services

logger = logging.getLogger(__name__)

# Fields of a message/app_mention event the listeners read; Slack always sends them as strings
# (channel and ts always; text, user and thread_ts when present). Anything else is not Slack.
EVENT_STRING_FIELDS = ("channel", "ts")
EVENT_OPTIONAL_STRING_FIELDS = ("text", "user", "thread_ts", "channel_type")


def malformed_event(body: dict[str, Any]) -> str | None:
    """Why a message or mention event cannot be read (None when it can)."""
    event = body.get("event")
    if body.get("type") != "event_callback" or not isinstance(event, dict):
        return None
    if event.get("type") not in ("message", "app_mention") or event.get("subtype") not in (None, "thread_broadcast",
                                                                                            "file_share"):
        return None
    for name in EVENT_STRING_FIELDS:
        if not isinstance(event.get(name), str) or not event[name]:
            return f"{name} missing or not a string"
    for name in EVENT_OPTIONAL_STRING_FIELDS:
        if name in event and not isinstance(event[name], str):
            return f"{name} is not a string"
    return None


def register(app: App, services: Services) -> None:
    def inject_services(context: BoltContext, request: Any, next: Callable[[], Any]) -> Any:
        context["services"] = services
        # The same signed body sent twice (same signature, same timestamp: a replay) is processed
        # once: its signature is claimed with the job (bot/listeners/record.py).
        signature = (request.headers.get("x-slack-signature") or [None])[0] if request is not None else None
        context["request_claims"] = [(f"request:{signature}", "request")] if signature else []
        return next()

    def drop_malformed_events(body: dict[str, Any], next: Callable[[], Any]) -> Any:
        """Acknowledge, log and ignore an event the listeners could not read (fuzzed or forged
        shapes that passed the signature: the signing secret leaked, or a test)."""
        problem = malformed_event(body)
        if problem:
            logger.warning("ignoring a malformed %s event (%s)", (body.get("event") or {}).get("type"), problem)
            return BoltResponse(status=200, body="")
        return next()

    app.middleware(inject_services)
    app.middleware(drop_malformed_events)
