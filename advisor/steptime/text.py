"""The step-time breakdown in words: "matmuls 61%, attention 14%, dequantize 9%, ..."."""

from __future__ import annotations

from advisor.i18n import t
from advisor.i18n.numbers import percent, step_seconds

SHOWN = 5  # classes named in an answer's line; the rest are small
MIN_SHARE = 0.01  # classes below 1% of the step are not named


def shares_text(shares: dict[str, float], lang: str, limit: int = SHOWN) -> str:
    """Largest classes first, each with its share of the step."""
    items = sorted(((c, s) for c, s in shares.items() if s >= MIN_SHARE), key=lambda kv: -kv[1])[:limit]
    return ", ".join(f"{t(f'steptime.class.{c}', lang)} {percent(s, lang)}" for c, s in items)


def seconds_text(s: float, lang: str = "en") -> str:
    """0.012 -> '12 ms', 1.5 -> '1.50 s' (es '1,50 s'), 95 -> '95 s'."""
    return step_seconds(s, lang)


def step_line(gpu_name: str, step_s: float, shares: dict[str, float], lang: str) -> str:
    return t("steptime.answer", lang, gpu=gpu_name, step=seconds_text(step_s, lang), parts=shares_text(shares, lang))
