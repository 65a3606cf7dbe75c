""""Show chart": the PNG is rendered on the heavy queue and uploaded to the thread once
(bot.delivery.upload_once: files.getUploadURLExternal, the upload, files.completeUploadExternal).
A chart that could not be uploaded says so and can be asked for again."""

from __future__ import annotations

import re

from advisor.errors import AdvisorError
from advisor.i18n import t
from advisor.statedb import Tx
from bot.chart import render_chart
from bot.delivery import post_once, upload_once
from bot.listeners.actions.clicked import Click
from bot.render.simple import render_notice
from bot.services import Services
from bot.store import Job, NewJob


def start_chart(services: Services, job: Job, click: Click) -> None:
    """Queue the chart on the heavy queue, ending this job in the same transaction."""
    with services.store.transaction() as tx:
        services.store.add_job(NewJob(f"{job.key}#chart", "chart", {
            "channel": click.channel, "message_ts": click.message_ts, "user": click.user, "key": click.key,
            "where": {**click.where, "thread_ts": None}, "release": [click.key],
            "failure_notice": "bot.chart.failed"}, queue="heavy"), tx)
        services.store.finish(job, {"chart": f"{job.key}#chart"}, tx)


def run_chart(services: Services, job: Job) -> None:
    p = job.payload
    store, client = services.store, services.client
    answer = store.answer(p["channel"], p["message_ts"])
    if answer is None:
        store.release(p["key"])
        client.chat_postEphemeral(channel=p["channel"], user=p["user"], text=t("bot.action.gone", "en"))
        return
    model = answer.data.get("model") or ""
    try:
        png = render_chart(answer.data, answer.lang)
    except AdvisorError as exc:  # matplotlib missing (MissingExtra)
        store.release(p["key"])
        post_once(store, client, f"{job.key}#unavailable", channel=p["channel"], thread_ts=answer.thread_ts,
                  text=str(exc), blocks=render_notice("bot.verify.unavailable", answer.lang, reason=str(exc)))
        return
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-") or "job"

    def on_posted(tx: Tx, file_id: str) -> None:
        store.finish(job, {"file": file_id}, tx)

    upload_once(store, client, f"{job.key}#upload", channel=p["channel"], thread_ts=answer.thread_ts, content=png,
                filename=f"chart-{slug}.png", title=t("chart.file_title", answer.lang, model=model),
                initial_comment=t("chart.comment", answer.lang, model=model), job_id=job.id, on_posted=on_posted)
