"""Numbers as people type them in English and Spanish.

Separators: "2,048" (English) and "2.048" (Spanish) are both 2048; "1,5B" (Spanish) and "1.5B"
(English) are both 1.5B. A single mark followed by exactly three digits and no unit separates
thousands; followed by 1-2 or 4+ digits it is the decimal mark; when both marks appear the last
one is the decimal mark; a mark repeated ("1.000.000") separates thousands. Only three digits
before a unit need the language: "1.536B" is 1.536B in English, "1.200 millones" 1200 millones
in Spanish.

Suffixes differ by what is counted, and we follow each field's own convention:
- sequence lengths are powers of two in every config and paper: k = 1024, M = 1024^2
  ("4k" = 4096, "128k" = 131072, "1M context" = 1048576);
- token counts, examples and parameters are decimal: k = 10^3, M = 10^6, B = 10^9
  ("50M tokens", "200k examples", "1.5B params"). "mil" (es) = 10^3, "mil millones" = 10^9.
  Spanish "billón" is 10^12; written before a model size that would exceed any model, it is read
  as the English "billion" (an anglicism) and the answer says so.
"""

from __future__ import annotations

import re

# A number as typed: digits with separators, optionally "1e9" or "10^9" / "2^15".
NUMBER = r"\d+(?:[.,]\d+)*(?:e\d{1,3}|\s?\^\s?\d{1,3})?"
NUMBER_RE = re.compile(NUMBER)

BINARY = {"k": 1024, "m": 1024**2}
DECIMAL = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}

# Unit words after a number, and the scale letter each stands for.
SCALE_WORDS = {
    "k": "k", "thousand": "k", "mil": "k", "miles": "k",
    "m": "m", "mn": "m", "mm": "m", "million": "m", "millions": "m", "millon": "m", "millones": "m",
    "b": "b", "bn": "b", "billion": "b", "billions": "b", "mil millones": "b", "millardo": "b",
    "millardos": "b",
    "billon": "t", "billones": "t", "t": "t", "trillion": "t",
}
SCALE = (r"(?:\s*(mil\s+millones|millardos?|billones|billon|billions?|trillion|thousand|millions?|"
         r"millones|millon|miles|mil|mn|mm|bn|k|m|b|t)(?![a-z0-9]))?")

WORD_NUMBERS = {
    # English
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "couple": 2, "pair": 2, "three": 3,
    "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12,
    "sixteen": 16, "thirty-two": 32, "half": 0.5,
    # Spanish (accents folded)
    "un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "doce": 12, "dieciseis": 16, "media": 0.5,
    "medio": 0.5,
}
# Counting words only (not articles): "a GPU" does not say how many, "one GPU" does.
# "una" is Spanish's "a" as much as "one": "en una RTX 4090" does not say how many either.
COUNT_WORDS = r"(?:one|two|three|four|five|six|seven|eight|sixteen|uno|dos|tres|cuatro|cinco|seis|siete|ocho|dieciseis)"


# Larger than every limit in advisor.spec; keeps arithmetic finite for "10^999" or 400 digits.
HUGE = 1e30


def parse_number(raw: str) -> float:
    """The value of one number token ("2,048" -> 2048, "1,5" -> 1.5, "10^9" -> 1e9), at most HUGE."""
    try:
        return min(_number(raw.replace(" ", "")), HUGE)
    except (OverflowError, ValueError):
        return HUGE


def _number(raw: str) -> float:
    exp = 0
    power_base = None
    if "^" in raw:
        base, _, e = raw.partition("^")
        power_base, exp = base, int(e)
        raw = base
    elif "e" in raw and _EXP.search(raw):
        raw, _, e = raw.partition("e")
        exp = int(e)
    value = _plain(raw)
    if value > HUGE or exp > 60:
        return HUGE
    if power_base is not None:
        return float(value) ** exp
    return value * 10.0**exp


def _plain(raw: str) -> float:
    marks = [c for c in raw if c in ".,"]
    if not marks:
        return float(raw)
    if len(set(marks)) == 2:
        dec = raw[max(raw.rfind("."), raw.rfind(","))]
        thousands = "," if dec == "." else "."
        return float(raw.replace(thousands, "").replace(dec, "."))
    mark = marks[0]
    groups = raw.split(mark)
    if len(groups) > 2:
        if all(len(g) == 3 for g in groups[1:]):
            return float(raw.replace(mark, ""))
        return float(groups[0] + "." + "".join(groups[1:]))  # malformed: best effort
    return float(raw.replace(mark, "")) if len(groups[1]) == 3 else float(raw.replace(mark, "."))


def decimal_with_unit(raw: str, next_is_unit: bool, lang: str = "en") -> float:
    """A number before a unit: one mark and three digits follow each language's convention
    ("1.536B" is 1.536B in English, "1.200 millones" is 1200 millones in Spanish); without a
    unit both read as thousands ("2.048" = "2,048" = 2048)."""
    compact = raw.replace(" ", "")
    if next_is_unit and _THOUSANDS.fullmatch(compact):
        mark = "." if "." in compact else ","
        thousands = mark == ("." if lang == "es" else ",")
        return float(compact.replace(mark, "")) if thousands else float(compact.replace(",", "."))
    return parse_number(raw)


_WS = re.compile(r"\s+")
_EXP = re.compile(r"e\d")
_THOUSANDS = re.compile(r"\d{1,3}[.,]\d{3}")


def scale_of(word: str | None) -> str | None:
    if not word:
        return None
    return SCALE_WORDS.get(word) or SCALE_WORDS.get(_WS.sub(" ", word))


def count(raw: str, unit: str | None, lang: str = "en") -> float:
    """A decimal count: tokens, examples ("200k" -> 200000, "1.2B" -> 1.2e9)."""
    scale = scale_of(unit)
    value = decimal_with_unit(raw, scale is not None, lang)
    return min(value * DECIMAL[scale], HUGE) if scale else value


def seq_tokens(raw: str, unit: str | None, lang: str = "en") -> float:
    """A sequence length: binary k and M ("4k" -> 4096, "128k" -> 131072)."""
    scale = scale_of(unit)
    value = decimal_with_unit(raw, scale is not None, lang)
    if scale in BINARY:
        return min(value * BINARY[scale], HUGE)
    if scale:
        return min(value * DECIMAL[scale], HUGE)
    return value


def billions(raw: str, unit: str | None, lang: str = "en") -> float:
    """A parameter count in billions ("70B" -> 70, "350M" -> 0.35, "7 mil millones" -> 7)."""
    scale = scale_of(unit) or "b"
    value = decimal_with_unit(raw, True, lang)
    return min(value * DECIMAL[scale] / 1e9, HUGE)


def word_number(word: str) -> float | None:
    word = word.strip()
    if re.fullmatch(NUMBER, word):
        return parse_number(word)
    return WORD_NUMBERS.get(word)


# --- one quantity on its own (CLI flags: "--seq-len 4k", "--dataset-tokens 50M") ----------------

_QUANTITY = re.compile(r"\s*(" + NUMBER + r")\s*" + SCALE + r"\s*(?:tokens?|toks?|params?|parameters)?\s*", re.IGNORECASE)
KINDS = ("seq", "count", "params")


def read_quantity(text: str, kind: str, lang: str = "en") -> float:
    """A quantity as the chat reads it, alone: ``kind`` "seq" (k = 1024: "4k" -> 4096, "1M" ->
    1048576), "count" (k = 1000: "50M" -> 5e7, "1.2B" -> 1.2e9, "2,048" -> 2048) or "params" (in
    billions: "7b" -> 7, "350M" -> 0.35, "7" -> 7). Raises ValueError with what it could not read."""
    if kind not in KINDS:
        raise ValueError(f"unknown quantity kind {kind!r}")
    m = _QUANTITY.fullmatch(text.strip().lower())
    if m is None:
        raise ValueError(f"{text!r} is not a number (write e.g. 4096, 4k, 50M or 1.2B)")
    raw, unit = m.group(1), m.group(2)
    if kind == "seq":
        return seq_tokens(raw, unit, lang)
    if kind == "params":
        return billions(raw, unit, lang)
    return count(raw, unit, lang)
