from slack_bolt import App

from bot.listeners.events.home import on_home_opened
from bot.listeners.events.mentions import on_mention
from bot.listeners.events.messages import on_message


def register(app: App) -> None:
    app.event("app_mention")(on_mention)
    app.event("message")(on_message)
    app.event("app_home_opened")(on_home_opened)
