"""`/finetune <text>`: record the job and ack; the answer is a new message in the channel (its ts
becomes the thread). Subcommands: help, catalog, pilot, spend (and their Spanish names)."""

from __future__ import annotations

import unicodedata
import uuid
from dataclasses import asdict
from typing import Any

from slack_bolt import Ack, BoltContext

from advisor.i18n import t
from advisor.parse import detect_language
from bot.admin import handle_catalog_admin, is_admin_command
from bot.audit import AuditLog
from bot.conversation import Question, clean_text
from bot.listeners.record import record
from bot.render.simple import render_catalog, render_help, render_notice
from bot.services import Services
from bot.slack import send_private
from bot.store import Job, NewJob

COMMAND = "/finetune"
# first word -> (subcommand, language of the word)
SUBCOMMANDS = {
    "help": ("help", "en"), "ayuda": ("help", "es"), "?": ("help", "en"),
    "catalog": ("catalog", "en"), "gpus": ("catalog", "en"), "catalogo": ("catalog", "es"),
    "pilot": ("pilot", "en"), "piloto": ("pilot", "es"),
    "spend": ("spend", "en"), "gasto": ("spend", "es"), "gastos": ("spend", "es"),
}


def subcommand(text: str) -> tuple[str | None, str, str]:
    """(subcommand or None, the rest of the text, language of the subcommand word)."""
    first, _, rest = text.strip().partition(" ")
    word = "".join(c for c in unicodedata.normalize("NFKD", first.lower()) if not unicodedata.combining(c))
    if not text.strip():
        return "help", "", "en"
    sub, lang = SUBCOMMANDS.get(word, (None, "en"))
    return (sub, rest.strip(), lang) if sub else (None, text.strip(), "en")


def finetune_command(ack: Ack, command: dict[str, Any], context: BoltContext) -> None:
    """Record the job (with its claims) and ack; the ack says so plainly when nothing could be
    recorded. Everything else, even a help reply (a round trip to Slack), runs after the ack."""
    services: Services = context["services"]
    text = clean_text(command.get("text", ""))
    sub, rest, lang = subcommand(text)
    lang = lang if sub else detect_language(text)
    channel, user, response_url = command["channel_id"], command["user_id"], command.get("response_url")
    where = {"channel": channel, "user": user, "response_url": response_url, "lang": lang}
    trigger = command.get("trigger_id") or uuid.uuid4().hex  # every Slack command has one
    key = f"command:{trigger}"
    if sub is None:
        question = Question(text=text, channel=channel, user=user, response_url=response_url, show_question=True,
                            bot_user=context.bot_user_id)
        job = NewJob(key, "question", {"question": asdict(question), "where": where})
    elif sub == "catalog" and is_admin_command(rest.split()):
        job = NewJob(key, "catalog_admin", {"words": rest.split(), "user": user, "lang": lang,
                                            "response_url": response_url, "where": where})
    elif sub == "spend":  # what pilots cost (bot/home.py run_spend), privately: in Spanish when asked with
        # "gasto", else in the language of the caller's last question (bot/home.py user_lang)
        # the raw words: a mention arrives as <@U123|name> when the command escapes them (clean_text drops it)
        job = NewJob(key, "spend", {"words": (command.get("text") or "").split()[1:], "user": user, "lang": "es" if lang == "es" else None,
                                    "command": COMMAND, "response_url": response_url, "where": where})
    elif sub == "pilot" and services.pilots is not None:
        job = NewJob(key, "pilot_command", {"command": {k: command.get(k) for k in ("user_id", "channel_id",
                                                                                     "response_url")},
                                            "text": rest, "lang": lang, "where": where})
    else:
        job = NewJob(key, "private", {"sub": sub, "lang": lang, "response_url": response_url, "where": where})
    done = record(services, context, job, [(key, "command")], where, tell=False)
    if done.unavailable:
        ack(text=t("bot.unrecorded", lang), response_type="ephemeral")
        return
    ack()


def run_catalog_admin(services: Services, job: Job) -> None:
    """`/finetune catalog set-price ...`: admin-only and audited (bot.admin); the answer is private."""
    p, settings = job.payload, services.settings
    text = handle_catalog_admin(p["words"], p["user"], admins=settings.catalog_admins,
                                catalog_path=settings.catalog_path, audit=AuditLog(services.store.db),
                                lang=p["lang"], command=COMMAND, on_change=services.catalog.reload)
    if p.get("response_url"):
        send_private(p["response_url"], text)


def run_private(services: Services, job: Job) -> None:
    """help, catalog, or "pilots are not enabled here": only the person who asked sees it."""
    sub, lang, response_url = job.payload["sub"], job.payload["lang"], job.payload.get("response_url")
    if sub == "help":
        text, blocks = t("bot.help.title", lang), render_help(lang, COMMAND)
    elif sub == "catalog":
        text, blocks = t("bot.catalog.title", lang), render_catalog(services.catalog, lang)
    else:
        text, blocks = t("bot.pilot.unavailable", lang), render_notice("bot.pilot.unavailable", lang)
    if response_url:
        send_private(response_url, text, blocks)
