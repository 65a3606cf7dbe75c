"""`@advisor <text>` in a channel or a thread: answered in the thread like the slash command."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext
from slack_sdk import WebClient

from advisor.parse import detect_language
from bot.conversation import Question, answer_question, clean_text
from bot.listeners.events.claim import claim_message
from bot.listeners.submit import submit


def on_mention(event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    services = context["services"]
    if event.get("bot_id") or not claim_message(services, event):
        return
    thread = event.get("thread_ts") or event["ts"]
    text = clean_text(event.get("text", ""))
    question = Question(text=text, channel=event["channel"], user=event.get("user", ""),
                        thread_ts=thread, addressed=True, bot_user=context.bot_user_id)
    where = {"channel": event["channel"], "thread_ts": thread, "user": event.get("user"), "lang": detect_language(text)}
    submit(services.answers, client, where, answer_question, services, client, question)
