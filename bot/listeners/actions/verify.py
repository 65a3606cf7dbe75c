""""Verify exactly": a placeholder in the thread, the trace on the heavy queue, the placeholder
edited with each phase of the trace as it starts (bot.verify.TraceProgress: at most one edit per
ADVISOR_VERIFY_EDIT_INTERVAL_S, chat.update's Tier 3 pace), then into trace vs estimate (or into
why not, with a way to ask again)."""

from __future__ import annotations

from advisor.errors import AdvisorError
from advisor.i18n import t
from advisor.spec import SpecRequest
from advisor.statedb import Tx
from bot.delivery import post_once
from bot.listeners.actions.clicked import Click
from bot.render.blockkit import section
from bot.render.simple import render_notice
from bot.render.verify import render_progress, render_verify
from bot.services import MAX_PENDING_HEAVY, Services
from bot.store import Job, NewJob
from bot.verify import TraceProgress, compare


def start_verify(services: Services, job: Job, click: Click) -> None:
    """Post the placeholder once; in the transaction that records it, queue the trace and end
    this job. A full heavy queue is said plainly (and the click can be made again)."""
    lang, model = click.answer.lang, click.answer.data.get("model") or ""
    ahead = services.heavy_backlog()
    store, client = services.store, services.client
    if ahead >= MAX_PENDING_HEAVY:
        store.release(click.key)
        client.chat_postEphemeral(channel=click.channel, user=click.user, text=t("bot.verify.busy", lang, ahead=ahead))
        return
    text = t("bot.verify.started", lang, model=model)
    notice = text + ("\n" + t("bot.verify.queued", lang, ahead=ahead) if ahead else "")

    def on_posted(tx: Tx, ts: str) -> None:
        where = {**click.where, "placeholder_ts": ts}
        store.add_job(NewJob(f"{job.key}#trace", "verify_trace", {
            "channel": click.channel, "placeholder_ts": ts, "lang": lang, "key": click.key, "model": model,
            "request": click.answer.request.model_dump(mode="json", exclude_none=True) if click.answer.request else None,
            "where": where, "release": [click.key], "failure_notice": "bot.verify.failed"}, queue="heavy"), tx)
        store.finish(job, {"placeholder_ts": ts}, tx)

    post_once(store, client, f"{job.key}#placeholder", channel=click.channel, thread_ts=click.answer.thread_ts,
              text=text, blocks=[section(notice)], job_id=job.id, on_posted=on_posted)


def run_verify_trace(services: Services, job: Job) -> None:
    p = job.payload
    lang, client = p["lang"], services.client
    request = SpecRequest.model_validate(p["request"]) if p.get("request") else SpecRequest()
    model = p.get("model") or request.model or ""

    def edit(phase: str) -> None:  # the placeholder, with the phase now running
        text, blocks = render_progress(model, phase, lang)
        client.chat_update(channel=p["channel"], ts=p["placeholder_ts"], text=text, blocks=blocks)

    progress = TraceProgress(edit, services.settings.verify_edit_interval_s)
    try:
        comparison = compare(request, services.catalog, on_progress=progress)
    except AdvisorError as exc:  # no torch (MissingExtra), or a spec the tracer refuses
        services.store.release(p["key"])
        client.chat_update(channel=p["channel"], ts=p["placeholder_ts"], text=str(exc),
                           blocks=render_notice("bot.verify.unavailable", lang, reason=str(exc)))
        return
    client.chat_update(channel=p["channel"], ts=p["placeholder_ts"], text=t("bot.verify.title", lang),
                       blocks=render_verify(comparison, lang))
