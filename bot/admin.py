"""Catalog administration from Slack: `/finetune catalog set-price h100 2.49` and friends.

Admin-only, safe by default: with no admins configured nobody may change the catalog, and the
refusal says what to set. Every attempt at an admin command is audited in the state database
(``bot.audit``: who, when, what, outcome, with the reason of a refusal); every change is also
written to the catalog's own audit table by ``Catalog.update_gpu`` / ``set_storage_price`` in the
same transaction as the change, with the actor ``slack:<user id>``.

The listener for `/finetune catalog ...` calls one pure-ish function and posts what it returns:

    if is_admin_command(words):
        text = handle_catalog_admin(words, user_id, admins=admin_settings.admins,
                                    catalog_path=settings.catalog_path, audit=audit, lang=lang)
        respond(text=text, response_type="ephemeral")

Settings (``bot.settings.Settings.catalog_admins``):

    ADVISOR_CATALOG_ADMINS   Slack user ids that may change the catalog (comma-separated)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime
from pathlib import Path

from advisor.catalog import DEFAULT_PATH, Catalog
from advisor.errors import AdvisorError
from advisor.format import usd
from advisor.i18n import t
from bot.audit import AuditLog

VERBS = ("set-price", "set-offered", "set-storage-price", "audit")
HELP_WORDS = frozenset({"help", "ayuda", "?", "admin"})
YES = frozenset({"yes", "y", "si", "sí", "true", "on", "1"})
NO = frozenset({"no", "n", "false", "off", "0"})
USAGE = {
    "set-price": "set-price GPU USD_PER_HOUR",
    "set-offered": "set-offered GPU yes|no [USD_PER_HOUR] [REGION,REGION]",
    "set-storage-price": "set-storage-price REGION USD_PER_GB_MONTH",
    "audit": "audit [N]",
}
# Audit rows shown in Slack: 25 lines of ~80 characters stay inside one 3000-character section.
MAX_AUDIT_ROWS = 25
# What an audit row keeps of the typed arguments (a pasted essay is not evidence).
MAX_AUDITED_ARGS, MAX_AUDITED_ARG_CHARS = 8, 100


class _Invalid(Exception):
    """A request an admin can fix: the reply says how."""

    def __init__(self, reply: str):
        super().__init__(reply)
        self.reply = reply


def is_admin_command(args: Sequence[str]) -> bool:
    """Whether the words after `/finetune catalog` ask for an admin command (or its help)."""
    return bool(args) and (args[0].lower() in VERBS or args[0].lower() in HELP_WORDS)


def handle_catalog_admin(args: Sequence[str], user_id: str, *, admins: Collection[str],
                         catalog_path: str | Path | None, audit: AuditLog, lang: str = "en",
                         command: str = "/finetune", on_change: Callable[[], None] | None = None) -> str:
    """Run one admin command typed in Slack; returns the reply (mrkdwn) in ``lang``.

    ``args`` are the words after `catalog` (``text.split()``). ``catalog_path`` is the bot's
    catalog file (None: ./catalog.db as the bot itself opens it). ``on_change`` is called after a
    successful edit, so the running bot can reload its in-memory copy of the catalog."""
    verb = args[0].lower() if args else "help"
    if verb in HELP_WORDS:
        return t("admin.help", lang, command=command)
    if verb not in VERBS:
        return t("admin.unknown_verb", lang, verb=_clip(args[0])) + "\n" + t("admin.help", lang, command=command)
    action, rest = f"catalog.{verb}", list(args[1:])
    target = _clip(rest[0]) if rest else None
    detail = {"args": [_clip(a) for a in rest[:MAX_AUDITED_ARGS]]}
    if user_id not in admins:
        reason = "no_admins" if not admins else "not_admin"
        audit.record(actor=user_id, action=action, target=target, outcome="refused", detail={"reason": reason, **detail})
        if not admins:
            return t("admin.no_admins", lang)
        return t("admin.not_admin", lang, who=", ".join(f"<@{a}>" for a in sorted(admins)[:10]))
    if verb == "audit":
        try:
            return _audit_view(rest, audit, lang)
        except _Invalid as exc:
            return exc.reply
    try:
        reply, changes = _edit(verb, rest, user_id, catalog_path, lang, command)
    except _Invalid as exc:
        audit.record(actor=user_id, action=action, target=target, outcome="invalid", detail={"reason": exc.reply, **detail})
        return exc.reply
    except AdvisorError as exc:  # unknown GPU or region (with suggestions), a price out of range
        audit.record(actor=user_id, action=action, target=target, outcome="invalid", detail={"error": str(exc), **detail})
        return t("admin.not_changed", lang, reason=str(exc))
    audit.record(actor=user_id, action=action, target=changes.pop("id"), outcome="ok", detail={**changes, **detail})
    if on_change is not None:
        on_change()
    return reply


# --- the edits -----------------------------------------------------------------------------------


def _edit(verb: str, rest: list[str], user_id: str, catalog_path: str | Path | None, lang: str,
          command: str) -> tuple[str, dict]:
    lo, hi = {"set-price": (2, 2), "set-offered": (2, 4), "set-storage-price": (2, 2)}[verb]
    if not lo <= len(rest) <= hi:
        raise _Invalid(t("admin.usage", lang, command=command, usage=USAGE[verb]))
    catalog = _open_writable(catalog_path, lang)
    actor = f"slack:{user_id}"
    try:
        if verb == "set-price":
            old = catalog.gpu(rest[0])
            price = _money(rest[1], lang)
            new = catalog.update_gpu(old.id, actor, price_usd_per_hour=price)
            return (t("admin.price_set", lang, gpu=new.display_name, old=usd(old.price_usd_per_hour, lang),
                      new=usd(new.price_usd_per_hour, lang)),
                    {"id": new.id, "old": old.price_usd_per_hour, "new": new.price_usd_per_hour})
        if verb == "set-offered":
            return _set_offered(catalog, rest, actor, lang, command)
        region = catalog.region(rest[0])
        price = _money(rest[1], lang)
        old_price = catalog.storage_price(region.id)
        catalog.set_storage_price(region.id, price, actor)
        return (t("admin.storage_set", lang, region=region.display_name, old=usd(old_price, lang), new=usd(price, lang)),
                {"id": region.id, "old": old_price, "new": price})
    finally:
        catalog.close()


def _set_offered(catalog: Catalog, rest: list[str], actor: str, lang: str, command: str) -> tuple[str, dict]:
    gpu = catalog.gpu(rest[0])
    answer = rest[1].lower()
    if answer not in YES | NO:
        raise _Invalid(t("admin.bad_yes_no", lang, value=_clip(rest[1])))
    if answer in NO:
        new = catalog.update_gpu(gpu.id, actor, offered=False)
        return t("admin.withdrawn_set", lang, gpu=new.display_name), {"id": new.id, "offered": False}
    fields: dict = {"offered": True}
    extra = rest[2:]
    if extra and _looks_like_money(extra[0]):
        fields["price_usd_per_hour"] = _money(extra.pop(0), lang)
    elif gpu.price_usd_per_hour is None:
        raise _Invalid(t("admin.no_price", lang, gpu=gpu.display_name, gpu_id=gpu.id, command=command))
    regions = [r for r in (extra[0].split(",") if extra else []) if r.strip()]
    fields["regions"] = regions or gpu.regions or [r.id for r in catalog.regions()]
    new = catalog.update_gpu(gpu.id, actor, **fields)
    names = ", ".join(catalog.region(r).display_name for r in new.regions)
    return (t("admin.offered_set", lang, gpu=new.display_name, price=usd(new.price_usd_per_hour, lang), regions=names),
            {"id": new.id, "offered": True, "price": new.price_usd_per_hour, "regions": new.regions})


def _open_writable(catalog_path: str | Path | None, lang: str) -> Catalog:
    path = Path(catalog_path) if catalog_path else DEFAULT_PATH
    if not path.exists():
        raise _Invalid(t("admin.not_changed", lang, reason=t("admin.read_only", lang)))
    return Catalog.open(path, writable=True)


def _looks_like_money(word: str) -> bool:
    return any(c.isdigit() for c in word) and not any(c.isalpha() for c in word.lower().replace("usd", ""))


def _money(word: str, lang: str) -> float:
    """'2.49', '$2.49', '2,49' (a decimal comma), '2.49/h', '2.49usd' -> 2.49; finite only."""
    cleaned = word.strip().lower().removeprefix("$").removesuffix("/h").removesuffix("usd").strip()
    if "," in cleaned and "." not in cleaned and cleaned.count(",") == 1:
        cleaned = cleaned.replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:
        raise _Invalid(t("admin.bad_price", lang, value=_clip(word))) from None
    if not math.isfinite(value):
        raise _Invalid(t("admin.bad_price", lang, value=_clip(word)))
    return value


# --- reading the audit ---------------------------------------------------------------------------


def _audit_view(rest: list[str], audit: AuditLog, lang: str) -> str:
    n = 10
    if rest:
        if not rest[0].isdigit() or not 1 <= int(rest[0]) <= MAX_AUDIT_ROWS:
            raise _Invalid(t("admin.bad_limit", lang, value=_clip(rest[0]), most=MAX_AUDIT_ROWS))
        n = int(rest[0])
    rows = [e for e in audit.entries(limit=10 * n) if e.action.startswith("catalog.")][:n]
    if not rows:
        return t("admin.audit.empty", lang)
    lines = [t("admin.audit.title", lang, n=len(rows))]
    for e in rows:
        at = datetime.fromtimestamp(e.at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        lines.append(t("admin.audit.row", lang, at=at, actor=e.actor, action=e.action.removeprefix("catalog."),
                       target=e.target or "", outcome=t(f"admin.outcome.{e.outcome}", lang)))
    return "\n".join(lines)


def _clip(word: str) -> str:
    word = "".join(c for c in str(word) if c.isprintable())
    return word if len(word) <= MAX_AUDITED_ARG_CHARS else word[:MAX_AUDITED_ARG_CHARS - 1] + "…"
