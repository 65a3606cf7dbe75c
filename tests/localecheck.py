"""The check that a text a person reads is in ONE locale: its numbers use that locale's decimal and
group symbols (CLDR, through advisor.i18n.numbers), its percent signs and money follow the
locale's CLDR pattern, and its words are of that language (and, in Spanish, of our one
vocabulary: advisor/i18n/__init__.py).

How a number in the other locale's format is told apart (en_US: "." decimal, "," group;
es_ES: "," decimal, "." group), knowing what advisor.i18n.numbers writes:
- a decimal separator followed by one or two digits is a decimal: "18.9" in Spanish and "18,9" in
  English are the other locale's;
- a separator followed by exactly three digits after a non-zero integer part of one to three
  digits is a group separator ("1,035" / "4.096"): our formatters never write three decimals
  after a non-zero integer (three decimals only for amounts below a dime, "$0.058", and for step
  seconds, "0.012"), so in Spanish "1,035" and in English "4.096" are the other locale's groups;
- a run of four or more digits without a group separator was not formatted at all (both CLDR
  locales group from four digits in Babel 2.19: "4,096", "4.096");
- in es_ES the percent sign and the currency follow a no-break space ("30 %", "19,16 US$"), in
  en_US they do not ("30%", "$19.16").
Names that carry digits (model names with versions, GPU model numbers) are removed first.
"""

from __future__ import annotations

import re

# Names with digits that are not quantities: GPU model numbers and model versions.
_NAMES = re.compile(
    r"(?i)\b(?:rtx|a100|h100|h200|b200|l40s|l4|a10g|mi300x|instinct|ada)\s?\d*"
    r"|\b\d{4}\b(?=\s?(?:24|48)\s?GB)"  # "4090 24 GB", "6000 Ada 48 GB"
    r"|(?<=RTX )\d{4}|(?<=RTX )\d{4}|\b(?:una|a|the|on) 4090\b|\b4090s?\b|\b6000\b"
    r"|\b(?:llama|qwen|mistral|mixtral|gemma|phi|deepseek|falcon|yi|olmo|smollm|granite)[\w.-]*(?:[\s-]v?\d+(?:\.\d+)*[\w.-]*)*"
    r"|\bv\d+(?:\.\d+)+\b|\b\d+(?:\.\d+)+-\d+b\b|\b\d+[bB]\b"  # "v0.3", "3.1-8b", "70B" (not "13.0B")
    r"|`[^`]*`"  # code and commands as typed
    r"|\b[0-9a-f]{8,}\b|\b[A-Z]\w*-\d+\b"  # ids
    r"|https?://\S+|/[\w./-]+"  # URLs and paths
    r"|PYTORCH_CUDA_ALLOC_CONF=\S+|\bfp(?:8|16|32)\b|\bbf16\b|\bnf4\b|\bint[48]\b|\b\d+-bit\b|\b\d+ bits\b"
    r"|\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?\b"  # clock times
)
SYMBOLS = {"en": {"decimal": ".", "group": ","}, "es": {"decimal": ",", "group": "."}}
_NB = "\u00a0"

# Short words that only one of the two languages uses (a Spanish answer with "the" or "cost" was
# not translated; an English one with "coste" or "por" leaked Spanish).
EN_WORDS = {"the", "and", "with", "of", "to", "per", "for", "on", "is", "are", "not", "cost", "costs", "fits",
            "hours", "days", "memory", "time", "recommended", "usable", "needs", "would", "without", "every",
            "run", "runs", "cheaper", "faster", "sooner", "training", "model", "weights", "each", "only"}
ES_WORDS = {"el", "la", "los", "las", "del", "con", "por", "para", "una", "coste", "costo", "horas", "días",
            "memoria", "cabe", "recomendado", "recomendada", "necesita", "entrenamiento", "pesos", "cada",
            "sin", "más", "menos", "sí", "también", "hasta", "ejecución", "según"}
# Spanish terms our vocabulary replaces (advisor/i18n/__init__.py's glossary, column "not").
ES_NOT_OURS = re.compile(r"(?i)\bcosto\b|\bcheckpoints?\b(?!ing)|\bmicro-?batch\b|\bdataset\b|\bbatch\b|\bseq\b"
                         r"|\bthroughput\b|\bfine-?tun\w*|\blas GPU\b(?!s)")
_QUOTED = re.compile(r"`[^`]*`|\"[^\"\n]*\"|“[^”]*”|'[^'\n]*'")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_CODE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\{[^}]*\}|https?://\S+|:[a-z_]+:|<[^>]*>"
                   r"|\b[A-Z][A-Z0-9_]{2,}\b|\badvisor(?: [a-z][\w-]*)+|--[\w-]+(?: [A-Z]+\b)?")  # env vars, commands


def _strip_names(text: str) -> str:
    return _NAMES.sub(" ", text)


def number_problems(text: str, lang: str) -> list[str]:
    """Numbers in ``text`` written with the other locale's separators, or not formatted."""
    found = []
    plain = _QUOTED.sub(" ", _strip_names(text))  # examples of what a user types are typed, not formatted
    dec, grp = SYMBOLS[lang]["decimal"], SYMBOLS[lang]["group"]
    odec, ogrp = SYMBOLS["es" if lang == "en" else "en"]["decimal"], grp
    ogrp = SYMBOLS["es" if lang == "en" else "en"]["group"]
    e = re.escape
    checks = [
        (rf"(?<![\w.,])\d+{e(odec)}\d{{1,2}}(?![\d{e(dec)}{e(grp)}])", "decimal written the other locale's way"),
        (rf"(?<![\w.,])[1-9]\d{{0,2}}{e(ogrp)}\d{{3}}(?!\d)", "group separator of the other locale"),
        (r"(?<![\w.,])\d{4,}(?![\w.,])", "number of four or more digits not grouped (not formatted)"),
    ]
    if lang == "es":
        checks += [(r"\d%", "percent without the no-break space es_ES writes ('30 %')"),
                   (r"\$\s?\d", "dollar sign before the amount (es_ES writes '19,16 US$')")]
    else:
        checks += [(r"\d[\s\u00a0]%", "space before % (en_US writes '30%')"),
                   (r"US\$", "US$ (en_US writes '$19.16')")]
    for pattern, why in checks:
        for m in re.finditer(pattern, plain):
            context = plain[max(0, m.start() - 25): m.end() + 25].replace("\n", " ")
            found.append(f"{why}: {m.group(0)!r} in …{context}…")
    return found


def word_problems(text: str, lang: str) -> list[str]:
    """Words of the other language, and (Spanish) terms outside our one vocabulary."""
    prose = _CODE.sub(" ", _strip_names(text))
    words = {w.lower() for w in _WORD.findall(prose)}
    foreign = sorted(words & (EN_WORDS if lang == "es" else ES_WORDS))
    found = [f"{'English' if lang == 'es' else 'Spanish'} words in a {lang} text: {foreign}"] if foreign else []
    if lang == "es":
        found += [f"not our Spanish vocabulary: {m.group(0)!r}" for m in ES_NOT_OURS.finditer(prose)
                  if not re.match(r"(?i)gradient checkpointing", prose[max(0, m.start() - 9): m.end() + 3])]
    return found


def locale_problems(text: str, lang: str) -> list[str]:
    return number_problems(text, lang) + word_problems(text, lang)
