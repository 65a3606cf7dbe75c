"""The step-time breakdown of `advisor trace`: every operator the traced step ran
(``advisor.steptime.record``), priced on a catalog GPU by the same roofline the answers use, beside
the closed form the answers read (``advisor.throughput``), so the two can be compared.

``advisor/cli/trace_cmd.py`` calls ``traced_step_time`` and prints ``text_lines``; nothing else
of the memory trace is touched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.i18n import t
from advisor.i18n.numbers import decimal, integer, percent, signed_percent
from advisor.steptime.inventory import Group

if TYPE_CHECKING:  # advisor.steptime.record imports torch: `advisor trace` says which extra first
    from advisor.steptime.record import OpRecord, RecordedStep


def groups_from_records(ops: "list[OpRecord]") -> list[Group]:
    """Recorded operators summed into the inventory's groups: GEMMs by shape and dtype, the rest
    by phase and class. The recorder already applied the causal share to attention FLOPs."""
    acc: dict[tuple, list] = {}
    for r in ops:
        # host-only operators (CPU scalars: kernels == 0) cost the host less than a launch
        key = (r.phase, r.cls, r.dtype if r.mnk is not None or r.cls == "attention" else "", r.mnk, r.kernels == 0)
        a = acc.setdefault(key, [0.0, 0.0, 0.0, 0.0])
        a[0] += r.flops
        a[1] += r.bytes
        a[2] += r.kernels
        a[3] += 1
    return [Group(p, c, dt, a[0], a[1], a[2], a[3], mnk, a[3], False) for (p, c, dt, mnk, _), a in acc.items()]


def price(recorded: "RecordedStep", spec, arch, gpu) -> dict:
    """One GPU's step time for the recorded operators (the spec's stack factors applied)."""
    from advisor.steptime.device import device
    from advisor.steptime.host import host_mode
    from advisor.steptime.kernels import for_spec
    from advisor.steptime.roofline import Shape, step_time
    from advisor.throughput import stack_factors

    kern = for_spec(spec)
    groups = groups_from_records(recorded.ops)
    shape = Shape(batch=spec.micro_batch, seq=spec.seq_len, heads=arch.heads, tokens=recorded.tokens)
    st = step_time(groups, device(gpu), shape, mode=host_mode(kern), attention_kernel=kern.attention,
                   factors=stack_factors(kern.factors))
    return {"gpu": gpu.id, "gpu_name": gpu.display_name, "seconds": st.seconds, "tokens": st.tokens,
            "tokens_per_s": st.tokens_per_s, "by_class_s": {c: v for c, v in st.by_class.items() if v > 0},
            "by_phase_s": dict(st.by_phase), "shares": dict(sorted(st.shares().items(), key=lambda kv: -kv[1]))}


def traced_step_time(spec, arch, gpus, *, recorded: "RecordedStep | None" = None, steps: int = 2) -> dict:
    """The traced step's time on the first of ``gpus`` (breakdown) and tokens/s on the others,
    with the closed-form estimate beside each."""
    from advisor.steptime.record import record_step
    from advisor.throughput import estimate_throughput

    one = spec.model_copy(update={"num_gpus": 1})
    recorded = recorded or record_step(one, arch, steps=steps)
    out = None
    others = {}
    for gpu in gpus:
        priced = price(recorded, one, arch, gpu)
        closed = estimate_throughput(one, arch, gpu, num_gpus=1)
        # the closed form includes the per-micro-step host costs (data loading, trainer
        # bookkeeping) that a bare traced step has not: compare like with like
        closed_s = sum(closed.step.by_phase[p] for p in ("forward", "backward", "optimizer"))
        traced_s = sum(priced["by_phase_s"][p] for p in ("forward", "backward", "optimizer"))
        priced["estimate"] = {"tokens_per_s": closed.tokens_per_s,
                              "error_pct": round(100.0 * (traced_s / closed_s - 1.0), 2) if closed_s else None}
        if out is None:
            out = priced
        else:
            others[gpu.id] = {"tokens_per_s": priced["tokens_per_s"], "estimate_tokens_per_s": closed.tokens_per_s}
    out = out or {}
    out.update(ops=len(recorded.ops), record_seconds=round(recorded.seconds, 3), runtime=recorded.runtime,
               other_gpus=others, single_gpu=spec.num_gpus > 1)
    return out


def text_lines(result: dict, lang: str) -> list[str]:
    """The step-time part of `advisor trace`'s text output."""
    if not result:
        return []
    lines = [t("steptime.trace.title", lang, gpu=result["gpu_name"], step_s=decimal(result["seconds"], lang, 3), tokens=integer(result['tokens'], lang),
               tps=integer(result['tokens_per_s'], lang), ops=integer(result['ops'], lang)), ""]
    lines.append(f"  {t('steptime.trace.col.class', lang):<42} {t('steptime.trace.col.time', lang):>10} "
                 f"{t('trace.col.share', lang):>8}")
    for cls, share in result["shares"].items():
        lines.append(f"  {t(f'steptime.class.{cls}', lang):<42} {decimal(result['by_class_s'].get(cls, 0.0), lang, 3):>9}s {percent(share, lang, 1):>8}")
    est = result.get("estimate") or {}
    if est.get("error_pct") is not None:
        lines.append(t("steptime.trace.estimate", lang, tps=integer(est['tokens_per_s'], lang), error=signed_percent(est["error_pct"] / 100, lang)))
    if result.get("other_gpus"):
        items = ", ".join(f"{g} {integer(v['tokens_per_s'], lang)}" for g, v in result["other_gpus"].items())
        lines.append(t("steptime.trace.other_gpus", lang, items=items))
    lines.append(t("steptime.trace.recorded", lang, seconds=decimal(result["record_seconds"], lang, 1)))
    return lines
