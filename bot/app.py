"""Build the Bolt app: one WebClient on SLACK_API_URL, the services, the listeners, the error
handler. The same app serves HTTP mode (bot.server) and Socket Mode (bot.__main__)."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.errors import apologize, where_from_body
from bot.listeners import register_listeners
from bot.services import Asker, Services, build_services
from bot.settings import Settings

# Threads that run listeners up to their ack (Bolt's listener_executor; its default is 5).
# Listeners only ack, claim and submit (about a millisecond), so 16 absorb a burst of 100/s.
ACK_WORKERS = 16

logger = logging.getLogger("bot")


def make_client(settings: Settings) -> WebClient:
    """Every Web API call of the process goes through a client made here (SLACK_API_URL)."""
    return WebClient(token=settings.bot_token, base_url=settings.api_url)


def build_app(settings: Settings, *, advisor: Asker | None = None) -> tuple[App, Services]:
    client = make_client(settings)

    def on_work_error(error: BaseException, where: dict[str, Any]) -> None:
        apologize(client, error, where)

    services = build_services(settings, on_work_error, advisor=advisor)
    if services.pilots is None:  # the pilot flow (bot/pilots.py), configured by ADVISOR_PILOT_*
        import os

        from bot.pilots import flow_from_env

        services.pilots = flow_from_env(os.environ, state_db=settings.state_db, catalog=services.catalog)
    app = App(
        client=client,
        signing_secret=settings.signing_secret,
        request_verification_enabled=not settings.socket_mode,
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(max_workers=ACK_WORKERS, thread_name_prefix="bot-ack"),
        logger=logging.getLogger("slack_bolt"),
    )
    register_listeners(app, services)

    @app.error
    def on_listener_error(error: Exception, body: dict[str, Any], context: BoltContext) -> None:
        where = where_from_body(body)
        state = services.store.thread(where["channel"], where["thread_ts"]) \
            if where.get("channel") and where.get("thread_ts") else None
        apologize(client, error, {**where, "lang": state.lang if state else None})

    return app, services


def health(services: Services, mode: str) -> dict[str, Any]:
    return {
        "ok": True,
        "mode": mode,
        "gpus": len(services.catalog.gpus(offered_only=True)),
        "state_schema": services.store.version("bot"),
        "pending_answers": services.answers.pending,
        "pending_heavy": services.heavy.pending,
    }
