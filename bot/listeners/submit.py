"""Hand work to a pool after the ack; a full pool answers "busy" where the person is."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from advisor.i18n import t
from bot.render.simple import render_notice
from bot.work import Busy, WorkPool

logger = logging.getLogger(__name__)


def submit(pool: WorkPool, client: WebClient, where: dict[str, Any], fn: Callable[..., Any], *args: Any) -> bool:
    """Run ``fn(*args)`` on ``pool``; False (and a polite "busy" to the person) when it is full."""
    try:
        pool.submit(fn, *args, where=where)
        return True
    except Busy as busy:
        logger.warning("%s; telling %s", busy, where.get("user"))
        lang = where.get("lang") or "en"
        text, blocks = t("bot.busy", lang), render_notice("bot.busy", lang)
        if where.get("response_url"):
            WebhookClient(where["response_url"]).send(text=text, blocks=blocks, response_type="ephemeral")
        elif where.get("thread_ts"):
            client.chat_postMessage(channel=where["channel"], thread_ts=where["thread_ts"], text=text, blocks=blocks)
        return False
