"""The answer to a fine-tuning question, in Block Kit, from the advisor's typed answer
(``advisor.answer_model.Answer``: numbers and codes; the same object ``advisor estimate --json``
dumps and advisor.report writes as text) and the answer's language. A stored dump of any schema
version is read with ``Answer.load``.

Layout, top to bottom: a header naming the job; the verdict (the question asked, answered first:
advisor.report.verdict_text); who asked and what changed; the understood spec and the defaults
assumed; the recommendation; the table of every GPU (fits / needs N,
memory per GPU against capacity as a small bar, tokens/s, time, cost to an accepted checkpoint) as
Slack's table block (the monospace ``` table only with ``table_layout="monospace"``; the message's
``text`` fallback is advisor.report's plain-text answer, monospace table included);
levers when something does not fit, titled by what they do; the memory breakdown of the
recommended option; notes; the planning windows (once: the notes leave them out); and the buttons
(run a pilot, verify exactly, show the chart).
"""

from __future__ import annotations

from typing import Any

from advisor.answer_model import Answer, Option
from advisor.format import hours, si, usd
from advisor.i18n import t
from advisor.i18n.numbers import integer, plain
from advisor.report import lever_text, levers_lines, model_label, note_text, verdict_text
from advisor.steptime.text import step_line
from bot.render import blockkit as bk
from bot.render.labels import TERMS, field_label, short_size, size as gib, spec_summary, value_text

ACTION_PILOT = "pilot_run"
ACTION_VERIFY = "verify_exactly"
ACTION_CHART = "show_chart"
ACTION_LAUNCH = "launch_config"  # bot/listeners/actions/launch.py
BAR_CELLS = 10  # characters in the memory bar: 10% of capacity per cell
MAX_NOTES = 12
MAX_LEVERS = 3
GPU_NAME_WIDTH = 18
WINDOW_NOTES = {"windows", "windows_fit", "windows_over"}  # said by the windows line, not twice (issue #16)


def render_answer(answer: Answer | dict[str, Any], lang: str, *, kind: str = "estimate", asked_by: str | None = None,
                  question: str | None = None, changed: list[str] | None = None,
                  head: dict[str, Any] | None = None, table_layout: str = "table") -> list[bk.Block]:
    """``answer``: the Answer, or a reply's data (its dump, with the advisor's first lines under
    ``head``: {"understood", "assumed"}, advisor.answer.Advisor.estimate); ``head`` overrides.
    ``table_layout``: "table" (Slack's table block) or "monospace" (the ``` table, for a
    workspace whose clients do not render table blocks: ADVISOR_TABLE_LAYOUT)."""
    if not isinstance(answer, Answer):
        head = head if head is not None else answer.get("head")
        answer = Answer.load(answer)
    data = answer
    best = data.best
    blocks: list[bk.Block] = [bk.header(_title(data, lang))]
    verdict = verdict_text(data, lang)
    if verdict:  # the first section answers the question asked
        blocks.append(bk.section(f"*{bk.mrkdwn_escape(verdict)}*", block_id="verdict"))
    who = t("bot.answer.asked_by", lang, user=f"<@{asked_by}>", question=bk.mrkdwn_escape(question or "")) \
        if asked_by and question else ""
    what_changed = t("bot.answer.changed", lang, changes=", ".join(changed)) if changed else ""
    if who or what_changed:
        blocks.append(bk.context(*(x for x in (who, what_changed) if x)))
    head = head or {}
    if head.get("understood"):  # the advisor's own first lines: method, model, sequence length, GPU count
        blocks.append(bk.section(bk.mrkdwn_escape(head["understood"])))
        if head.get("assumed"):
            blocks.append(bk.context(bk.mrkdwn_escape(head["assumed"]) + " " + t("bot.answer.assumed_hint", lang)))
    else:
        spec = data.spec.model_dump(mode="json")
        blocks.append(bk.section(t("bot.answer.understood", lang, spec=spec_summary(spec, model_label(data.model, lang), lang))))
    if not head.get("understood") and data.assumed:
        assumed = ", ".join(f"{field_label(f, lang)} {value_text(f, getattr(data.spec, f), lang)}" for f in data.assumed)
        blocks.append(bk.context(t("bot.answer.assumed", lang, assumed=assumed)))
    blocks.append(bk.section(_recommendation(best, lang)))
    if table_layout == "monospace":
        blocks += bk.code_sections(gpu_table(data.options, lang), title=t("bot.answer.table_title", lang))
    else:
        blocks += [bk.section(t("bot.answer.table_title", lang)), gpu_table_block(data.options, lang)]
    if any(not o.offered for o in data.options):
        blocks.append(bk.context(t("bot.answer.not_offered_note", lang)))
    levers = _levers(data, lang)
    if levers:
        blocks.append(bk.section(levers))
    breakdown = _breakdown(data, best, lang)
    if breakdown:
        blocks.append(breakdown)
    if best is not None and best.step is not None and best.step.shares:  # where the step's time goes
        blocks.append(bk.context(step_line(best.gpu_name, best.step.seconds, best.step.shares, lang)))
    notes = [n for n in data.notes if n.code not in WINDOW_NOTES]  # the windows have their own line below
    if notes:
        shown = "\n".join(f"• {bk.mrkdwn_escape(note_text(n, data, lang))}" for n in notes[:MAX_NOTES])
        blocks += bk.sections(t("bot.answer.notes", lang) + "\n" + shown)
    windows = _windows(data, lang)
    if windows:
        blocks.append(bk.context(windows))
    blocks.append(_buttons(best, lang))
    return bk.fit(blocks, t("bot.answer.overflow", lang))


def _title(data: Answer, lang: str) -> str:
    method = t(f"method.{data.spec.method}", lang)
    model = model_label(data.model, lang) or data.spec.model or t("bot.answer.unnamed_model", lang)
    return t("bot.answer.title", lang, method=method, model=model, seq=integer(data.spec.seq_len, lang))


def _recommendation(best: Option | None, lang: str) -> str:
    if best is None:
        return t("bot.answer.nothing_fits", lang)
    if best.cost_usd is None and best.price_per_million_tokens is not None:
        return t("bot.answer.recommended_rate", lang, n=best.num_gpus or 1, gpu=best.gpu_name, used=gib(best.device_bytes, lang),
                 capacity=gib(best.usable_bytes, lang), tokens=si(best.tokens_per_s or 0, lang),
                 per_million=usd(best.price_per_million_tokens, lang))
    return t("bot.answer.recommended", lang, n=best.num_gpus or 1, gpu=best.gpu_name, used=gib(best.device_bytes, lang),
             capacity=gib(best.usable_bytes, lang), tokens=si(best.tokens_per_s or 0, lang), time=hours(best.hours, lang),
             cost=usd(best.cost_usd, lang))


def memory_bar(used: float, capacity: float, cells: int = BAR_CELLS) -> str:
    """'█████░░░░░ ' for half full; over capacity the bar is full and ends with '▲'."""
    if capacity <= 0:
        return "?" * cells + "  "
    ratio = used / capacity
    if ratio > 1:
        return "█" * cells + "▲ "
    filled = min(cells, round(ratio * cells))
    return "█" * filled + "░" * (cells - filled) + "  "


def _cells(o: Option, lang: str, *, monospace: bool = True) -> list[str]:
    """One GPU's row: name (* when not offered), fits (✓ n× / ✗), memory bar and used/usable,
    tokens/s, time and cost to an accepted checkpoint (or the price per million tokens).
    ``monospace``: the name clipped to the fixed column and the bar padded for alignment."""
    short = o.gpu_name.removeprefix("NVIDIA ").removeprefix("AMD ").replace(" GB", "GB")
    name = (short_gpu_name(o.gpu_name) if monospace else short) + ("*" if not o.offered else "")
    fits = f"✓ {o.num_gpus or 1}×" if o.fits else "✗"
    bar = memory_bar(o.device_bytes, o.usable_bytes) if monospace else memory_bar(o.device_bytes, o.usable_bytes).rstrip() + " "
    usage = f"{bar}{short_size(o.device_bytes, lang)}/{short_size(o.usable_bytes, lang)}"
    tokens = si(o.tokens_per_s, lang) if o.fits and o.tokens_per_s else "-"
    time_ = hours(o.hours, lang) if o.fits else "-"
    cost = usd(o.cost_usd, lang) if o.fits and o.cost_usd is not None else (
        f"{usd(o.price_per_million_tokens, lang)}/M" if o.fits and o.price_per_million_tokens is not None else "-")
    return [name, fits, usage, tokens, time_, cost]


def _header(lang: str) -> list[str]:
    return [t(f"bot.table.{k}", lang) for k in ("gpu", "fits", "memory", "tokens", "time", "cost")]


# Slack's table block (docs.slack.dev/reference/block-kit/blocks/table-block): left for the
# words, right for the figures so their digits line up.
TABLE_ALIGN = ("left", "left", "left", "right", "right", "right")


def gpu_table_block(options: tuple[Option, ...] | list[Option], lang: str) -> bk.Block:
    """The option table as Slack's table block: a header row, then one row per GPU (at most
    bk.MAX_TABLE_ROWS rows in all; the rest are the text fallback's)."""
    rows = [_header(lang)] + [_cells(o, lang, monospace=False) for o in options]
    return bk.table(rows, align=TABLE_ALIGN, block_id="gpu_table")


def gpu_table(options: tuple[Option, ...] | list[Option], lang: str) -> list[str]:
    """One aligned line per GPU, under a header line (the monospace layout)."""
    lines = [f"{t('bot.table.gpu', lang):<{GPU_NAME_WIDTH}} {t('bot.table.fits', lang):<5} "
             f"{t('bot.table.memory', lang):<25} {t('bot.table.tokens', lang):>6} "
             f"{t('bot.table.time', lang):>9} {t('bot.table.cost', lang):>8}"]
    for o in options:
        name, fits, usage, tokens, time_, cost = _cells(o, lang)
        lines.append(f"{name:<{GPU_NAME_WIDTH}} {fits:<5} {usage:<25} {tokens:>6} {time_:>9} {cost:>8}")
    return lines


def short_gpu_name(name: str) -> str:
    """'NVIDIA H100 SXM 80 GB' -> 'H100 SXM 80GB' (the table is monospace and narrow)."""
    short = name.removeprefix("NVIDIA ").removeprefix("AMD ").replace(" GB", "GB")
    return bk.clip(short, GPU_NAME_WIDTH - 1)


def _levers(data: Answer, lang: str) -> str:
    """The levers section, titled by what it does (advisor.report.levers_lines: "Fits on one RTX
    4090 with:", "Changes that would make it fit (they change the job):"); an answer stored before
    schema 3 keeps the old section (the first offered GPU needing more than one card)."""
    if data.verdict is not None:
        lines = levers_lines(data, lang)
        return "\n".join(bk.mrkdwn_escape(line.strip()) if line.startswith(" ") else f"*{bk.mrkdwn_escape(line)}*"
                         for line in lines)
    candidates = []
    for o in data.options:
        levers = [lv for lv in o.levers if lv.num_gpus == 1]
        if o.offered and levers and not (o.fits and (o.num_gpus or 1) == 1):
            candidates.append((not any(lv.fits for lv in levers), o, levers))
    if not candidates:
        return ""
    _, o, levers = min(candidates, key=lambda c: c[0])  # stable: the first GPU with a lever that fits
    lines = [t("bot.answer.levers", lang, gpu=o.gpu_name)]
    for lv in sorted(levers, key=lambda lv: not lv.fits)[:MAX_LEVERS]:
        mark = "✓" if lv.fits else "✗"
        lines.append(f"{mark} {bk.mrkdwn_escape(lever_text(lv, lang))} → {gib(lv.device_bytes, lang)}")
    return "\n".join(lines)


def _breakdown(data: Answer, best: Option | None, lang: str) -> bk.Block | None:
    """The parts of the memory: of the recommended option, otherwise of the job as asked (the
    spec's own GPU count), said as such."""
    if best is not None and best.memory is not None and best.memory.terms:
        m, n = best.memory, best.num_gpus or 1
        text = t("bot.answer.breakdown", lang, gpu=best.gpu_name, n=n, allocated=gib(m.allocated_bytes, lang),
                 reserved=gib(m.reserved_bytes, lang), device=gib(best.device_bytes, lang), capacity=gib(best.usable_bytes, lang))
    elif data.memory.terms:
        m, n = data.memory, data.memory.num_gpus or data.spec.num_gpus or 1
        text = t("bot.answer.breakdown_asked", lang, n=n, allocated=gib(m.allocated_bytes, lang),
                 reserved=gib(m.reserved_bytes, lang), device=gib(m.device_bytes, lang))
    else:
        return None
    shown = sorted(((k, v) for k, v in m.terms.items() if v and k in TERMS), key=lambda kv: -kv[1])
    fields = [f"*{t(f'bot.term.{k}', lang)}*\n{gib(v, lang)}" for k, v in shown]
    return bk.section(text, fields=fields, block_id="breakdown")


def _windows(data: Answer, lang: str) -> str:
    plan = data.planning
    if plan is None or not plan.windows:
        return ""
    known = plan.job_gpu_hours is not None  # without a dataset size no window "fits" the job
    parts = " · ".join(t("bot.answer.window", lang, time=f"{plain(w.hours, lang)} h", cost=usd(w.price_usd, lang),
                         mark=("✓" if w.fits else "✗") if known else "").rstrip() for w in plan.windows)
    gpu = data.gpu_name(plan.gpu) if plan.num_gpus == 1 else f"{plan.num_gpus} × {data.gpu_name(plan.gpu)}"
    if known:
        return t("bot.answer.windows_on", lang, gpu=gpu, windows=parts, gpu_hours=integer(plan.job_gpu_hours, lang))
    return t("bot.answer.windows_on_rate", lang, gpu=gpu, windows=parts)


def _buttons(best: Option | None, lang: str) -> bk.Block:
    elements = []
    if best is not None:
        elements.append(bk.button(t("bot.button.pilot", lang, gpu=short_gpu_name(best.gpu_name)), ACTION_PILOT,
                                  {"gpu": best.gpu, "num_gpus": best.num_gpus or 1}, style="primary"))
    elements.append(bk.button(t("bot.button.verify", lang), ACTION_VERIFY, "verify"))
    elements.append(bk.button(t("bot.button.chart", lang), ACTION_CHART, "chart"))
    if best is not None:
        elements.append(bk.button(t("bot.button.launch", lang), ACTION_LAUNCH, {"gpu": best.gpu, "num_gpus": best.num_gpus or 1}))
    return bk.actions(*elements, block_id="answer_actions")
