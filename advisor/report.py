"""An answer in words: levers, reasons and notes from their codes (``lever_text``,
``reason_text``, ``note_text``) and the compact table a person reads in five seconds
(``render_text``), in English or Spanish through advisor.i18n.

This is the edge: it reads an ``advisor.answer_model.Answer`` (numbers and codes) and writes
sentences; the ranking below it (advisor.recommend) never imports it.
"""

from __future__ import annotations

import re

from advisor.answer_model import Answer, Change, Lever, Note, Option, Reason
from advisor.format import gib, si, usd
from advisor.format import hours as duration
from advisor.i18n import has, t
from advisor.i18n.numbers import decimal, integer, percent, plain

LEVERS_SHOWN = 2  # per GPU in the table
# The label advisor.resolve.Resolved.label gives a model known only by its size (and stores in
# the Answer): "13.0B-parameter model"; said in the answer's language by ``model_label``.
_SIZE_LABEL = re.compile(r"^(\d+(?:\.\d+)?)B-parameter model$")


def model_label(label: str | None, lang: str) -> str | None:
    """A model's name as the answer says it: catalog and Hub names as they are, a model known
    only by its size in ``lang`` ("13.0B-parameter model" / "modelo de 13,0 mil millones de parámetros")."""
    m = _SIZE_LABEL.match(label or "")
    return t("answer.model_by_size", lang, params=decimal(float(m.group(1)), lang, 1)) if m else label


def term_name(term: str, lang: str) -> str:
    key = f"notes.term.{term}"
    return t(key, lang) if has(key) else t("notes.term.other", lang, name=term.replace("_", " "))


def change_text(change: Change | Lever, lang: str) -> str:
    """The words for one change (a lever without FSDP, or a part of a combined lever)."""
    if change.kind == "combined":
        return t("notes.lever.combined", lang, levers="; ".join(change_text(c, lang) for c in change.parts))
    if change.kind == "fsdp":
        return t("notes.lever.fsdp", lang, n=change.num_gpus)
    fields = {"seq_len": integer(change.seq_len, lang)} if change.kind == "shorter_seq" else (
        {"factor": change.factor} if change.kind == "micro_batch" else {})
    return t(f"notes.lever.{change.kind}", lang, **fields)


def lever_text(lever: Lever, lang: str) -> str:
    """The words for a lever (``advisor.answer_model.Lever``) from its code and numbers."""
    text = change_text(lever, lang)
    if lever.fsdp_gpus is not None:
        return f"{text}; {t('notes.lever.fsdp', lang, n=lever.fsdp_gpus)}"
    return text


def reason_text(reason: Reason | None, lang: str) -> str:
    """Why a spec does not fit on one GPU."""
    if reason is None:
        return ""
    if reason.text is not None:  # stored by schema 1 as a sentence
        return reason.text
    fields = dict(need=gib(reason.need_bytes, lang=lang), usable=gib(reason.usable_bytes, lang=lang), term=term_name(reason.term, lang),
                  term_size=gib(reason.term_bytes, lang=lang))
    if reason.kind == "no_count":
        return t("notes.reason.none", lang, n=reason.max_gpus, need_n=gib(reason.need_at_max_bytes, lang=lang), **fields)
    return t("notes.reason.one_gpu", lang, **fields)


def gpu_label(option: Option) -> str:
    return option.gpu_name.removeprefix("NVIDIA ").removeprefix("AMD ")


def money_text(o: Option, lang: str = "en") -> str:
    if o.cost_usd is not None:
        return usd(o.cost_usd, lang)
    return f"{usd(o.price_per_million_tokens, lang)}/M" if o.price_per_million_tokens is not None else "-"


def _itemized(o: Option, n: Note, a: Answer, lang: str) -> dict:
    c, costs = o.cost, a.spec.costs
    return dict(gpu=gpu_label(o), training=usd(c.training_usd, lang), overhead=usd(c.overhead_usd, lang),
                failed_pct=percent(costs.failed_run_fraction, lang), failures=usd(c.failures_usd, lang),
                evaluation=usd(c.evaluation_usd, lang), pilot=usd(c.pilot_usd, lang), storage=usd(c.storage_usd, lang),
                storage_gb=integer(c.storage_gb, lang), months=plain(costs.storage_months, lang), total=usd(c.total_usd, lang))


def _windows(o: Option, n: Note, a: Answer, lang: str) -> dict:
    plan = a.planning
    fields = {"gpu": gpu_label(o), "windows": ", ".join(t("notes.window", lang, hours=plain(w.hours, lang), price=usd(w.price_usd, lang))
                                                         for w in plan.windows)}
    if n.code == "windows":
        return fields
    hours = next(w for w in plan.windows if w.fits).hours if n.code == "windows_fit" else plan.windows[-1].hours
    return {**fields, "gpu_hours": decimal(plan.job_gpu_hours, lang, 1), "hours": plain(hours, lang)}


def _versus(o: Option, n: Note, a: Answer, lang: str) -> dict:
    """tie (o: the cheapest, other: the recommendation), faster (o: the fastest), hourly_trap
    (o: the recommendation, other: the GPU cheaper per hour but dearer per checkpoint)."""
    other = a.option(n.other)
    if n.code == "tie":
        return dict(gpu=gpu_label(o), n=o.num_gpus, cost=money_text(o, lang), pct=percent(1 - o.money / other.money, lang),
                    best=gpu_label(other))
    if n.code == "faster":
        return dict(gpu=gpu_label(o), speedup=decimal(o.tokens_per_s / other.tokens_per_s, lang, 1),
                    ratio=decimal(o.money / other.money, lang, 1), cost=money_text(o, lang))
    return dict(gpu=gpu_label(o), cheaper=gpu_label(other), hourly=decimal(o.price_usd_per_hour / other.price_usd_per_hour, lang, 1),
                cost=money_text(o, lang), cheaper_cost=money_text(other, lang))


# note code -> the fields of its message (notes.<code> in advisor/i18n/notes.py), from the option
# the note is about (``Note.gpu``), the note and the answer
_NOTE_FIELDS = {
    "nothing_fits": lambda o, n, a, lang: {"n": n.max_gpus},
    "would_fit_gpu": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": o.num_gpus},
    "would_fit_lever": lambda o, n, a, lang: {"gpu": gpu_label(o), "lever": lever_text(n.lever, lang),
                                              "mem": gib(n.lever.device_bytes, lang=lang)},
    "no_dataset": lambda o, n, a, lang: {},
    "recommend_rate": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": o.num_gpus,
                                             "per_million": usd(o.price_per_million_tokens, lang),
                                             "rate": usd(o.price_usd_per_hour * o.num_gpus, lang),
                                             "tps": integer(o.tokens_per_s, lang)},
    "recommend": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": o.num_gpus, "cost": usd(o.cost.total_usd, lang),
                                        "time": duration(o.hours, lang)},
    "itemized": _itemized,
    "windows": _windows, "windows_fit": _windows, "windows_over": _windows,
    "tie": _versus, "faster": _versus, "hourly_trap": _versus,
    "tight": lambda o, n, a, lang: {"gpu": gpu_label(o), "headroom": gib(max(o.headroom_bytes, 0), lang=lang)},
    "calibrated": lambda o, n, a, lang: {"gpu": gpu_label(o), "pilots": o.pilots, "mfu": percent(o.mfu, lang)},
    "prior": lambda o, n, a, lang: {"gpu": gpu_label(o), "pilots": o.pilots, "mfu": percent(o.mfu, lang)},
    "asked_gpu_fits": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": o.num_gpus, "cost": money_text(o, lang)},
    "asked_gpu_no": lambda o, n, a, lang: {"gpu": gpu_label(o), "reason": reason_text(o.reason, lang)},
}


def note_text(note: Note, answer: Answer, lang: str) -> str:
    """The words for one note of ``answer`` (the figures are its options')."""
    if note.text is not None:  # schema 1 stored the sentence
        return note.text
    if note.code == "stack":  # a stack behaviour decided at run time (advisor.stacks)
        return t(f"notes.stack.{note.behaviour}", lang)
    option = answer.option(note.gpu) if note.gpu is not None else None
    return t(f"notes.{note.code}", lang, **_NOTE_FIELDS[note.code](option, note, answer, lang))


def notes_text(answer: Answer, lang: str) -> list[str]:
    return [note_text(n, answer, lang) for n in answer.notes]


# --- the table ---------------------------------------------------------------------------------


def _title(answer: Answer, lang: str) -> str:
    s = answer.spec
    data = (t("notes.table.data", lang, tokens=si(s.dataset_tokens, lang), epochs=plain(s.epochs, lang))
            if s.dataset_tokens is not None else t("notes.table.no_data", lang))
    return t("notes.table.title", lang, method=t(f"method.{s.method}", lang), model=model_label(answer.model, lang),
             seq_len=integer(s.seq_len, lang), micro_batch=integer(s.micro_batch, lang), data=data)


def _row(o: Option, answer: Answer, lang: str) -> list[str]:
    fits = t("word.yes", lang) if o.fits else t("notes.table.no_fit", lang)
    tps = integer(o.tokens_per_s, lang) if o.tokens_per_s is not None else "-"
    if answer.spec.dataset_tokens is None:
        last = [usd(o.price_usd_per_hour * o.num_gpus, lang) if o.fits and o.price_usd_per_hour else "-",
                usd(o.price_per_million_tokens, lang) if o.price_per_million_tokens is not None else "-"]
    else:
        last = [duration(o.hours, lang), usd(o.cost_usd, lang) if o.cost_usd is not None else "-"]
    mark = t("notes.table.recommended", lang) if o.gpu == answer.recommended else ""
    return [gpu_label(o), fits, str(o.num_gpus or "-"), gib(o.device_bytes, lang=lang), tps, *last, mark]


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def render_text(answer: Answer, lang: str, *, with_assumed: bool = True) -> str:
    """The whole answer as plain text: title, memory, table, levers, notes, assumed defaults
    (``with_assumed=False``: a caller that says them on its first lines, advisor.answer)."""
    m = answer.memory
    term = m.largest_term()
    lines = [_title(answer, lang),
             t("notes.table.memory", lang, n=m.num_gpus, device=gib(m.device_bytes, lang=lang), allocated=gib(m.allocated_bytes, lang=lang),
               term=term_name(term, lang), term_size=gib(m.terms[term], lang=lang)), ""]
    header_key = "notes.table.header_rate" if answer.spec.dataset_tokens is None else "notes.table.header"
    header = t(header_key, lang).split("|") + [""]
    offered = [o for o in answer.options if o.offered and o.price_usd_per_hour is not None]
    others = [o for o in answer.options if o not in offered]
    table = _table([header] + [_row(o, answer, lang) for o in offered + others])
    lines += table[: 1 + len(offered)]
    if others:
        lines += [t("notes.table.not_offered", lang)] + table[1 + len(offered):]
    best = answer.best
    if best is not None and best.step is not None and best.step.shares:
        from advisor.steptime.text import step_line

        lines.append(step_line(gpu_label(best), best.step.seconds, best.step.shares, lang))
    too_big = [o for o in offered if o.reason is not None]
    if too_big:
        lines += ["", t("notes.table.levers_title", lang)]
        for o in too_big:
            shown = [f"{lever_text(lv, lang)} ({gib(lv.device_bytes, lang=lang)})" for lv in o.levers if lv.fits][:LEVERS_SHOWN]
            text = "; ".join(shown) if shown else reason_text(o.reason, lang)
            lines.append(t("notes.table.levers", lang, gpu=gpu_label(o), levers=text))
    lines += ["", t("notes.table.notes", lang)] + [f"- {n}" for n in notes_text(answer, lang)]
    if answer.assumed and with_assumed:
        items = ", ".join(_assumed(name, getattr(answer.spec, name), lang) for name in answer.assumed)
        lines.append(t("notes.table.assumed", lang, items=items))
    return "\n".join(lines)


def _assumed(name: str, value: object, lang: str) -> str:
    if isinstance(value, bool):
        value = t("word.on" if value else "word.off", lang)
    elif name == "method":
        value = t(f"method.{value}", lang)
    elif isinstance(value, float):
        value = plain(value, lang)
    key = f"notes.field.{name}"
    return t(key, lang, value=value) if has(key) else t("notes.field.other", lang, name=name, value=value)
