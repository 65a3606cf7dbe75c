"""The memory breakdown as a table a person reads: one row per non-zero term, sizes in GiB (the
unit torch and nvidia-smi report), the share of the peak, then allocated / reserved / device."""

from __future__ import annotations

from advisor.format import gib
from advisor.i18n import t
from advisor.i18n.numbers import percent, signed_percent
from advisor.memory import TERMS, MemoryBreakdown

SHOWN_BELOW = 0.0005  # terms under 0.05% of the peak are left out of the table (noise, not news)


def format_breakdown(mem: MemoryBreakdown, lang: str = "en") -> str:
    """An aligned text table of ``mem`` in ``lang`` ("en" or "es")."""
    total = max(mem.allocated_bytes, 1)
    rows = [(t(f"notes.term.{k}", lang), gib(mem.terms[k], 2, lang), percent(mem.terms[k] / total, lang))
            for k in TERMS if mem.terms.get(k, 0) / total >= SHOWN_BELOW]
    rows.append(("", "", ""))
    rows += [(t("memory.allocated", lang), gib(mem.allocated_bytes, 2, lang), percent(1, lang)),
             (t("memory.reserved", lang), gib(mem.reserved_bytes, 2, lang), signed_percent(mem.reserved_bytes / total - 1, lang, 0)),
             (t("memory.device", lang), gib(mem.device_bytes, 2, lang), "")]
    head = (t("memory.col.part", lang), t("memory.col.size", lang), t("memory.col.share", lang))
    w0 = max(len(r[0]) for r in [head, *rows])
    w1 = max(len(r[1]) for r in [head, *rows])
    w2 = max(len(r[2]) for r in [head, *rows])
    lines = [f"{head[0]:<{w0}}  {head[1]:>{w1}}  {head[2]:>{w2}}", f"{'-' * w0}  {'-' * w1}  {'-' * w2}"]
    lines += [f"{a:<{w0}}  {b:>{w1}}  {c:>{w2}}".rstrip() for a, b, c in rows]
    lines.append(t("memory.phase", lang, phase=t(f"memory.phase.{mem.peak_phase}", lang),
                   num_gpus=mem.num_gpus, largest=t(f"notes.term.{mem.largest_term()}", lang)))
    return "\n".join(lines)
