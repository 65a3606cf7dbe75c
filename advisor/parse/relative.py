"""Relative changes in a thread: "double the context", "halve the batch", "twice the GPUs",
"duplica el contexto", "la mitad del lote", "x2 rank". They only mean something against the
thread's request, so they are read in follow-ups only; a field the thread did not set has nothing to
scale (``_NO_BASE``): "halve the batch", "el doble de épocas" there is asked about (a "relative"
question), never scaled from a default nobody said.

Increments too: "+2 GPUs", "2 more GPUs", "add another 2 cards", "one epoch more", "dos GPUs más",
"otras 2 GPUs", "una GPU menos" change a count by that much (``INCREMENT``, read as a word rule so the
number is never a count of its own). A GPU count the thread did not fix has no default to add to (the
recommender picks it per GPU), so there the parser asks for the total instead of guessing.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.spec import SpecRequest

R = re.compile

# "twice as many GPUs", "half as many cards", "three times as many epochs": the factor before "as many"
# (matched first: "twice" alone is the factor of "twice the GPUs")
AS_MANY = R(r"\b(?:twice|two\s+times|thrice|three\s+times|half)\s+as\s+(?:many|much)\b")
_FACTORS = (r"((?:twice|two\s+times|thrice|three\s+times|half)\s+as\s+(?:many|much)|double|twice|2x|x2|duplica\w*|el\s+doble(?:\s+de)?|doblar|dobla|doble|halve|half|halving|la\s+mitad(?:\s+de)?"
            r"|mitad(?:\s+de)?|divide\w*\s+(?:por|entre|by)\s+(?:2|dos|two)|reduce\w*\s+a\s+la\s+mitad|el\s+triple(?:\s+de)?|triple(?:\s+de)?"
            r"|triplica\w*)")
_FIELDS = {
    # ("window", "ventana": the context window, as "sample windows of 4096" and "ventana de contexto" say it)
    "seq_len": r"context(?:\s+length)?|seq(?:uence)?(?:\s+len(?:gth)?)?|ctx|contexto|secuencias?|longitud|(?:context\s+)?windows?"
               r"|ventanas?(?:\s+de\s+contexto)?",
    "micro_batch": r"micro[\s-]*batch|batch(?:\s+size)?|bs|micro[\s-]*lote|lote|tamano\s+de\s+lote",
    "num_gpus": r"gpus?|cards?|tarjetas?|graficas?",
    "lora_rank": r"rank|rango",
    "epochs": r"epochs?|epocas?",
    "dataset_tokens": r"data(?:set)?|datos|tokens|corpus",
}
_FIELD_WORDS = "|".join(f"(?P<{name}>{words})" for name, words in _FIELDS.items())
_ART = r"(?:(?:the|our|el|la|los|las|del|de\s+la|de\s+los|my|mi|el\s+numero\s+de|number\s+of|the\s+number\s+of)\s+)*"
# a factor said as a number: "4x the batch", "3 times the context", "el lote por 4", "the batch times 3" (the number
# is the factor, not the value: ``MULTIPLIED`` tells the caller to drop the value the slots read from it)
_TIMES_N = r"(?:[2-9]|two|three|four|dos|tres|cuatro)"
RELATIVE = R(r"\b" + _FACTORS + r"\s+" + _ART + r"(?:" + _FIELD_WORDS + r")\b"
             r"|\b(?:" + _FIELD_WORDS.replace("?P<", "?P<after_") + r")\s+(?:x\s*2|2x|(?:al|a\s+el)\s+doble"
             r"|(?:a\s+la\s+)?mitad|in\s+half|doubled|halved)\b"
             r"|\b(?P<times_n>[2-9])\s*x\s+(?:the|el|la|our|my)\s+(?:" + _FIELD_WORDS.replace("?P<", "?P<times_") + r")\b"
             r"|\b(?:" + _FIELD_WORDS.replace("?P<", "?P<by_") + r")\s+(?:por|times)\s+(?P<by_n>" + _TIMES_N + r")\b"
             r"(?!\s*(?:gpus?|cards?|devices?|dispositivos?|tarjetas?|graficas?|§G))")
_INTEGER = {"seq_len", "micro_batch", "num_gpus", "lora_rank", "dataset_tokens"}


_N_WORDS = {"two": 2, "three": 3, "four": 4, "dos": 2, "tres": 3, "cuatro": 4}


def _factor(word: str) -> float:
    said = re.search(r"\b(?:por|times)\s+(\w+)\s*$|^([2-9])\s*x\b", word)
    if said:
        n = said.group(1) or said.group(2)
        return float(n) if n.isdigit() else float(_N_WORDS.get(n, 2))
    if re.match(r"tripl|thrice|three", word):
        return 3.0
    if re.search(r"half|halv|mitad|divide", word):
        return 0.5
    return 2.0


def _field_of(group: str) -> str:
    return group.removeprefix("after_").removeprefix("times_").removeprefix("by_")


def _field_named(m: re.Match[str]) -> str | None:
    """The field a ``RELATIVE`` match changes (whichever of its field groups matched)."""
    return next((_field_of(k) for k, v in m.groupdict().items() if v and _field_of(k) in _FIELDS), None)


def multiplied(text: str) -> set[str]:
    """Fields a number multiplies in ``text`` ("4x the batch", "el lote por 4"): the number read beside them is the
    factor, not a value of the field."""
    out = set()
    for m in RELATIVE.finditer(text):
        if m.group("times_n") or m.group("by_n"):
            out |= {_field_of(k) for k, v in m.groupdict().items() if v and _field_of(k) in _FIELDS}
    return out


def changes(text: str, previous: SpecRequest) -> dict[str, Any]:
    """Field -> new value for each relative change in ``text`` (normalized) against ``previous``."""
    out: dict[str, Any] = {}
    for m in RELATIVE.finditer(text):
        name = _field_named(m)
        if name is None:
            continue
        factor = _factor(m.group(1) or m.group(0))
        base = getattr(previous, name)
        if base is None:
            continue
        value = base * factor
        if name in _INTEGER:
            value = max(1, int(round(value)))
        out[name] = value
    return out


def unscaled(text: str, previous: SpecRequest) -> dict[str, float]:
    """Field -> factor for each relative change in ``text`` with nothing to scale: a GPU count the thread never
    fixed was the recommender's pick per GPU, not the default of 1, so "twice as many GPUs" / "el doble de GPUs"
    there is asked about (the total), as an increment is (``request._Assembler._increments``)."""
    out: dict[str, float] = {}
    for m in RELATIVE.finditer(text):
        name = _field_named(m)
        if name in _NO_BASE and getattr(previous, name) is None:
            out[name] = _factor(m.group(1) or m.group(0))
    return out


# Fields with no default to scale: every field a relative change names. A default (``advisor.spec.DEFAULTS``) is an
# assumption the answer lists as assumed, not a value anyone said, so a change relative to it would be a number built
# on something unsaid: "halve the window" / "la ventana a la mitad", "halve the batch" / "la mitad del lote" where the
# thread has no such value are asked about, as the independently written sets label them (gen11 "halve the context",
# gen13 "twice the context length", gen15 "halve the window" and "two more epochs", table6 "halve the batch", "la
# mitad del lote": a "relative" question); an increment of a field the thread never set is asked too
# (``request._increments``).
_NO_BASE = frozenset(_FIELDS)


# --- increments: "+2 GPUs", "2 more GPUs", "dos GPUs más" ------------------------------------------------

_COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "ten": 10,
                "a": 1, "an": 1, "un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
                "siete": 7, "ocho": 8, "diez": 10}
_INC_N = r"(\d{1,4}|an|a|one|two|three|four|five|six|seven|eight|ten|uno|una|un|dos|tres|cuatro|cinco|seis|siete|ocho|diez)"
# (a card's name is a count of that card: "two more H100s", "dos H100 más", "agregale dos H100 más")
_INC_FIELDS = {"num_gpus": r"gpus?|cards?|tarjetas?|graficas?|devices?|dispositivos?|§G\d+§",
               "epochs": r"epochs?|epocas?|passes|pasadas?"}
_INC_FIELD = "(" + "|".join(_INC_FIELDS.values()) + ")"
_MORE = r"(?:more|extra|additional|mas|adicionales?|de\s+mas)"
_END = r"(?:\b|(?<=§))"  # the field's end: a word's, or a card's placeholder's
_FEWER = r"(?:fewer|less|menos)"
# a signed number before the field ("+2 GPUs", "-1 gpu", "+1 epoch"): the sign touches its number (a
# dash before a space is a bullet or an aside: "- 4 passes over the data")
INCREMENT_SIGN = R(
    r"(?<![\w.+-])(?P<sign>[+-])(?P<n1>\d{1,4})\s+(?:" + _MORE + r"\s+)?" + _INC_FIELD.replace("(", "(?P<f1>", 1) + _END)
INCREMENT = R(
    # "2 more GPUs", "two fewer cards"
    r"\b(?P<n2>" + _INC_N[1:-1] + r")\s+(?P<d2>" + _MORE[3:-1] + "|" + _FEWER[3:-1] + r")\s+" + _INC_FIELD.replace("(", "(?P<f2>", 1) + _END +
    # "2 GPUs more", "dos GPUs más", "una GPU menos", "one epoch extra"
    # (the comparative runs to the clause's end: "dos GPUs más baratas" are two cheaper GPUs)
    r"|\b(?P<n3>" + _INC_N[1:-1] + r")\s+" + _INC_FIELD.replace("(", "(?P<f3>", 1) + r"\s*(?P<d3>" + _MORE[3:-1] + "|" + _FEWER[3:-1] + r")\b"
    r"(?=\s*(?:[^\w\s]|$|(?:and|y|then|entonces|please|por\s+favor|porfa|instead|en\s+vez)\b))"
    # "add 2 GPUs", "another 2 cards", "otras 2 GPUs", "añade 2 GPUs"; "remove 1 GPU", "quita una GPU"
    r"|\b(?P<v4>add(?:\s+another)?|another|otr[oa]s?|anade|agrega|suma|anadir|agregar|sumar|remove|drop|quita|quitar|saca)(?:le|les|me|nos)?\s+"
    r"(?P<n4>" + _INC_N[1:-1] + r")\s+(?:" + _MORE + r"\s+)?" + _INC_FIELD.replace("(", "(?P<f4>", 1) + _END)


# Literals every INCREMENT match contains (``scan.Scan.run_all`` skips the rule without them): a sign glued to
# a digit, or a word of more / fewer / adding / removing. (The prefilter cannot read them from the pattern:
# the sign is one character.)
INCREMENT_SIGN_NEEDS = tuple(f"{sign}{d}" for sign in "+-" for d in "0123456789")
INCREMENT_NEEDS = ("more", "extra", "additional", "mas", "adicional", "fewer", "less", "menos", "add", "another", "otr",
                   "anad", "agreg", "suma", "remove", "drop", "quita", "saca")


def increment_of(m: re.Match[str]) -> tuple[str, int] | None:
    """The field and signed change an ``INCREMENT`` match says ("+2 GPUs" -> ("num_gpus", 2))."""
    groups = m.groupdict()
    for k in "1234":
        if groups.get(f"n{k}"):
            n_text, field_word = groups[f"n{k}"], groups[f"f{k}"]
            break
    else:
        return None
    n = int(n_text) if n_text.isdigit() else _COUNT_WORDS.get(n_text)
    if not n:
        return None
    negative = (groups.get("sign") == "-" or re.fullmatch(_FEWER, groups.get("d2") or groups.get("d3") or "x") is not None
                or (groups.get("v4") or "") in ("remove", "drop", "quita", "quitar", "saca"))
    name = next(f for f, words in _INC_FIELDS.items() if re.fullmatch(words, field_word))
    return name, -n if negative else n
