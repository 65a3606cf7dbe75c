"""`@advisor <text>` in a channel or a thread: answered in the thread like the slash command."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from advisor.parse import detect_language
from bot.conversation import Question, clean_text
from bot.listeners.events.claim import record_question


def on_mention(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
    services = context["services"]
    if event.get("bot_id"):
        return
    thread = event.get("thread_ts") or event["ts"]
    text = clean_text(event.get("text", ""))
    question = Question(text=text, channel=event["channel"], user=event.get("user", ""),
                        thread_ts=thread, addressed=True, bot_user=context.bot_user_id)
    where = {"channel": event["channel"], "thread_ts": thread, "user": event.get("user"), "lang": detect_language(text)}
    record_question(services, context, body, event, question, where)
