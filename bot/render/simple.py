"""Messages that are mostly words: FAQ answers, clarifying questions, help, the catalog."""

from __future__ import annotations

from typing import Any

from advisor.catalog import Catalog
from advisor.format import gib, usd
from advisor.i18n import t
from advisor.i18n.numbers import integer
from bot.render import blockkit as bk

HELP_EXAMPLES = 6  # bot.help.example1..6 in advisor/i18n/bot.py


def render_text(text: str, lang: str, *, example: str | None = None, title: str | None = None) -> list[bk.Block]:
    """A plain answer (FAQ, clarification): the text, then an example that works."""
    blocks = [bk.header(title)] if title else []
    blocks += bk.sections(bk.mrkdwn_escape(text)) or [bk.section(t("bot.empty_answer", lang))]
    if example:
        blocks.append(bk.context(t("bot.try_example", lang, example=bk.mrkdwn_escape(example))))
    return bk.fit(blocks, t("bot.answer.overflow", lang))


def render_help(lang: str, command: str = "/finetune") -> list[bk.Block]:
    examples = "\n".join(f"• `{command} {t(f'bot.help.example{i}', lang)}`" for i in range(1, HELP_EXAMPLES + 1))
    return [
        bk.header(t("bot.help.title", lang)),
        bk.section(t("bot.help.intro", lang, command=command)),
        bk.section(t("bot.help.examples", lang) + "\n" + examples),
        bk.section(t("bot.help.threads", lang)),
        bk.section(t("bot.help.subcommands", lang, command=command)),
        bk.context(t("bot.help.languages", lang)),
    ]


def render_catalog(catalog: Catalog, lang: str) -> list[bk.Block]:
    """GPUs we rent: usable memory, bf16 TFLOPS (dense), price per hour, regions."""
    head = (f"{t('bot.table.gpu', lang):<24} {t('bot.catalog.memory', lang):>10} "
            f"{t('bot.catalog.tflops', lang):>10} {t('bot.catalog.price', lang):>8}  {t('bot.catalog.regions', lang)}")
    lines = [head]
    for g in catalog.gpus(offered_only=True):
        price = usd(g.price_usd_per_hour, lang) if g.price_usd_per_hour is not None else "-"
        lines.append(f"{bk.clip(g.display_name, 24):<24} {gib(g.usable_memory_bytes, lang=lang):>10} "
                     f"{integer(g.bf16_tflops, lang):>10} {price:>8}  {', '.join(g.regions) or '-'}")
    regions = "; ".join(f"`{r.id}` {r.display_name}" for r in catalog.regions())
    known = [g.display_name for g in catalog.gpus() if not g.offered]
    blocks = [bk.header(t("bot.catalog.title", lang))]
    blocks += bk.code_sections(lines)
    blocks.append(bk.context(t("bot.catalog.regions_line", lang, regions=regions)))
    if known:
        blocks.append(bk.context(t("bot.catalog.known", lang, gpus=", ".join(known))))
    return blocks


def render_notice(key: str, lang: str, **fields: Any) -> list[bk.Block]:
    """A one-line message from the catalog (apology, busy, not available, ...)."""
    return [bk.section(t(key, lang, **fields))]
