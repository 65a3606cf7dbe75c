"""Posting at most once per idempotency key, whatever Slack and the process do in between.

Slack's Web API has no idempotency key of its own, so the bot makes one out of what it already
has: each post carries its key in the message's metadata (``chat.postMessage`` ``metadata``:
``{"event_type": "advisor_delivery", "event_payload": {"key": ...}}``; Slack docs, "Message
metadata"), and the key is recorded in the ``deliveries`` table *before* the post. Then:

1. an earlier attempt completed the delivery (``posted``): nothing is posted, its ts is reused;
2. an earlier attempt started but never recorded the result (the process was killed between
   the post and the commit, or the answer to the post was lost: a 5xx, a dropped connection, a
   timeout), so the post may exist: the thread (``conversations.replies``) or the channel
   (``conversations.history``) is read with ``include_all_metadata`` since the delivery began,
   and a message carrying the key is adopted instead of posting again;
3. otherwise the message is posted; the ts, and what it means (``on_posted``: the thread's new
   spec, the stored answer, the job done), are committed in one transaction.

The fake Slack of the tests (tests/fakeslack.py) keeps messages with their metadata and answers
``conversations.replies``/``conversations.history`` like Slack, so the same code path runs there.

File uploads (``files.getUploadURLExternal``, the upload, ``files.completeUploadExternal``) carry
no metadata; the delivery row keeps the file id instead, and a resumed upload looks for a message
in the thread that shares that file.
"""

from __future__ import annotations

import logging
import time
import urllib.request
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient

from advisor.statedb import Tx
from bot.slack import ambiguous, describe
from bot.store import StateStore

logger = logging.getLogger(__name__)

EVENT_TYPE = "advisor_delivery"
# Posting again after an ambiguous failure: at most this many tries within one job attempt (the
# job itself is tried again later by the outbox).
MAX_POST_TRIES = 3
# How far back a resumed delivery looks: from a little before it began (clock skew between the
# bot's hosts and Slack's ts), at most this many pages of 200 messages.
LOOKBACK_SKEW_S = 120
MAX_PAGES = 5

OnPosted = Callable[[Tx, str], None]


def metadata(key: str) -> dict[str, Any]:
    return {"event_type": EVENT_TYPE, "event_payload": {"key": key}}


def carries(message: dict[str, Any], key: str) -> bool:
    meta = message.get("metadata") or {}
    return meta.get("event_type") == EVENT_TYPE and (meta.get("event_payload") or {}).get("key") == key


def find_posted(client: WebClient, channel: str, thread_ts: str | None, since: float,
                match: Callable[[dict[str, Any]], bool]) -> str | None:
    """The ts of a message in the thread (or the channel's top level) since ``since`` that
    ``match`` accepts; None when there is none."""
    oldest = f"{max(0.0, since - LOOKBACK_SKEW_S):.6f}"
    cursor = None
    for _ in range(MAX_PAGES):
        if thread_ts:
            page = client.conversations_replies(channel=channel, ts=thread_ts, oldest=oldest, limit=200,
                                                include_all_metadata=True, cursor=cursor)
        else:
            page = client.conversations_history(channel=channel, oldest=oldest, limit=200,
                                                include_all_metadata=True, cursor=cursor)
        for message in page.get("messages") or []:
            if match(message):
                return message["ts"]
        cursor = ((page.get("response_metadata") or {}).get("next_cursor")) or None
        if not cursor:
            return None
    return None


def post_once(store: StateStore, client: WebClient, key: str, *, channel: str, thread_ts: str | None,
              text: str, blocks: list | None = None, job_id: int | None = None,
              on_posted: OnPosted | None = None, **options: Any) -> str:
    """Post ``text``/``blocks`` once for ``key``; returns the message ts (an earlier one when it
    was already posted). ``on_posted(tx, ts)`` runs in the transaction that records it."""
    d = store.begin_delivery(key, job_id=job_id, channel=channel, thread_ts=thread_ts)
    if d.posted:
        return d.ts
    if d.attempts > 1:
        ts = find_posted(client, channel, thread_ts, d.created_at, lambda m: carries(m, key))
        if ts is not None:
            logger.info("delivery %s was already posted as %s; not posting it again", key, ts)
            return _record(store, key, ts, on_posted)
    for attempt in range(1, MAX_POST_TRIES + 1):
        try:
            result = client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text, blocks=blocks,
                                             metadata=metadata(key), **options)
        except Exception as exc:
            if not ambiguous(exc) or attempt == MAX_POST_TRIES:
                raise
            logger.warning("posting %s failed ambiguously (%s); looking for it before posting again", key, describe(exc))
            ts = find_posted(client, channel, thread_ts, d.created_at, lambda m: carries(m, key))
            if ts is not None:
                return _record(store, key, ts, on_posted)
            continue
        return _record(store, key, result["ts"], on_posted)
    raise AssertionError("unreachable")


def upload_once(store: StateStore, client: WebClient, key: str, *, channel: str, thread_ts: str | None,
                content: bytes, filename: str, title: str, initial_comment: str, job_id: int | None = None,
                on_posted: OnPosted | None = None) -> str:
    """files_upload_v2's three steps, once for ``key``; returns the file id."""
    d = store.begin_delivery(key, job_id=job_id, channel=channel, thread_ts=thread_ts)
    if d.posted:
        return d.ts
    if d.file_id and d.attempts > 1:
        if find_posted(client, channel, thread_ts, d.created_at, lambda m: _shares(m, d.file_id)):
            return _record(store, key, d.file_id, on_posted)
    url = client.files_getUploadURLExternal(filename=filename, length=len(content))
    file_id = url["file_id"]
    store.note_file(key, file_id)
    _upload(url["upload_url"], content, client.timeout)
    for attempt in range(1, MAX_POST_TRIES + 1):
        try:
            client.files_completeUploadExternal(files=[{"id": file_id, "title": title}], channel_id=channel,
                                                thread_ts=thread_ts, initial_comment=initial_comment)
        except Exception as exc:
            if not ambiguous(exc) or attempt == MAX_POST_TRIES:
                raise
            if find_posted(client, channel, thread_ts, d.created_at, lambda m: _shares(m, file_id)):
                break
            continue
        break
    return _record(store, key, file_id, on_posted)


def _shares(message: dict[str, Any], file_id: str) -> bool:
    return any(f.get("id") == file_id for f in message.get("files") or [])


def _upload(url: str, content: bytes, timeout: int, tries: int = 3) -> None:
    """Step 2 of files_upload_v2 (slack_sdk.web.internal_utils._upload_file_via_v2_url): POST the
    bytes to the URL Slack gave. Idempotent until the upload is completed, so retried plainly."""
    for attempt in range(1, tries + 1):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=content, method="POST"), timeout=timeout) as resp:
                if resp.status == 200:
                    return
                raise OSError(f"upload answered {resp.status}")
        except OSError:
            if attempt == tries:
                raise
            time.sleep(0.5 * 2 ** attempt)


def _record(store: StateStore, key: str, ts: str, on_posted: OnPosted | None) -> str:
    with store.transaction() as tx:
        store.posted(key, ts, tx)
        if on_posted is not None:
            on_posted(tx, ts)
    return ts
