"""Build the Bolt app: one WebClient on SLACK_API_URL, the services, the listeners, the error
handler. The same app serves HTTP mode (bot.server) and Socket Mode (bot.__main__)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.errors import apologize, where_from_body
from bot.listeners import register_listeners
from bot.services import Asker, Services, build_services
from bot.settings import Settings

logger = logging.getLogger("bot")


def make_client(settings: Settings) -> WebClient:
    """Every Web API call of the process goes through a client made here (SLACK_API_URL)."""
    return WebClient(token=settings.bot_token, base_url=settings.api_url)


# Asked once at start-up, before any worker thread: loads the message catalog, the parser's name
# matchers and the ranking's caches, so the first person does not wait for them (and the lazy
# loaders never race between threads).
WARMUP_QUESTION = "qlora llama-3-70b seq 8192"


def build_app(settings: Settings, *, advisor: Asker | None = None) -> tuple[App, Services]:
    from advisor.i18n import messages

    messages()
    client = make_client(settings)

    def on_work_error(error: BaseException, where: dict[str, Any]) -> None:
        apologize(client, error, where)

    services = build_services(settings, on_work_error, advisor=advisor)
    if services.pilots is None:  # the pilot flow (bot/pilots.py), configured by ADVISOR_PILOT_*
        from bot.pilots import flow_from_settings
        from bot.pilots_policy import PilotSettings

        pilot_settings = settings.pilots or PilotSettings.from_env({})
        services.pilots = flow_from_settings(pilot_settings, state_db=settings.state_db, catalog=services.catalog)
    app = App(
        client=client,
        signing_secret=settings.signing_secret,
        request_verification_enabled=not settings.socket_mode,
        # Listeners only ack and hand work to bot.work pools (well under a millisecond), so they
        # run on the request's own thread and the response leaves when they return: no executor
        # hop, no 10 ms ack polling. Measured with benchmarks/bot_latency.py at 100 commands/s:
        # ack p99 315 ms with False, 173 ms with True (switch interval 5 ms in both).
        process_before_response=True,
        logger=logging.getLogger("slack_bolt"),
    )
    services.advisor.ask(WARMUP_QUESTION)
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
