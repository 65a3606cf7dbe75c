"""A click on a button of an answer: recorded as a ``click`` job with its claims, then acked.

"Verify exactly" and "Show chart" are claimed once per answer message and action
(``action:<action_id>:<channel>:<message ts>``): a second click, also after a restart or on
another replica, is told "already done" instead of tracing or uploading again. A trace or a chart
that failed releases its claim (bot.jobs.on_failure), so it can be asked for again."""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from slack_bolt import Ack, BoltContext

from advisor.i18n import t
from bot.listeners.record import record
from bot.payload import place
from bot.render.answer import ACTION_CHART, ACTION_VERIFY
from bot.services import Services
from bot.store import NewJob, StoredAnswer

logger = logging.getLogger(__name__)

ONCE_PER_ANSWER = (ACTION_VERIFY, ACTION_CHART)
_TELL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="click-notice")


@dataclass(frozen=True)
class Click:
    channel: str
    user: str
    message_ts: str
    key: str  # the claim: a second click on the same answer's button is told "already done"
    answer: StoredAnswer

    @property
    def where(self) -> dict[str, Any]:
        return {"channel": self.channel, "thread_ts": self.answer.thread_ts, "user": self.user,
                "lang": self.answer.lang}


def slim(body: dict[str, Any]) -> dict[str, Any]:
    """What a click job keeps of the payload (the message it came with can be 50 blocks)."""
    message = body.get("message") or {}
    return {"type": body.get("type"), "user": body.get("user"), "channel": body.get("channel"),
            "container": body.get("container"), "actions": body.get("actions"),
            "response_url": body.get("response_url"), "trigger_id": body.get("trigger_id"),
            "message": {k: message[k] for k in ("ts", "thread_ts") if k in message}}


def action_key(action_id: str, channel: str | None, message_ts: str | None) -> str:
    return f"action:{action_id}:{channel}:{message_ts}"


def on_click(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    services: Services = context["services"]
    action = (body.get("actions") or [{}])[0]
    action_id = action.get("action_id") or ""
    if action.get("url"):  # a link button: Slack opens the link, nothing to do here
        ack()
        return
    at = place(body)
    channel, user, message_ts = at.channel, at.user, at.message_ts
    where = {**at.where(), "lang": None}
    claims = []
    if action_id in ONCE_PER_ANSWER:
        claims.append((action_key(action_id, channel, message_ts), "action"))
    key = f"click:{body.get('trigger_id') or uuid.uuid4().hex}"
    job = NewJob(key, "click", {"action_id": action_id, "body": slim(body), "where": where})
    done = record(services, context, job, claims, where)
    ack()
    if done.conflict and done.conflict.startswith("action:") and channel and user:
        answer = services.store.answer(channel, message_ts) if message_ts else None
        _TELL.submit(_tell, services, channel, user, "bot.action.already", answer.lang if answer else "en")


def _tell(services: Services, channel: str, user: str, key: str, lang: str) -> None:
    try:
        services.client.chat_postEphemeral(channel=channel, user=user, text=t(key, lang))
    except Exception:
        logger.exception("could not tell %s %s", user, key)


def tell(services: Services, channel: str, user: str, key: str, lang: str) -> None:
    services.client.chat_postEphemeral(channel=channel, user=user, text=t(key, lang))
