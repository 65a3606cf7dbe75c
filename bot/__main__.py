"""`python -m bot`: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP mode on PORT
(POST /slack/events, GET /healthz). See docs/DESIGN.md, "Contracts": Bot."""

from __future__ import annotations

import logging
import signal
import sys
import threading

from slack_sdk.errors import SlackApiError

from bot.settings import Settings, SettingsError

logger = logging.getLogger("bot")
GIL_SWITCH_INTERVAL_S = 0.001


def main() -> int:
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Answers are CPU-bound Python; acks are I/O. A shorter GIL switch interval (default 5 ms)
    # lets an ack thread get the interpreter back sooner while answers compute (measured with
    # benchmarks/bot_latency.py: see the closing note of issue 6).
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    from bot.app import build_app, health

    try:
        app, services = build_app(settings)
    except SlackApiError as exc:
        print(f"Error: Slack refused the bot token ({exc.response.get('error')}) at {settings.api_url}: "
              "check SLACK_BOT_TOKEN (and SLACK_API_URL if you set it).", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"Error: cannot reach the Slack Web API at {settings.api_url} ({exc}); check the network "
              "or SLACK_API_URL.", file=sys.stderr)
        return 2
    services.store.prune()
    if settings.socket_mode:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        logger.info("Socket Mode via %s", settings.api_url)
        SocketModeHandler(app, settings.app_token).start()
        return 0
    from bot.server import make_server

    server = make_server(app, settings.port, lambda: health(services, "http"), signing_secret=settings.signing_secret)

    def stop(signum: int, frame: object) -> None:
        logger.info("signal %s: stopping", signum)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    logger.info("HTTP mode on port %s (POST /slack/events, GET /healthz), Slack API at %s",
                server.server_address[1], settings.api_url)
    try:
        server.serve_forever(poll_interval=0.05)
    finally:
        server.server_close()
        services.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
