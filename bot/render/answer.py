"""The answer to a fine-tuning question, in Block Kit, from the advisor's JSON contract
(docs/DESIGN.md, "Contracts": ``spec``, ``memory``, ``options``, ``recommended``, ``notes``,
``assumed``, ``planning_windows``, ``model``) and the answer's language.

Layout, top to bottom: a header naming the job; who asked and what changed; the understood spec
and the defaults assumed; the recommendation; a monospace table of every GPU (fits / needs N,
memory per GPU against capacity as a small bar, tokens/s, time, cost to an accepted checkpoint);
levers when something does not fit; the memory breakdown of the recommended option; notes; the
planning windows; and the buttons (run a pilot, verify exactly, show the chart).
"""

from __future__ import annotations

from typing import Any

from advisor.format import hours, si, usd
from advisor.i18n import t
from advisor.steptime.text import step_line
from bot.render import blockkit as bk
from bot.render.contract import AnswerData, Option, read
from bot.render.labels import TERMS, field_label, short_size, size as gib, spec_summary, value_text

ACTION_PILOT = "pilot_run"
ACTION_VERIFY = "verify_exactly"
ACTION_CHART = "show_chart"
BAR_CELLS = 10  # characters in the memory bar: 10% of capacity per cell
MAX_NOTES = 12
MAX_LEVERS = 3
GPU_NAME_WIDTH = 18


def render_answer(raw: dict[str, Any], lang: str, *, kind: str = "estimate", asked_by: str | None = None,
                  question: str | None = None, changed: list[str] | None = None) -> list[bk.Block]:
    data = read(raw)
    best = data.best
    blocks: list[bk.Block] = [bk.header(_title(data, lang))]
    who = t("bot.answer.asked_by", lang, user=f"<@{asked_by}>", question=bk.mrkdwn_escape(question or "")) \
        if asked_by and question else ""
    what_changed = t("bot.answer.changed", lang, changes=", ".join(changed)) if changed else ""
    if who or what_changed:
        blocks.append(bk.context(*(x for x in (who, what_changed) if x)))
    head = raw.get("head") or {}
    if head.get("understood"):  # the advisor's own first lines: method, model, sequence length, GPU count
        blocks.append(bk.section(bk.mrkdwn_escape(head["understood"])))
        if head.get("assumed"):
            blocks.append(bk.context(bk.mrkdwn_escape(head["assumed"]) + " " + t("bot.answer.assumed_hint", lang)))
    else:
        blocks.append(bk.section(t("bot.answer.understood", lang, spec=spec_summary(data.spec, data.model, lang))))
    if not head.get("understood") and data.assumed:
        assumed = ", ".join(f"{field_label(f, lang)} {value_text(f, v, lang)}" for f, v in data.assumed)
        blocks.append(bk.context(t("bot.answer.assumed", lang, assumed=assumed)))
    blocks.append(bk.section(_recommendation(best, lang)))
    blocks += bk.code_sections(gpu_table(data.options, lang), title=t("bot.answer.table_title", lang))
    if any(not o.offered for o in data.options):
        blocks.append(bk.context(t("bot.answer.not_offered_note", lang)))
    levers = _levers(data.options, lang)
    if levers:
        blocks.append(bk.section(levers))
    breakdown = _breakdown(data, best, lang)
    if breakdown:
        blocks.append(breakdown)
    if best is not None and best.step_s and best.time_shares:  # where the step's time goes
        blocks.append(bk.context(step_line(best.name, best.step_s, best.time_shares, lang)))
    if data.notes:
        shown = "\n".join(f"• {bk.mrkdwn_escape(n)}" for n in data.notes[:MAX_NOTES])
        blocks += bk.sections(t("bot.answer.notes", lang) + "\n" + shown)
    windows = _windows(data, lang)
    if windows:
        blocks.append(bk.context(windows))
    blocks.append(_buttons(best, lang))
    return bk.fit(blocks, t("bot.answer.overflow", lang))


def _title(data: AnswerData, lang: str) -> str:
    method = t(f"method.{data.spec.get('method', 'lora')}", lang)
    model = data.model or data.spec.get("model") or t("bot.answer.unnamed_model", lang)
    return t("bot.answer.title", lang, method=method, model=model, seq=f"{data.spec.get('seq_len', 0):,}")


def _recommendation(best: Option | None, lang: str) -> str:
    if best is None:
        return t("bot.answer.nothing_fits", lang)
    if best.cost_usd is None and best.price_per_million_tokens is not None:
        return t("bot.answer.recommended_rate", lang, n=best.num_gpus or 1, gpu=best.name, used=gib(best.device_bytes),
                 capacity=gib(best.capacity_bytes), tokens=si(best.tokens_per_s or 0),
                 per_million=usd(best.price_per_million_tokens))
    return t("bot.answer.recommended", lang, n=best.num_gpus or 1, gpu=best.name, used=gib(best.device_bytes),
             capacity=gib(best.capacity_bytes), tokens=si(best.tokens_per_s or 0), time=hours(best.hours, lang),
             cost=usd(best.cost_usd))


def memory_bar(used: float, capacity: float, cells: int = BAR_CELLS) -> str:
    """'█████░░░░░ ' for half full; over capacity the bar is full and ends with '▲'."""
    if capacity <= 0:
        return "?" * cells + "  "
    ratio = used / capacity
    if ratio > 1:
        return "█" * cells + "▲ "
    filled = min(cells, round(ratio * cells))
    return "█" * filled + "░" * (cells - filled) + "  "


def gpu_table(options: list[Option], lang: str) -> list[str]:
    """One aligned line per GPU, under a header line."""
    lines = [f"{t('bot.table.gpu', lang):<{GPU_NAME_WIDTH}} {t('bot.table.fits', lang):<5} "
             f"{t('bot.table.memory', lang):<25} {t('bot.table.tokens', lang):>6} "
             f"{t('bot.table.time', lang):>9} {t('bot.table.cost', lang):>8}"]
    for o in options:
        name = short_gpu_name(o.name) + ("*" if not o.offered else "")
        fits = f"✓ {o.num_gpus or 1}×" if o.fits else "✗"
        usage = f"{memory_bar(o.device_bytes, o.capacity_bytes)}{short_size(o.device_bytes)}/{short_size(o.capacity_bytes)}"
        tokens = si(o.tokens_per_s) if o.fits and o.tokens_per_s else "-"
        time_ = hours(o.hours, lang) if o.fits else "-"
        cost = usd(o.cost_usd) if o.fits and o.cost_usd is not None else (
            f"{usd(o.price_per_million_tokens)}/M" if o.fits and o.price_per_million_tokens is not None else "-")
        lines.append(f"{name:<{GPU_NAME_WIDTH}} {fits:<5} {usage:<25} {tokens:>6} {time_:>9} {cost:>8}")
    return lines


def short_gpu_name(name: str) -> str:
    """'NVIDIA H100 SXM 80 GB' -> 'H100 SXM 80GB' (the table is monospace and narrow)."""
    short = name.removeprefix("NVIDIA ").removeprefix("AMD ").replace(" GB", "GB")
    return bk.clip(short, GPU_NAME_WIDTH - 1)


def _levers(options: list[Option], lang: str) -> str:
    """What would make the job fit on one GPU: for the first offered GPU (in the advisor's
    order) that needs more than one card, its single-GPU levers, those that fit first."""
    candidates = []
    for o in options:
        levers = [lv for lv in o.levers if lv.get("description") and (lv.get("num_gpus") or 1) == 1]
        if o.offered and levers and not (o.fits and (o.num_gpus or 1) == 1):
            candidates.append((not any(lv.get("fits") for lv in levers), o, levers))
    if not candidates:
        return ""
    _, o, levers = min(candidates, key=lambda c: c[0])  # stable: the first GPU with a lever that fits
    lines = [t("bot.answer.levers", lang, gpu=o.name)]
    for lv in sorted(levers, key=lambda lv: not lv.get("fits"))[:MAX_LEVERS]:
        mark = "✓" if lv.get("fits") else "✗"
        lines.append(f"{mark} {bk.mrkdwn_escape(lv['description'])} → {gib(lv.get('memory_bytes', 0))}")
    return "\n".join(lines)


def _breakdown(data: AnswerData, best: Option | None, lang: str) -> bk.Block | None:
    """The parts of the memory: of the recommended option when the data has them per option,
    otherwise of the job as asked (the spec's own GPU count), said as such."""
    if best is not None and best.breakdown:
        terms, n = best.breakdown, best.num_gpus or 1
        text = t("bot.answer.breakdown", lang, gpu=best.name, n=n, allocated=gib(best.allocated_bytes or 0),
                 reserved=gib(best.reserved_bytes or 0), device=gib(best.device_bytes), capacity=gib(best.capacity_bytes))
    elif data.memory.get("breakdown"):
        mem = data.memory
        terms, n = mem["breakdown"], mem.get("num_gpus") or data.spec.get("num_gpus") or 1
        text = t("bot.answer.breakdown_asked", lang, n=n, allocated=gib(mem.get("allocated_bytes", 0)),
                 reserved=gib(mem.get("reserved_bytes", 0)), device=gib(mem.get("device_bytes", 0)))
    else:
        return None
    shown = sorted(((k, v) for k, v in terms.items() if v and k in TERMS), key=lambda kv: -kv[1])
    fields = [f"*{t(f'bot.term.{k}', lang)}*\n{gib(v)}" for k, v in shown]
    return bk.section(text, fields=fields, block_id="breakdown")


def _windows(data: AnswerData, lang: str) -> str:
    if not data.windows:
        return ""
    known = data.job_gpu_hours is not None  # without a dataset size no window "fits" the job
    parts = " · ".join(t("bot.answer.window", lang, time=f"{w.hours:g} h", cost=usd(w.cost_usd),
                         mark=("✓" if w.fits_job else "✗") if known else "").rstrip() for w in data.windows)
    if data.windows_gpu and known:
        return t("bot.answer.windows_on", lang, gpu=data.gpu_name(data.windows_gpu), windows=parts,
                 gpu_hours=f"{data.job_gpu_hours:,.0f}")
    if data.windows_gpu:
        return t("bot.answer.windows_on_rate", lang, gpu=data.gpu_name(data.windows_gpu), windows=parts)
    return t("bot.answer.windows", lang, windows=parts)


def _buttons(best: Option | None, lang: str) -> bk.Block:
    elements = []
    if best is not None:
        elements.append(bk.button(t("bot.button.pilot", lang, gpu=short_gpu_name(best.name)), ACTION_PILOT,
                                  {"gpu": best.gpu, "num_gpus": best.num_gpus or 1}, style="primary"))
    elements.append(bk.button(t("bot.button.verify", lang), ACTION_VERIFY, "verify"))
    elements.append(bk.button(t("bot.button.chart", lang), ACTION_CHART, "chart"))
    return bk.actions(*elements, block_id="answer_actions")
