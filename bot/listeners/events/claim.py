"""A message is answered once, whichever event brings it first: an @mention inside a thread
arrives both as ``app_mention`` and as ``message`` (different event ids, same channel and ts).
Both claims are written with the job, in one transaction (bot/listeners/record.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from bot.conversation import Question
from bot.listeners.record import record
from bot.services import Services
from bot.store import NewJob


def record_question(services: Services, context: Any, body: dict[str, Any], event: dict[str, Any],
                    question: Question, where: dict[str, Any]) -> None:
    """The question's job, in the lane of its thread (follow-ups in one thread run in order)."""
    key = f"message:{event['channel']}:{event['ts']}"
    claims = [(key, "message")]
    if body.get("event_id"):
        claims.append((f"event:{body['event_id']}", "event"))
    job = NewJob(key, "question", {"question": asdict(question), "where": where},
                 lane=f"thread:{question.channel}:{question.thread_ts}")
    record(services, context, job, claims, where)
