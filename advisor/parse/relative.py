"""Relative changes in a thread: "double the context", "halve the batch", "twice the GPUs",
"duplica el contexto", "la mitad del lote", "x2 rank". They only mean something against the
thread's request, so they are read in follow-ups only; a field the thread did not set is scaled
from its documented default (``advisor.spec.DEFAULTS``: "double the batch" from micro-batch 1 is 2).
"""

from __future__ import annotations

import re
from typing import Any

from advisor.spec import DEFAULTS, SpecRequest

R = re.compile

_FACTORS = (r"(double|twice|2x|x2|duplica\w*|el\s+doble(?:\s+de)?|doblar|dobla|doble|halve|half|halving|la\s+mitad(?:\s+de)?"
            r"|mitad(?:\s+de)?|divide\w*\s+(?:por|entre|by)\s+(?:2|dos|two)|reduce\w*\s+a\s+la\s+mitad|triple|triplica\w*)")
_FIELDS = {
    "seq_len": r"context(?:\s+length)?|seq(?:uence)?(?:\s+len(?:gth)?)?|ctx|contexto|secuencias?|longitud",
    "micro_batch": r"micro[\s-]*batch|batch(?:\s+size)?|bs|micro[\s-]*lote|lote|tamano\s+de\s+lote",
    "num_gpus": r"gpus?|cards?|tarjetas?|graficas?",
    "lora_rank": r"rank|rango",
    "epochs": r"epochs?|epocas?",
    "dataset_tokens": r"data(?:set)?|datos|tokens|corpus",
}
_FIELD_WORDS = "|".join(f"(?P<{name}>{words})" for name, words in _FIELDS.items())
_ART = r"(?:(?:the|our|el|la|los|las|del|de\s+la|de\s+los|my|mi|el\s+numero\s+de|number\s+of|the\s+number\s+of)\s+)*"
RELATIVE = R(r"\b" + _FACTORS + r"\s+" + _ART + r"(?:" + _FIELD_WORDS + r")\b"
             r"|\b(?:" + _FIELD_WORDS.replace("?P<", "?P<after_") + r")\s+(?:x\s*2|2x|times\s+two|por\s+dos|(?:al|a\s+el)\s+doble"
             r"|(?:a\s+la\s+)?mitad|in\s+half|doubled|halved)\b")
_INTEGER = {"seq_len", "micro_batch", "num_gpus", "lora_rank", "dataset_tokens"}


def _factor(word: str) -> float:
    if re.match(r"tripl", word):
        return 3.0
    if re.search(r"half|halv|mitad|divide", word):
        return 0.5
    return 2.0


def changes(text: str, previous: SpecRequest) -> dict[str, Any]:
    """Field -> new value for each relative change in ``text`` (normalized) against ``previous``."""
    out: dict[str, Any] = {}
    for m in RELATIVE.finditer(text):
        groups = {k: v for k, v in m.groupdict().items() if v}
        name = next((k.removeprefix("after_") for k in groups if k.removeprefix("after_") in _FIELDS), None)
        if name is None:
            continue
        factor = _factor(m.group(1) or m.group(0))
        base = getattr(previous, name)
        if base is None:
            base = DEFAULTS[name].value if name in DEFAULTS else None
        if base is None:
            continue
        value = base * factor
        if name in _INTEGER:
            value = max(1, int(round(value)))
        out[name] = value
    return out
