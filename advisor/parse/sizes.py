"""Rules for sizes: dataset tokens, sequence length, micro-batch, GPU count, epochs, LoRA rank and
model size; then the catalog names.

Two constructs with their own shape are read first by patterns: "200k examples of 512 tokens"
(a dataset of 102.4M tokens) and "300 tokens per example" (each example's length). Every other
number is typed and bound to its cue words by ``advisor.parse.slots`` (a tokenizer plus typed
slots), and each binding becomes a claim here (``read_slots``).

k means 1024 for sequence lengths and 1000 for token counts and examples (``numbers``).
"N tokens" is a sequence length unless it reads as a dataset: a decimal M/B scale ("50M tokens"),
more tokens than the longest context people say without the word "context" (``TOKENS_AS_SEQ_MAX``),
or dataset words nearby ("dataset", "corpus", "datos", "in total", "train on").
"""

from __future__ import annotations

import re

from advisor.parse import numbers as num
from advisor.parse import quantities as q
from advisor.parse import slots as sl
from advisor.parse.scan import Scan
from advisor.spec import MAX_PARAMS_B, MAX_SEQ_LEN

R = re.compile
N, SC = q.N, q.SC
_ITEMS = (r"(?:(?:training|instruction|chat|sft|preference|qa)\s+|de\s+entrenamiento\s+)?(?:examples?|samples?|ejemplos?|muestras?|rows?|filas?|conversations?"
          r"|conversaciones?|documents?|documentos?|(?:question[\s-]*answer\s+|qa\s+)?pairs?|pares(?:\s+(?:de\s+)?pregunta[\s-]*respuesta)?|instructions?|instrucciones|dialogues?|dialogos?"
          r"|records?|registros?|sequences?|secuencias?|chats?|convos?|messages?|mensajes?|prompts?|transcripts?|turns?|docs?)")
_TOK = r"(?:(?:de\s+)?(?:tokens?|toks?))"
_ABOUT = r"(?:(?:about|around|roughly|approx\w*|~|unos|alrededor\s+de|aprox\w*|promedio\s+de|de\s+media)\s*)?"
# Words between an example count and the length of each ("1.5M examples of ~300 tokens", "2M samples
# averaging 512 tokens", "40k rows x 2k tokens", "1,5 millones de ejemplos con una media de 300 tokens").
_EACH_FILL = (r"(?:[\s(,:;]*(?:of|de|x|\*|with|con|at|a|averaging|avg\.?|average|mean|media|promedio|promedian|promediando"
              r"|each|cada|uno|una|an?|length|len|longitud|about|around|roughly|approx\w*|~|unos|alrededor|of\s+about|that|are|son"
              r"|que|tienen|have|y|and)\b\.?|[\s(,:;]*[~@≈]|[ \t]*\()")  # "50k ejemplos (300 tokens)"  # "@" and "≈" are no word: no \b after them
# (the count and its items on one line: "un modelo de 2,7B\nsecuencias de 4096 tokens" is a size, then a length)
_EXAMPLES_X_LEN = R(r"\b" + N + SC + r"[ \t]*(?:of\s+|de\s+)?" + _ITEMS + r"\b(?:" + _EACH_FILL + r"){0,6}\s*"
                    + N + SC + r"\s*" + _TOK + r"\b(?:\s*(?:each|apiece|cada\s+un[oa]|per\s+\w+|por\s+\w+|on\s+average|de\s+media|en\s+promedio|avg))?")
# The length of each example said apart from the count ("300 tokens per example", "avg length 300 tokens").
_PER_ITEM = (r"(?:examples?|samples?|ejemplos?|muestras?|rows?|filas?|conversations?|convos?|conversaciones?|documents?|documentos?"
             r"|pairs?|pares|instructions?|instrucciones|dialogues?|dialogos?|records?|registros?|item|sequences?|secuencias?"
             r"|chats?|messages?|mensajes?|prompts?|transcripts?|turns?|docs?)")
# An English item word that modifies the noun after it ("the mix is 4B tokens / sample windows of 2048": a
# " / "-joined list, then "sample windows", "sample length", "sequence size") is not the item the tokens are
# per; Spanish puts the modifier after its noun ("ventanas de muestra"), so no Spanish form is at stake.
_ITEM_MODIFIES = r"(?!\s+(?:windows?|lengths?|len|sizes?|limits?|caps?)\b)"
_EXAMPLE_LEN = R(r"\b" + N + SC + r"\s*" + _TOK + r"\s*(?:per|por|each|cada|/|an?|every)\s*(?:una?\s+)?" + _PER_ITEM + r"\b" + _ITEM_MODIFIES +
                 r"|\b" + N + SC + r"\s*" + _TOK + r"\s*(?:on\s+average|de\s+media|en\s+promedio|avg|each|cada\s+un[oa]|de\s+promedio)\b"
                 r"|\b(?:avg|average|averaging|mean|media|promedio|promediando|typical|tipica)\s*(?:example\s+|sample\s+|sequence\s+|de\s+)?(?:length|len|longitud|size)?"
                 r"\s*(?:of|de|:|=|is|es|around|about|~)?\s*" + _ABOUT + N + SC + r"\s*" + _TOK + r"\b")
_DATASET_WORDS = (r"\b(?:dataset|data\s*set|corpus|data|datos|conjunto\s+de\s+datos|in\s+total|en\s+total|total"
                  r"|train(?:ing)?\s+on|entrenar\s+(?:con|sobre))\b")
_BYTES = R(r"\b" + N + r"\s*(gb|mb|tb|gib|mib)\s+(?:of\s+|de\s+)?(?:text|texto|data|datos|dataset|corpus)\b")


# "lote 4 secuencias de 4096 tokens", "épocas 5 ejemplos de 512 tokens": a number right after another
# setting's word is that setting (a batch of 4 sequences), not a count of examples -- unless that
# word already has its number before it ("4 épocas 50k ejemplos de 512 tokens").
def _cue_words(strict: bool) -> str:
    # (a size's words are not among them: "Qwen2.5 72B weights 100k examples of 512 tokens" is the model, then its data)
    words = {" ".join(c.words) for c in sl.CUES if c.left >= 6 and c.slot not in ("examples", "dataset", "tokens", "seq", "params")
             and (not strict or c.left >= 9 and c.left > c.right)}
    return "|".join(re.escape(w).replace("\\ ", r"[\s_-]*") for w in sorted(words, key=len, reverse=True))


_SETTING_BEFORE = R(r"(?P<number>(?:\d[\d.,]*\s*(?:k|m|b)?|\b(?:" + "|".join(sl.WORD_NUMBERS) + r"))\s+(?:[a-z]+\s+){0,3})?"
                    r"\b(?:(?P<strict>" + _cue_words(True) + r")|" + _cue_words(False) + r")\s*[:=]?\s*$")


# The last word of every cue above: a match of _SETTING_BEFORE ends with one, then ``\s*[:=]?\s*`` up to ``pos``. A
# text that does not is not searched (the search tries the whole alternation at each of 60 positions: profiled,
# 0.3-0.4 ms of a message with "N examples of M tokens").
_SETTING_ENDS = tuple(sorted({w.rsplit(" ", 1)[-1] for w in (" ".join(c.words) for c in sl.CUES if c.left >= 6
                                                           and c.slot not in ("examples", "dataset", "tokens", "seq", "params"))}))


def _setting_before(scan: Scan, pos: int) -> bool:
    start = max(0, pos - 60)
    tail = scan.text[start:pos].rstrip()  # str.rstrip and re's \s strip the same characters (Py_UNICODE_ISSPACE)
    if tail[-1:] in (":", "="):
        tail = tail[:-1].rstrip()
    if not tail.endswith(_SETTING_ENDS):
        return False
    if _PHASE.search(tail):  # "for the first pass: 20k examples of 800 tokens", "la primera pasada: 20 mil ejemplos"
        return False  # a run's phase named by an ordinal, not a setting waiting for its number
    m = _SETTING_BEFORE.search(scan.text, start, pos)
    return m is not None and (m.group("strict") is not None or m.group("number") is None)


# An ordinal before a setting's word names a phase of the work ("the first pass", "a second run", "la
# primera pasada", "la segunda vuelta"), not the setting: the count after it is what the phase trains on.
_PHASE = R(r"\b(?:first|second|third|next|last|final|initial|1st|2nd|3rd|primer[ao]?|segund[ao]|tercer[ao]?"
           r"|proxim[ao]|ultim[ao]|inicial)\s+[a-z]+$")


def _examples_x_len(scan: Scan, m: re.Match[str]) -> bool | None:
    if _setting_before(scan, m.start()):
        return False
    examples = num.count(m.group(1), m.group(2), scan.lang)
    each = num.count(m.group(3), m.group(4), scan.lang)
    # "200k examples averaging 512 tokens" states the dataset's size; the samples' length distribution
    # (how batches pad) is read where the message speaks of the lengths themselves (_LEN_RANGE, _EXAMPLE_LEN)
    q.accept(scan, "dataset_tokens", examples * each, m.start(), integer=True)


def _example_len(scan: Scan, m: re.Match[str]) -> None:
    raw, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4)) if m.group(3) else (m.group(5), m.group(6))
    scan.example_lens.append((num.count(raw, unit, scan.lang), m.start()))
    if _MEAN_WORDS.search(m.group(0)):  # "avg length 300 tokens": the samples' mean length, not each one's;
        scan.sample_means.append(num.seq_tokens(raw, unit, scan.lang))  # the length distribution unless a count
    else:                                                                # makes it the dataset's size (request)
        seq = num.seq_tokens(raw, unit, scan.lang)  # the same length, as a sequence length; one past the spec's
        if q.within("seq_len", seq):                # bounds ("4 billion tokens per sample") is reported, a question
            scan.example_seq.append((seq, m.start()))  # back (q.accept's rule), never a length settled or shown
        else:
            scan.limits.append(("seq_len", seq))


# How long the samples are, when batches are padded to their longest sample (``advisor.spec.LengthDistribution``,
# #17): "samples between 200 and 2048 tokens, mean 600", "muestras de 200 a 2048 tokens, media 600",
# "sequences of 128-4096 tokens (avg 900)". A range without a mean is asked about (the spec needs the mean).
_MEAN_WORDS = R(r"\b(?:averag\w*|avg|mean|media|promedi\w*)\b")
_LEN_ITEMS = r"(?:" + _PER_ITEM + r"|lengths?|longitudes?|largos?)"
_MEAN_PART = (r"(?:\s*[,;(]?\s*(?:with\s+|con\s+|y\s+|and\s+)?(?:an?\s+|una\s+)?(?:mean|average|averaging|avg|media|promedio|promediando)"
              r"(?:\s+(?:length|len|longitud))?(?:\s+(?:of|de))?\s*[:=]?\s*~?" + N + SC + r"(?:\s*" + _TOK + r")?\s*\)?)?")
# A range's words come in pairs: between/entre X and/y Y, from/de/desde X to/a/hasta Y ("secuencia de
# 2048 y 20.000.000 tokens" is two settings, not a range).
_RANGE_HEAD = r"(?:(?:are|son|of|de|with|con|que|van|ranging|range|range\s+from|lengths?|longitudes?)\s+)*"
_LEN_RANGE = R(r"\b" + _LEN_ITEMS + r"\s+" + _RANGE_HEAD
               + r"(?:(?:between|entre)\s+" + N + SC + r"\s*(?:tokens?\s+)?(?:and|y)\s*" + N + SC
               + r"|(?:from|desde|de)\s+" + N + SC + r"\s*(?:to|a|hasta|-)\s*" + N + SC + r")"
               + r"\s*" + _TOK + r"\b" + _MEAN_PART
               + r"|\b" + _LEN_ITEMS + r"\s+(?:of\s+|de\s+)?" + N + SC + r"\s*-\s*" + N + SC + r"\s*" + _TOK + r"\b" + _MEAN_PART)


def _len_range(scan: Scan, m: re.Match[str]) -> bool | None:
    g = [x for x in m.groups()]
    # the groups: (between lo, hi | from lo, hi), mean; then the hyphenated form's lo, hi, mean
    first = next(i for i in (0, 4, 10) if g[i] is not None)
    lo, lo_u, hi, hi_u = g[first:first + 4]
    mean, mean_u = g[8:10] if first < 10 else g[14:16]
    fields: dict = {"min": int(num.seq_tokens(lo, lo_u, scan.lang)), "max": int(num.seq_tokens(hi, hi_u, scan.lang))}
    if not fields["min"] < fields["max"]:
        return False  # not a range of lengths ("sequences of 4096 - 2 per GPU"): other rules read the numbers
    if mean is None:
        scan.unreadable.append(("length_distribution", m.group(0).strip(), m.start()))  # no mean: ask for it
        return
    fields["mean"] = num.seq_tokens(mean, mean_u, scan.lang)
    _length_distribution(scan, fields, m)


def _length_distribution(scan: Scan, fields: dict, m: re.Match[str]) -> None:
    """Claim the lengths where the spec models them (read and left alone before #17 landed); lengths that
    contradict each other (a mean outside the range) are a question, never a guess."""
    from pydantic import ValidationError

    from advisor.spec import SpecRequest

    if "length_distribution" not in SpecRequest.model_fields:
        return
    from advisor.spec import LengthDistribution

    try:
        scan.claim("length_distribution", LengthDistribution(**fields), m.start())
    except ValidationError:
        scan.unreadable.append(("length_distribution", m.group(0).strip(), m.start()))


def _bytes(scan: Scan, m: re.Match[str]) -> None:
    scan.warn("parse.warn.dataset_bytes", size=f"{m.group(1)} {m.group(2).upper()}")


# "N tokens" with no context word is a length up to this (128k, the longest context of most
# catalog models: Llama 3.1 and Qwen 2.5 config.json max_position_embeddings = 131072); a bigger
# count of tokens is a dataset ("500k tokens of chat data").
TOKENS_AS_SEQ_MAX = 131072


# "N tokens" reads as a dataset when what follows says so ("tokens of chat data", "tokens in total",
# "tokens de datos") or the two words before do ("dataset 50k tokens", "en total 2048 tokens").
_DATA_AFTER = R(r"^\s*(?:tokens?|toks?)?\s*(?:(?:of|de|in|en)\s+(?:\w+\s+){0,2}?(?:data|datos|dataset|corpus|text|texto"
                r"|total|training\s+data)\b|total\b|overall\b|de\s+entrenamiento\b)")


# "N tokens (max) per sequence", "N tokens por muestra como máximo": a length of each item, never a dataset
_PER_ITEM_AFTER = R(r"^\s*(?:tokens?|toks?)?\s*(?:(?:max|maximum|at\s+most|tops|como\s+maximo|maximo|max\.)\s+)?"
                    r"(?:per|por|each|cada|/|an?)\s*(?:una?\s+)?" + _PER_ITEM + r"\b")
# Where a clause ends: the dataset words of another clause ("20M tokens to train on; 4096 tokens") say
# nothing about this number.
_CLAUSE_END = R(r".*[;,.!?\n()\-]")


# "N tokens context", "N tokens of context", "N tokens de contexto": the tokens are the length's unit, whatever the
# size (a context of 4 million tokens is a length beyond our limit, asked about, never a dataset)
_LENGTH_AFTER = R(r"\s*(?:de\s+)?(?:tokens?|toks?)\s+(?:(?:of|de)\s+)?(?:context|contexto|ctx|sequence|secuencia|window|ventana)\b"
                  # (not where the length word takes a number of its own: "5M tokens, contexto máximo 2048")
                  r"(?![\s,:=]*(?:(?:max\w*|maximo|maxima|of|de|is|es|length|longitud|window|ventana)[\s,:=]+){0,2}~?\d)")


def _tokens_field(scan: Scan, b: sl.Binding) -> tuple[str, float]:
    tok = b.tok
    as_count = sl.value_of(tok, "count", scan.lang)
    if _LENGTH_AFTER.match(scan.text, tok.end):
        return "seq_len", sl.value_of(tok, "seq", scan.lang)
    if _PER_ITEM_AFTER.match(scan.text, tok.end) and as_count <= MAX_SEQ_LEN and tok.scale not in ("m", "b", "t"):
        return "seq_len", sl.value_of(tok, "seq", scan.lang)
    head = scan.text[max(0, tok.start - 24): tok.start]
    cut = _CLAUSE_END.match(head)
    words_before = head[cut.end():].split() if cut else head.split()
    before = " ".join(words_before[-2:])
    at = bool(words_before) and words_before[-1] in ("at", "@", "con", "a", "with")  # "... dataset) at 8192 tokens": a length
    dataset = (tok.scale in ("m", "b", "t") or as_count > TOKENS_AS_SEQ_MAX
               or _DATA_AFTER.match(scan.text, tok.end) is not None or not at and re.search(_DATASET_WORDS, before) is not None)
    if dataset:
        return "dataset_tokens", as_count
    return "seq_len", sl.value_of(tok, "seq", scan.lang)


# Slot -> SpecRequest field (None: read and left alone). A field another part of the advisor adds
# to the spec (gradient accumulation, say) needs one entry here and its cue words in ``slots.CUES``.
SLOT_FIELDS: dict[str, str | None] = {
    "seq": "seq_len", "batch": "micro_batch", "rank": "lora_rank", "epochs": "epochs", "gpus": "num_gpus",
    "dataset": "dataset_tokens", "params": "params_b", "ignore": None, "nodes": None,
    "grad_accum": "gradient_accumulation_steps", "global_batch": None,
}
_INTEGER = {"seq_len", "micro_batch", "lora_rank", "num_gpus", "dataset_tokens", "gradient_accumulation_steps"}


def read_slots(scan: Scan) -> None:
    """Type and bind every number left in the text; claim each binding (see ``advisor.parse.slots``)."""
    from advisor.spec import SpecRequest

    toks = sl.tokenize(scan.text)
    found = sl.resolve(toks, scan.lang)
    scan.unreadable += found.unreadable
    seq_said = any(b.slot == "seq" or b.slot == "tokens" and _tokens_field(scan, b)[0] == "seq_len"
                   for b in found.bindings) or any(c.field == "seq_len" for c in scan.claims)
    for b in found.bindings:
        slot = b.slot
        if slot == "seq_weak":
            if seq_said:
                scan.stray.append(b.tok)
                continue
            slot = "seq"
        if slot == "params_weak":
            scan.weak_sizes.append(b.tok)
            slot = "params"
        if slot == "examples":
            scan.examples.append((sl.value_of(b.tok, "count", scan.lang), b.pos))
            continue
        if slot == "tokens":
            name, value = _tokens_field(scan, b)
        else:
            name = SLOT_FIELDS.get(slot)
            value = b.value
        if slot in ("grad_accum", "global_batch"):
            if name is None or name not in SpecRequest.model_fields:
                scan.warn("parse.warn.global_batch")
                continue
        if name is None:
            continue
        if name == "params_b":
            # "70 billones": the anglicism for 70B; a trillion said as such ("2T", "2 trillion") is 2000B, beyond our limit
            if b.tok.scale == "t" and value > MAX_PARAMS_B and "billon" in scan.text[b.tok.start:b.tok.end]:
                value /= 1000
                scan.warn("parse.warn.billones", typed=b.tok.text + " billones", value=f"{value:g}")
            q.accept(scan, "params_b", value, b.pos)
            continue
        q.accept(scan, name, value, b.pos, integer=name in _INTEGER)
        if name == "num_gpus":
            for tok, gpu in found.gpu_counts:
                if tok is b.tok:
                    _bind_gpu(scan, gpu, value, b.pos)
    scan.stray += found.stray
    # blank every number the slots read, so later rules and the stray-number check skip them
    chars = list(scan.text)
    for b in found.bindings:
        chars[b.tok.start:b.tok.end] = sl.BLANK * (b.tok.end - b.tok.start)
    scan.text = "".join(chars)


def _bind_gpu(scan: Scan, index: int, count: float, pos: int) -> None:
    scan.bound_gpus.add(index)
    if index not in scan.excluded_gpus:
        scan.claim("gpu", scan.of_kind("gpu")[index].ident, pos)
        if count == int(count):
            scan.gpu_counts[index] = int(count)


def _names(scan: Scan, m: re.Match[str]) -> None:
    letter, index = m.group(1), int(m.group(2))
    matches = scan.of_kind({"M": "model", "G": "gpu", "R": "region", "F": "family", "U": "unsure"}[letter])
    match = matches[index]
    if letter == "U":
        scan.claim("unsure", match, m.start())
    elif letter == "G":
        if index not in scan.excluded_gpus and index not in scan.bound_gpus:
            scan.claim("gpu", match.ident, m.start())
    elif letter == "M":
        if index not in scan.excluded_models:
            scan.claim("model", match.ident, m.start())
    elif letter == "R":
        if index not in scan.excluded_regions:
            scan.claim("region", match.ident, m.start())
    else:
        scan.claim("family", match, m.start())


_NAMES = R(r"§([MGRFU])(\d+)§")
_HALF_EPOCH = R(r"\b(?:half\s+an?|media|medio)\s+(?:epochs?|epocas?|pasadas?)\b")

# Order matters: the constructs with their own shape first ("200k secuencias de 512 tokens" is
# data, not a sequence length; "2 nodes of 8 H100" 16 GPUs; "a single 4090" one), the cost
# assumptions (percentages and months), then every other number through the typed slots, and
# the catalog names last (a GPU a count did not already claim).
NUMBER_RULES = [
    (_LEN_RANGE, _len_range), (_EXAMPLES_X_LEN, _examples_x_len), (_EXAMPLE_LEN, _example_len),
    (q._NODES, q._nodes), (q._SINGLE, q._single),
    (q._FAILED, q._failed), (q._NO_FAILED, q._set_cost("failed_run_fraction", 0.0)), (q._EVAL, q._eval),
    (q._EVALS_PER, q._evals_per),
    (q._KEEP, q._cost_value("checkpoints_kept", integer=True)), (q._MONTHS, q._cost_value("storage_months")),
    (q._NO_PILOT, q._set_cost("include_pilot", False)), (q._PILOT, q._set_cost("include_pilot", True)),
    (_HALF_EPOCH, lambda scan, m: q.accept(scan, "epochs", 0.5, m.start())),
    (_BYTES, _bytes),
]
LATE_NUMBER_RULES = [(_NAMES, _names)]
