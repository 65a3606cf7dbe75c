"""Number formatting shared by the CLI and the bot (units people read at a glance), in the
answer's language: thin wrappers over advisor.i18n.numbers (Babel, CLDR), kept so call sites
read as before. ``lang`` defaults to English for callers that have no thread language (logs,
admin replies that are English-only); every answer passes its own.
"""

from __future__ import annotations

from advisor.i18n import numbers

GIB = numbers.GIB


def gib(n_bytes: float, digits: int = 1, lang: str = "en") -> str:
    """Bytes as GiB, the unit torch and nvidia-smi (MiB-based) report in: '18.9 GiB' / '18,9 GiB'."""
    return numbers.gib(n_bytes, lang, digits)


def usd(amount: float | None, lang: str = "en") -> str:
    """A catalog price (USD) in the locale's currency pattern: '$19.16' / '19,16 US$'; '-' for None."""
    return numbers.money(amount, lang)


def hours(h: float | None, lang: str = "en") -> str:
    """A duration in the unit a person plans with (minutes, hours, days), in ``lang``."""
    return numbers.duration_hours(h, lang)


def si(n: float, lang: str = "en") -> str:
    """1.2e9 -> '1.2B', 5e7 -> '50M' (es: '1200 M', '50 M'): CLDR's compact form."""
    return numbers.compact(n, lang)
