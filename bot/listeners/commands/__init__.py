from slack_bolt import App

from bot.listeners.commands.finetune import COMMAND, finetune_command


def register(app: App) -> None:
    app.command(COMMAND)(finetune_command)
