"""Where a Slack payload comes from: the one reader of channel, user, message ts, thread and
response_url for a slash command, an event or a click (block_actions), instead of each listener
and job digging them out of ``body`` its own way.

Shapes (Slack docs, "Interaction payloads" and "Events API"): a slash command carries
``channel_id``, ``user_id``, ``response_url``; an event ``event.channel``, ``event.user``,
``event.ts``, ``event.thread_ts``; a click ``channel.id`` / ``container.channel_id``,
``user.id``, ``message.ts`` / ``container.message_ts``, ``message.thread_ts`` /
``container.thread_ts``, ``response_url``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Place:
    channel: str | None
    user: str | None
    message_ts: str | None = None  # the message the event is, or the click was on
    thread_ts: str | None = None  # the thread to answer in (the message itself when top-level)
    response_url: str | None = None

    def where(self) -> dict[str, Any]:
        """The ``where`` of a job's payload (bot/jobs.py): where to tell the person."""
        out = {"channel": self.channel, "user": self.user, "thread_ts": self.thread_ts,
               "response_url": self.response_url}
        return {k: v for k, v in out.items() if v is not None or k in ("channel", "user")}


def place(body: dict[str, Any]) -> Place:
    """The Place of any payload (command, event, click)."""
    if "command" in body:
        return Place(body.get("channel_id"), body.get("user_id"), response_url=body.get("response_url"))
    event = body.get("event")
    if isinstance(event, dict):
        return Place(event.get("channel"), event.get("user"), message_ts=event.get("ts"),
                     thread_ts=event.get("thread_ts") or event.get("ts"))
    message = body.get("message") or {}
    container = body.get("container") or {}
    message_ts = message.get("ts") or container.get("message_ts")
    return Place(channel=(body.get("channel") or {}).get("id") or container.get("channel_id"),
                 user=(body.get("user") or {}).get("id"), message_ts=message_ts,
                 thread_ts=message.get("thread_ts") or container.get("thread_ts") or message_ts,
                 response_url=body.get("response_url"))
