"""The outbox jobs of the bot and what runs them (bot/outbox.py leases, bot/store.py stores).

    question       answer a command, mention, thread reply or DM (bot.conversation)
    private        help, the catalog or "pilots are off" through the command's response_url
    catalog_admin  `/finetune catalog set-price ...` (bot.admin), answered privately
    click          a button on an answer: verify, chart, pilot (when off), or one we do not know
    verify_trace   the exact trace behind a "Verify exactly" placeholder (heavy queue)
    chart          the memory chart of an answer, uploaded to its thread (heavy queue)
    pilot_*        the pilot flow's jobs (bot.pilot.flow: propose, confirm, decline, cancel, final)
    home           publish a person's App Home tab (bot.home), on app_home_opened
    spend          `/finetune spend`: what pilots cost, answered privately (bot.home)
    pilot_recalibrate  the thread's estimate re-run after a pilot (bot.pilot.recalibrate)

A job's payload carries ``where`` (channel, thread, user, response_url, language): the failure
handler tells the person there once (``<job key>#apology`` is a keyed delivery), and releases the
claims in ``release`` so that what failed can be asked for again.
"""

from __future__ import annotations

import logging
from typing import Any

from advisor.i18n import fields_of, messages, t
from bot.conversation import Question, answer_question
from bot.delivery import post_once
from bot.render.simple import render_notice
from bot.services import Services
from bot.slack import describe, send_private
from bot.store import Job

logger = logging.getLogger(__name__)


def handlers(services: Services) -> dict[str, Any]:
    from bot.listeners.actions.chart import run_chart
    from bot.listeners.actions.dispatch import run_click
    from bot.listeners.actions.verify import run_verify_trace
    from bot.home import publish_home, run_spend
    from bot.listeners.commands.finetune import run_catalog_admin, run_private
    from bot.pilot.recalibrate import run_recalibrate

    table = {
        "question": lambda job: answer_question(services, Question(**job.payload["question"]), job),
        "private": lambda job: run_private(services, job),
        "catalog_admin": lambda job: run_catalog_admin(services, job),
        "click": lambda job: run_click(services, job),
        "verify_trace": lambda job: run_verify_trace(services, job),
        "chart": lambda job: run_chart(services, job),
        "home": lambda job: publish_home(services, job.payload["user"]),
        "spend": lambda job: run_spend(services, job),
        "pilot_recalibrate": lambda job: run_recalibrate(services, job),
    }
    if services.pilots is not None:
        table.update(services.pilots.handlers())
    return table


def on_failure(services: Services, job: Job, error: BaseException) -> None:
    """A job failed for good: release what it claimed and tell the person, once."""
    payload = job.payload
    for key in payload.get("release") or []:
        try:
            services.store.release(key)
        except Exception:
            logger.exception("could not release %s", key)
    where = dict(payload.get("where") or {})
    notice = payload.get("failure_notice") or "bot.error.apology"
    apologize(services, where, notice, f"{job.key}#apology", reason=describe(error))


def apologize(services: Services, where: dict[str, Any], key: str, delivery_key: str, **fields: Any) -> None:
    """Post ``key`` where the person waits: edit the placeholder, reply in the thread (once per
    ``delivery_key``), or privately through the response_url or an ephemeral message."""
    lang = where.get("lang") or "en"
    needed = {name: fields.get(name, "") for name in fields_of(messages()[key]["en"])}
    text, blocks = t(key, lang, **needed), render_notice(key, lang, **needed)
    channel = where.get("channel")
    client = services.client
    if channel and where.get("placeholder_ts"):
        client.chat_update(channel=channel, ts=where["placeholder_ts"], text=text, blocks=blocks)
    elif channel and where.get("thread_ts"):
        post_once(services.store, client, delivery_key, channel=channel, thread_ts=where["thread_ts"], text=text,
                  blocks=blocks)
    elif where.get("response_url"):
        send_private(where["response_url"], text, blocks)
    elif channel and where.get("user"):
        client.chat_postEphemeral(channel=channel, user=where["user"], text=text, blocks=blocks)
    else:
        logger.warning("no place to tell anyone about the failure above")
