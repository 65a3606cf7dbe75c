"""Messages: replies in a thread the bot answered are follow-ups (deltas against the thread's
spec); a direct message to the bot is a question. Everything else is ignored: the bot's own and
other bots' messages, edits (message_changed), deletions, joins and other subtypes, and top-level
channel chatter (a mention arrives separately as app_mention)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import BoltContext

from advisor.errors import StateUnavailable
from advisor.parse import detect_language
from bot.conversation import Question, clean_text
from bot.listeners.events.claim import record_question
from bot.listeners.record import tell_unrecorded

logger = logging.getLogger(__name__)

# Subtypes that are a person writing (Slack docs, "message" event subtypes): a reply also sent
# to the channel, and a message with a file attached.
PERSON_SUBTYPES = {None, "thread_broadcast", "file_share"}


def on_message(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
    services = context["services"]
    if event.get("subtype") not in PERSON_SUBTYPES or event.get("bot_id") or not event.get("user"):
        return
    channel, ts, thread = event["channel"], event["ts"], event.get("thread_ts")
    direct = event.get("channel_type") == "im"
    in_thread = thread is not None and thread != ts
    if not in_thread and not direct:
        return
    try:
        state = services.store.thread(channel, thread) if in_thread else None
    except StateUnavailable as exc:  # nothing can be recorded either: say so, once, where they wrote
        logger.error("cannot read the thread %s/%s: %s", channel, thread, exc)
        tell_unrecorded(services, {"channel": channel, "thread_ts": thread or ts, "user": event.get("user")},
                        f"message:{channel}:{ts}")
        return
    if in_thread and not direct and state is None:
        return
    text = event.get("text", "")
    mentioned = bool(context.bot_user_id) and f"<@{context.bot_user_id}" in text
    # A reply the advisor cannot read as a change is answered only when it was meant for the
    # bot (a DM, a mention, or a question); "thanks!" between teammates gets no reply.
    addressed = direct or mentioned or "?" in text
    thread = thread if in_thread else ts
    question = Question(text=clean_text(text), channel=channel, user=event["user"], thread_ts=thread,
                        addressed=addressed, bot_user=context.bot_user_id)
    where = {"channel": channel, "thread_ts": thread, "user": event["user"],
             "lang": detect_language(question.text, state.lang if state else None)}
    record_question(services, context, body, event, question, where)
