"""One question, one answer: ask the advisor (with the thread's stored spec), render, post once,
and remember the thread in the same transaction. Shared by the slash command, mentions, thread
replies and DMs; runs as an outbox job (bot/outbox.py) after the ack."""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackApiError

from advisor.i18n import t
from advisor.spec import SpecRequest
from advisor.statedb import Tx
from bot.delivery import post_once
from bot.render import blockkit as bk
from bot.render.answer import render_answer
from bot.render.labels import changes
from bot.render.simple import render_catalog, render_help, render_text
from bot.services import Services
from bot.slack import webhook
from bot.store import Job

logger = logging.getLogger(__name__)

NUMBERS_KINDS = ("estimate", "followup", "compare")
PRIVATE_KINDS = ("clarify", "help")
# chat.postMessage errors meaning "you cannot post here", answered through the command's
# response_url instead (Slack docs, chat.postMessage "Errors").
CANNOT_POST = {"not_in_channel", "channel_not_found", "is_archived", "restricted_action"}
_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


@dataclass(frozen=True)
class Question:
    text: str
    channel: str
    user: str
    thread_ts: str | None = None  # the thread to answer in; None: a new message in the channel
    addressed: bool = True  # False: a thread reply that did not mention the bot
    response_url: str | None = None  # slash commands: the fallback when the bot cannot post
    show_question: bool = False  # slash commands: quote who asked what (nobody saw the command)
    bot_user: str | None = None  # the bot's user id, to name it in hints


def clean_text(text: str) -> str:
    """Slack message text as typed: mentions removed, HTML entities and <url|label> undone."""
    text = _MENTION.sub(" ", text or "")
    text = re.sub(r"<(?:https?|mailto):[^|>]*\|([^>]*)>", r"\1", text)
    text = re.sub(r"<((?:https?|mailto):[^>]*)>", r"\1", text)
    return " ".join(html.unescape(text).split())


def answer_question(services: Services, q: Question, job: Job | None = None) -> str | None:
    """Answer ``q``; returns the ts of the posted answer (None when nothing was posted).

    With ``job`` (an outbox job), the answer is posted at most once (bot.delivery, key
    ``<job key>#answer``) and the thread's new spec, the stored answer and the job's end are
    committed in one transaction with the delivery; the thread state is read when the job runs,
    so a follow-up queued behind another in the same thread sees the spec the first one left."""
    store, client = services.store, services.client
    state = store.thread(q.channel, q.thread_ts) if q.thread_ts else None
    previous = state.request if state else None
    answer = services.advisor.ask(q.text, previous=previous, lang_hint=state.lang if state else None)
    if answer.kind == "clarify" and not q.addressed:
        logger.debug("thread chatter not understood, staying quiet: %r", q.text[:80])
        return None
    data = dict(answer.data or {})  # for an estimate: the Answer's dump (schema_version in it), stored as is
    blocks = render(services, answer, data, q, previous)
    text = bk.clip(answer.text or t("bot.empty_answer", answer.lang), bk.MAX_FALLBACK_TEXT)
    if answer.kind in PRIVATE_KINDS and q.response_url and q.thread_ts is None:
        # A slash command the advisor could not read: only the person who typed it sees the
        # question back, instead of the whole channel.
        webhook(q.response_url).send(text=text, blocks=blocks, response_type="ephemeral")
        return None

    def on_posted(tx: Tx, ts: str) -> None:
        remember(services, q, answer, data, previous, ts, tx)
        if job is not None:
            store.finish(job, {"ts": ts}, tx)

    try:
        return post_once(store, client, f"{job.key if job else 'direct'}#answer", channel=q.channel,
                         thread_ts=q.thread_ts, text=text, blocks=blocks, job_id=job.id if job else None,
                         on_posted=on_posted, unfurl_links=False, unfurl_media=False)
    except SlackApiError as err:
        code = err.response.get("error")
        if code not in CANNOT_POST or not q.response_url:
            raise
        logger.info("cannot post in %s (%s); answering through response_url", q.channel, code)
        hint = bk.context(t("bot.not_in_channel", answer.lang, bot=f"<@{q.bot_user}>" if q.bot_user else "@advisor"))
        webhook(q.response_url).send(text=text, blocks=bk.fit(blocks + [hint], t("bot.answer.overflow", answer.lang)),
                                     response_type="in_channel")
        return None


def render(services: Services, answer: Any, data: dict[str, Any], q: Question,
           previous: SpecRequest | None) -> list[bk.Block]:
    lang = answer.lang
    if answer.kind in NUMBERS_KINDS:
        changed = None
        if answer.kind == "followup" and previous is not None and answer.request is not None:
            changed = changes(previous.said(), answer.request.said(), lang)
        numbers = answer.answer if answer.answer is not None else data  # the typed Answer (advisor.answer_model)
        return render_answer(numbers, lang, kind=answer.kind, changed=changed, head=data.get("head"),
                             asked_by=q.user if q.show_question else None, question=q.text,
                             table_layout=services.settings.table_layout)
    if answer.kind == "help":
        return render_help(lang)
    if answer.kind == "catalog" and len(data.get("gpus") or []) != 1:
        return render_catalog(services.catalog, lang)
    example = data.get("example")
    return render_text(answer.text, lang, example=example if example and example not in answer.text else None)


def remember(services: Services, q: Question, answer: Any, data: dict[str, Any], previous: SpecRequest | None,
             ts: str, tx: Tx | None = None) -> None:
    """Store what the thread now means, and the answer behind the buttons of this message
    (inside the delivery's transaction when ``tx`` is given)."""
    store = services.store
    root = q.thread_ts or ts
    if q.user and services.extra.get("home") is not None:  # the App Home tab's plans and language (bot/home.py)
        services.extra["home"].remember_asked(q.user, q.channel, ts, root, answer.kind, answer.lang, tx=tx)
    if answer.kind == "reset":
        store.save_thread(q.channel, root, SpecRequest(), answer.lang, ts, tx=tx)
        return
    request = answer.request if answer.request is not None else previous
    if answer.kind in NUMBERS_KINDS:
        store.save_answer(q.channel, ts, root, answer.kind, answer.lang, request, data, tx=tx)
    if request is not None:
        store.save_thread(q.channel, root, request, answer.lang, ts, tx=tx)
    elif q.thread_ts and previous is not None:
        store.touch_thread(q.channel, root, answer.lang, ts, tx=tx)
    else:
        # A first answer without numbers (help, a FAQ): still a thread we follow, so a reply in
        # it is read as a question against an empty spec.
        store.save_thread(q.channel, root, SpecRequest(), answer.lang, ts, tx=tx)
