"""`/finetune catalog set-price ...` through the real bot: admin-only, audited, and the next answer
uses the new price (the bot reloads its catalog)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from advisor.answer import Advisor
from advisor.catalog import Catalog
from advisor.format import usd
from tests.fakeslack import BotProcess


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    process = BotProcess(slack, tmp_path_factory.mktemp("admin"), env={"ADVISOR_CATALOG_ADMINS": "UADMIN"}).start()
    yield process
    process.stop()


def _private_reply(bot, slack, text, *, user, name):
    reply = bot.command(text, user=user, channel="CADMIN", response_url=slack.response_url(name))
    assert reply.status == 200
    [call] = slack.wait_for("response_url", lambda c: c.args.get("name") == name)
    assert call.args.get("response_type") == "ephemeral"
    return call.args.get("text", "")


def _audit(bot):
    rows = sqlite3.connect(bot.state_db).execute("SELECT actor, action, outcome FROM audit ORDER BY id").fetchall()
    return [tuple(r) for r in rows]


def test_a_non_admin_is_refused_and_the_refusal_is_audited(bot, slack):
    text = _private_reply(bot, slack, "catalog set-price a100 0.99", user="UBOB", name="bob")
    assert "UADMIN" in text
    assert Catalog.open(bot.catalog).gpu("a100").price_usd_per_hour == 1.19
    assert ("UBOB", "catalog.set-price", "refused") in _audit(bot)


def test_an_admin_changes_the_price_and_the_next_answer_uses_it(bot, slack):
    text = _private_reply(bot, slack, "catalog set-price a100 0.99", user="UADMIN", name="admin")
    assert "0.99" in text
    assert Catalog.open(bot.catalog).gpu("a100").price_usd_per_hour == 0.99
    assert ("UADMIN", "catalog.set-price", "ok") in _audit(bot)
    catalog_audit = Catalog.open(bot.catalog).audit_log()[0]
    assert catalog_audit["actor"] == "slack:UADMIN" and json.loads(catalog_audit["new_value"]) == 0.99
    question = "lora llama-3.1-8b seq 2048, 50M tokens"
    bot.command(question, user="UADMIN", channel="CADMIN2", response_url=slack.response_url("answer"))
    [answer] = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CADMIN2")
    expected = Advisor(Catalog.open(bot.catalog)).ask(question).answer.option("a100-80gb").cost_usd
    before = Advisor(Catalog.in_memory()).ask(question).answer.option("a100-80gb").cost_usd
    assert expected < before and usd(expected) in json.dumps(answer.args["blocks"])
