"""`/finetune <text>`: ack at once, then answer as a new message in the channel (its ts becomes
the thread). Subcommands: help, catalog, pilot (and their Spanish names)."""

from __future__ import annotations

import unicodedata
from typing import Any

from slack_bolt import Ack, BoltContext, Respond
from slack_sdk import WebClient

from advisor.i18n import t
from advisor.parse import detect_language
from bot.admin import handle_catalog_admin, is_admin_command
from bot.audit import AuditLog
from bot.conversation import Question, answer_question, clean_text
from bot.listeners.submit import submit
from bot.render.simple import render_catalog, render_help, render_notice

COMMAND = "/finetune"
# first word -> (subcommand, language of the word)
SUBCOMMANDS = {
    "help": ("help", "en"), "ayuda": ("help", "es"), "?": ("help", "en"),
    "catalog": ("catalog", "en"), "gpus": ("catalog", "en"), "catalogo": ("catalog", "es"),
    "pilot": ("pilot", "en"), "piloto": ("pilot", "es"),
}


def subcommand(text: str) -> tuple[str | None, str, str]:
    """(subcommand or None, the rest of the text, language of the subcommand word)."""
    first, _, rest = text.strip().partition(" ")
    word = "".join(c for c in unicodedata.normalize("NFKD", first.lower()) if not unicodedata.combining(c))
    if not text.strip():
        return "help", "", "en"
    sub, lang = SUBCOMMANDS.get(word, (None, "en"))
    return (sub, rest.strip(), lang) if sub else (None, text.strip(), "en")


def finetune_command(ack: Ack, command: dict[str, Any], client: WebClient, context: BoltContext,
                     respond: Respond) -> None:
    """Ack at once; everything else (even a help reply, a round trip to Slack) runs after it."""
    ack()
    services = context["services"]
    text = clean_text(command.get("text", ""))
    sub, rest, lang = subcommand(text)
    where = {"channel": command["channel_id"], "user": command["user_id"], "response_url": command.get("response_url"),
             "lang": lang if sub else detect_language(text)}
    if sub is None:
        question = Question(text=text, channel=command["channel_id"], user=command["user_id"],
                            response_url=command.get("response_url"), show_question=True,
                            bot_user=context.bot_user_id)
        submit(services.answers, client, where, answer_question, services, client, question)
    elif sub == "catalog" and is_admin_command(rest.split()):
        submit(services.answers, client, where, run_catalog_admin, services, respond, rest.split(),
               command["user_id"], lang)
    elif sub == "pilot" and services.pilots is not None:
        submit(services.answers, client, where, services.pilots.start_from_command, services, client, command, rest, lang)
    else:
        submit(services.answers, client, where, reply_privately, services, respond, sub, lang)


def run_catalog_admin(services: Any, respond: Respond, words: list[str], user: str, lang: str) -> None:
    """`/finetune catalog set-price ...`: admin-only and audited (bot.admin); the answer is private."""
    settings = services.settings
    text = handle_catalog_admin(words, user, admins=settings.catalog_admins, catalog_path=settings.catalog_path,
                                audit=AuditLog(settings.state_db), lang=lang, command=COMMAND,
                                on_change=services.catalog.reload)
    respond(text=text, response_type="ephemeral")


def reply_privately(services: Any, respond: Respond, sub: str, lang: str) -> None:
    """help, catalog, or "pilots are not enabled here": only the person who asked sees it."""
    if sub == "help":
        text, blocks = t("bot.help.title", lang), render_help(lang, COMMAND)
    elif sub == "catalog":
        text, blocks = t("bot.catalog.title", lang), render_catalog(services.catalog, lang)
    else:
        text, blocks = t("bot.pilot.unavailable", lang), render_notice("bot.pilot.unavailable", lang)
    respond(text=text, blocks=blocks, response_type="ephemeral")
