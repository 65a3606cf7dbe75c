"""Rules for sizes: dataset tokens, sequence length, micro-batch, model size; then the catalog names.

k means 1024 for sequence lengths and 1000 for token counts and examples (``numbers``).
"N tokens" is a sequence length unless it reads as a dataset: a decimal M/B scale ("50M tokens"),
more tokens than any context (> advisor.spec.MAX_SEQ_LEN), or dataset words nearby ("dataset",
"corpus", "datos", "in total", "train on").
"""

from __future__ import annotations

import re

from advisor.parse import numbers as num
from advisor.parse import quantities as q
from advisor.parse.scan import Scan
from advisor.spec import MAX_PARAMS_B, MAX_SEQ_LEN

R = re.compile
N, SC = q.N, q.SC
_ITEMS = (r"(?:training\s+|de\s+entrenamiento\s+)?(?:examples?|samples?|ejemplos?|muestras?|rows?|filas?|conversations?"
          r"|conversaciones?|documents?|documentos?|pairs?|pares|instructions?|instrucciones|dialogues?|dialogos?"
          r"|records?|registros?|sequences?|secuencias?)")
_TOK = r"(?:(?:de\s+)?(?:tokens?|toks?))"
_ABOUT = r"(?:(?:about|around|roughly|approx\w*|~|unos|alrededor\s+de|aprox\w*|promedio\s+de|de\s+media)\s*)?"
# Words between an example count and the length of each ("1.5M examples of ~300 tokens", "2M samples
# averaging 512 tokens", "40k rows x 2k tokens", "1,5 millones de ejemplos con una media de 300 tokens").
_EACH_FILL = (r"(?:[\s(,:;]*(?:of|de|x|\*|with|con|at|a|@|averaging|avg\.?|average|mean|media|promedio|promedian|promediando"
              r"|each|cada|uno|una|an?|length|len|longitud|about|around|roughly|approx\w*|~|unos|alrededor|of\s+about|that|are|son"
              r"|que|tienen|have|y|and)\b\.?|[\s(,:;]*~)")
_EXAMPLES_X_LEN = R(r"\b" + N + SC + r"\s*(?:of\s+|de\s+)?" + _ITEMS + r"\b(?:" + _EACH_FILL + r"){0,6}\s*"
                    + N + SC + r"\s*" + _TOK + r"\b(?:\s*(?:each|cada\s+uno|per\s+\w+|por\s+\w+|on\s+average|de\s+media|en\s+promedio|avg))?")
# The length of each example said apart from the count ("300 tokens per example", "avg length 300 tokens").
_PER_ITEM = (r"(?:examples?|samples?|ejemplos?|muestras?|rows?|filas?|conversations?|conversaciones?|documents?|documentos?"
             r"|pairs?|pares|instructions?|instrucciones|dialogues?|dialogos?|records?|registros?|item|sequences?|secuencias?)")
_EXAMPLE_LEN = R(r"\b" + N + SC + r"\s*" + _TOK + r"\s*(?:per|por|each|cada|/|an?|every)\s*(?:una?\s+)?" + _PER_ITEM + r"\b"
                 r"|\b" + N + SC + r"\s*" + _TOK + r"\s*(?:on\s+average|de\s+media|en\s+promedio|avg|each|cada\s+uno|de\s+promedio)\b"
                 r"|\b(?:avg|average|mean|media|promedio|typical|tipica)\s*(?:example\s+|sample\s+|sequence\s+|de\s+)?(?:length|len|longitud|size)?"
                 r"\s*(?:of|de|:|=|is|es|around|about|~)?\s*" + _ABOUT + N + SC + r"\s*" + _TOK + r"\b")
_EXAMPLES = R(r"\b" + N + SC + r"\s*" + _ITEMS + r"\b")
_DATASET_WORDS = r"\b(?:dataset|data\s*set|corpus|data|datos|conjunto\s+de\s+datos|in\s+total|en\s+total|total|train(?:ing)?\s+on|entrenar\s+(?:con|sobre))\b"
_DATASET_SIZE = R(r"\b(?:dataset|data\s*set|corpus|datos|conjunto\s+de\s+datos)\s*(?:of|de|with|con|:|=|is|es|has|tiene)?\s*"
                  + _ABOUT + N + SC + r"(?!\s*(?:examples?|samples?|ejemplos?|muestras?|rows?|filas?|gb|mb|tb|gib|%))\b"
                  r"(?:\s*" + _TOK + r"\b)?")
_BYTES = R(r"\b" + N + r"\s*(gb|mb|tb|gib|mib)\s+(?:of\s+|de\s+)?(?:text|texto|data|datos|dataset|corpus)\b")

_SEQW = (r"(?:(?:max(?:imum)?|maxima?)[\s_-]*)?(?:seq(?:uence)?s?[\s_-]*(?:len(?:gth)?s?)?|context(?:[\s_-]*(?:length|len|window|size))?"
         r"|ctx(?:[\s_-]*len)?|contexto|longitud(?:\s+(?:de|del)\s+(?:la\s+)?(?:secuencia|contexto))?|secuencias?"
         r"|ventana(?:\s+de\s+contexto)?|block[\s_-]*size|cutoff[\s_-]*len|max[\s_-]*len(?:gth)?)")
_SEQ_AFTER = R(r"\b" + _SEQW + r"\s*(?:of|de|=|:|is|es|at|a|to|up\s+to|hasta|around|about)?\s*" + _ABOUT + N + SC
               + r"(?!\s*(?:examples?|samples?|ejemplos?|muestras?))(?:\s*" + _TOK + r"\b)?")
_SEQ_BEFORE = R(r"\b" + N + SC + r"\s*(?:-\s*)?(?:" + _TOK + r"\s*)?(?:of\s+|de\s+)?(?:la\s+|el\s+)?" + _SEQW + r"\b")
_TOKENS = R(r"\b" + N + SC + r"\s*(?:-\s*)?(?:training\s+|de\s+entrenamiento\s+)?" + _TOK + r"\b")
_NOT_AFTER_K = (r"(?!\s*(?:examples?|samples?|ejemplos?|muestras?|rows?|filas?|steps?|pasos?|iterations?|iteraciones?|"
                r"conversations?|conversaciones?|documents?|documentos?|pairs?|pares|instructions?|instrucciones|"
                r"usd|eur|dollars?|dolares?|euros?|tokens?|records?|registros?|%|\$))")
_BARE_K = R(r"(?<![$\w.,])" + N + r"\s*(k)\b" + _NOT_AFTER_K)
_BARE_POW2 = R(r"(?<![$\w\x01])(?<!\d[.,])(\d{3,7})(?![\w%]|[.,]\d)" + _NOT_AFTER_K)

_GLOBAL_BATCH = R(r"\b(?:global|effective|total|efectivo)[\s_-]*(?:batch|lote)(?:[\s_-]*size)?\s*(?:of|de|=|:|is|es)?\s*" + N
                  + r"|\b(?:lote|batch)\s+(?:global|efectivo|total)\s*(?:of|de|=|:)?\s*" + N
                  + r"|\b(?:gradient[\s_-]*accumulation(?:[\s_-]*steps)?|grad[\s_-]*accum\w*|acumulacion\s+de\s+gradientes?)"
                  r"\s*(?:of|de|=|:)?\s*" + N)
_BATCH_WORDS = (r"(?:micro[\s_-]*batch(?:[\s_-]*size)?|micro[\s_-]*lote|mbs|per[\s_-]*(?:device|gpu)[\s_-]*(?:train[\s_-]*)?"
                r"batch(?:[\s_-]*size)?|batch[\s_-]*size|batch(?:es)?|bsz|bs|tamano\s+de(?:l)?\s+lote|lotes?)")
_BATCH = R(r"\b" + _BATCH_WORDS + r"\s*(?:of|de|=|:|is|es|per\s+device)?\s*" + N + r"(?![\w.,]*\s*(?:k|m|b|tokens?|%)\b)")
_BATCH_PER = R(r"\b" + N + r"\s*(?:sequences?|secuencias?|examples?|ejemplos?|samples?)?\s*(?:per|por)\s*(?:device|gpu|dispositivo|step|paso)\b")

_SCALE_P = (r"\s*(mil\s+millones|millardos?|billones|billon|billions?|millions?|millones|millon|bn|b|m)(?![a-z0-9])")
_PARAMS = R(r"\b" + N + _SCALE_P + r"(?:\s*(?:param\w*|parametros|model|modelo|weights))?"
            r"|\b(?:params?|parameters|parametros)\s*(?:[:=]|of|de)?\s*" + N + _SCALE_P)


def _examples_x_len(scan: Scan, m: re.Match[str]) -> None:
    examples = num.count(m.group(1), m.group(2), scan.lang)
    each = num.count(m.group(3), m.group(4), scan.lang)
    q.accept(scan, "dataset_tokens", examples * each, m.start(), integer=True)


def _examples(scan: Scan, m: re.Match[str]) -> None:
    scan.examples.append((num.count(m.group(1), m.group(2), scan.lang), m.start()))


def _example_len(scan: Scan, m: re.Match[str]) -> None:
    raw, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4)) if m.group(3) else (m.group(5), m.group(6))
    scan.example_lens.append((num.count(raw, unit, scan.lang), m.start()))


def _dataset_size(scan: Scan, m: re.Match[str]) -> None:
    q.accept(scan, "dataset_tokens", num.count(m.group(1), m.group(2), scan.lang), m.start(), integer=True)


def _bytes(scan: Scan, m: re.Match[str]) -> None:
    scan.warn("parse.warn.dataset_bytes", size=f"{m.group(1)} {m.group(2).upper()}")


# A number this small before "context"/"seq" is something else ("batch 4 seq 4096").
MIN_SEQ_BEFORE_WORD = 128


def _seq(group: int, minimum: float = 0):
    def handler(scan: Scan, m: re.Match[str]) -> bool | None:
        value = num.seq_tokens(m.group(group), m.group(group + 1), scan.lang)
        if value < minimum:
            return False
        q.accept(scan, "seq_len", value, m.start(), integer=True)
        return None
    return handler


def _tokens(scan: Scan, m: re.Match[str]) -> None:
    raw, unit = m.group(1), m.group(2)
    scale = num.scale_of(unit)
    window = scan.text[max(0, m.start() - 40): m.end() + 30]
    as_count = num.count(raw, unit, scan.lang)
    dataset = (scale in ("m", "b", "t") or as_count > MAX_SEQ_LEN
               or re.search(_DATASET_WORDS, window) is not None)
    if dataset:
        q.accept(scan, "dataset_tokens", as_count, m.start(), integer=True)
    else:
        q.accept(scan, "seq_len", num.seq_tokens(raw, unit, scan.lang), m.start(), integer=True)


# "a budget of 8k", "spend under 2k": money, not a context length.
_MONEY_BEFORE = R(r"(?:budget|presupuesto|spend\w*|gast\w*|cost\w*|cuesta|price|precio|pay|pagar|usd|eur|euros?|dollars?|dolares)"
                  r"\W*(?:(?:of|de|is|es|around|about|max(?:imo)?|under|below|less\s+than|menos\s+de|hasta|up\s+to|at\s+most)\W*)*$")


def _bare_k(scan: Scan, m: re.Match[str]) -> bool | None:
    if _MONEY_BEFORE.search(scan.text, max(0, m.start() - 40), m.start()):
        return False
    q.accept(scan, "seq_len", num.seq_tokens(m.group(1), "k", scan.lang), m.start(), integer=True)
    return None


def _bare_pow2(scan: Scan, m: re.Match[str]) -> bool | None:
    value = int(m.group(1))
    if value < 256 or value & (value - 1) or any(c.field == "seq_len" for c in scan.claims) or scan.limits:
        return False
    q.accept(scan, "seq_len", value, m.start(), integer=True)
    return None


def _global_batch(scan: Scan, m: re.Match[str]) -> None:
    scan.warn("parse.warn.global_batch")


def _batch(scan: Scan, m: re.Match[str]) -> None:
    q.accept(scan, "micro_batch", num.parse_number(m.group(1)), m.start(), integer=True)


def _params(scan: Scan, m: re.Match[str]) -> None:
    raw, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    value = num.billions(raw, unit, scan.lang)
    if num.scale_of(unit) == "t" and value > MAX_PARAMS_B:  # "70 billones": the anglicism for 70B
        value /= 1000
        scan.warn("parse.warn.billones", typed=f"{raw} {unit}", value=f"{value:g}")
    q.accept(scan, "params_b", value, m.start())


def _names(scan: Scan, m: re.Match[str]) -> None:
    letter, index = m.group(1), int(m.group(2))
    matches = scan.of_kind({"M": "model", "G": "gpu", "R": "region", "F": "family"}[letter])
    match = matches[index]
    if letter == "G":
        if index not in scan.excluded_gpus and index not in scan.bound_gpus:
            scan.claim("gpu", match.ident, m.start())
    elif letter in "MR":
        scan.claim("model" if letter == "M" else "region", match.ident, m.start())
    else:
        scan.claim("family", match, m.start())


_NAMES = R(r"§([MGRF])(\d+)§")

# Order matters (see the module docstrings): examples x length ("200k secuencias de 512 tokens"
# is data, not a sequence length), keyword-led sequence and batch ("seq 2048 A100" is
# not 2048 GPUs), counts bound to GPUs, then epochs and costs, then
# dataset forms before sequence forms before batch, and model sizes last of the numbers.
NUMBER_RULES = [
    (_EXAMPLES_X_LEN, _examples_x_len), (_EXAMPLE_LEN, _example_len), (_GLOBAL_BATCH, _global_batch),
    (_SEQ_BEFORE, _seq(1, MIN_SEQ_BEFORE_WORD)), (_SEQ_AFTER, _seq(1)), (_BATCH, _batch),
    (q._NODES, q._nodes), (q._SINGLE, q._single), (q._COUNT_GPU, q._count_gpu), (q._GPU_TIMES, q._gpu_times),
    (q._COUNT_UNITS, q._count_units),
    (q._FAILED, q._failed), (q._NO_FAILED, q._set_cost("failed_run_fraction", 0.0)), (q._EVAL, q._eval),
    (q._EVALS_PER, q._cost_value("evals_per_epoch", integer=True)),
    (q._KEEP, q._cost_value("checkpoints_kept", integer=True)), (q._MONTHS, q._cost_value("storage_months")),
    (q._NO_PILOT, q._set_cost("include_pilot", False)), (q._PILOT, q._set_cost("include_pilot", True)),
    (q._EPOCHS, q._epochs),
    (_BYTES, _bytes), (_DATASET_SIZE, _dataset_size),
    (_TOKENS, _tokens), (_EXAMPLES, _examples),
    (_BATCH_PER, _batch),
    (_PARAMS, _params),
    (_NAMES, _names),
    (_BARE_K, _bare_k), (_BARE_POW2, _bare_pow2),
]
