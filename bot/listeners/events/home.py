"""``app_home_opened`` (tab ``home``): record a ``home`` job that publishes the person's Home tab
(bot/home.py ``publish_home``) and ack. The Messages tab (``tab: messages``) needs nothing: direct
messages are answered as they come (bot/listeners/events/messages.py).

Slack sends the event every time someone opens the tab (Events API, "app_home_opened"); each
opening is claimed by its event id (a retried delivery is published once), and a person's
publications run in order in their own lane."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.listeners.record import record
from bot.store import NewJob


def on_home_opened(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
    services = context["services"]
    user = event.get("user")
    if event.get("tab", "home") != "home" or not user:
        return
    key = f"event:{body.get('event_id') or event.get('event_ts') or ''}:home"
    claims = [(f"event:{body['event_id']}", "event")] if body.get("event_id") else []
    job = NewJob(key, "home", {"user": user, "where": {"user": user}}, lane=f"home:{user}")
    record(services, context, job, claims, {"user": user}, tell=False)
