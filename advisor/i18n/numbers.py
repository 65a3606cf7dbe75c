"""Numbers, money, percentages, sizes and durations in the answer's language: one locale per
answer, through Babel's CLDR data (never hand-written patterns).

    decimal(8192, "es")        -> '8.192'          decimal(18.94, "en", digits=1) -> '18.9'
    money(19.16, "en")         -> '$19.16'         money(19.16, "es")             -> '19,16 US$'
    gib(20.3 * 2**30, "es")    -> '20,3 GiB'       percent(0.3, "es")             -> '30 %'
    compact(5e7, "en")         -> '50M'            compact(5e7, "es")             -> '50 M'
    duration_hours(30.2, "es") -> '30,2 h'         step_seconds(2.92, "es")       -> '2,92 s'

Locales: ``en`` -> ``en_US``, ``es`` -> ``es_ES`` (LOCALES); any other language reads as English,
as ``advisor.i18n.t`` does.

Money: the catalog prices in US dollars, so every amount is USD in the locale's own CLDR
currency pattern: en_US "¤#,##0.00" gives "$19.16"; es_ES "#,##0.00 ¤" with the symbol "US$"
gives "19,16 US$" (Babel 2.19, babel/locale-data/es.dat: currency_formats['standard'] and
currency_symbols['USD']). Only the number of fraction digits is ours (MONEY_DIGITS: whole dollars
from $100, cents from $0.10, a tenth of a cent below, since per-million-token prices run
$0.01-$0.10); the pattern's prefix, suffix, grouping and spacing (a no-break space in es_ES) are
CLDR's. Babel's ``format_currency`` fixes the fraction digits to the currency's (2 for USD), so
``money`` applies the locale's parsed pattern (``babel.numbers.parse_pattern``) with its
``frac_prec`` set, which is what ``format_currency`` does inside (babel/numbers.py,
``format_currency`` -> ``NumberPattern.apply``).

Compact figures ("50M tokens") are CLDR's short decimal format (``format_compact_decimal``):
es_ES writes millions "M" and thousands of millions "mil M" (Spanish "billón" is 10^12).

Durations keep their words in the message catalog (``notes.unit.*``: minutes, hours, days), with
the number formatted here.

Babel's import costs about 15-20 ms here (``python -X importtime``); the locale data
(babel/locale-data/*.dat) is read on first use and cached by Babel (``Locale.parse``), so only a
process that renders a figure pays for it. This module imports Babel lazily for the same reason.
"""

from __future__ import annotations

import copy
import math
from functools import lru_cache
from typing import Any

GIB = 1024**3
TIB = 1024 * GIB
LOCALES = {"en": "en_US", "es": "es_ES"}
DEFAULT_LOCALE = "en_US"


def locale_of(lang: str | None) -> str:
    """The CLDR locale of an answer's language ('en' -> 'en_US', 'es' -> 'es_ES')."""
    return LOCALES.get(lang or "en", DEFAULT_LOCALE)


@lru_cache(maxsize=None)
def _locale(lang: str) -> Any:
    from babel import Locale

    return Locale.parse(locale_of(lang))


@lru_cache(maxsize=None)
def _pattern(lang: str, kind: str, digits: int | None) -> Any:
    """The locale's CLDR pattern for ``kind`` ('decimal', 'currency', 'percent') with exactly
    ``digits`` fraction digits (None: the pattern's own)."""
    from babel.numbers import parse_pattern

    loc = _locale(lang)
    source = {"decimal": loc.decimal_formats, "currency": loc.currency_formats, "percent": loc.percent_formats}[kind]
    pattern = copy.copy(parse_pattern(source[None if kind != "currency" else "standard"]))
    if digits is not None:
        pattern.frac_prec = (digits, digits)
    return pattern


def symbols(lang: str) -> dict[str, str]:
    """The locale's decimal and group symbols: {'decimal': ',', 'group': '.'} for es_ES."""
    sym = _locale(lang).number_symbols["latn"]
    return {"decimal": sym["decimal"], "group": sym["group"], "plus": sym["plusSign"], "minus": sym["minusSign"]}


# Babel's NumberPattern.apply is pure Python (~50-150 us a call here); an answer formats a few
# hundred figures, many of them the same (memory per GPU, prices), so the formatted strings are
# cached per (value, language, digits). benchmarks/locale_speed.py prints the costs.
_CACHE = 8192


@lru_cache(maxsize=_CACHE)
def decimal(x: float, lang: str, digits: int | None = None) -> str:
    """``x`` in the locale: grouped, with exactly ``digits`` fraction digits (None: up to three,
    trailing zeros dropped, Babel's default)."""
    if digits is None:
        from babel.numbers import format_decimal

        return format_decimal(x, locale=_locale(lang))
    return _pattern(lang, "decimal", digits).apply(x, _locale(lang), currency_digits=False)


def integer(x: float, lang: str) -> str:
    """``x`` rounded to a whole number and grouped: '1,404' / '1.404'."""
    return decimal(round(x), lang, digits=0)


def plain(x: float, lang: str) -> str:
    """A value as typed (``{:g}``: 3, 0.5, 1e-05) with the locale's decimal symbol, for settings a
    person gave (epochs, storage months, a learning rate)."""
    text = f"{x:g}"
    return text.replace(".", symbols(lang)["decimal"]) if "e" not in text else text


MONEY_DIGITS = ((100.0, 0), (0.1, 2), (0.0, 3))  # |amount| from -> fraction digits


@lru_cache(maxsize=_CACHE)
def money(amount: float | None, lang: str) -> str:
    """A USD amount in the locale's CLDR currency pattern ('$19.16', '19,16 US$'); '-' for None."""
    if amount is None:
        return "-"
    digits = next(d for floor, d in MONEY_DIGITS if abs(amount) >= floor)
    return _pattern(lang, "currency", digits).apply(amount, _locale(lang), currency="USD", currency_digits=False)


@lru_cache(maxsize=_CACHE)
def percent(fraction: float, lang: str, digits: int = 0) -> str:
    """0.3 -> '30%' (en_US) / '30 %' (es_ES), CLDR's percent pattern."""
    return _pattern(lang, "percent", digits).apply(fraction, _locale(lang))


def signed_percent(fraction: float, lang: str, digits: int = 1) -> str:
    """+1.5% / -3.0% (the locale's plus and minus signs and percent pattern)."""
    sym = symbols(lang)
    sign = sym["minus"] if fraction < 0 else sym["plus"]
    return sign + percent(abs(fraction), lang, digits)


def compact(x: float, lang: str, digits: int = 1) -> str:
    """CLDR's short form: 5e7 -> '50M' / '50 M'; 1.2e9 -> '1.2B' / '1200 M'; 1404 -> '1.4K' / '1,4 mil'
    (at most ``digits`` fraction digits, trailing zeros dropped)."""
    from babel.numbers import format_compact_decimal

    if abs(x) < 1000:  # three significant digits, as the short form keeps: 681, 12.5, 0.42
        places = 0 if x == 0 else max(0, 2 - math.floor(math.log10(abs(x))))
        return decimal(round(x, places), lang)
    return format_compact_decimal(x, locale=_locale(lang), fraction_digits=digits)


def gib(n_bytes: float, lang: str, digits: int = 1) -> str:
    """Bytes as GiB (the unit torch and nvidia-smi, MiB-based, report in): '18,9 GiB'."""
    return f"{decimal(n_bytes / GIB, lang, digits)} GiB"


def size(n_bytes: float, lang: str) -> str:
    """GiB, or TiB for the absurd (a job no cluster holds)."""
    return gib(n_bytes, lang) if n_bytes < TIB else f"{decimal(n_bytes / TIB, lang, 1)} TiB"


def short_size(n_bytes: float, lang: str) -> str:
    """'84G' / '3,775T' for a narrow column (whole GiB; TiB from 10,000 GiB)."""
    if n_bytes < 10_000 * GIB:
        return f"{integer(n_bytes / GIB, lang)}G"
    return f"{integer(n_bytes / TIB, lang)}T"


def duration_hours(h: float | None, lang: str) -> str:
    """A duration in the unit a person plans with: minutes under an hour, hours under two days,
    days beyond ('45 min', '30,2 h', '2,6 días'); '-' for None."""
    from advisor.i18n import t

    if h is None:
        return "-"
    if h < 1:
        return t("notes.unit.min", lang, n=integer(h * 60, lang))
    if h < 48:
        return t("notes.unit.h", lang, n=decimal(h, lang, 1))
    return t("notes.unit.days", lang, n=decimal(h / 24, lang, 1))


def duration(seconds: float | None, lang: str) -> str:
    """``duration_hours`` from seconds."""
    return duration_hours(None if seconds is None else seconds / 3600, lang)


def step_seconds(s: float, lang: str) -> str:
    """A step's time: 0.012 -> '12 ms', 1.5 -> '1.50 s' / '1,50 s', 95 -> '95 s'."""
    if s < 1:
        return f"{integer(s * 1000, lang)} ms"
    return f"{decimal(s, lang, 2)} s" if s < 10 else f"{integer(s, lang)} s"
