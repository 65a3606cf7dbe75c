"""The ``click`` job: what a recorded click does, by action id."""

from __future__ import annotations

import logging

from bot.listeners.actions.chart import start_chart
from bot.listeners.actions.clicked import Click, action_key, tell
from bot.listeners.actions.launch import ACTIONS as LAUNCH_ACTIONS
from bot.listeners.actions.launch import run_launch
from bot.listeners.actions.verify import start_verify
from bot.payload import place
from bot.render.answer import ACTION_CHART, ACTION_PILOT, ACTION_VERIFY
from bot.services import Services
from bot.store import Job

logger = logging.getLogger(__name__)


def run_click(services: Services, job: Job) -> None:
    body, action_id = job.payload["body"], job.payload["action_id"]
    at = place(body)
    channel, user, message_ts = at.channel, at.user, at.message_ts
    if not (channel and user):
        logger.info("a click without a channel or a user (%r); nothing to answer", action_id)
        return
    answer = services.store.answer(channel, message_ts) if message_ts else None
    if action_id in (ACTION_VERIFY, ACTION_CHART):
        key = action_key(action_id, channel, message_ts)
        if answer is None:
            services.store.release(key)
            tell(services, channel, user, "bot.action.gone", "en")
            return
        click = Click(channel, user, message_ts, key, answer)
        (start_verify if action_id == ACTION_VERIFY else start_chart)(services, job, click)
        return
    if action_id in LAUNCH_ACTIONS:  # "Launch config" and its format buttons
        run_launch(services, job)
        return
    if action_id == ACTION_PILOT:  # no pilot flow wired (it registers its own listener first)
        tell(services, channel, user, "bot.pilot.unavailable", answer.lang if answer else "en")
        return
    logger.info("unknown action %r from %s", action_id, user)
    tell(services, channel, user, "bot.action.gone", "en")
