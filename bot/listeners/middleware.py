"""Global middleware: hand the services to listeners, and drop repeated event deliveries."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse

from bot.services import Services

logger = logging.getLogger(__name__)


def register(app: App, services: Services) -> None:
    def inject_services(context: BoltContext, next: Callable[[], Any]) -> Any:
        context["services"] = services
        return next()

    def drop_repeated_events(body: dict[str, Any], context: BoltContext, request: Any,
                             next: Callable[[], Any]) -> Any:
        """Slack redelivers an event it thinks we missed (X-Slack-Retry-Num, same event_id);
        the claim is persisted, so a restart in between does not answer twice."""
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not services.store.claim(f"event:{event_id}", "event"):
            retry = (request.headers.get("x-slack-retry-num") or ["-"])[0] if request is not None else "-"
            logger.info("event %s already processed (retry %s); acknowledging only", event_id, retry)
            return BoltResponse(status=200, body="")
        return next()

    app.middleware(inject_services)
    app.middleware(drop_repeated_events)
