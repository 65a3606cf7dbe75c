"""Build the Bolt app of one process: the Web API client (bot/slack.py: slack_sdk's retry
handlers), ``auth.test`` at start (retried, then reported plainly), the services, the outbox
workers, the pilot flow, the listeners, the error handler. The same app serves HTTP mode (bot/web
.py, under gunicorn) and Socket Mode (bot/__main__.py)."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from slack_bolt import App, BoltContext
from slack_bolt.authorization import AuthorizeResult
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from advisor.errors import StateUnavailable
from bot.errors import apologize, where_from_body
from bot.listeners import register_listeners
from bot.services import Asker, Services, build_services
from bot.settings import Settings
from bot.slack import describe, make_client, retryable

logger = logging.getLogger("bot")

# Asked once at start-up, before any worker thread: loads the message catalog, the parser's name
# matchers and the ranking's caches, so the first person does not wait for them (and the lazy
# loaders never race between threads).
WARMUP_QUESTION = "qlora llama-3-70b seq 8192"
# auth.test at start: the client's handlers already retry 429, 5xx and connection errors within
# ADVISOR_SLACK_RETRY_S; beyond that, start-up keeps trying for ADVISOR_STARTUP_RETRY_S in all.
STARTUP_BACKOFF_S = (1, 2, 4, 8, 15)
HEALTH_TIMEOUT_S = 3


class StartupError(RuntimeError):
    """The bot cannot start; the message says why and what to check (no traceback)."""


def client_for(settings: Settings, token: str | None = "settings") -> WebClient:
    """Every Web API call of the process goes through a client made here (SLACK_API_URL)."""
    return make_client(settings.bot_token if token == "settings" else token, settings.api_url,
                       total_s=settings.slack_retry_s, timeout=settings.slack_timeout_s)


def authenticate(client: WebClient, settings: Settings, *, sleep=time.sleep) -> Any:
    """``auth.test``, retried while Slack is rate limiting, failing or unreachable; a refused
    token is said plainly at once, an unreachable Slack after ``startup_retry_s``."""
    deadline = time.monotonic() + settings.startup_retry_s
    attempt = 0
    while True:
        try:
            return client.auth_test()
        except SlackApiError as exc:
            code = exc.response.get("error")
            if not retryable(exc):
                raise StartupError(f"Slack refused the bot token ({code}) at {settings.api_url}: check "
                                   "SLACK_BOT_TOKEN (the Bot User OAuth Token, xoxb-...) and SLACK_API_URL "
                                   "if you set it.") from None
            last = f"Slack answered {getattr(exc.response, 'status_code', '?')} {code}"
        except OSError as exc:
            last = f"cannot reach it ({describe(exc)})"
        wait = STARTUP_BACKOFF_S[min(attempt, len(STARTUP_BACKOFF_S) - 1)]
        attempt += 1
        if time.monotonic() + wait > deadline:
            raise StartupError(f"Could not check the bot token with the Slack Web API at {settings.api_url}: {last}, "
                               f"{attempt} time(s) over {settings.startup_retry_s:.0f} s. Slack may be down "
                               "(https://status.slack.com) or the network blocked; the bot will start once "
                               "auth.test answers.")
        logger.warning("auth.test failed (%s); trying again in %s s", last, wait)
        sleep(wait)


def build_app(settings: Settings, *, advisor: Asker | None = None, deliver: bool = True,
              role: str = "all") -> tuple[App, Services]:
    """The app and its services. ``deliver``: run the outbox workers and the pilot watcher in
    this process (False: a web or socket process that only acks and records)."""
    from advisor.i18n import messages
    from advisor.pilot.launchers.env import child_environment
    from bot.jobs import handlers, on_failure
    from bot.outbox import Outbox, QueueSpec, worker_id
    from bot.pilot.flow import flow_from_settings

    messages()
    client = client_for(settings)
    auth = authenticate(client, settings)
    services = build_services(settings, client, advisor=advisor)
    pilot_env = child_environment(os.environ, deny=settings.child_env_deny)
    services.pilots = flow_from_settings(settings.pilots, state=services.store.db, catalog=services.catalog,
                                         env=pilot_env, env_deny=settings.child_env_deny)
    services.pilots.attach(services)

    def authorize(**_: Any) -> AuthorizeResult:
        # auth.test answered once at start: no Web API call on any request's path.
        return AuthorizeResult.from_auth_test_response(auth_test_response=auth, bot_token=settings.bot_token)

    app = App(
        client=client_for(settings, token=None),
        authorize=authorize,
        signing_secret=settings.signing_secret,
        request_verification_enabled=not settings.socket_mode,
        # Listeners only record and ack (well under a millisecond of work plus one transaction),
        # so they run on the request's own thread and the response leaves when they return: the
        # job is committed before Slack hears "200". Measured with benchmarks/bot_latency.py at
        # 100 commands/s: ack p99 315 ms with False, 173 ms with True (switch interval 5 ms).
        process_before_response=True,
        logger=logging.getLogger("slack_bolt"),
    )
    services.advisor.ask(WARMUP_QUESTION)
    register_listeners(app, services)

    @app.error
    def on_listener_error(error: Exception, body: dict[str, Any], context: BoltContext) -> None:
        where = where_from_body(body)
        if isinstance(error, StateUnavailable):
            logger.error("listener: %s", error)
            return
        apologize(client, error, where)

    if deliver:
        owner = worker_id()
        services.outbox = Outbox(services.store, handlers(services), lambda job, exc: on_failure(services, job, exc),
                                 queues=[QueueSpec("answers", settings.answer_workers),
                                         QueueSpec("heavy", settings.heavy_workers)],
                                 lease_s=settings.outbox_lease_s, poll_s=settings.outbox_poll_s, owner=owner).start()
        services.pilots.start_watcher(owner)
        services.store.prune()
    logger.info("%s process %s ready: state %s, %s delivery worker(s)", role, os.getpid(), services.store.db.describe(),
                services.outbox.workers if services.outbox else 0)
    return app, services


def health(services: Services, mode: str, *, slack_every_s: float = 30.0) -> dict[str, Any]:
    """What /healthz reports: the state database takes a write (a real transaction), the Web API
    answers (``api.test``, at most once per ``slack_every_s`` per process), the backlog."""
    report: dict[str, Any] = {"mode": mode, "pid": os.getpid(), "gpus": len(services.catalog.gpus(offered_only=True))}
    try:
        services.store.probe_write(f"{os.uname().nodename}:{os.getpid()}")
        report["state"] = {"writable": True, "backend": services.store.db.dialect,
                           "schema": services.store.version("bot"), "backlog": services.store.backlog()}
    except StateUnavailable as exc:
        report["state"] = {"writable": False, "backend": services.store.db.dialect, "error": str(exc)}
    except Exception as exc:  # reported, never raised: the health check must answer
        logger.exception("health: state database check failed")
        report["state"] = {"writable": False, "error": f"{type(exc).__name__}: {exc}"}
    cache = services.extra.setdefault("slack_health", {"at": -1e9, "ok": None, "error": None})
    if time.monotonic() - cache["at"] > slack_every_s or cache["ok"] is False:
        probe = services.extra.get("health_client")
        if probe is None:  # no retries and a short timeout: the health check answers in seconds
            probe = services.extra["health_client"] = make_client(None, services.settings.api_url, total_s=0,
                                                                  timeout=HEALTH_TIMEOUT_S)
        try:
            probe.api_test()
            cache.update(ok=True, error=None)
        except Exception as exc:
            cache.update(ok=False, error=describe(exc))
        cache["at"] = time.monotonic()
    report["slack"] = {"reachable": bool(cache["ok"]), **({"error": cache["error"]} if cache["error"] else {})}
    if services.outbox is not None:
        report["workers"] = {"owner": services.outbox.owner, "busy": services.outbox.busy,
                             "threads": services.outbox.workers}
    report["ok"] = bool(report["state"].get("writable")) and report["slack"]["reachable"]
    return report
