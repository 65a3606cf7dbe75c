import re

from slack_bolt import App

from bot.listeners.actions.chart import show_chart
from bot.listeners.actions.pilot import pilot_unavailable
from bot.listeners.actions.unknown import unknown_action
from bot.listeners.actions.verify import verify_exactly
from bot.render.answer import ACTION_CHART, ACTION_PILOT, ACTION_VERIFY


def register(app: App) -> None:
    app.action(ACTION_VERIFY)(verify_exactly)
    app.action(ACTION_CHART)(show_chart)
    app.action(ACTION_PILOT)(pilot_unavailable)  # the pilot flow, when wired, registers first and wins
    app.action(re.compile(".*"))(unknown_action)  # last: only clicks nothing above matched
