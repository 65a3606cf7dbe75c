"""The spend report in words (advisor/i18n/home.py keys), shared by the CLI (`advisor pilot
spend`) and the bot (`/finetune spend`, bot/home.py): the figures come from advisor.pilot.spend."""

from __future__ import annotations

from datetime import UTC, datetime

from advisor.format import hours as duration_hours
from advisor.format import usd
from advisor.i18n import t


def parse_day(value: str) -> float:
    """'2026-11-01' -> 00:00 UTC of that day (epoch seconds); ValueError otherwise."""
    day = datetime.strptime(value.strip(), "%Y-%m-%d").date()
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def money(amount: float | None, lang: str) -> str:
    """Dollars as the answers show them (advisor.format.usd; "-" when unknown, $0.00 for nothing)."""
    return "$0.00" if amount == 0 else usd(amount)


def wall(seconds: float | None, lang: str) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.0f} s" if seconds < 120 else duration_hours(seconds / 3600, lang)


def basis_text(p, lang: str) -> str:
    """The words of one pilot's spend basis (advisor.pilot.spend BASES)."""
    return t(f"spend.basis.{p.basis}", lang, wall=wall(p.wall_s, lang), price=usd(p.price_usd_per_hour), gpus=p.gpus)


def since_text(since: float | None, lang: str) -> str:
    return t("spend.since", lang, date=datetime.fromtimestamp(since, UTC).strftime("%Y-%m-%d")) if since else ""


def render_spend(report, lang: str = "en") -> str:
    """The report as plain text lines (a terminal)."""
    since = since_text(report.since, lang)
    scope = t("spend.scope.user", lang, user=report.user, since=since) if report.user else \
        t("spend.scope.all", lang, since=since)
    lines = [t("spend.title", lang) + " — " + scope]
    if not report.pilots:
        lines.append(t("spend.none", lang, since=since))
        return "\n".join(lines)
    lines.append(t("spend.total", lang, total=money(report.total_usd, lang), n=len(report.pilots)))
    if report.unpriced:
        lines.append(t("spend.unpriced", lang, n=report.unpriced))
    lines += ["", t("spend.by_day", lang)]
    lines += ["  " + t("spend.day_row", lang, day=d, cost=money(c, lang)) for d, c in report.by_day.items()]
    if report.user is None:
        lines += ["", t("spend.by_user", lang)]
        lines += ["  " + t("spend.user_row", lang, user=u, cost=money(c, lang)) for u, c in report.by_user.items()]
    lines += ["", t("spend.pilots", lang)]
    for p in report.pilots:
        lines.append("  " + t("spend.cli.pilot_row", lang, day=p.day, id=p.pilot_id, user=p.user or "-",
                              gpu=p.gpu_name or p.gpu or "CPU", state=t(f"spend.state.{p.state}", lang),
                              wall=wall(p.wall_s, lang), cost=money(p.cost_usd, lang), basis=basis_text(p, lang)))
    lines += ["", t("spend.footer", lang)]
    return "\n".join(lines)
