"""Who may spend money and change the catalog, and the record of every attempt.

Catalog administration (bot.admin): admin-only, nobody by default, every attempt audited in the
state database and every change in the catalog's own audit, on a scratch copy of catalog.db.
Pilots (bot.pilot): nobody by default, only allowed users start one, a per-pilot cost cap and a
daily budget refuse with the figures, and every proposal, start and refusal is audited."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from advisor.catalog import Catalog
from advisor.format import usd
from advisor.i18n import t
from advisor.pilot.store import PilotStore
from bot.admin import handle_catalog_admin, is_admin_command
from bot.settings import Settings
from bot.audit import AuditLog
from tests.conftest import have
from tests.fakeslack import BotProcess, FakeSlack, message_text
from tests.pilot_helpers import tiny_pilot

ADMIN, MALLORY = "UADMIN01", "UMALLORY"


@pytest.fixture
def audit(tmp_path) -> AuditLog:
    return AuditLog(tmp_path / "state.db")


def admin(words: str, user: str, scratch_db, audit, *, admins=(ADMIN,), lang="en", **kw) -> str:
    return handle_catalog_admin(words.split(), user, admins=set(admins), catalog_path=scratch_db, audit=audit,
                                lang=lang, **kw)


@pytest.mark.parametrize("env, admins", [
    ({}, frozenset()),
    ({"ADVISOR_CATALOG_ADMINS": ""}, frozenset()),
    ({"ADVISOR_CATALOG_ADMINS": " U1, U2 ;U3,"}, frozenset({"U1", "U2", "U3"})),
])
def test_admins_come_from_settings_and_default_to_nobody(env, admins):
    assert Settings.from_env({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", **env}).catalog_admins == admins


@pytest.mark.parametrize("lang", ["en", "es"])
def test_with_no_admins_configured_nobody_may_edit_and_the_reply_says_what_to_set(scratch_db, audit, lang):
    reply = admin("set-price h100 0.01", ADMIN, scratch_db, audit, admins=(), lang=lang)
    assert reply == t("admin.no_admins", lang) and "ADVISOR_CATALOG_ADMINS" in reply
    assert Catalog.open(scratch_db).gpu("h100").price_usd_per_hour != 0.01
    [row] = audit.entries()
    assert (row.actor, row.action, row.target, row.outcome, row.detail["reason"]) == (
        ADMIN, "catalog.set-price", "h100", "refused", "no_admins")


@pytest.mark.parametrize("words", ["set-price h100 0.01", "set-offered h100 no", "set-storage-price eu-west 0",
                                   "set-offered l4 yes 0.01", "audit"])
def test_a_non_admin_is_refused_nothing_changes_and_the_refusal_is_audited(scratch_db, audit, words):
    before = Catalog.open(scratch_db)
    reply = admin(words, MALLORY, scratch_db, audit)
    assert f"<@{ADMIN}>" in reply and ":lock:" in reply
    after = Catalog.open(scratch_db)
    assert after.gpus() == before.gpus() and after.storage_price("eu-west") == before.storage_price("eu-west")
    assert after.audit_log() == before.audit_log()
    [row] = audit.entries()
    assert (row.actor, row.action, row.outcome, row.detail["reason"]) == (MALLORY, f"catalog.{words.split()[0]}",
                                                                           "refused", "not_admin")


def test_an_admin_sets_a_price_and_both_audits_record_it(scratch_db, audit):
    old = Catalog.open(scratch_db).gpu("h100").price_usd_per_hour
    changed = []
    reply = admin("set-price H100 $2.49", ADMIN, scratch_db, audit, on_change=lambda: changed.append(1))
    assert "$2.49" in reply and changed == [1]
    cat = Catalog.open(scratch_db)
    assert cat.gpu("h100").price_usd_per_hour == 2.49
    top = cat.audit_log(limit=1)[0]
    assert (top["actor"], top["field"], json.loads(top["new_value"])) == (f"slack:{ADMIN}", "price_usd_per_hour", 2.49)
    [row] = audit.entries()
    assert (row.outcome, row.target, row.detail["old"], row.detail["new"]) == ("ok", "h100-sxm", old, 2.49)


@pytest.mark.parametrize("words, lang, expected", [
    ("set-offered h100 no", "en", "no longer offered"),
    ("set-offered h100 sí 3,10", "es", "3,10\u00a0US$"),  # es_ES CLDR currency pattern
    ("set-offered h100 yes 2.99 eu-west", "en", "EU West"),
    ("set-storage-price eu-west 0.05", "en", "$0.050"),
])
def test_admin_edits_reply_in_the_users_language(scratch_db, audit, words, lang, expected):
    reply = admin(words, ADMIN, scratch_db, audit, lang=lang)
    assert expected in reply and ":white_check_mark:" in reply
    assert audit.entries()[0].outcome == "ok"


@pytest.mark.parametrize("words, says", [
    ("set-price h100 cheap", "`cheap` is not a price"),
    ("set-price h100 nan", "`nan` is not a price"),
    ("set-price h100 -1", "between $0 and $1000"),
    ("set-price h100 5000", "between $0 and $1000"),
    ("set-price h10 2", "Closest matches: h100"),
    ("set-price h100", "Usage: `/finetune catalog set-price GPU USD_PER_HOUR`"),
    ("set-offered h100 maybe", "Say `yes`"),
    ("set-offered b200 yes eu-west", "has no price yet"),
    ("set-storage-price mars 1", "Unknown region 'mars'"),
])
def test_a_bad_admin_command_says_what_to_fix_changes_nothing_and_is_audited_invalid(scratch_db, audit, words, says):
    before = Catalog.open(scratch_db).audit_log()
    reply = admin(words, ADMIN, scratch_db, audit)
    assert says in reply, reply
    assert Catalog.open(scratch_db).audit_log() == before
    assert audit.entries()[0].outcome == "invalid"


def test_help_and_unknown_verbs_are_answered_without_touching_anything(scratch_db, audit):
    assert "set-price" in admin("help", MALLORY, scratch_db, audit)
    assert "`frobnicate`" in admin("frobnicate h100", ADMIN, scratch_db, audit)
    assert audit.entries() == []
    assert is_admin_command(["set-price", "h100", "2"]) and not is_admin_command(["h100"]) and not is_admin_command([])


def test_the_audit_view_lists_edits_and_refusals_for_admins_only(scratch_db, audit):
    admin("set-price h100 2.49", ADMIN, scratch_db, audit)
    admin("set-price h100 0.01", MALLORY, scratch_db, audit)
    view = admin("audit 5", ADMIN, scratch_db, audit)
    assert view.splitlines()[0] == t("admin.audit.title", "en", n=2)
    assert f"<@{MALLORY}> · set-price h100 · refused" in view and f"<@{ADMIN}> · set-price h100-sxm · done" in view
    assert "not a number of rows" in admin("audit 9999", ADMIN, scratch_db, audit)


def test_a_bot_without_a_catalog_file_says_how_to_make_it_editable(tmp_path, audit):
    reply = handle_catalog_admin(["set-price", "h100", "2"], ADMIN, admins={ADMIN}, catalog_path=tmp_path / "none.db",
                                 audit=audit)
    assert "ADVISOR_CATALOG" in reply and audit.entries()[0].outcome == "invalid"


def test_audit_rows_survive_reopening_and_keep_typed_arguments_short(tmp_path):
    path = tmp_path / "state.db"
    AuditLog(path).record(actor="U1", action="catalog.set-price", outcome="refused", target="h100",
                          detail={"args": ["x" * 5000]})
    [row] = AuditLog(path).entries(actor="U1")
    assert row.detail == {"args": ["x" * 5000]} and row.at > 0
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert len(handle_catalog_admin(["set-price", "h" * 5000, "1"], "U9", admins={"U1"}, catalog_path=None,
                                    audit=AuditLog(path)))
    assert len(AuditLog(path).entries(actor="U9")[0].target) <= 100


# --- pilots: who may start one, what it may cost, and the record of every attempt ------------------
# The real bot (`python -m bot`) against the fake Slack, configured through ADVISOR_PILOT_*.

PILOT_SPEC = {"model": "tiny-test", "method": "lora", "precision": "fp32", "seq_len": 32}
ROOT_TS = "1700000000.000001"
# A 10-step tiny-test pilot on an A100 is estimated at about $0.02 (the pilot's 60 s minimum
# billed at the catalog price), so a $0.01 cap refuses it and a $0.05 budget with $0.04 already
# committed today cannot take it either.
CAP_BELOW_ONE_PILOT_USD = 0.01
BUDGET_USD, ALREADY_SPENT_USD = 0.05, 0.04


@pytest.fixture
def start_bot(slack, tmp_path):
    started = []

    def start(**env: str) -> BotProcess:
        bot = BotProcess(slack, tmp_path / f"bot{len(started)}", env={"ADVISOR_PILOT_STEPS": "2",
                                                                      "ADVISOR_PILOT_DIR": str(tmp_path / "runs"), **env})
        started.append(bot)
        return bot.start()

    yield start
    for bot in started:
        bot.stop()


def click_run(bot: BotProcess, channel: str, user: str = "UALICE") -> None:
    value = json.dumps({"spec": PILOT_SPEC, "gpu": "a100", "lang": "en"})
    assert bot.action("run_pilot", value, channel=channel, message_ts=ROOT_TS, user=user).status == 200


def told(slack: FakeSlack, channel: str, method: str = "chat.postEphemeral"):
    [call] = slack.wait_for(method, lambda c: c.args.get("channel") == channel)
    return call.args.get("text") or message_text(call.args.get("blocks"))


def audited(bot: BotProcess, action: str, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = AuditLog(bot.state_db).entries(action=action)
        if rows:
            return rows
        time.sleep(0.05)
    raise AssertionError(f"nothing audited for {action}")


def test_pilots_are_off_until_configured_and_the_refusal_is_audited(start_bot, slack):
    bot = start_bot()
    click_run(bot, "CPOFF")
    assert "ADVISOR_PILOT_USERS" in told(slack, "CPOFF")
    [row] = audited(bot, "pilot.propose")
    assert (row.actor, row.outcome, row.detail["reason"]) == ("UALICE", "refused", "not_configured")
    assert PilotStore(bot.state_db).records() == []


def test_a_user_not_allowed_is_refused_told_whom_to_ask_and_audited(start_bot, slack):
    bot = start_bot(ADVISOR_PILOT_USERS="UALICE")
    click_run(bot, "CPDENY", user="UMALLORY")
    [ask] = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CPDENY")
    pilot_id = next(e["value"] for b in ask.args["blocks"] if b["type"] == "actions" for e in b["elements"]
                    if e["action_id"] == "pilot_confirm")
    bot.action("pilot_confirm", pilot_id, channel="CPDENY", message_ts=ask.result["ts"], thread_ts=ROOT_TS,
               user="UMALLORY")
    assert "ask one of: <@UALICE>" in told(slack, "CPDENY")
    [row] = audited(bot, "pilot.start")
    assert (row.actor, row.target, row.outcome, row.detail["reason"]) == ("UMALLORY", pilot_id, "refused", "not_allowed")
    assert PilotStore(bot.state_db).require(pilot_id).state == "proposed"  # nothing started
    assert len(slack.calls_to("chat.postMessage", lambda c: c.args.get("channel") == "CPDENY")) == 1


def test_a_pilot_over_the_cost_cap_is_refused_with_the_figures_and_audited(start_bot, slack):
    bot = start_bot(ADVISOR_PILOT_USERS="UALICE", ADVISOR_PILOT_COST_CAP_USD=str(CAP_BELOW_ONE_PILOT_USD))
    click_run(bot, "CPCAP")
    text = told(slack, "CPCAP", "chat.postMessage")
    [row] = audited(bot, "pilot.propose")
    assert (row.outcome, row.detail["reason"], row.detail["cap"]) == ("refused", "pilot.over_cap", usd(CAP_BELOW_ONE_PILOT_USD))
    assert f"would cost about {row.detail['cost']}, above the per-pilot cap of {usd(CAP_BELOW_ONE_PILOT_USD)}" in text
    assert float(row.detail["cost"].lstrip("$")) > CAP_BELOW_ONE_PILOT_USD and PilotStore(bot.state_db).records() == []


def test_a_pilot_over_the_daily_budget_is_refused_with_the_figures_and_audited(start_bot, slack, tmp_path):
    bot = start_bot(ADVISOR_PILOT_USERS="UALICE", ADVISOR_PILOT_DAILY_BUDGET_USD=str(BUDGET_USD))
    store = PilotStore(bot.state_db)  # a pilot confirmed earlier today (from the CLI or another thread)
    earlier = store.create(tiny_pilot(tmp_path), launcher="local", estimated_cost_usd=ALREADY_SPENT_USD)
    assert store.transition(earlier.id, ("proposed",), "pending", confirmed_by="UBOB", confirmed_at=time.time())
    click_run(bot, "CPBUDGET")
    text = told(slack, "CPBUDGET", "chat.postMessage")
    assert f"budget is {usd(BUDGET_USD)} and {usd(ALREADY_SPENT_USD)} is already committed" in text
    [row] = audited(bot, "pilot.propose")
    assert (row.outcome, row.detail["reason"], row.detail["spent"], row.detail["budget"]) == (
        "refused", "pilot.over_budget", usd(ALREADY_SPENT_USD), usd(BUDGET_USD))


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(not have("torch"), reason="needs torch")
def test_an_allowed_user_starts_a_pilot_and_the_start_is_audited(start_bot, slack):
    bot = start_bot(ADVISOR_PILOT_USERS="UALICE")
    click_run(bot, "CPOK")
    [ask] = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CPOK")
    pilot_id = next(e["value"] for b in ask.args["blocks"] if b["type"] == "actions" for e in b["elements"]
                    if e["action_id"] == "pilot_confirm")
    bot.action("pilot_confirm", pilot_id, channel="CPOK", message_ts=ask.result["ts"], thread_ts=ROOT_TS, user="UALICE")
    [start] = audited(bot, "pilot.start")
    assert (start.actor, start.target, start.outcome) == ("UALICE", pilot_id, "ok")
    assert start.detail["estimated_cost_usd"] == pytest.approx(PilotStore(bot.state_db).require(pilot_id).estimated_cost_usd)
    [proposed] = audited(bot, "pilot.propose")
    assert (proposed.target, proposed.outcome) == (pilot_id, "ok")
    slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CPOK", count=3, timeout=120)  # the end
    assert PilotStore(bot.state_db).require(pilot_id).state == "finished"
