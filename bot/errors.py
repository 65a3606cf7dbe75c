"""The global error handler: Bolt's ``@app.error`` and the work pools both end here.

It logs the traceback and posts a short apology where the person is waiting: in the thread (a
reply, or an edit of a "working on it" placeholder), or as an ephemeral message for a slash
command that has no thread yet. It never raises: a failure to apologise is logged too.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from advisor.i18n import t
from bot.payload import place
from bot.render.simple import render_notice

logger = logging.getLogger("bot.errors")


def where_from_body(body: dict[str, Any]) -> dict[str, Any]:
    """Channel, thread, user and response_url of any Slack payload (bot.payload.place)."""
    return place(body).where()


def apologize(client: WebClient, error: BaseException, where: dict[str, Any], *, lang: str = "en") -> None:
    """Log ``error`` with its traceback and tell the person, never raising."""
    logger.error("unhandled error while answering %s", {k: v for k, v in where.items() if k != "response_url"},
                 exc_info=(type(error), error, error.__traceback__))
    lang = where.get("lang") or lang
    text = t("bot.error.apology", lang)
    blocks = render_notice("bot.error.apology", lang)
    channel = where.get("channel")
    try:
        if channel and where.get("placeholder_ts"):
            client.chat_update(channel=channel, ts=where["placeholder_ts"], text=text, blocks=blocks)
        elif channel and where.get("thread_ts"):
            client.chat_postMessage(channel=channel, thread_ts=where["thread_ts"], text=text, blocks=blocks)
        elif where.get("response_url"):
            WebhookClient(where["response_url"]).send(text=text, blocks=blocks, response_type="ephemeral")
        elif channel and where.get("user"):
            client.chat_postEphemeral(channel=channel, user=where["user"], text=text, blocks=blocks)
        else:
            logger.warning("no place to apologise for the error above")
    except Exception:
        logger.exception("could not post the apology")
