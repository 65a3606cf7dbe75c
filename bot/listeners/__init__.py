"""Every listener, by kind (commands, events, actions), each package with ``register(app)``.

Bolt runs the first listener that matches a request, so the pilot flow (when wired) registers
before ours and its "Run pilot" handler wins over the fallback in ``actions``."""

from __future__ import annotations

from slack_bolt import App

from bot.listeners import actions, commands, events, middleware
from bot.services import Services


def register_listeners(app: App, services: Services) -> None:
    middleware.register(app, services)
    if services.pilots is not None:
        services.pilots.register(app)
    commands.register(app)
    events.register(app)
    actions.register(app)
