"""Block Kit for the pilot flow: confirmation, the status message edited in place, the final
predicted-vs-measured message, refusals. Text comes from advisor.i18n (advisor/i18n/pilot.py)
and advisor.pilot.report, so the CLI and the thread say the same thing."""

from __future__ import annotations

from typing import Any

from advisor.format import usd
from advisor.i18n import t
from advisor.i18n.numbers import integer
from advisor.pilot.report import comparison_table, duration, failure_text, progress_text, result_summary, size
from advisor.pilot.store import PilotRecord
from bot.render import blockkit as bk

ACTION_CONFIRM = "pilot_confirm"
ACTION_DECLINE = "pilot_decline"
ACTION_CANCEL = "pilot_cancel"

Message = tuple[str, list[dict[str, Any]]]  # (notification text, blocks)


def _method(rec: PilotRecord, lang: str) -> str:
    return t(f"method.{rec.pilot_spec.spec.method}", lang)


def confirmation(rec: PilotRecord, model_label: str, lang: str) -> Message:
    spec, pred = rec.pilot_spec.spec, rec.prediction or {}
    text = t("pilot.confirm.text", lang, gpu=rec.pilot_spec.gpu_name or rec.pilot_spec.gpu, model=model_label,
             method=_method(rec, lang), seq=integer(spec.seq_len, lang), batch=spec.micro_batch, steps=rec.pilot_spec.steps,
             warmup=rec.pilot_spec.warmup_steps, duration=duration(rec.estimated_duration_s, lang),
             cost=usd(rec.estimated_cost_usd, lang), mem=size((pred.get("memory") or {}).get("allocated_bytes") or 0, lang))
    if pred.get("fits") is False:  # the ranking's fit rule (advisor.fit) says it will not fit
        text += "\n" + t("pilot.confirm.no_fit", lang)
    blocks = [bk.section(text, block_id=f"pilot_confirm_{rec.id}"),
              bk.actions(bk.button(t("pilot.confirm.button", lang), ACTION_CONFIRM, rec.id, style="primary"),
                         bk.button(t("pilot.cancel.button", lang), ACTION_DECLINE, rec.id, style="danger"),
                         block_id=f"pilot_confirm_actions_{rec.id}")]
    return text, blocks


def decided(rec: PilotRecord, key: str, user: str, lang: str) -> Message:
    """The confirmation message after a click: the question stays, the buttons go."""
    question, _ = confirmation(rec, rec.pilot_spec.model_id or rec.pilot_spec.hub_id or "model", lang)
    note = t(key, lang, id=rec.id, user=user)
    return note, [bk.section(question), bk.context(note)]


def status(rec: PilotRecord, lang: str) -> Message:
    text = progress_text(rec, lang)
    blocks = [bk.section(text, block_id=f"pilot_status_{rec.id}")]
    if not rec.terminal:
        blocks.append(bk.actions(bk.button(t("pilot.cancel.button", lang), ACTION_CANCEL, rec.id, style="danger"),
                                 block_id=f"pilot_status_actions_{rec.id}"))
    return text, blocks


def final(rec: PilotRecord, lang: str, calibration_note: str | None) -> Message:
    if rec.state != "finished":
        text = failure_text(rec, lang)
        return text, [bk.section(text, block_id=f"pilot_final_{rec.id}")]
    summary = result_summary(rec, lang)
    blocks = [bk.section(summary, block_id=f"pilot_final_{rec.id}"),
              *bk.code_sections(comparison_table(rec, lang).splitlines())]
    if calibration_note:
        blocks.append(bk.context(calibration_note))
    return summary.splitlines()[0], blocks


def notice(key: str, lang: str, **fields: Any) -> Message:
    text = t(key, lang, **fields)
    return text, [bk.section(text)]
