""""Verify exactly": a placeholder in the thread at once, the trace on the heavy pool, then the
placeholder is edited into trace vs estimate."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext
from slack_sdk import WebClient

from advisor.errors import AdvisorError
from advisor.i18n import t
from bot.listeners.actions.clicked import Click, claim_click
from bot.listeners.submit import submit
from bot.render.answer import ACTION_VERIFY
from bot.errors import where_from_body
from bot.render.blockkit import section
from bot.render.simple import render_notice
from bot.render.verify import render_verify
from bot.services import Services
from bot.verify import compare


def verify_exactly(ack: Ack, body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    ack()
    services = context["services"]
    submit(services.answers, client, where_from_body(body), start_verify, services, client, body)


def start_verify(services: Services, client: WebClient, body: dict[str, Any]) -> None:
    """Claim the click, post the placeholder in the thread, queue the trace on the heavy pool."""
    click = claim_click(services, client, body, ACTION_VERIFY)
    if click is None:
        return
    lang, model = click.answer.lang, click.answer.data.get("model") or ""
    text = t("bot.verify.started", lang, model=model)
    ahead = services.heavy.pending
    notice = text + ("\n" + t("bot.verify.queued", lang, ahead=ahead) if ahead else "")
    placeholder = client.chat_postMessage(channel=click.channel, thread_ts=click.answer.thread_ts, text=text,
                                          blocks=[section(notice)])
    where = {**click.where, "placeholder_ts": placeholder["ts"]}
    if not submit(services.heavy, client, where, run_verify, services, client, click, placeholder["ts"]):
        services.store.release(click.key)


def run_verify(services: Services, client: WebClient, click: Click, placeholder_ts: str) -> None:
    lang = click.answer.lang
    try:
        comparison = compare(click.answer.request, services.catalog)
    except AdvisorError as exc:  # no torch (MissingExtra), or a spec the tracer refuses
        services.store.release(click.key)
        client.chat_update(channel=click.channel, ts=placeholder_ts, text=str(exc),
                           blocks=render_notice("bot.verify.unavailable", lang, reason=str(exc)))
        return
    except BaseException:
        services.store.release(click.key)  # let the person try again after the apology
        raise
    blocks = render_verify(comparison, lang)
    client.chat_update(channel=click.channel, ts=placeholder_ts, text=t("bot.verify.title", lang), blocks=blocks)
