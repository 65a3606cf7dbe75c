"""The "Verify exactly" reply: the exact trace next to the estimate, term by term."""

from __future__ import annotations

from advisor.format import gib
from advisor.i18n import t
from advisor.i18n import numbers
from bot.render import blockkit as bk
from bot.render.labels import TERMS
from bot.verify import PHASES, Comparison


def signed_percent(x: float, lang: str = "en") -> str:
    return numbers.signed_percent(x, lang, 1)


def render_verify(c: Comparison, lang: str) -> list[bk.Block]:
    diff = signed_percent(c.relative_error, lang) if c.trace_allocated else "-"
    summary = t("bot.verify.summary", lang, model=c.model, traced=gib(c.trace_allocated, lang=lang), phase=c.trace_phase or "-",
                estimated=gib(c.estimate_allocated, lang=lang), diff=diff)
    name, est, trace, delta = t("bot.verify.columns", lang).split("|")
    width = max(len(t(f"bot.term.{k}", lang)) for k in TERMS) + 1
    lines = [f"{name:<{width}} {est:>10} {trace:>10} {delta:>8}"]
    for k in TERMS:
        e, tr = c.estimate_terms.get(k, 0), c.trace_terms.get(k, 0)
        if not e and not tr:
            continue
        d = signed_percent((e - tr) / tr, lang) if tr else "-"
        lines.append(f"{t(f'bot.term.{k}', lang):<{width}} {gib(e, lang=lang):>10} {gib(tr, lang=lang):>10} {d:>8}")
    lines.append(f"{'=' * width} {gib(c.estimate_allocated, lang=lang):>10} {gib(c.trace_allocated, lang=lang):>10} {diff:>8}")
    blocks = [bk.header(t("bot.verify.title", lang)), bk.section(summary), *bk.code_sections(lines)]
    if c.trace_reserved is not None:
        blocks.append(bk.section(t("bot.verify.reserved", lang, traced=gib(c.trace_reserved, lang=lang),
                                   segments=c.trace_segments, estimated=gib(c.estimate_reserved or 0, lang=lang))))
    return blocks + [bk.context(t("bot.verify.footer", lang, seconds=numbers.decimal(c.seconds, lang, 1)))]


def render_progress(model: str, phase: str, lang: str) -> tuple[str, list[bk.Block]]:
    """The placeholder while the trace runs: which phase, and how far along the phases it is."""
    text = t("bot.verify.progress", lang, model=model, phase=t(f"bot.verify.phase.{phase}", lang),
             n=PHASES.index(phase) + 1, total=len(PHASES))
    return text, [bk.section(":hourglass_flowing_sand: " + text)]
