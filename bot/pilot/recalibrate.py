"""After a pilot finishes, the thread gets its estimate re-run with the new calibration:
"measured 1.4x the prior throughput: now $16.80 to an accepted checkpoint (was $23.50)".

The pilot flow's completion path (bot/pilot/flow.py ``on_final``) calls ``queue_after_final`` in
the transaction that records the final message's delivery, so the re-estimate is a durable job
(``pilot_recalibrate``, lane ``pilot:<id>``: it runs after the final) and is asked for exactly once
per pilot, whatever crashes in between. The job (``run_recalibrate``):

1. keeps quiet unless the pilot finished on the GPU it was for (``result.on_target_gpu``: only
   those calibrate, advisor/pilot/calibration.py) in a thread whose last answer with numbers is
   stored (bot/store.py ``answers``; a pilot started with `/finetune pilot` has none);
2. forgets the calibration's cached results (``PilotCalibration.invalidate``: the pilot was just
   recorded) and ranks the thread's stored request again through the same ``Advisor.estimate`` the
   answers use (advisor.recommend with the calibration that now includes the pilot);
3. compares it with the stored answer (advisor.pilot.recalibration.compare_answers) and posts the
   difference in the thread once (bot/delivery.py ``post_once``, key ``pilot-recal:<id>#post``),
   in the thread's language (a follow-up in the thread is ranked with the new calibration too);
4. refreshes the Home tab of whoever asked for the pilot (bot/home.py ``refresh_home``).
"""

from __future__ import annotations

import logging
from typing import Any

from advisor.format import hours as duration_hours
from advisor.format import usd
from advisor.i18n import t
from advisor.i18n.numbers import decimal, integer
from advisor.statedb import Tx
from bot.render import blockkit as bk
from bot.store import Job, NewJob, StateStore

logger = logging.getLogger(__name__)

KIND = "pilot_recalibrate"
NUMBERS_KINDS = ("estimate", "followup", "compare")


def queue_after_final(bot_store: StateStore, rec, tx: Tx) -> None:
    """The hook: called by the pilot flow in the final message's delivery transaction."""
    if rec.state != "finished" or not rec.channel or not rec.thread_ts:
        return
    bot_store.add_job(NewJob(f"pilot-recal:{rec.id}", KIND, {
        "pilot_id": rec.id, "where": {"channel": rec.channel, "thread_ts": rec.thread_ts, "lang": rec.lang}},
        lane=f"pilot:{rec.id}"), tx=tx)


def _latest_answer(store: StateStore, channel: str, thread_ts: str):
    marks = ", ".join("?" for _ in NUMBERS_KINDS)
    rows = store.db.query(f"SELECT ts FROM answers WHERE channel = ? AND thread_ts = ? AND kind IN ({marks}) "  # noqa: S608
                          "ORDER BY created_at DESC LIMIT 1", (channel, thread_ts, *NUMBERS_KINDS))
    return store.answer(channel, rows[0]["ts"]) if rows else None


def _ratio(x: float, lang: str) -> str:
    return f"{decimal(x, lang, 1 if abs(x - 1) >= 0.05 else 2)}x"


def _tps(x: float | None, lang: str) -> str:
    if x is None:
        return "-"
    return integer(x, lang)


def _money(plan, lang: str = "en") -> str:
    return usd(plan.cost_usd, lang) if plan.cost_usd is not None else usd(plan.price_per_million_tokens, lang)


def render(change, lang: str) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) of a Recalibration."""
    if change.measured_ratio is not None:
        head = t("recal.measured", lang, id=change.pilot_id, gpu=change.gpu_name, ratio=_ratio(change.measured_ratio, lang),
                 measured=_tps(change.measured_tokens_per_s, lang), predicted=_tps(change.predicted_tokens_per_s, lang))
    else:
        head = t("recal.measured_only", lang, id=change.pilot_id, gpu=change.gpu_name)
    lines = []
    b, a = change.before, change.after
    if a is not None and b is not None:
        if not a.fits:
            lines.append(t("recal.plan_no_fit", lang, gpu=a.gpu_name))
        elif a.cost_usd is not None:
            lines.append(t("recal.plan_cost", lang, n=a.num_gpus or 1, gpu=a.gpu_name, cost=usd(a.cost_usd, lang),
                           old=usd(b.cost_usd, lang), time=duration_hours(a.hours, lang),
                           old_time=duration_hours(b.hours, lang)))
        else:
            lines.append(t("recal.plan_rate", lang, n=a.num_gpus or 1, gpu=a.gpu_name, rate=usd(a.price_per_million_tokens, lang),
                           old=usd(b.price_per_million_tokens, lang), tps=_tps(a.tokens_per_s, lang),
                           old_tps=_tps(b.tokens_per_s, lang)))
    ra, rb = change.recommended_after, change.recommended_before
    if change.recommendation_changed and ra is not None and rb is not None:
        lines.append(t("recal.recommendation_changed", lang, n=ra.num_gpus or 1, gpu=ra.gpu_name, money=_money(ra, lang),
                       old_n=rb.num_gpus or 1, old_gpu=rb.gpu_name, old_money=_money(rb, lang)))
    elif ra is not None and (a is None or ra.gpu != a.gpu):
        lines.append(t("recal.recommendation_same", lang, n=ra.num_gpus or 1, gpu=ra.gpu_name))
    text = head + ("\n" + "\n".join(lines) if lines else "")
    return head, [bk.section(text, block_id=f"pilot_recal_{change.pilot_id}"), bk.context(t("recal.footer", lang))]


def run_recalibrate(services, job: Job) -> None:
    from advisor.answer_model import Answer
    from advisor.pilot.recalibration import compare_answers
    from advisor.pilot.store import PilotStore
    from bot.delivery import post_once
    from bot.home import refresh_home

    rec = PilotStore(services.store.db).require(job.payload["pilot_id"])
    stored = _latest_answer(services.store, rec.channel, rec.thread_ts) if rec.channel and rec.thread_ts else None
    if not (rec.result or {}).get("on_target_gpu") or stored is None or stored.request is None:
        refresh_home(services, rec.requested_by)
        return
    calibration = getattr(services.advisor, "calibration", None)
    if calibration is not None and hasattr(calibration, "invalidate"):
        calibration.invalidate()  # the pilot's result was recorded after the cache was filled
    reply = services.advisor.estimate(stored.request, lang=stored.lang, kind="estimate")
    if reply.answer is None:  # the request no longer resolves (a model or GPU left the catalog)
        logger.info("pilot %s: the thread's request no longer resolves (%s); no re-estimate", rec.id, reply.text[:200])
        return
    change = compare_answers(rec, Answer.load(stored.data), reply.answer)
    text, blocks = render(change, stored.lang)

    def on_posted(tx: Tx, ts: str) -> None:
        services.store.finish(job, {"ts": ts, "recalibration": change.to_json()}, tx)

    post_once(services.store, services.client, f"pilot-recal:{rec.id}#post", channel=rec.channel,
              thread_ts=rec.thread_ts, text=text, blocks=blocks, job_id=job.id, on_posted=on_posted)
    refresh_home(services, rec.requested_by)
