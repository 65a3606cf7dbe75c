""""Launch config": the answer's button posts, in its thread, a ready launch config for the
answer's recommended plan (advisor.launch: ``choose_plan`` at the plan's GPU and count,
``launch_config``, ``render``), TRL's first, with buttons for the same plan as axolotl,
torchtune, SkyPilot or a Ray job. A config longer than a section holds (3000 characters,
bot/render/launch.py) is uploaded as a snippet file (bot.delivery.upload_once: files.
getUploadURLExternal, the upload, files.completeUploadExternal; the manifest's files:write).

Both buttons are recorded as ``click`` jobs by the generic click listener (bot/listeners/actions/
clicked.py, registered here for their action ids) and run by ``run_launch`` from the click job
(bot/listeners/actions/dispatch.py). Every post is keyed by the click (bot.delivery.post_once):
a retried job never posts a config twice."""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt import App

from advisor.errors import AdvisorError
from advisor.i18n import t
from advisor.launch import FORMATS, LaunchOptions, choose_plan, launch_config, render
from advisor.statedb import Tx
from bot.delivery import post_once, upload_once
from bot.listeners.actions.clicked import on_click, tell
from bot.payload import place
from bot.render.answer import ACTION_LAUNCH
from bot.render.launch import ACTION_LAUNCH_FORMAT, fits_in_message, launch_message, title
from bot.render.simple import render_notice
from bot.services import Services
from bot.store import Job

logger = logging.getLogger(__name__)
ACTIONS = (ACTION_LAUNCH, ACTION_LAUNCH_FORMAT)
DEFAULT_FORMAT = "trl"


def register(app: App) -> None:
    """Before the catch-all click listener (bot/listeners/actions/__init__.py)."""
    app.action(ACTION_LAUNCH)(on_click)
    app.action(ACTION_LAUNCH_FORMAT)(on_click)


def _value(action: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(action.get("value") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def run_launch(services: Services, job: Job) -> None:
    """The click job of either button: the config for the answer's plan in the chosen format."""
    body = job.payload["body"]
    action = (body.get("actions") or [{}])[0]
    at = place(body)
    value = _value(action)
    if action.get("action_id") == ACTION_LAUNCH:  # on the answer itself
        answer_ts, fmt = at.message_ts, DEFAULT_FORMAT
    else:  # a format button on a launch message: the answer it is for rides in the value
        answer_ts, fmt = value.get("answer"), value.get("fmt")
    answer = services.store.answer(at.channel, str(answer_ts)) if answer_ts else None
    if answer is None or answer.request is None or fmt not in FORMATS:
        tell(services, at.channel, at.user, "bot.action.gone", answer.lang if answer else "en")
        return
    lang = answer.lang
    # the answer's GPU; the count (and its sharding) is the smallest that fits there, as the answer
    # ranked it (advisor.launch.choose_plan): naming the count would also pin the request's default
    # sharding (DDP), which a sharded plan does not use
    request = answer.request.model_copy(update={"gpu": value["gpu"]} if isinstance(value.get("gpu"), str) else {})
    try:
        plan = choose_plan(request, services.catalog, calibration=getattr(services.advisor, "calibration", None))
        config = launch_config(plan, fmt, LaunchOptions())
    except AdvisorError as exc:  # a plan the tool cannot run (LaunchError): said in the thread
        message = t("bot.launch.failed", lang, message=str(exc))
        post_once(services.store, services.client, f"{job.key}#launch", channel=at.channel,
                  thread_ts=answer.thread_ts, text=message, blocks=render_notice("bot.launch.failed", lang,
                                                                                  message=str(exc)), job_id=job.id)
        return
    plan_value = {"answer": answer.ts, "gpu": plan.gpu.id, "num_gpus": plan.num_gpus}

    def on_posted(tx: Tx, ts: str) -> None:
        services.store.finish(job, {"launch": ts, "format": fmt}, tx)

    in_file = not fits_in_message(config)
    if in_file:
        head = title(plan, config, lang)
        upload_once(services.store, services.client, f"{job.key}#file", channel=at.channel, thread_ts=answer.thread_ts,
                    content=render(config).encode("utf-8"), filename=config.filename, title=head,
                    initial_comment=head, job_id=job.id)
    text, blocks = launch_message(plan, config, plan_value, lang, in_file=in_file)
    post_once(services.store, services.client, f"{job.key}#launch", channel=at.channel, thread_ts=answer.thread_ts,
              text=text, blocks=blocks, job_id=job.id, on_posted=on_posted)
