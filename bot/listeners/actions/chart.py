""""Show chart": render the PNG on the heavy pool and upload it to the thread (files_upload_v2)."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from advisor.errors import AdvisorError
from advisor.i18n import t
from bot.chart import render_chart
from bot.listeners.actions.clicked import Click, claim_click
from bot.listeners.submit import submit
from bot.render.answer import ACTION_CHART
from bot.errors import where_from_body
from bot.render.simple import render_notice
from bot.services import Services


def show_chart(ack: Ack, body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    ack()
    services = context["services"]
    submit(services.answers, client, where_from_body(body), start_chart, services, client, body)


def start_chart(services: Services, client: WebClient, body: dict[str, Any]) -> None:
    click = claim_click(services, client, body, ACTION_CHART)
    if click is None:
        return
    if not submit(services.heavy, client, click.where, upload_chart, services, client, click):
        services.store.release(click.key)


def upload_chart(services: Services, client: WebClient, click: Click) -> None:
    answer = click.answer
    model = answer.data.get("model") or ""
    try:
        png = render_chart(answer.data, answer.lang)
    except AdvisorError as exc:  # matplotlib missing (MissingExtra)
        services.store.release(click.key)
        client.chat_postMessage(channel=click.channel, thread_ts=answer.thread_ts, text=str(exc),
                                blocks=render_notice("bot.verify.unavailable", answer.lang, reason=str(exc)))
        return
    except BaseException:
        services.store.release(click.key)
        raise
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-") or "job"
    client.files_upload_v2(channel=click.channel, thread_ts=answer.thread_ts, file=png,
                           filename=f"memory-{slug}.png", title=t("bot.chart.title", answer.lang, model=model),
                           initial_comment=t("bot.chart.comment", answer.lang, model=model))
