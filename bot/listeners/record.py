"""The listener side of durable work: claim what the request is and write its job, in one
transaction, before the ack leaves (bot/store.py ``StateStore.enqueue``).

Claims of a request (any one already taken makes it a duplicate, acknowledged and dropped):

- ``request:<X-Slack-Signature>``: the same signed body (same signature, same timestamp) sent
  again, a replay, is processed once (HTTP mode; Socket Mode has no signatures);
- ``event:<event_id>``: Slack's retries of an event (``X-Slack-Retry-Num``) carry the same id;
- ``message:<channel>:<ts>``: one message delivered as both ``app_mention`` and ``message``;
- ``command:<trigger_id>`` / ``click:<trigger_id>``: one slash command or one click.

When the state database takes no writes (a full or read-only disk, PostgreSQL down) nothing can
be promised: the person is told once, plainly, that the request was not recorded (the slash
command in its own ack, an event or a click by a message in the background), instead of an ack
followed by apologies; ``/healthz`` fails meanwhile.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from advisor.errors import StateUnavailable
from advisor.i18n import t
from bot.render.simple import render_notice
from bot.services import Services
from bot.slack import webhook
from bot.store import NewJob

logger = logging.getLogger(__name__)

# "Not recorded" notices leave from their own small pool, not from the request thread (the ack
# must not wait on a Slack round trip), and each place is told once per this many keys.
_NOTICES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="unrecorded-notice")
_TOLD: OrderedDict[str, None] = OrderedDict()
_TOLD_MAX = 10_000
_lock = threading.Lock()


def request_claims(context: Any) -> list[tuple[str, str]]:
    """The request-level claims the middleware put in the context (the signature key)."""
    return list(context.get("request_claims") or []) if hasattr(context, "get") else []


@dataclass(frozen=True)
class Recorded:
    """What ``record`` did: written (``ok``), a duplicate (``conflict``: the claim already
    taken), or nothing at all because the state database is unavailable (``unavailable``)."""

    ok: bool
    conflict: str | None = None
    unavailable: bool = False


def record(services: Services, context: Any, job: NewJob, claims: list[tuple[str, str]],
           where: dict[str, Any], *, tell: bool = True) -> Recorded:
    """Write ``job`` with the request's claims and ``claims``, in one transaction, and wake the
    local workers. When the database is unavailable the person is told (unless ``tell`` is
    False: the caller says it in the ack)."""
    try:
        conflict = services.store.enqueue_or_conflict(job, request_claims(context) + claims)
    except StateUnavailable as exc:
        logger.error("could not record %s: %s", job.key, exc)
        if tell:
            tell_unrecorded(services, where, job.key)
        return Recorded(False, unavailable=True)
    if conflict is None:
        services.wake()
        return Recorded(True)
    logger.info("%s not recorded again: %s was claimed before (a retry, a replay, a double delivery or a "
                "second click); acknowledging only", job.key, conflict)
    return Recorded(False, conflict=conflict)


def tell_unrecorded(services: Services, where: dict[str, Any], key: str) -> None:
    place = f"{where.get('channel')}:{where.get('thread_ts') or where.get('response_url') or where.get('user')}"
    with _lock:
        if place in _TOLD:
            return
        _TOLD[place] = None
        while len(_TOLD) > _TOLD_MAX:
            _TOLD.popitem(last=False)
    _NOTICES.submit(_tell, services, dict(where))


def _tell(services: Services, where: dict[str, Any]) -> None:
    lang = where.get("lang") or "en"
    text, blocks = t("bot.unrecorded", lang), render_notice("bot.unrecorded", lang)
    try:
        if where.get("response_url"):
            webhook(where["response_url"]).send(text=text, blocks=blocks, response_type="ephemeral")
        elif where.get("channel") and where.get("thread_ts"):
            services.client.chat_postMessage(channel=where["channel"], thread_ts=where["thread_ts"], text=text,
                                             blocks=blocks)
        elif where.get("channel") and where.get("user"):
            services.client.chat_postEphemeral(channel=where["channel"], user=where["user"], text=text)
    except Exception:  # a notice that cannot be delivered is logged with its traceback, not raised
        logger.exception("could not tell %s that the request was not recorded", where.get("user"))
