import re

from slack_bolt import App

from bot.listeners.actions import launch
from bot.listeners.actions.clicked import on_click
from bot.render.answer import ACTION_CHART, ACTION_PILOT, ACTION_VERIFY


def register(app: App) -> None:
    app.action(ACTION_VERIFY)(on_click)
    app.action(ACTION_CHART)(on_click)
    app.action(ACTION_PILOT)(on_click)  # the pilot flow, when wired, registers first and wins
    launch.register(app)
    app.action(re.compile(".*"))(on_click)  # last: only clicks nothing above matched
