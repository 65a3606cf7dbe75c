""""Run pilot on <GPU>" when this deployment has no pilot flow wired: say so, privately, in the
language of the answer the button belongs to."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from advisor.i18n import t
from bot.errors import where_from_body
from bot.listeners.submit import submit


def pilot_unavailable(ack: Ack, body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    ack()
    services = context["services"]
    submit(services.answers, client, where_from_body(body), tell_unavailable, services, client, body)


def tell_unavailable(services: Any, client: WebClient, body: dict[str, Any]) -> None:
    channel = body["channel"]["id"] if body.get("channel") else body["container"]["channel_id"]
    message_ts = (body.get("message") or {}).get("ts") or body["container"]["message_ts"]
    answer = services.store.answer(channel, message_ts)
    lang = answer.lang if answer else "en"
    client.chat_postEphemeral(channel=channel, user=body["user"]["id"], text=t("bot.pilot.unavailable", lang))
