"""Block Kit for the pilot flow: confirmation, the status message edited in place, the final
predicted-vs-measured message, refusals. Text comes from advisor.i18n (advisor/i18n/pilot.py)
and advisor.pilot.report, so the CLI and the thread say the same thing."""

from __future__ import annotations

from typing import Any

from advisor.format import usd
from advisor.i18n import t
from advisor.pilot.report import (comparison_table, duration, failure_text, plan_lines, progress_text, size,
                                  summary_lines)
from advisor.pilot.store import PilotRecord
from bot.render import blockkit as bk

ACTION_CONFIRM = "pilot_confirm"
ACTION_DECLINE = "pilot_decline"
ACTION_CANCEL = "pilot_cancel"

Message = tuple[str, list[dict[str, Any]]]  # (notification text, blocks)

# The icon a Slack message of each pilot key starts with (the words themselves carry none: the CLI
# prints the same keys as plain text, advisor.pilot.report.PLAIN).
ICONS = {
    "pilot.status.pending": ":hourglass_flowing_sand:", "pilot.status.starting": ":gear:",
    "pilot.status.running": ":runner:", "pilot.status.running_cpu": ":runner:",
    "pilot.status.finished": ":white_check_mark:", "pilot.failed.oom": ":boom:",
    "pilot.failed.cancelled": ":no_entry_sign:", "pilot.failed.timed_out": ":alarm_clock:",
    "pilot.failed.killed": ":skull:", "pilot.failed.node_lost": ":electric_plug:",
    "pilot.failed.pending_timeout": ":hourglass:", "pilot.failed.missing_extra": ":package:",
    "pilot.failed.error": ":warning:", "pilot.confirm.no_fit": ":warning:", "pilot.final.cpu_smoke": ":information_source:",
    "pilot.plan.replica": ":information_source:", "pilot.plan.unsharded": ":information_source:",
}


def escape(text: str) -> str:
    """Slack's three control characters in free text (api.slack.com/reference/surfaces/formatting,
    "Escaping text": &, < and > are the only characters to escape)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class MrkdwnSurface:
    """Slack mrkdwn: `code`, *bold*, :emoji: icons, escaped free text."""

    def code(self, text: str) -> str:
        return f"`{escape(text)}`"

    def bold(self, text: str) -> str:
        return f"*{text}*"

    def icon(self, key: str) -> str:
        return ICONS[key] + " " if key in ICONS else ""

    def text(self, text: str) -> str:
        return escape(text)


MRKDWN = MrkdwnSurface()


def _method(rec: PilotRecord, lang: str) -> str:
    return t(f"method.{rec.pilot_spec.spec.method}", lang)


def confirmation(rec: PilotRecord, model_label: str, lang: str) -> Message:
    """The question before a pilot: what runs, for how long, at what cost and memory; for a plan of
    more GPUs than the pilot, what the pilot measures of it; a warning when the estimate says it
    will not fit the card (advisor.fit's rule, as the answer's table). The plan rides in the stored
prediction (``prediction["plan"]``, written by bot.pilot.flow), so the message after a click says
the same."""
    spec, pred = rec.pilot_spec.spec, rec.prediction or {}
    gpu = MRKDWN.text(rec.pilot_spec.gpu_name or rec.pilot_spec.gpu or "CPU")
    mem = (pred.get("memory") or {}).get("allocated_bytes") or 0
    lines = [MRKDWN.bold(t("pilot.confirm.title", lang, gpu=gpu)),
             t("pilot.confirm.text", lang, model=MRKDWN.text(model_label), method=_method(rec, lang), seq=spec.seq_len,
               batch=spec.micro_batch, steps=rec.pilot_spec.steps, warmup=rec.pilot_spec.warmup_steps,
               duration=duration(rec.estimated_duration_s), cost=usd(rec.estimated_cost_usd), mem=size(mem))]
    lines += plan_lines(pred, gpu, rec.pilot_spec.gpu_usable_memory_bytes, lang, MRKDWN)
    text = "\n".join(lines)
    blocks = [bk.section(text, block_id=f"pilot_confirm_{rec.id}"),
              bk.actions(bk.button(t("pilot.confirm.button", lang), ACTION_CONFIRM, rec.id, style="primary"),
                         bk.button(t("pilot.cancel.button", lang), ACTION_DECLINE, rec.id, style="danger"),
                         block_id=f"pilot_confirm_actions_{rec.id}")]
    return text, blocks


def decided(rec: PilotRecord, key: str, user: str, lang: str) -> Message:
    """The confirmation message after a click: the question stays, the buttons go."""
    question, _ = confirmation(rec, rec.pilot_spec.model_id or rec.pilot_spec.hub_id or "model", lang)
    note = t(key, lang, id=MRKDWN.code(rec.id), user=f"<@{user}>")
    return note, [bk.section(question), bk.context(note)]


def status(rec: PilotRecord, lang: str) -> Message:
    text = progress_text(rec, lang, MRKDWN)
    blocks = [bk.section(text, block_id=f"pilot_status_{rec.id}")]
    if not rec.terminal:
        blocks.append(bk.actions(bk.button(t("pilot.cancel.button", lang), ACTION_CANCEL, rec.id, style="danger"),
                                 block_id=f"pilot_status_actions_{rec.id}"))
    return text, blocks


def final(rec: PilotRecord, lang: str, calibration_note: str | None) -> Message:
    if rec.state != "finished":
        text = failure_text(rec, lang, MRKDWN)
        return text, [bk.section(text, block_id=f"pilot_final_{rec.id}")]
    lines = summary_lines(rec, lang, MRKDWN)
    summary = "\n".join([MRKDWN.bold(lines[0]), *lines[1:]])
    blocks = [bk.section(summary, block_id=f"pilot_final_{rec.id}"),
              *bk.code_sections(comparison_table(rec, lang).splitlines())]
    if calibration_note:
        blocks.append(bk.context(calibration_note))
    return lines[0], blocks


def notice(key: str, lang: str, **fields: Any) -> Message:
    if "id" in fields:
        fields["id"] = MRKDWN.code(str(fields["id"]))
    text = MRKDWN.icon(key) + t(key, lang, **fields)
    return text, [bk.section(text)]
