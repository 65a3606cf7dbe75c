"""`python -m bot [all|web|socket|worker]` (docs/DESIGN.md, "Contracts": Bot).

    all      the default: HTTP mode under gunicorn on PORT (or Socket Mode when SLACK_APP_TOKEN
             is set), each process also answering from the outbox; one command runs everything
    web      HTTP mode under gunicorn on PORT: acknowledges and records requests (no answers)
    socket   Socket Mode (SLACK_APP_TOKEN): acknowledges and records requests (no answers)
    worker   answers from the outbox and follows pilots; no port, no Slack connection to hold

Every role shares the state database (ADVISOR_STATE_DB, or ADVISOR_STATE_URL=postgresql://...
for more than one machine), so ``web`` + ``worker`` (the Procfile) or several replicas of
``all`` answer each request once.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading

from advisor.errors import StateUnavailable
from bot.settings import Settings, SettingsError

logger = logging.getLogger("bot")
GIL_SWITCH_INTERVAL_S = 0.001
ROLES = ("all", "web", "socket", "worker")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    role = args[0] if args else "all"
    if role in ("-h", "--help"):
        print(__doc__)
        return 0
    if role not in ROLES or len(args) > 1:
        print(f"usage: python -m bot [{'|'.join(ROLES)}]", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s")
    # Answers are CPU-bound Python; acks are I/O. A shorter GIL switch interval (default 5 ms)
    # lets an ack thread get the interpreter back sooner while answers compute (measured with
    # benchmarks/bot_latency.py: see the closing note of issue 6).
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    if role == "socket" and not settings.socket_mode:
        print("Error: `python -m bot socket` needs SLACK_APP_TOKEN (xapp-..., scope connections:write).",
              file=sys.stderr)
        return 2
    if role == "web" and settings.signing_secret is None:
        print("Error: `python -m bot web` needs SLACK_SIGNING_SECRET (Basic Information -> App Credentials).",
              file=sys.stderr)
        return 2
    from bot.app import StartupError, authenticate, client_for
    from bot.store import StateStore

    try:
        authenticate(client_for(settings), settings)  # before any process is forked: plain errors
        StateStore(settings.state_target).close()  # the state database opens and migrates, or says why
        if role == "worker":
            return _worker(settings)
        if role == "socket" or (role == "all" and settings.socket_mode):
            return _socket(settings, deliver=role == "all")
    except (StartupError, StateUnavailable) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    from bot.web import gunicorn_app

    logger.info("HTTP mode on port %s (POST /slack/events, GET /healthz): %s gunicorn worker(s) x %s thread(s), "
                "Slack API at %s", settings.port, settings.web_workers, settings.web_threads, settings.api_url)
    gunicorn_app(settings, deliver=role == "all", role=role).run()
    return 0


def _wait_for_signal() -> None:
    stopped = threading.Event()

    def stop(signum: int, frame: object) -> None:
        logger.info("signal %s: stopping", signum)
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while not stopped.wait(1.0):
        pass


def _worker(settings: Settings) -> int:
    from bot.app import build_app

    _, services = build_app(settings, deliver=True, role="worker")
    services.store.prune()
    try:
        _wait_for_signal()
    finally:
        services.close()
    return 0


def _socket(settings: Settings, *, deliver: bool) -> int:
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    from bot.app import build_app

    app, services = build_app(settings, deliver=deliver, role="socket")
    services.store.prune()
    logger.info("Socket Mode via %s", settings.api_url)
    handler = SocketModeHandler(app, settings.app_token)
    handler.connect()
    try:
        _wait_for_signal()
    finally:
        handler.close()
        services.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
