"""Pilot texts a person reads, in English or Spanish: progress, the predicted-vs-measured
table, failures. The CLI prints them; the bot puts them in Block Kit sections.

The words (advisor/i18n/pilot.py) carry no markup: each surface decides how an id, a heading or
an icon looks. ``PLAIN`` (the CLI) prints them as they are; the bot passes its mrkdwn surface
(bot/pilot/render.py: `code`, *bold*, :emoji:). Nothing here shows a server path: files of a pilot
are named relative to its directory (``<workdir>/<pilot id>/``, advisor/pilot/launchers/local.py),
and any other absolute path in a runner's message is cut to its last component
(``scrub_paths``). A pilot that ran on a CPU or on another GPU than the one it is for shows no
predicted GPU figure beside its measurement and no MFU: its speed is no test of that GPU."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Protocol

from advisor.format import hours, usd
from advisor.i18n import numbers, t
from advisor.pilot.predict import HARDWARE_INDEPENDENT, compare
from advisor.pilot.store import PilotRecord

class Surface(Protocol):
    """How one surface writes the few marks a pilot text has."""

    def code(self, text: str) -> str: ...

    def bold(self, text: str) -> str: ...

    def icon(self, key: str) -> str:
        """A prefix for the message of i18n ``key`` ("" for none)."""
        ...

    def text(self, text: str) -> str:
        """Free text from elsewhere (a runner's message, a model name), made safe to show."""
        ...


class PlainSurface:
    """A terminal: no markup, no icons."""

    def code(self, text: str) -> str:
        return text

    def bold(self, text: str) -> str:
        return text

    def icon(self, key: str) -> str:
        return ""

    def text(self, text: str) -> str:
        return text


PLAIN = PlainSurface()


def _say(surface: Surface, key: str, lang: str, **fields: Any) -> str:
    return surface.icon(key) + t(key, lang, **fields)


# an absolute POSIX path of at least two components (/tmp/x, /home/u/runs/p-1/events.jsonl)
_ABS_PATH = re.compile(r"(?<![\w.:/~-])/(?:[\w.@+~-]+/)+([\w.@+~-]+)")


def scrub_paths(text: str, pilot_id: str | None = None) -> str:
    """``text`` without server paths: a path inside the pilot's directory becomes relative to it,
    any other absolute path its last component."""
    def short(match: re.Match) -> str:
        parts = PurePosixPath(match.group(0)).parts
        if pilot_id and pilot_id in parts:
            rest = parts[parts.index(pilot_id) + 1:]
            return "/".join(rest) if rest else pilot_id
        return match.group(1)

    return _ABS_PATH.sub(short, text or "")


def in_pilot_dir(path: str | None, pilot_id: str) -> str:
    """A file of the pilot named relative to the pilot's directory."""
    if not path:
        return "-"
    return scrub_paths(path, pilot_id) if path.startswith("/") else path


def on_cpu(rec: PilotRecord) -> bool:
    """Whether the pilot ran (or runs) on a CPU: its figures check the pipeline, not a GPU."""
    r = rec.result or {}
    if r.get("device"):
        return r["device"] != "cuda"
    return rec.pilot_spec.device == "cpu"


_BYTES = {"peak_allocated_bytes", "peak_reserved_bytes", "device_bytes", "checkpoint_bytes"}


def size(n_bytes: float, lang: str = "en") -> str:
    """Bytes in the unit that keeps 2-3 significant digits (a tiny adapter is KiB, a model GiB),
    in the locale (advisor.i18n.numbers)."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(n_bytes) >= scale:
            return f"{numbers.decimal(n_bytes / scale, lang, 2)} {unit}"
    return f"{numbers.integer(n_bytes, lang)} B"


def _fmt(metric: str, value: float | None, lang: str) -> str:
    if value is None:
        return "-"
    if metric in _BYTES:
        return size(value, lang)
    if metric == "tokens_per_s":
        return numbers.integer(value, lang)
    return f"{numbers.decimal(value, lang, 2)} s"


def _pct(error: float | None, lang: str) -> str:
    return "-" if error is None else numbers.signed_percent(error, lang, 0)


def duration(seconds: float | None, lang: str = "en") -> str:
    if seconds is None:
        return "-"
    return f"{numbers.integer(seconds, lang)} s" if seconds < 120 else hours(seconds / 3600, lang)


def _gpu(rec: PilotRecord) -> str:
    return rec.pilot_spec.gpu_name or rec.pilot_spec.gpu or "CPU"


def progress_text(rec: PilotRecord, lang: str, surface: Surface = PLAIN) -> str:
    """The one status line that is edited in place while a pilot runs."""
    gpu, pid = surface.text(_gpu(rec)), surface.code(rec.id)
    p = rec.last_progress or {}
    if rec.state == "pending":
        return _say(surface, "pilot.status.pending", lang, id=pid, gpu=gpu)
    if rec.state == "running" and p:
        tps = p.get("tokens_per_s")
        mem = p.get("peak_allocated_bytes")
        key = "pilot.status.running_cpu" if on_cpu(rec) or not mem else "pilot.status.running"
        return _say(surface, key, lang, id=pid, gpu=gpu, step=p.get("steps_completed", 0),
                    total=p.get("total_steps", rec.pilot_spec.total_steps), phase=_phase(p.get("phase"), lang),
                    tps=numbers.integer(tps, lang) if tps else "-", mem=size(mem, lang) if mem else "-")
    if rec.state == "running":
        return _say(surface, "pilot.status.starting", lang, id=pid, gpu=gpu)
    if rec.state == "finished":
        return _say(surface, "pilot.status.finished", lang, id=pid, gpu=gpu)
    if rec.state == "declined":
        return _say(surface, "pilot.status.declined", lang, id=pid)
    return failure_text(rec, lang, surface)


def _known_phase(phase: str | None) -> bool:
    return phase in ("forward", "backward", "optimizer", "checkpoint", "between steps", "build")


def _phase(phase: str | None, lang: str) -> str:
    return t(f"pilot.phase.{phase}", lang) if _known_phase(phase) else (phase or "-")


def failure_text(rec: PilotRecord, lang: str, surface: Surface = PLAIN) -> str:
    reason = rec.reason or "error"
    where = ((rec.result or {}).get("where") or {}) if rec.result else {}
    p = rec.last_progress or {}
    step = where.get("steps_completed", p.get("steps_completed", 0))
    key = f"pilot.failed.{reason}" if reason in FAILURE_KEYS else "pilot.failed.error"
    message = surface.text(scrub_paths((rec.message or "")[:500], rec.id))
    return _say(surface, key, lang, id=surface.code(rec.id), phase=_phase(where.get("phase") or p.get("phase"), lang),
                step=step, total=rec.pilot_spec.total_steps, message=message, gpu=surface.text(_gpu(rec)))


FAILURE_KEYS = ("oom", "cancelled", "timed_out", "killed", "node_lost", "pending_timeout", "missing_extra", "error")


def plan_lines(prediction: dict[str, Any], gpu: str, usable_bytes: int | None, lang: str,
               surface: Surface = PLAIN) -> list[str]:
    """Before a pilot runs: what it measures of a plan of more GPUs (``prediction["plan"]``,
    advisor.pilot.plan), and a warning when the estimate says it does not fit the card (the
    ranking's rule, advisor.fit, as ``prediction["fits"]``)."""
    lines = []
    memory = prediction.get("memory") or {}
    mem = memory.get("allocated_bytes") or 0
    plan = prediction.get("plan") or {}
    if (plan.get("num_gpus") or 1) > 1 and plan.get("code") in ("replica", "unsharded"):
        key = f"pilot.plan.{plan['code']}"
        shard = plan.get("device_bytes")
        lines.append(_say(surface, key, lang, n=plan["num_gpus"], gpu=gpu, sharding=(plan.get("sharding") or "").upper(),
                          shard=size(shard, lang) if shard else "-", mem=size(memory.get("device_bytes") or mem, lang)))
    if prediction.get("fits") is False:
        lines.append(_say(surface, "pilot.confirm.no_fit", lang, gpu=gpu, mem=size(memory.get("device_bytes") or mem, lang),
                          usable=size(usable_bytes or 0, lang)))
    return lines


def comparison_rows(rec: PilotRecord) -> list[dict[str, Any]]:
    """Predicted vs measured (advisor.pilot.predict.compare). A pilot that did not run on the GPU
    it is for keeps the prediction only where it does not depend on the device (the checkpoint's
    size): a GPU's predicted tokens/s beside a CPU's measured ones is no figure for that device."""
    rows = compare(rec.prediction or {}, rec.result or {})
    if (rec.result or {}).get("on_target_gpu"):
        return rows
    return [{**row, "predicted": None} if row["metric"] not in HARDWARE_INDEPENDENT else row for row in rows]


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


def summary_lines(rec: PilotRecord, lang: str, surface: Surface = PLAIN) -> list[str]:
    """The result's lines: the header first (a surface may set it apart), then the figures."""
    r = rec.result or {}
    mem = r.get("memory") or {}
    mfu = r.get("mfu")
    cpu = on_cpu(rec)
    device = (r.get("environment") or {}).get("gpu_name") or ("CPU" if cpu else r.get("device", "-"))
    lines = [_say(surface, "pilot.final.header", lang, id=surface.code(rec.id), gpu=surface.text(_gpu(rec)),
                  device=surface.text(device), steps=(r.get("steps") or {}).get("measured", rec.pilot_spec.steps))]
    speed = {"tps": numbers.integer(r.get("tokens_per_s") or 0, lang),
             # milliseconds below a second; from a second on, two digits (3.128 would read as a
             # grouped 3128 in English, and as 3,128 s beside it in Spanish)
             "step": numbers.decimal(step_mean := (r.get("step_time_s") or {}).get("mean") or 0, lang,
                                     3 if step_mean < 1 else 2),
             "cv": numbers.percent((r.get("step_time_s") or {}).get("cv") or 0, lang, 1)}
    if cpu:  # no MFU: a CPU's tokens/s against a GPU's peak FLOPS means nothing
        lines.append(_say(surface, "pilot.final.cpu_smoke", lang))
        lines.append(t("pilot.final.speed_cpu", lang, **speed))
        lines.append(t("pilot.final.cpu_memory", lang, rss=size(mem.get("process_rss_peak_bytes") or 0, lang),
                       delta=size(mem.get("process_rss_delta_bytes") or 0, lang)))
    else:
        lines.append(t("pilot.final.speed", lang, **speed, mfu=numbers.percent(mfu, lang, 1) if mfu is not None else "-"))
    ck = r.get("checkpoint")
    if ck:
        lines.append(t("pilot.final.checkpoint", lang, kind=t(f"pilot.ckpt.{ck['kind']}", lang), size=size(ck["bytes"], lang),
                       seconds=numbers.decimal(ck["save_s"], lang, 2), manifest=surface.code(in_pilot_dir(ck.get("manifest"), rec.id))))
    stack = r.get("stack_ran") or {}
    lines.append(t("pilot.final.stack", lang, impl=surface.code(stack.get("implementation", "-")),
                   quant=stack.get("quant_impl") or "-"))
    for note in r.get("notes") or []:
        fields = {k: surface.text(str(v)) for k, v in note.items() if k != "code"}
        lines.append("• " + t(f"pilot.note.{note['code']}", lang, **fields))
    if rec.cost_usd is not None:
        lines.append(t("pilot.final.cost", lang, cost=usd(rec.cost_usd, lang), estimate=usd(rec.estimated_cost_usd, lang)))
    return lines


def result_summary(rec: PilotRecord, lang: str, surface: Surface = PLAIN) -> str:
    lines = summary_lines(rec, lang, surface)
    return "\n".join([surface.bold(lines[0]), *lines[1:]])


def render_cli(rec: PilotRecord, lang: str) -> str:
    """The pilot for a terminal: plain text, no Slack markup, no server paths."""
    if rec.state == "finished":
        return result_summary(rec, lang, PLAIN) + "\n\n" + comparison_table(rec, lang)
    return progress_text(rec, lang, PLAIN)
