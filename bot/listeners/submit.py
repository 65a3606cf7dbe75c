"""Hand work to a pool after the ack; a full pool answers "busy" where the person is."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from advisor.i18n import t
from bot.render.simple import render_notice
from bot.work import Busy, WorkPool

logger = logging.getLogger(__name__)


# "Busy" replies leave from their own small pool, not from the listener: the listener runs inside
# the HTTP request (process_before_response), so a Slack round trip there would delay the ack
# exactly when the bot is overloaded (benchmarks/load.py: ack p99 1.3 s at 100/s for 60 s).
_NOTICES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="busy-notice")
# Beyond this many pending notices the bot is far past capacity; further ones are only logged.
MAX_PENDING_NOTICES = 2000
_pending = threading.BoundedSemaphore(MAX_PENDING_NOTICES)


def submit(pool: WorkPool, client: WebClient, where: dict[str, Any], fn: Callable[..., Any], *args: Any) -> bool:
    """Run ``fn(*args)`` on ``pool``; False (and a polite "busy" to the person) when it is full."""
    try:
        pool.submit(fn, *args, where=where)
        return True
    except Busy as busy:
        logger.warning("%s; telling %s", busy, where.get("user"))
        if _pending.acquire(blocking=False):
            _NOTICES.submit(_tell_busy, client, dict(where))
        else:
            logger.error("too many pending busy notices; %s is not told", where.get("user"))
        return False


def _tell_busy(client: WebClient, where: dict[str, Any]) -> None:
    try:
        lang = where.get("lang") or "en"
        text, blocks = t("bot.busy", lang), render_notice("bot.busy", lang)
        if where.get("response_url"):
            WebhookClient(where["response_url"]).send(text=text, blocks=blocks, response_type="ephemeral")
        elif where.get("thread_ts"):
            client.chat_postMessage(channel=where["channel"], thread_ts=where["thread_ts"], text=text, blocks=blocks)
    except Exception:  # a notice that cannot be delivered is logged with its traceback, not raised
        logger.exception("could not tell %s that the bot is busy", where.get("user"))
    finally:
        _pending.release()
