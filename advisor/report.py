"""An answer in words: levers, reasons and notes from their codes (``lever_text``,
``reason_text``, ``note_text``) and the compact table a person reads in five seconds
(``render_text``), in English or Spanish through advisor.i18n.

This is the edge: it reads an ``advisor.answer_model.Answer`` (numbers and codes) and writes
sentences; the ranking below it (advisor.recommend) never imports it.
"""

from __future__ import annotations

import re

from advisor.answer_model import Answer, Change, Lever, Note, Option, Plan, Reason, Verdict
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
    if change.kind == "micro_batch" and change.accumulation is not None:  # schema 3: the accumulation kept
        return t("notes.lever.accumulation", lang, accumulation=change.accumulation, micro_batch=change.micro_batch)
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
    if reason.kind == "stated_count":
        return t("notes.reason.stated", lang, asked=reason.max_gpus, n=reason.needs_gpus, **fields)
    if reason.kind == "over_ceiling":
        return (t("notes.reason.one_gpu", lang, **fields) + "; "
                + t("answer.verdict.why_past_ceiling", lang, n=reason.needs_gpus, ceiling=reason.max_gpus))
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
    gpu = gpu_label(o) if plan.num_gpus == 1 else f"{plan.num_gpus} x {gpu_label(o)}"
    fields = {"gpu": gpu, "windows": ", ".join(t("notes.window", lang, hours=plain(w.hours, lang), price=usd(w.price_usd, lang))
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


# --- the verdict: the question asked, answered first ----------------------------------------------


def plan_label(plan: Plan, answer: Answer, lang: str, *, with_changes: bool = True) -> str:
    """'1 x RTX 4090 24 GB with gradient accumulation 2 (micro-batch 2)', '16 x H100 SXM 80 GB
    (2 nodes x 8)': what to rent, in words."""
    gpu = (answer.gpu_name(plan.gpu) or plan.gpu).removeprefix("NVIDIA ").removeprefix("AMD ")
    text = (t("answer.verdict.plan_nodes", lang, n=plan.num_gpus, gpu=gpu, nodes=plan.nodes, per_node=plan.gpus_per_node)
            if plan.nodes > 1 else t("answer.verdict.plan", lang, n=plan.num_gpus, gpu=gpu))
    if with_changes and plan.changes:
        changes = "; ".join(t("answer.verdict.accumulation", lang, accumulation=c.accumulation, micro_batch=c.micro_batch)
                            if c.kind == "micro_batch" and c.accumulation is not None else change_text(c, lang)
                            for c in plan.changes)
        text = t("answer.verdict.with", lang, plan=text, changes=changes)
    if with_changes and "global_batch" in plan.alters and plan.global_batch is not None:
        text = t("answer.verdict.global_batch", lang, plan=text, batch=integer(plan.global_batch, lang),
                 asked=integer(answer.global_batch, lang))
    return text


def plan_money(plan: Plan, lang: str) -> str:
    """'about 41 h and $19 to an accepted checkpoint', or the rate without a dataset size."""
    if plan.cost_usd is not None:
        return t("answer.verdict.money", lang, time=duration(plan.hours, lang), cost=usd(plan.cost_usd, lang))
    if plan.price_per_million_tokens is not None:
        return t("answer.verdict.money_rate", lang, per_million=usd(plan.price_per_million_tokens, lang),
                 rate=usd(plan.price_usd_per_hour, lang))
    return "-"


def verdict_text(answer: Answer, lang: str) -> str:
    """The first line of an answer: the question asked, answered (``Answer.verdict``); empty for
    an answer stored before schema 3."""
    v: Verdict | None = answer.verdict
    if v is None:
        return ""
    cheapest = dict(cheapest=plan_label(v.cheapest, answer, lang), cheapest_money=plan_money(v.cheapest, lang)) \
        if v.cheapest is not None else {}
    if v.answer == "yes":
        fields = dict(plan=plan_label(v.plan, answer, lang), money=plan_money(v.plan, lang))
        if cheapest and v.cheapest.money is not None and v.plan.money is not None and v.cheapest.money < v.plan.money:
            return t("answer.verdict.yes_cheaper", lang, **fields, **cheapest)
        return t("answer.verdict.yes", lang, **fields)
    if v.answer == "over_ceiling":
        if v.needs_gpus is None:
            return t("answer.verdict.none_fits", lang)
        return t("answer.verdict.over_ceiling", lang, ceiling=v.max_gpus, n=v.needs_gpus)
    stated = getattr(v, "stated_gpus", None)
    # nothing fits on the count the user stated: ``cheapest`` is the plan on more GPUs that would
    would = (stated is not None and v.cheapest is not None and v.needs_gpus == v.cheapest.num_gpus
             and v.cheapest.num_gpus > stated)
    if v.question == "gpu":
        why = (t("answer.verdict.why_stated", lang, n=integer(v.needs_gpus, lang), asked=integer(stated, lang))
               if stated is not None and v.needs_gpus is not None
               else t("answer.verdict.why_past_ceiling", lang, n=v.needs_gpus, ceiling=v.max_gpus)
               if v.needs_gpus is not None else t("answer.verdict.why_no_fit", lang))
        return t("answer.verdict.no_gpu_stated" if would else "answer.verdict.no_gpu", lang,
                 gpu=answer.gpu_name(v.gpu).removeprefix("NVIDIA "), why=why, **cheapest)
    if would:
        return (t("answer.verdict.no_stated_one", lang, **cheapest) if stated == 1
                else t("answer.verdict.no_stated", lang, n=integer(stated, lang), **cheapest))
    return t("answer.verdict.no_one_card", lang, **cheapest)


def plan_money_short(plan: Plan, lang: str = "en") -> str:
    if plan.cost_usd is not None:
        return usd(plan.cost_usd, lang)
    return f"{usd(plan.price_per_million_tokens, lang)}/M" if plan.price_per_million_tokens is not None else "-"


def levers_lines(answer: Answer, lang: str) -> list[str]:
    """The levers section, titled by what it does: "Fits on one RTX 4090 with:" (levers that keep
    the job, priced as plans), then "Changes that would make it fit (they change the job):"
    (shorter sequences, QLoRA instead of LoRA...), then the GPUs nothing makes fit on one card.
    Multi-GPU plans are rows of the table, never listed here."""
    lines: list[str] = []
    offered = [o for o in answer.options if o.offered and o.price_usd_per_hour is not None and o.reason is not None]
    for o in offered:
        if o.plan is not None and o.plan.num_gpus == 1 and o.plan.changes:  # the row's plan is a lever plan
            lines += [t("notes.table.fits_one_with", lang, gpu=gpu_label(o)),
                      t("notes.table.lever_item", lang, lever="; ".join(change_text(c, lang) for c in o.plan.changes),
                        mem=gib(o.plan.device_bytes, lang=lang), money=plan_money_short(o.plan, lang))]
    v = answer.verdict
    changes = list(v.job_changes) if v is not None else []
    if changes:
        lines.append(t("notes.table.job_changes", lang))
        for p in changes:
            lines.append(t("notes.table.change_item", lang, gpu=(answer.gpu_name(p.gpu) or p.gpu).removeprefix("NVIDIA "),
                           lever="; ".join(change_text(c, lang) for c in p.changes), mem=gib(p.device_bytes, lang=lang),
                           money=plan_money_short(p, lang)))
    stuck = [o for o in offered if not o.fits and not any(lv.fits and lv.num_gpus == 1 for lv in o.levers)]
    if stuck:
        lines.append(t("notes.table.cannot_fit", lang))
        lines += [t("notes.table.no_lever", lang, gpu=gpu_label(o), reason=reason_text(o.reason, lang)) for o in stuck]
    return lines


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
    "multi_node": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": o.num_gpus, "nodes": o.plan.nodes,
                                         "per_node": o.plan.gpus_per_node, "network": integer(o.plan.network_gbps, lang)},
    "rounded_count": lambda o, n, a, lang: {"gpu": gpu_label(o), "asked": n.num_gpus, "n": o.num_gpus},
    "over_ceiling": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": n.num_gpus, "ceiling": n.max_gpus},
    "nothing_fits_stated": lambda o, n, a, lang: {"n": integer(n.num_gpus, lang)},
    "global_batch": lambda o, n, a, lang: {"gpu": gpu_label(o), "n": o.plan.num_gpus,
                                           "batch": integer(o.plan.global_batch, lang),
                                           "asked": integer(a.global_batch, lang),
                                           "how": t("notes.global_batch." + ("assumed" if "micro_batch" in a.assumed
                                                                             else "asked"), lang)},
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


def render_text(answer: Answer, lang: str, *, with_assumed: bool = True, with_verdict: bool = True) -> str:
    """The whole answer as plain text: the verdict, title, memory, table, levers, notes, assumed
    defaults (``with_assumed=False`` / ``with_verdict=False``: a caller that says them on its
    first lines, advisor.answer)."""
    m = answer.memory
    term = m.largest_term()
    verdict = verdict_text(answer, lang) if with_verdict else ""
    lines = ([verdict] if verdict else []) + [_title(answer, lang),
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
    if answer.verdict is not None:
        levers = levers_lines(answer, lang)
        if levers:
            lines += [""] + levers
    else:  # an answer stored before schema 3: its levers as they were shown then
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
