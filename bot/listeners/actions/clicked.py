"""What a button click on an answer refers to, claimed once per answer message and action."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient

from advisor.i18n import t
from bot.services import Services
from bot.store import StoredAnswer


@dataclass(frozen=True)
class Click:
    channel: str
    user: str
    message_ts: str
    key: str  # the dedup claim: a second click on the same answer's button is told "already done"
    answer: StoredAnswer

    @property
    def where(self) -> dict[str, Any]:
        return {"channel": self.channel, "thread_ts": self.answer.thread_ts, "user": self.user,
                "lang": self.answer.lang}


def claim_click(services: Services, client: WebClient, body: dict[str, Any], action_id: str) -> Click | None:
    """The click's answer, or None after telling the person why nothing happens (already done,
    or the answer is no longer known)."""
    channel = body["channel"]["id"] if body.get("channel") else body["container"]["channel_id"]
    user = body["user"]["id"]
    message_ts = (body.get("message") or {}).get("ts") or body["container"]["message_ts"]
    answer = services.store.answer(channel, message_ts)
    if answer is None:
        _tell(client, channel, user, "bot.action.gone", "en")
        return None
    key = f"action:{action_id}:{channel}:{message_ts}"
    if not services.store.claim(key, "action"):
        _tell(client, channel, user, "bot.action.already", answer.lang)
        return None
    return Click(channel, user, message_ts, key, answer)


def _tell(client: WebClient, channel: str, user: str, key: str, lang: str) -> None:
    client.chat_postEphemeral(channel=channel, user=user, text=t(key, lang))
