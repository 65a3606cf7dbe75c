"""A recommendation in words: the short notes (``build_notes``) and the compact table a person
reads in five seconds (``render_recommendation``), in English or Spanish through advisor.i18n."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.format import gib, si, usd
from advisor.format import hours as duration
from advisor.i18n import has, t

if TYPE_CHECKING:  # recommend imports this module; types only
    from advisor.cost import PlanningWindow
    from advisor.recommend import GpuOption, Recommendation
    from advisor.spec import FinetuneSpec

MAX_GPUS_SEARCHED = 64  # advisor.recommend.GPU_COUNTS[-1], repeated to avoid an import cycle
TIGHT_MARGIN = 0.10  # below this share of usable memory left free, suggest the pilot first
LEVERS_SHOWN = 2  # per GPU in the table


def term_name(term: str, lang: str) -> str:
    key = f"notes.term.{term}"
    return t(key, lang) if has(key) else t("notes.term.other", lang, name=term.replace("_", " "))


def lever_text(code: str, detail: dict, lang: str) -> str:
    """The words for a lever (``advisor.recommend.Lever``) from its code and detail."""
    if "fsdp_n" in detail:
        rest = {k: v for k, v in detail.items() if k != "fsdp_n"}
        return f"{lever_text(code, rest, lang)}; {t('notes.lever.fsdp', lang, n=detail['fsdp_n'])}"
    if code == "combined":
        parts = "; ".join(lever_text(c, d, lang) for c, d in detail["parts"])
        return t("notes.lever.combined", lang, levers=parts)
    return t(f"notes.lever.{code}", lang, **detail)


def reason_text(detail: dict, lang: str) -> str:
    """Why a spec does not fit on one GPU, from ``GpuOption.reason_detail``."""
    fields = dict(need=gib(detail["need"]), usable=gib(detail["usable"]), term=term_name(detail["term"], lang),
                  term_size=gib(detail["term_size"]))
    if "need_n" in detail:
        return t("notes.reason.none", lang, n=detail["n"], need_n=gib(detail["need_n"]), **fields)
    return t("notes.reason.one_gpu", lang, **fields)


def _name(option: GpuOption) -> str:
    return option.gpu_name.removeprefix("NVIDIA ").removeprefix("AMD ")


def _fmt_money(o: GpuOption) -> str:
    if o.cost_usd is not None:
        return usd(o.cost_usd)
    return f"{usd(o.price_per_million_tokens)}/M" if o.price_per_million_tokens is not None else "-"


def _windows_note(best: GpuOption, windows: list[PlanningWindow], job_gpu_hours: float | None, lang: str) -> str:
    text = ", ".join(t("notes.window", lang, hours=w.hours, price=usd(w.price_usd)) for w in windows)
    if job_gpu_hours is None:
        return t("notes.windows", lang, gpu=_name(best), windows=text)
    fit = next((w for w in windows if w.fits), None)
    if fit is None:
        return t("notes.windows_over", lang, gpu=_name(best), windows=text, gpu_hours=f"{job_gpu_hours:.1f}",
                 hours=windows[-1].hours)
    return t("notes.windows_fit", lang, gpu=_name(best), windows=text, gpu_hours=f"{job_gpu_hours:.1f}",
             hours=fit.hours)


def _nothing_fits(options: list[GpuOption], offered: list[GpuOption], lang: str) -> list[str]:
    notes = [t("notes.nothing_fits", lang, n=MAX_GPUS_SEARCHED)]
    other = next((o for o in options if not o.offered and o.fits), None)
    if other is not None:
        notes.append(t("notes.would_fit_gpu", lang, gpu=_name(other), n=other.num_gpus))
    for o in sorted(offered, key=lambda o: o.price_usd_per_hour):  # the cheapest GPU a lever makes fit
        lever = next((lv for lv in o.levers if lv.fits), None)
        if lever is not None:
            notes.append(t("notes.would_fit_lever", lang, gpu=_name(o), lever=lever_text(lever.lever, lever.detail, lang),
                           mem=gib(lever.memory_bytes)))
            break
    return notes


def build_notes(spec: FinetuneSpec, options: list[GpuOption], best: GpuOption | None,
                windows: list[PlanningWindow], job_gpu_hours: float | None, lang: str) -> list[str]:
    """Short notes for a ranked list of options, in ``lang``."""
    offered = [o for o in options if o.offered and o.price_usd_per_hour is not None]
    if best is None:
        return _nothing_fits(options, offered, lang)
    notes: list[str] = []
    rate = best.price_usd_per_hour * best.num_gpus
    if best.cost is None:
        notes.append(t("notes.recommend_rate", lang, gpu=_name(best), n=best.num_gpus,
                       per_million=usd(best.price_per_million_tokens), rate=usd(rate), tps=f"{best.tokens_per_s:,.0f}"))
        notes.append(t("notes.no_dataset", lang))
    else:
        c = best.cost
        notes.append(t("notes.recommend", lang, gpu=_name(best), n=best.num_gpus, cost=usd(c.total_usd),
                       time=duration(best.hours, lang)))
        notes.append(t("notes.itemized", lang, gpu=_name(best), training=usd(c.training_usd),
                       overhead=usd(c.overhead_usd), failed_pct=f"{spec.costs.failed_run_fraction * 100:.0f}",
                       failures=usd(c.failures_usd), evaluation=usd(c.evaluation_usd), pilot=usd(c.pilot_usd),
                       storage=usd(c.storage_usd), storage_gb=f"{c.storage_gb:.0f}",
                       months=f"{spec.costs.storage_months:g}", total=usd(c.total_usd)))
    notes.append(_windows_note(best, windows, job_gpu_hours, lang))
    fitting = [o for o in offered if o.fits]
    cheapest = min(fitting, key=lambda o: o.money)
    if cheapest is not best:  # within the tie band the recommendation took fewer nodes or time
        notes.append(t("notes.tie", lang, gpu=_name(cheapest), n=cheapest.num_gpus, cost=_fmt_money(cheapest),
                       pct=f"{(1 - cheapest.money / best.money) * 100:.0f}", best=_name(best)))
    fastest = max(fitting, key=lambda o: o.tokens_per_s)
    if (fastest is not best and fastest is not cheapest and fastest.tokens_per_s > best.tokens_per_s * 1.05
            and fastest.money > best.money):
        notes.append(t("notes.faster", lang, gpu=_name(fastest), speedup=f"{fastest.tokens_per_s / best.tokens_per_s:.1f}",
                       ratio=f"{fastest.money / best.money:.1f}", cost=_fmt_money(fastest)))
    cheaper_hourly = [o for o in fitting if o.price_usd_per_hour < best.price_usd_per_hour
                      and o.money > best.money]
    if cheaper_hourly:  # a dearer GPU per hour is the cheaper one per checkpoint
        cheap = min(cheaper_hourly, key=lambda o: o.price_usd_per_hour)
        notes.append(t("notes.hourly_trap", lang, gpu=_name(best), cheaper=_name(cheap),
                       hourly=f"{best.price_usd_per_hour / cheap.price_usd_per_hour:.1f}",
                       cost=_fmt_money(best), cheaper_cost=_fmt_money(cheap)))
    if best.headroom_bytes < TIGHT_MARGIN * best.usable_bytes:
        notes.append(t("notes.tight", lang, gpu=_name(best), headroom=gib(max(best.headroom_bytes, 0))))
    key = "notes.calibrated" if best.efficiency_source == "calibrated" else "notes.prior"
    notes.append(t(key, lang, gpu=_name(best), pilots=best.pilots, mfu=f"{best.mfu * 100:.0f}"))
    from advisor.stacks import unread_behaviours

    notes += [t(f"notes.stack.{code}", lang) for code in unread_behaviours(spec)]
    if spec.gpu is not None and spec.gpu != best.gpu:
        asked = next((o for o in options if o.gpu == spec.gpu), None)
        if asked is not None and asked.fits:
            notes.append(t("notes.asked_gpu_fits", lang, gpu=_name(asked), n=asked.num_gpus, cost=_fmt_money(asked)))
        elif asked is not None:
            notes.append(t("notes.asked_gpu_no", lang, gpu=_name(asked), reason=asked.reason or ""))
    return notes


# --- the table ---------------------------------------------------------------------------------


def _title(rec: Recommendation, lang: str) -> str:
    s = rec.spec
    data = (t("notes.table.data", lang, tokens=si(s.dataset_tokens), epochs=f"{s.epochs:g}")
            if s.dataset_tokens is not None else t("notes.table.no_data", lang))
    return t("notes.table.title", lang, method=t(f"method.{s.method}", lang), model=rec.model_label,
             seq_len=s.seq_len, micro_batch=s.micro_batch, data=data)


def _row(o: GpuOption, rec: Recommendation, lang: str) -> list[str]:
    fits = t("word.yes", lang) if o.fits else t("notes.table.no_fit", lang)
    tps = f"{o.tokens_per_s:,.0f}" if o.tokens_per_s is not None else "-"
    if rec.spec.dataset_tokens is None:
        last = [usd(o.price_usd_per_hour * o.num_gpus) if o.fits and o.price_usd_per_hour else "-",
                usd(o.price_per_million_tokens) if o.price_per_million_tokens is not None else "-"]
    else:
        last = [duration(o.hours, lang), usd(o.cost_usd) if o.cost_usd is not None else "-"]
    mark = t("notes.table.recommended", lang) if o.gpu == rec.recommended else ""
    return [_name(o), fits, str(o.num_gpus or "-"), gib(o.memory_bytes), tps, *last, mark]


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def render_recommendation(rec: Recommendation, lang: str | None = None, *, with_assumed: bool = True) -> str:
    """The whole answer as plain text: title, memory, table, levers, notes, assumed defaults
    (``with_assumed=False``: a caller that says them on its first lines, advisor.answer)."""
    lang = lang or rec.lang
    m = rec.memory
    term = m.largest_term()
    lines = [_title(rec, lang),
             t("notes.table.memory", lang, n=m.num_gpus, device=gib(m.device_bytes), allocated=gib(m.allocated_bytes),
               term=term_name(term, lang), term_size=gib(m.terms[term])), ""]
    header_key = "notes.table.header_rate" if rec.spec.dataset_tokens is None else "notes.table.header"
    header = t(header_key, lang).split("|") + [""]
    offered = [o for o in rec.options if o.offered and o.price_usd_per_hour is not None]
    others = [o for o in rec.options if o not in offered]
    table = _table([header] + [_row(o, rec, lang) for o in offered + others])
    lines += table[: 1 + len(offered)]
    if others:
        lines += [t("notes.table.not_offered", lang)] + table[1 + len(offered):]
    best = next((o for o in rec.options if o.gpu == rec.recommended), None)
    if best is not None and best.step_s and best.time_shares:
        from advisor.steptime.text import step_line

        lines.append(step_line(_name(best), best.step_s, best.time_shares, lang))
    too_big = [o for o in offered if o.reason_detail is not None]
    if too_big:
        lines += ["", t("notes.table.levers_title", lang)]
        for o in too_big:
            shown = [f"{lever_text(lv.lever, lv.detail, lang)} ({gib(lv.memory_bytes)})"
                     for lv in o.levers if lv.fits][:LEVERS_SHOWN]
            text = "; ".join(shown) if shown else reason_text(o.reason_detail, lang)
            lines.append(t("notes.table.levers", lang, gpu=_name(o), levers=text))
    notes = rec.notes if lang == rec.lang else _notes_again(rec, lang)
    lines += ["", t("notes.table.notes", lang)] + [f"- {n}" for n in notes]
    if rec.assumed and with_assumed:
        items = ", ".join(_assumed(name, getattr(rec.spec, name), lang) for name in rec.assumed)
        lines.append(t("notes.table.assumed", lang, items=items))
    return "\n".join(lines)


def _notes_again(rec: Recommendation, lang: str) -> list[str]:
    best = next((o for o in rec.options if o.gpu == rec.recommended), None)
    return build_notes(rec.spec, rec.options, best, rec.planning_windows, rec.job_gpu_hours, lang)


def _assumed(name: str, value: object, lang: str) -> str:
    if isinstance(value, bool):
        value = t("word.on" if value else "word.off", lang)
    elif name == "method":
        value = t(f"method.{value}", lang)
    elif isinstance(value, float):
        value = f"{value:g}"
    key = f"notes.field.{name}"
    return t(key, lang, value=value) if has(key) else t("notes.field.other", lang, name=name, value=value)
