"""Who may spend money and change the catalog, and the record of every attempt.

Catalog administration (bot.admin): admin-only, nobody by default, every attempt audited in the
state database and every change in the catalog's own audit, on a scratch copy of catalog.db."""

from __future__ import annotations

import json
import sqlite3

import pytest

from advisor.catalog import Catalog
from advisor.i18n import t
from bot.admin import CatalogAdminSettings, handle_catalog_admin, is_admin_command
from bot.audit import AuditLog

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
    assert CatalogAdminSettings.from_env(env).admins == admins


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
    ("set-offered h100 sí 3,10", "es", "$3.10"),
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
