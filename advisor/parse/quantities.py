"""Rules for the settings that are numbers: GPU counts, epochs, cost assumptions, dataset size,
sequence length, micro-batch and model size, then the catalog names themselves.

The order settles what a number means: "8 x H100" is a GPU count, "8x7b" a model (read by the
name matcher first), "200k examples of 512 tokens" a dataset of 102.4M tokens, "50M tokens" a
dataset, "4k context" or a bare "16k" a sequence length (k = 1024 there, see ``numbers``), "bs 8"
a micro-batch, and only what is left, "13B" or "350M", a model size. A number beyond a limit of
``advisor.spec`` is not set: it is reported so the answer can say the limit.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from annotated_types import Ge, Gt, Le, Lt

from advisor.parse import numbers as num
from advisor.parse.scan import Scan
from advisor.spec import CostAssumptions, SpecRequest

R = re.compile
N = r"(" + num.NUMBER + r")"
SC = num.SCALE
COUNT = r"(" + num.NUMBER + r"|" + num.COUNT_WORDS + r")"
_SEP = r"[\s_-]*"

# --- checking a value against advisor.spec's own bounds -------------------------------------


@functools.lru_cache(maxsize=None)  # the spec's bounds are its class's metadata: the same for every message
def _bounds(field_name: str) -> tuple[float, float, bool, bool]:
    info = (SpecRequest.model_fields.get(field_name) or CostAssumptions.model_fields[field_name])
    lo, hi, lo_open, hi_open = float("-inf"), float("inf"), False, False
    for meta in info.metadata:
        if isinstance(meta, Ge):
            lo = float(meta.ge)
        elif isinstance(meta, Gt):
            lo, lo_open = float(meta.gt), True
        elif isinstance(meta, Le):
            hi = float(meta.le)
        elif isinstance(meta, Lt):
            hi, hi_open = float(meta.lt), True
    return lo, hi, lo_open, hi_open


def within(field_name: str, value: float) -> bool:
    lo, hi, lo_open, hi_open = _bounds(field_name)
    above = value > lo if lo_open else value >= lo
    below = value < hi if hi_open else value <= hi
    return above and below


def accept(scan: Scan, field_name: str, value: float, pos: int, *, integer: bool = False) -> None:
    """Claim ``value`` when it is inside the spec's bounds, else report the limit."""
    if integer:
        if value != int(value) and value < num.HUGE:
            scan.limits.append((field_name, value))
            return
        value = int(round(value)) if value < num.HUGE else value
    if not within(field_name, value):
        scan.limits.append((field_name, value))
        return
    scan.claim(field_name, value, pos)


def claim_int(scan: Scan, field_name: str, raw: str, pos: int, *, seq: bool = False) -> bool | None:
    m = re.fullmatch(N + r"(k)?", raw)
    if m is None:
        return False  # not a number ("max_length: auto"): leave it to the other rules
    value = num.seq_tokens(m.group(1), m.group(2), scan.lang) if seq else num.count(m.group(1), m.group(2), scan.lang)
    accept(scan, field_name, value, pos, integer=True)
    return None


def claim_number(scan: Scan, field_name: str, raw: str, pos: int) -> bool | None:
    if re.fullmatch(N, raw) is None:
        return False
    accept(scan, field_name, num.parse_number(raw), pos)
    return None


def _cost(scan: Scan, name: str, value: float, *, integer: bool = False) -> None:
    if integer:
        if value != int(value):
            scan.limits.append((name, value))
            return
        value = int(value)
    if within(name, value):
        scan.costs[name] = value
    else:
        scan.limits.append((name, value))


# --- GPUs and their count --------------------------------------------------------------------

_G = r"§G(\d+)§"
_UNITS = r"(?:gpus?|cards?|tarjetas?|graficas?|devices?|dispositivos?|accelerators?|aceleradores?)"
_NODES = R(r"\b" + COUNT + r"\s*(?:nodes?|nodos?|machines?|maquinas?|servers?|servidores?)\s*(?:of|with|de|con|x|,)?\s*"
           + COUNT + r"\s*(?:x\s*)?(?:" + _G + r"|" + _UNITS + r")")
_SINGLE = R(r"\b(?:a\s+single|one\s+single|single|a\s+lone|one|only\s+one|just\s+one|un\s+sol[oa]|una\s+sola|una\s+unica|un\s+unico"
            r"|sol[oa]\s+una?|solamente\s+una?|unicamente\s+una?"
            # "exactamente una H100", "nada más una L40S", "tan solo una", "no más de una": an adverb that rules out a second
            r"|exactamente\s+una?|nada\s+mas\s+(?:que\s+)?una?|tan\s+sol[oa]\s+una?|no\s+mas\s+de\s+una?"
            r"|exactly\s+(?:one|a\s+single))\s+(?:" + _G + r"|" + _UNITS + r")"
            # "en una H100 nada más", "a single... only": an article, then a word that says there is no second
            # (the GPU's board or form factor may follow its name: "una B200 HGX y nada más", "an H100 SXM and that's it")
            r"|\b(?:una?|an?)\s+(?:" + _G + r"|" + _UNITS + r")(?:\s+(?:hgx|sxm\d?|pcie|nvl\d*|oam|card|tarjeta))?"
            r"\s+(?:nada\s+mas|solamente|unicamente|y\s+ya|y\s+nada\s+mas|only|alone|and\s+that'?s\s+it|and\s+nothing\s+else)\b")
_COUNT_GPU = R(r"\b" + COUNT + r"\s*(?:x\s*)?" + _G)
_GPU_TIMES = R(_G + r"\s*(?:x|\*)\s*(\d{1,4})\b")
_COUNT_UNITS = R(r"\b" + COUNT + r"\s*(?:x\s*)?" + _UNITS + r"\b")


def _count_value(raw: str) -> float:
    value = num.word_number(raw)
    return value if value is not None else num.HUGE


def _bind(scan: Scan, count: float, gpu: str | None, pos: int) -> None:
    accept(scan, "num_gpus", count, pos, integer=True)
    if gpu is not None:
        index = int(gpu)
        scan.bound_gpus.add(index)
        if index not in scan.excluded_gpus:
            scan.claim("gpu", scan.of_kind("gpu")[index].ident, pos)
            if count == int(count):
                scan.gpu_counts[index] = int(count)


def _nodes(scan: Scan, m: re.Match[str]) -> None:
    _bind(scan, _count_value(m.group(1)) * _count_value(m.group(2)), m.group(3), m.start())


def _single(scan: Scan, m: re.Match[str]) -> None:
    _bind(scan, 1, m.group(1) if m.group(1) is not None else m.group(2), m.start())


def _count_gpu(scan: Scan, m: re.Match[str]) -> None:
    _bind(scan, _count_value(m.group(1)), m.group(2), m.start())


def _gpu_times(scan: Scan, m: re.Match[str]) -> None:
    _bind(scan, _count_value(m.group(2)), m.group(1), m.start())


def _count_units(scan: Scan, m: re.Match[str]) -> None:
    _bind(scan, _count_value(m.group(1)), None, m.start())


# --- epochs and cost assumptions -------------------------------------------------------------

_EPOCH = r"(?:epochs?|epocas?|pasadas?|passes)"
_EPOCHS = R(r"\b" + COUNT + r"\s*" + _EPOCH + r"\b|\b" + _EPOCH + r"\s*(?:=|:|of|de)?\s*" + N + r"(?![\w%])"
            r"|\b(half\s+an?|media|medio)\s+" + _EPOCH + r"\b")
_FAILED_WORDS = (r"(?:failed|failing|fail(?:ure)?s?|fallar|wasted|reruns?|re-runs?|retries|extra\s+runs|fallid[oa]s|fallos?"
                 r"|reintentos|repeticiones|fallan|falla|fallaron|fracasan|crash(?:es|ed)?)")  # nouns, adjectives and the verb
_FAILED = R(r"\b" + N + r"\s*%\s*(?:of\s+|de\s+)?(?:(?:tasa|rate)\s+(?:de\s+|of\s+)?)?"
            r"(?:(?:the\s+|las\s+|los\s+)?(?:runs?|jobs?|attempts?|ejecuciones|corridas|entrenamientos|intentos|trabajos)\s+)?"
            # the runs' verb in a relative clause: "30% de ejecuciones que fallan", "10% of runs that fail"
            r"(?:(?:que|that|which)\s+)?"
            r"(?:(?:will|would|may|might|could|usually|typically|tend\s+to|to|van\s+a|suelen|pueden|podrian)\s+)?"
            + _FAILED_WORDS + r"|\b(?:failed[\s_-]*runs?|failure[\s_-]*rate|fail[\s_-]*rate|reruns?|retries|"
            r"failed[\s_-]*run[\s_-]*fraction|ejecuciones\s+fallidas|tasa\s+de\s+fallos?|fallos|reintentos)\s*"
            r"(?:(?:of|=|:|de|del|is|es)\s*" + N + r"\s*(%)?|(?:at|a|al|en)\s*" + N + r"\s*(%)|" + N + r"\s*(%)?)")
_NO_FAILED = R(r"\b(?:no|without|zero|sin|cero|ninguna)\s+(?:failed\s+runs?|failures|reruns|retries|ejecuciones\s+fallidas|fallos|reintentos)\b")
_EVAL = R(r"\b" + N + r"\s*%\s*(?:for\s+|de\s+|para\s+)?(?:eval\w*|validation|validacion|evaluacion|held[\s-]*out|test\s+split)"
          r"|\b(?:eval\w*|validation|validacion|evaluacion)\s*(?:split|fraction|set)?\s*(?:of|=|:|de)?\s*" + N + r"\s*%")
_EVALS_PER = R(r"\b" + COUNT + r"\s+(?:evals?|evaluations?|evaluaciones)\s+(?:per|por|each|cada|an?)\s+" + _EPOCH
               # the verb and how often: "eval 4 times per epoch", "evaluate twice an epoch", "evaluar 4 veces por época"
               + r"|\b(?:eval(?:uate|uating)?|evaluar|evaluamos|evaluando)\s+(?:(?:the\s+|el\s+)?(?:model|modelo)\s+)?"
               + r"(?:" + COUNT + r"\s+(?:times|veces)|(twice|once|dos\s+veces|una\s+vez))\s+(?:per|por|each|cada|an?|every)\s+" + _EPOCH)
_KEEP = R(r"\b(?:keep(?:ing)?|stor(?:e|ing)|retain(?:ing)?|sav(?:e|ing)|guardar|guardo|guardamos|guarda|guardando|conservar|conservo"
          r"|conserva|conservando|mantener|mantén|manten|manteniendo)\s+" + COUNT
          + r"\s+checkpoints?\b|\b" + COUNT + r"\s+checkpoints?\s+(?:kept|stored|retained|guardados|conservados)\b")
_MONTHS = R(r"\b(?:for|durante|por)\s+" + COUNT + r"\s+(?:months?|mes(?:es)?)\b|\b" + COUNT
            + r"\s+(?:months?|mes(?:es)?)\s+(?:of\s+|de\s+)?(?:storage|almacenamiento)\b")
_NO_PILOT = R(r"\b(?:no|without|skip(?:\s+the)?|sin|omit\w*)\s+(?:an?\s+|the\s+|el\s+|un\s+)?pilot[o]?\b")
_PILOT = R(r"\b(?:with|include|including|con|incluye\w*|incluir)\s+(?:an?\s+|the\s+|un\s+|el\s+)?pilot[o]?\b")


def _epochs(scan: Scan, m: re.Match[str]) -> None:
    raw = m.group(1) or m.group(2)
    value = 0.5 if m.group(3) else _count_value(raw)
    accept(scan, "epochs", value, m.start())


def _fraction(raw: str, percent: bool) -> float:
    value = num.parse_number(raw)
    return value / 100 if percent or value > 1 else value


def _failed(scan: Scan, m: re.Match[str]) -> None:
    if m.group(1) is not None:
        _cost(scan, "failed_run_fraction", _fraction(m.group(1), True))
        return
    # "failure rate of 10%", "tasa de fallos al 10%" (a joiner like "en" only with a percent sign: "fallo en 8
    # GPUs" names no rate), "failed runs 10"
    raw, percent = next((m.group(i), m.group(i + 1)) for i in (2, 4, 6) if m.group(i) is not None)
    _cost(scan, "failed_run_fraction", _fraction(raw, bool(percent)))


def _eval(scan: Scan, m: re.Match[str]) -> None:
    _cost(scan, "eval_fraction", _fraction(m.group(1) or m.group(2), True))


def _cost_value(name: str, integer: bool = False):
    def handler(scan: Scan, m: re.Match[str]) -> None:
        raw = next(g for g in m.groups() if g)
        _cost(scan, name, _count_value(raw), integer=integer)
    return handler


_TIMES_WORDS = {"twice": 2, "dos veces": 2, "once": 1, "una vez": 1}


def _evals_per(scan: Scan, m: re.Match[str]) -> None:
    raw = next(g for g in m.groups() if g)
    raw = re.sub(r"\s+", " ", raw)
    _cost(scan, "evals_per_epoch", _TIMES_WORDS[raw] if raw in _TIMES_WORDS else _count_value(raw), integer=True)


def _set_cost(name: str, value: Any):
    def handler(scan: Scan, m: re.Match[str]) -> None:
        scan.costs[name] = value
    return handler
