"""Pilot texts a person reads, in English or Spanish: progress, the predicted-vs-measured
table, failures. The CLI prints them; the bot puts them in Block Kit sections."""

from __future__ import annotations

from typing import Any

from advisor.format import hours, usd
from advisor.i18n import numbers, t
from advisor.pilot.predict import compare
from advisor.pilot.store import PilotRecord

_BYTES = {"peak_allocated_bytes", "peak_reserved_bytes", "device_bytes", "checkpoint_bytes"}


def size(n_bytes: float, lang: str = "en") -> str:
    """Bytes in the unit that keeps 2-3 significant digits (a tiny adapter is KiB, a model GiB)."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(n_bytes) >= scale:
            return f"{numbers.decimal(n_bytes / scale, lang, 2)} {unit}"
    return f"{numbers.integer(n_bytes, lang)} B"


def _fmt(metric: str, value: float | None, lang: str = "en") -> str:
    if value is None:
        return "-"
    if metric in _BYTES:
        return size(value, lang)
    if metric == "tokens_per_s":
        return numbers.integer(value, lang)
    return f"{numbers.decimal(value, lang, 2)} s"


def _pct(error: float | None, lang: str = "en") -> str:
    return "-" if error is None else numbers.signed_percent(error, lang, 0)


def duration(seconds: float | None, lang: str = "en") -> str:
    if seconds is None:
        return "-"
    return f"{numbers.integer(seconds, lang)} s" if seconds < 120 else hours(seconds / 3600, lang)


def progress_text(rec: PilotRecord, lang: str) -> str:
    """The one status line that is edited in place while a pilot runs."""
    gpu = rec.pilot_spec.gpu_name or rec.pilot_spec.gpu or "CPU"
    p = rec.last_progress or {}
    if rec.state == "pending":
        return t("pilot.status.pending", lang, id=rec.id, gpu=gpu)
    if rec.state == "running" and p:
        tps = p.get("tokens_per_s")
        mem = p.get("peak_allocated_bytes")
        return t("pilot.status.running", lang, id=rec.id, gpu=gpu, step=p.get("steps_completed", 0),
                 total=p.get("total_steps", rec.pilot_spec.total_steps), phase=t(f"pilot.phase.{p.get('phase', 'forward')}", lang)
                 if _known_phase(p.get("phase")) else p.get("phase", "-"),
                 tps=numbers.integer(tps, lang) if tps else "-", mem=size(mem, lang) if mem else "-")
    if rec.state == "running":
        return t("pilot.status.starting", lang, id=rec.id, gpu=gpu)
    if rec.state == "finished":
        return t("pilot.status.finished", lang, id=rec.id, gpu=gpu)
    if rec.state == "declined":
        return t("pilot.status.declined", lang, id=rec.id)
    return failure_text(rec, lang)


def _known_phase(phase: str | None) -> bool:
    return phase in ("forward", "backward", "optimizer", "checkpoint", "between steps", "build")


def failure_text(rec: PilotRecord, lang: str) -> str:
    reason = rec.reason or "error"
    where = ((rec.result or {}).get("where") or {}) if rec.result else {}
    p = rec.last_progress or {}
    step = where.get("steps_completed", p.get("steps_completed", 0))
    phase = where.get("phase") or p.get("phase") or "-"
    phase_text = t(f"pilot.phase.{phase}", lang) if _known_phase(phase) else phase
    key = f"pilot.failed.{reason}" if reason in FAILURE_KEYS else "pilot.failed.error"
    return t(key, lang, id=rec.id, phase=phase_text, step=step, total=rec.pilot_spec.total_steps,
             message=(rec.message or "")[:500], gpu=rec.pilot_spec.gpu_name or rec.pilot_spec.gpu or "CPU")


FAILURE_KEYS = ("oom", "cancelled", "timed_out", "killed", "node_lost", "pending_timeout", "missing_extra", "error")


def comparison_rows(rec: PilotRecord) -> list[dict[str, Any]]:
    return compare(rec.prediction or {}, rec.result or {})


def comparison_table(rec: PilotRecord, lang: str) -> str:
    """Predicted vs measured, aligned, with the prediction's error."""
    header = (t("pilot.table.metric", lang), t("pilot.table.predicted", lang), t("pilot.table.measured", lang),
              t("pilot.table.error", lang))
    lines = [header]
    for row in comparison_rows(rec):
        if row["predicted"] is None and row["measured"] is None:
            continue
        lines.append((t(f"pilot.metric.{row['metric']}", lang), _fmt(row["metric"], row["predicted"], lang),
                      _fmt(row["metric"], row["measured"], lang), _pct(row["error"], lang)))
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    return "\n".join(f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c:>{widths[2]}}  {d:>{widths[3]}}" for a, b, c, d in lines)


def result_summary(rec: PilotRecord, lang: str) -> str:
    r = rec.result or {}
    mem = r.get("memory") or {}
    mfu = r.get("mfu")
    lines = [t("pilot.final.header", lang, id=rec.id, gpu=rec.pilot_spec.gpu_name or rec.pilot_spec.gpu or "CPU",
               device=(r.get("environment") or {}).get("gpu_name") or r.get("device", "cpu"),
               steps=(r.get("steps") or {}).get("measured", rec.pilot_spec.steps))]
    lines.append(t("pilot.final.speed", lang, tps=numbers.integer(r.get('tokens_per_s') or 0, lang),
                   step=numbers.decimal((r.get('step_time_s') or {}).get('mean') or 0, lang, 3),
                   cv=numbers.percent((r.get('step_time_s') or {}).get('cv') or 0, lang, 1),
                   mfu=numbers.percent(mfu, lang, 1) if mfu is not None else "-"))
    if r.get("device") != "cuda":
        lines.append(t("pilot.final.cpu_memory", lang, rss=size(mem.get("process_rss_peak_bytes") or 0, lang),
                       delta=size(mem.get("process_rss_delta_bytes") or 0, lang)))
    ck = r.get("checkpoint")
    if ck:
        lines.append(t("pilot.final.checkpoint", lang, kind=t(f"pilot.ckpt.{ck['kind']}", lang), size=size(ck["bytes"], lang),
                       seconds=numbers.decimal(ck['save_s'], lang, 2), manifest=ck["manifest"]))
    stack = r.get("stack_ran") or {}
    lines.append(t("pilot.final.stack", lang, impl=stack.get("implementation", "-"),
                   quant=stack.get("quant_impl") or "-"))
    for note in r.get("notes") or []:
        fields = {k: v for k, v in note.items() if k != "code"}
        lines.append("• " + t(f"pilot.note.{note['code']}", lang, **fields))
    if rec.cost_usd is not None:
        lines.append(t("pilot.final.cost", lang, cost=usd(rec.cost_usd, lang), estimate=usd(rec.estimated_cost_usd, lang)))
    return "\n".join(lines)


def render_cli(rec: PilotRecord, lang: str) -> str:
    if rec.state == "finished":
        return result_summary(rec, lang) + "\n\n" + comparison_table(rec, lang)
    return progress_text(rec, lang)
