"""The App Home tab and the `/finetune spend` report: what a person sees of their own use of the
advisor. Both run as outbox jobs (bot/jobs.py: ``home``, ``spend``) after the listener acked.

Home tab (``publish_home``, on ``app_home_opened`` with ``tab: home``; bot/listeners/events/home.py):
``views.publish`` of a ``home`` view for that user (Slack docs, "App Home": a Home tab view holds at
most 100 blocks; ``slack_sdk.models.views.View`` validates it before it leaves) with

- their recent plans: the last ``RECENT_PLANS`` answers with numbers they asked for, each with its
  spec, the recommended plan and its cost, and a link to the thread (``chat.getPermalink``, kept
  in ``home_asked.permalink`` once known; the channel when Slack gives none);
- their pilots running, with their progress (advisor.pilot.store: ``pending``/``running`` records
  they asked for or confirmed, ``last_progress`` as the runner reported it);
- today's pilot budget: ``PilotStore.spent_since(start_of_day())`` against the policy's
  ``daily_budget_usd`` (bot/pilot/policy.py: what ``cost_problem`` refuses against);
- the measured MFU per GPU, against the prior (advisor.pilot.recalibration.gpu_calibration).

Who asked what, and in which language, lives in this module's own tables (owner ``home`` of the
state database, ``advisor.statedb.StateDB.migrate``): ``home_asked`` gets one row per answer the
bot posts for a person, written in the transaction that records the answer's delivery
(bot/conversation.py ``remember``), and ``home_users`` the language of that answer. **A person's
language is the language of the last question the bot answered for them** (the answer's
language: the thread's or the message's, advisor.parse ``detect_language``); `/finetune spend`
and the Home tab are shown in it. Someone who never asked anything sees English, and the tab says
so.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

from advisor.format import hours as duration_hours
from advisor.format import usd
from advisor.i18n import t
from advisor.statedb import StateDB, Tx
from bot.render import blockkit as bk

logger = logging.getLogger(__name__)

OWNER = "home"
MIGRATIONS: list[str] = [
    # 1: who asked for which answer, and the language each person last wrote in
    """
    CREATE TABLE IF NOT EXISTS home_asked (
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,                  -- the answer message (answers.ts)
        thread_ts TEXT NOT NULL,
        user_id TEXT NOT NULL,             -- who asked
        kind TEXT NOT NULL,                -- estimate | followup | compare | faq | ...
        lang TEXT NOT NULL,
        permalink TEXT,                    -- chat.getPermalink of the answer, once fetched
        at REAL NOT NULL,
        PRIMARY KEY (channel, ts)
    );
    CREATE INDEX IF NOT EXISTS home_asked_user ON home_asked (user_id, at);
    CREATE TABLE IF NOT EXISTS home_users (
        user_id TEXT PRIMARY KEY,
        lang TEXT NOT NULL,                -- the language of the last answer the bot gave them
        updated_at REAL NOT NULL
    );
    """,
]

NUMBERS_KINDS = ("estimate", "followup", "compare")  # bot/conversation.py: answers with a stored Answer
RECENT_PLANS = 10
MAX_PILOT_ROWS = 20
MAX_CALIBRATION_ROWS = 20
# Slack docs, "App Home" / views.publish: a Home tab view has at most 100 blocks
# (slack_sdk.models.views.View.blocks_max_length).
MAX_HOME_BLOCKS = 100
SPEND_PILOT_LINES = 25  # pilots listed in Slack (the totals cover all of them)


class HomeStore:
    """The ``home`` tables of a state database."""

    def __init__(self, target: "str | StateDB"):
        self.db = StateDB.open(target)
        self.db.migrate(OWNER, MIGRATIONS)

    def remember_asked(self, user: str, channel: str, ts: str, thread_ts: str, kind: str, lang: str,
                       tx: Tx | None = None) -> None:
        """One answer posted for ``user`` (in the delivery's transaction when ``tx`` is given)."""
        now = time.time()
        rows = [("INSERT INTO home_asked (channel, ts, thread_ts, user_id, kind, lang, at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (channel, ts) DO NOTHING", (channel, ts, thread_ts, user, kind, lang, now)),
                ("INSERT INTO home_users (user_id, lang, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) "
                 "DO UPDATE SET lang = excluded.lang, updated_at = excluded.updated_at", (user, lang, now))]
        if tx is not None:
            for sql, params in rows:
                tx.execute(sql, params)
            return
        with self.db.transaction() as t_:
            for sql, params in rows:
                t_.execute(sql, params)

    def lang(self, user: str) -> str | None:
        rows = self.db.query("SELECT lang FROM home_users WHERE user_id = ?", (user,))
        return rows[0]["lang"] if rows else None

    def recent(self, user: str, limit: int = RECENT_PLANS) -> tuple[list[dict[str, Any]], int]:
        """The user's latest answers with numbers (joined with the stored answer), and how many
        they have in all."""
        marks = ", ".join("?" for _ in NUMBERS_KINDS)
        rows = self.db.query(
            f"SELECT h.channel, h.ts, h.thread_ts, h.permalink, h.at, a.lang, a.data_json FROM home_asked h "  # noqa: S608
            f"JOIN answers a ON a.channel = h.channel AND a.ts = h.ts WHERE h.user_id = ? AND h.kind IN ({marks}) "
            "ORDER BY h.at DESC, h.ts DESC LIMIT ?", (user, *NUMBERS_KINDS, limit))
        total = self.db.query(f"SELECT COUNT(*) AS n FROM home_asked WHERE user_id = ? AND kind IN ({marks})",  # noqa: S608
                              (user, *NUMBERS_KINDS))[0]["n"]
        return rows, int(total)

    def set_permalink(self, channel: str, ts: str, permalink: str) -> None:
        self.db.execute("UPDATE home_asked SET permalink = ? WHERE channel = ? AND ts = ?", (permalink, channel, ts))


def home_store(services) -> HomeStore:
    """The process's HomeStore (made by bot.services.build_services)."""
    home = services.extra.get("home")
    if home is None:
        home = services.extra["home"] = HomeStore(services.store.db)
    return home


def user_lang(services, user: str) -> tuple[str, bool]:
    """(language, known): the language of the last answer the bot gave ``user``; English when
    it never answered them."""
    lang = home_store(services).lang(user)
    return (lang, True) if lang in ("en", "es") else ("en", False)


# --- formatting at the edge ------------------------------------------------------------------------


def _when(ts: float) -> str:
    return f"<!date^{int(ts)}^{{date_short_pretty}} {{time}}|{datetime.fromtimestamp(ts, UTC):%Y-%m-%d %H:%M} UTC>"


def _plan_text(data: dict[str, Any], lang: str) -> tuple[str, str] | None:
    """(spec, plan) of a stored answer, or None when it cannot be read (a newer schema)."""
    from advisor.answer_model import Answer

    try:
        answer = Answer.load(data)
    except ValueError:
        logger.warning("a stored answer could not be read for the Home tab", exc_info=True)
        return None
    spec = answer.spec
    title = t("bot.answer.title", lang, method=t(f"method.{spec.method}", lang), model=answer.model, seq=spec.seq_len)
    best = answer.best
    if best is None:
        return title, t("home.plan.nothing", lang)
    if best.cost_usd is not None:
        plan = t("home.plan.cost", lang, n=best.num_gpus or 1, gpu=best.gpu_name, cost=usd(best.cost_usd, lang),
                 time=duration_hours(best.hours, lang))
    else:
        plan = t("home.plan.rate", lang, n=best.num_gpus or 1, gpu=best.gpu_name, rate=usd(best.price_per_million_tokens, lang))
    return title, plan


def _permalink(services, home: HomeStore, row: dict[str, Any]) -> str | None:
    if row.get("permalink"):
        return row["permalink"]
    try:
        link = services.client.chat_getPermalink(channel=row["channel"], message_ts=row["ts"]).get("permalink")
    except Exception:  # a deleted message or a channel the bot left: the tab names the channel instead
        logger.info("no permalink for %s/%s", row["channel"], row["ts"], exc_info=True)
        return None
    if link:
        home.set_permalink(row["channel"], row["ts"], link)
    return link


def _progress(rec, lang: str) -> str:
    p = rec.last_progress or {}
    if rec.state == "pending":
        return t("home.pilot.pending", lang)
    if not p:
        return t("home.pilot.starting", lang)
    return t("home.pilot.step", lang, step=p.get("steps_completed", 0),
             total=p.get("total_steps", rec.pilot_spec.total_steps))


def _ratio(x: float | None, lang: str) -> str:
    if x is None:
        return "-"
    text = f"{x:.2f}×"
    return text.replace(".", ",") if lang == "es" else text


def _pct(x: float | None, lang: str) -> str:
    if x is None:
        return "-"
    text = f"{x * 100:.1f}%"
    return text.replace(".", ",") if lang == "es" else text


def _calibration(services) -> list:
    """advisor.pilot.recalibration.gpu_calibration, reused until a new result is recorded (it
    prices every pilot with the step-time model: about 0.1 s each)."""
    from advisor.pilot.recalibration import gpu_calibration
    from advisor.pilot.store import PilotStore

    store = PilotStore(services.store.db)
    mark = store.db.query("SELECT COUNT(*) AS n, MAX(at) AS at FROM pilot_results WHERE on_target = 1")[0]
    key = (int(mark["n"]), mark["at"])
    cached = services.extra.get("home_calibration")
    if cached is None or cached[0] != key:
        cached = services.extra["home_calibration"] = (key, gpu_calibration(store, services.catalog))
    return cached[1]


# --- the Home view ---------------------------------------------------------------------------------


def home_view(services, user: str, *, now: float | None = None) -> dict[str, Any]:
    """The ``home`` view of ``user`` (a dict, validated with slack_sdk.models.views.View)."""
    from advisor.pilot.spend import pilot_cost
    from advisor.pilot.spend_text import money
    from advisor.pilot.store import ACTIVE, PilotStore
    from bot.pilot.policy import start_of_day

    now = time.time() if now is None else now
    home = home_store(services)
    lang, known = user_lang(services, user)
    blocks: list[dict[str, Any]] = [bk.header(t("home.title", lang)), bk.section(t("home.intro", lang)),
                                    bk.context(t("home.lang_note" if known else "home.lang_default", lang))]
    # plans
    blocks += [bk.divider(), bk.header(t("home.plans.title", lang))]
    rows, total = home.recent(user)
    shown = 0
    for row in rows:
        plan = _plan_text(json.loads(row["data_json"]), lang)  # the tab speaks one language
        if plan is None:
            continue
        link = _permalink(services, home, row)
        where = t("home.plan.link", lang, url=link) if link else t("home.plan.channel", lang, channel=row["channel"])
        blocks.append(bk.section(t("home.plan.row", lang, spec=plan[0], plan=plan[1], when=_when(row["at"]), link=where),
                                 block_id=f"home_plan_{row['channel']}_{row['ts']}"))
        shown += 1
    if not shown:
        blocks.append(bk.section(t("home.plans.none", lang)))
    elif total > shown:
        blocks.append(bk.context(t("home.plans.more", lang, n=total - shown)))
    # pilots
    pilots = PilotStore(services.store.db)
    blocks += [bk.divider(), bk.header(t("home.pilots.title", lang))]
    mine = [r for r in pilots.records(states=ACTIVE, limit=1000) if user in (r.requested_by, r.confirmed_by)]
    for rec in mine[:MAX_PILOT_ROWS]:
        started = rec.confirmed_at or rec.created_at
        so_far = pilot_cost(rec, now).cost_usd  # as /finetune spend counts it (a local or CPU pilot: 0)
        blocks.append(bk.section(t("home.pilot.row", lang, id=rec.id, gpu=rec.pilot_spec.gpu_name or rec.pilot_spec.gpu
                                   or "CPU", progress=_progress(rec, lang), when=_when(started), spent=money(so_far, lang),
                                   estimate=usd(rec.estimated_cost_usd, lang)), block_id=f"home_pilot_{rec.id}"))
    if not mine:
        blocks.append(bk.section(t("home.pilots.none", lang)))
    # budget
    blocks += [bk.divider(), bk.header(t("home.budget.title", lang))]
    policy = services.pilots.policy if services.pilots is not None else None
    if policy is None or not policy.configured:
        blocks.append(bk.section(t("home.budget.off", lang)))
    else:
        spent = pilots.spent_since(start_of_day(now))
        blocks.append(bk.section(t("home.budget.used", lang, spent=usd(spent, lang), budget=usd(policy.daily_budget_usd, lang),
                                   left=usd(max(0.0, policy.daily_budget_usd - spent), lang), cap=usd(policy.cost_cap_usd, lang)),
                                 block_id="home_budget"))
    # calibration
    blocks += [bk.divider(), bk.header(t("home.calibration.title", lang))]
    cal = _calibration(services)
    for c in cal[:MAX_CALIBRATION_ROWS]:
        blocks.append(bk.section(t("home.calibration.row", lang, gpu=c.gpu_name, method=t(f"method.{c.method}", lang),
                                   measured=_pct(c.measured_mfu, lang), n=c.pilots, prior=_pct(c.prior_mfu, lang),
                                   ratio=_ratio(c.throughput_ratio, lang)), block_id=f"home_mfu_{c.gpu}_{c.method}"))
    blocks.append(bk.context(t("home.calibration.note", lang)) if cal else bk.section(t("home.calibration.none", lang)))
    if len(blocks) > MAX_HOME_BLOCKS:  # cannot happen with the row limits above; kept as the guard
        blocks = blocks[:MAX_HOME_BLOCKS - 1] + [bk.context(t("home.truncated", lang))]
    view = {"type": "home", "callback_id": "advisor_home", "blocks": blocks}
    validate_view(view)
    return view


def validate_view(view: dict[str, Any]) -> None:
    """Raise when ``view`` breaks a Block Kit or view limit (slack_sdk's own validation)."""
    from slack_sdk.models.blocks import Block
    from slack_sdk.models.views import View

    problems = [p for p in bk.problems(view["blocks"]) if "blocks (limit" not in p]  # 50 is a message's limit
    if problems:
        raise ValueError(f"the Home view breaks Block Kit limits: {problems}")
    View(type=view["type"], callback_id=view.get("callback_id"), blocks=Block.parse_all(view["blocks"])).validate_json()


def publish_home(services, user: str) -> None:
    """``views.publish`` the Home tab of ``user``."""
    services.client.views_publish(user_id=user, view=home_view(services, user))


def refresh_home(services, user: str | None) -> None:
    """Publish again after something the tab shows changed (a pilot ended); a failure is logged,
    never raised: the tab is rebuilt the next time it is opened anyway."""
    if not user:
        return
    try:
        publish_home(services, user)
    except Exception:
        logger.warning("could not refresh the Home tab of %s", user, exc_info=True)


# --- `/finetune spend` -----------------------------------------------------------------------------


def spend_admins(services) -> frozenset[str]:
    """Who may see everyone's spend: the catalog admins (bot/admin.py, ADVISOR_CATALOG_ADMINS)
    and the pilot admins (bot/pilot/policy.py, ADVISOR_PILOT_ADMINS). Nobody when neither is set."""
    admins = set(services.settings.catalog_admins or ())
    if services.pilots is not None:
        admins |= set(services.pilots.policy.admins)
    return frozenset(admins)


def parse_spend_words(words: list[str], caller: str) -> tuple[str | None, str | None, str | None]:
    """(whose: None for all, a user id; since: 'YYYY-MM-DD' or None; error key or None) from the
    words after `spend`: ``all``/``todos``, ``<@U123>`` or ``U123``, ``since DATE``/``desde DATE``
    or a bare date."""
    import re

    whose: str | None = caller
    since: str | None = None
    i = 0
    while i < len(words):
        w = words[i]
        low = w.lower()
        if low in ("all", "todos", "todo", "everyone"):
            whose = None
        elif m := re.fullmatch(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|@?([UW][A-Z0-9]{2,})", w):
            whose = m.group(1) or m.group(2)
        elif low in ("since", "desde", "from") and i + 1 < len(words):
            since = words[i + 1]
            i += 1
        elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", w):
            since = w
        else:
            return whose, since, "spend.usage"
        i += 1
    return whose, since, None


def spend_blocks(report, lang: str, notice: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) of a spend report."""
    from advisor.pilot.spend_text import basis_text, money, since_text, wall

    since = since_text(report.since, lang)
    scope = t("spend.scope.user", lang, user=f"<@{report.user}>", since=since) if report.user else \
        t("spend.scope.all", lang, since=since)
    blocks: list[dict[str, Any]] = [bk.header(t("spend.title", lang))]
    if notice:
        blocks.append(bk.context(notice))
    if not report.pilots:
        text = t("spend.none", lang, since=since)
        return text, blocks + [bk.section(f"{scope}\n{text}")]
    total = t("spend.total", lang, total=money(report.total_usd, lang), n=len(report.pilots))
    lines = [f"*{scope}*", total] + ([t("spend.unpriced", lang, n=report.unpriced)] if report.unpriced else [])
    blocks.append(bk.section("\n".join(lines), block_id="spend_total"))
    days = [t("spend.day_row", lang, day=d, cost=money(c, lang)) for d, c in list(report.by_day.items())[:60]]
    blocks += bk.sections(f"*{t('spend.by_day', lang)}*\n" + "\n".join(days))
    if report.user is None:
        users = [t("spend.user_row", lang, user=f"<@{u}>" if u != "-" else u, cost=money(c, lang))
                 for u, c in list(report.by_user.items())[:60]]
        blocks += bk.sections(f"*{t('spend.by_user', lang)}*\n" + "\n".join(users))
    rows = [t("spend.pilot_row", lang, day=p.day, id=p.pilot_id, user=f"<@{p.user}>" if p.user else "-",
              gpu=p.gpu_name or p.gpu or "CPU", state=t(f"spend.state.{p.state}", lang), wall=wall(p.wall_s, lang),
              cost=money(p.cost_usd, lang), basis=basis_text(p, lang)) for p in report.pilots[:SPEND_PILOT_LINES]]
    blocks += bk.sections(f"*{t('spend.pilots', lang)}*\n" + "\n".join(rows))
    blocks.append(bk.context(t("spend.footer", lang)))
    return f"{t('spend.title', lang)}: {scope}. {total}", bk.fit(blocks, t("home.truncated", lang))


def run_spend(services, job) -> None:
    """`/finetune spend [all | @user] [since DATE]`: the report, privately, in the caller's language."""
    from advisor.pilot.spend_text import parse_day
    from advisor.pilot.spend import pilot_spend
    from advisor.pilot.store import PilotStore
    from bot.slack import send_private

    p = job.payload
    command = p.get("command") or "/finetune"
    caller, response_url = p["user"], p.get("response_url")
    lang = p.get("lang") or user_lang(services, caller)[0]
    whose, since, error = parse_spend_words(p.get("words") or [], caller)
    notice = None
    if error:
        text = t(error, lang, command=command)
        if response_url:
            send_private(response_url, text, [bk.section(text)])
        return
    try:
        start = parse_day(since) if since else None
    except ValueError:
        text = t("spend.bad_date", lang, value=bk.mrkdwn_escape(since or ""), command=command)
        if response_url:
            send_private(response_url, text, [bk.section(text)])
        return
    if whose != caller:
        admins = spend_admins(services)
        if caller not in admins:
            notice = t("spend.not_admin", lang, who=", ".join(f"<@{a}>" for a in sorted(admins)[:10])) if admins \
                else t("spend.no_admins", lang)
            whose = caller
    report = pilot_spend(PilotStore(services.store.db), user=whose, since=start)
    text, blocks = spend_blocks(report, lang, notice)
    if response_url:
        send_private(response_url, text, blocks)
