"""A click on a button no listener knows (a retired action id, a message from an older version,
a forged payload): acknowledged, so Slack shows no error, and the clicker is told privately to
ask again. Registered last: Bolt runs the first listener that matches."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack
from slack_sdk import WebClient

from advisor.i18n import t

logger = logging.getLogger(__name__)


def unknown_action(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
    ack()
    actions = body.get("actions") or [{}]
    if actions[0].get("url"):  # a link button: Slack opens the link, nothing to do here
        return
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    user = (body.get("user") or {}).get("id")
    logger.info("unknown action %r from %s", actions[0].get("action_id"), user)
    if channel and user:
        client.chat_postEphemeral(channel=channel, user=user, text=t("bot.action.gone", "en"))
