"""Numbers, typed by what they are attached to: a tokenizer plus typed slots.

A message like "qlora 13b seq 2048" has two numbers and one cue word. Rules that each read "a
number next to 'seq'" in one direction collide (the round-2 parser read "13b seq" as a 13e9-token
sequence). Here every number is typed first by its own unit, then bound to the cue words on either
side of it, and the bindings of the whole message are settled together:

1. ``tokenize``: the message's remaining text (names already replaced by placeholders, spans read
   by earlier rules blanked) becomes tokens: numbers with their unit ("13b", "4k", "2,048", "8x",
   "50 million", "7 mil millones", "two", "una"), words, catalog-name placeholders, punctuation.
2. A number's unit decides which slots it may fill (``_ALLOWED``): "13b" is a parameter count or
   a token count, never a sequence length, a batch or a GPU count; "4k" is a length or a count,
   never a batch; "8x" is a GPU count; a bare integer may be anything a cue makes it.
3. ``CUES``: the words (both languages) that say what a number next to them is, with the side
   they usually stand on and how strongly they bind ("seq 2048" and "2048 seq len", "16k context",
   "3 epochs", "8 H100s", "rank 16", "lote de 4", "50M tokens", "13B model", "10k steps" -- the
   last binds a number to a slot we do not model, so it is read and left alone).
4. Every (number, cue) pair within a few filler words ("of", "de", "=", ":", "is", ...) becomes
   an edge scored by the cue's strength on that side, the distance, and how plausible the value
   is for the slot (a batch of 4096 or a sequence of 4 is unlikely). A number may also stand
   alone when its unit says what it is ("13b" a size, "8k" a length): a weaker, cue-less edge. A
   bare integer says nothing of itself: "full qwen3 0.6b 512" is asked about (``stray``), never
   read as a length because it is a power of two.
5. ``_match`` assigns each number at most one cue and each cue at most one number, maximising the
   count of numbers bound and then the scores (Kuhn's augmenting paths over edges tried best
   first), so "seq 1024 rank 16" binds 1024 to seq and 16 to rank although 1024 also stands next
   to "rank".

What comes out is a list of ``Binding`` (slot, value, position) for the caller to claim, and the
numbers nobody could bind (``stray``): the parser asks about those instead of guessing.

Adding a slot (a field another part adds to the spec, like gradient accumulation) is one entry in
``CUES`` and one in ``SLOT_FIELDS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parse import numbers as num
from advisor.parse.prefilter import ascii_safe, ascii_twin

BLANK = "\x01"

# --- tokens ------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<name>§[MGRFU]\d+§)"

    r"|(?P<num>(?<![a-z0-9])\d+(?:[.,]\d+)*(?:e[-+]?\d{1,3}|\s?\^\s?\d{1,3})?)(?P<glued>[a-z%]+|[ \t]%)?"
    r"|(?P<word>[a-z][a-z0-9]*(?:\.\d+)*(?:'[a-z]+)?)"
    r"|(?P<punct>[,;:=()?!/|+~@$*\[\]{}\"#<>&\n.-])"
    r"|(?P<blank>\x01+)")
_TOKEN_ASCII = ascii_twin(_TOKEN)  # the same tokens on a text of ASCII and placeholders (``prefilter.ascii_safe``)
# Scale words typed apart from the number ("70 billion", "7 mil millones", "50 M").
_SPACED_SCALES = {"billion": "b", "billions": "b", "bn": "b", "b": "b", "million": "m", "millions": "m",
                  "millones": "m", "millon": "m", "mn": "m", "m": "m", "thousand": "k", "k": "k", "mil": "k",
                  "miles": "k", "millardo": "b", "millardos": "b", "billones": "t", "billon": "t", "trillion": "t"}
_GLUED_SCALES = {"k": "k", "m": "m", "mm": "m", "mn": "m", "b": "b", "bn": "b", "t": "t"}
_BYTES = {"gb", "gbs", "gib", "mb", "mib", "tb", "tib", "g"}
_ORDINAL = {"st", "nd", "rd", "th", "o", "a"}
WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "twelve": 12, "sixteen": 16, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
    "ocho": 8, "nueve": 9, "diez": 10, "doce": 12, "dieciseis": 16, "couple": 2, "pair": 2,
    "single": 1, "sola": 1, "solo": 1, "unica": 1, "unico": 1,
    # an adjective that says there is no second, before the card ("a solitary H100", "a lone L4")
    "solitary": 1, "lone": 1,
}
SPACED_SCALES = frozenset(_SPACED_SCALES)  # (read by rules._names_a_setting)
_NUMBER_NEXT = re.compile(r"[ \t]*[:=]?[ \t]*\d")
# Articles are a count only before an epoch word ("una época", "an epoch"): "a GPU" says no count.
ARTICLES = {"a": 1, "an": 1, "un": 1, "una": 1}


@dataclass(slots=True)  # thousands per message: slots make them cheaper to build and read
class Tok:
    kind: str  # "num" | "word" | "name" | "punct" | "blank"
    text: str
    start: int
    end: int
    gap: str = ""  # characters between the previous token and this one
    scale: str | None = None  # k / m / b / t for numbers
    unit: str | None = None  # "x", "%", "bytes", "bit", "ordinal" for numbers
    spoken: bool = False  # a number said in words ("two", "ocho")
    in_url: bool = False  # inside a link ("https://wiki.example.com/runs/4531"): part of the address
    article: bool = False  # "a", "una": a count only before an epoch word


# A link the name matcher did not read as a model: its digits are part of the address.
_URL = re.compile(r"\b(?:https?://|www\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+\.(?:com|org|net|io|ai|dev|co)/\S*")


# Every match of _URL contains one of these (as names._LINK_HINT): a text without any has no link to look for.
_URL_HINT = re.compile(r"https?:|www\.|\.(?:com|org|net|io|ai|dev|co)/")
_GLUED_X = re.compile(r"x(\d{1,4})")
_GLUED_R = re.compile(r"r(\d{1,4})")
_GLUED_CUE = re.compile(r"([a-z]{2,})(\d{1,6})")
_CUE_GAP = re.compile(r"[\s_\-.]{0,2}")
_YEAR = re.compile(r"(?:19[89]\d|20[0-4]\d)")
_DIGITS = re.compile(r"\d{3,7}")
_LENGTH_DIGITS = re.compile(r"\d{4,6}|\d{1,3}[.,]\d{3}")


# Every word the word branch of ``_tokenize`` reads as more than a word (a scale, a unit, a number said in words, an
# article, "x"); a word outside it that opens with neither "x" (a glued count, "x8") nor "r" (a glued rank, "r16")
# and does not end with a digit (a key glued to its number, "seq2048", "bs4") is a plain word, appended without the
# checks (most words of a pasted config).
_SPECIAL_WORDS = frozenset({*_SPACED_SCALES, *_BYTES, "gigabytes", "megabytes", "terabytes", "bit", "bits", "millones",
                            "millon", "mil", *WORD_NUMBERS, *ARTICLES, "x"})


def tokenize(text: str) -> list[Tok]:
    out = _tokenize(text)
    if "/" in text and _URL_HINT.search(text):
        urls = [m.span() for m in _URL.finditer(text)]
        for tok in out:
            if tok.kind == "num" and any(a <= tok.start < b for a, b in urls):
                tok.in_url = True
    return out


def _tokenize(text: str) -> list[Tok]:
    out: list[Tok] = []
    prev = 0
    for m in (_TOKEN_ASCII if ascii_safe(text) else _TOKEN).finditer(text):
        gap = text[prev:m.start()]
        prev = m.end()
        kind = m.lastgroup if m.lastgroup not in ("glued",) else "num"
        if m.group("num") is not None:
            tok = Tok("num", m.group("num"), m.start(), m.end(), gap)
            glued = m.group("glued")
            if glued:
                if glued in _GLUED_SCALES:
                    tok.scale = _GLUED_SCALES[glued]
                elif glued == "x":
                    tok.unit = "x"
                elif glued.lstrip() == "%":  # "40%", and "40 %" as Spanish and French write it
                    tok.unit = "%"
                elif glued in _BYTES:
                    tok.unit = "bytes"
                elif glued.startswith("bit"):
                    tok.unit = "bit"
                elif glued in _ORDINAL:
                    tok.unit = "ordinal"
                else:
                    tok.unit = "glued"  # "2048tokens", "3epochs": the word is read as a cue below
                    out.append(tok)
                    out.append(Tok("word", glued, m.start("glued"), m.end(), ""))
                    continue
            out.append(tok)
            continue
        if kind == "word":
            word = m.group("word")
            if word not in _SPECIAL_WORDS and word[0] != "x" and word[0] != "r" and not word[-1].isdigit():
                out.append(Tok("word", word, m.start(), m.end(), gap))  # what every check below would leave as it is
                continue
            last = out[-1] if out else None
            glued_count = _GLUED_X.fullmatch(word) if word[0] == "x" else None
            if glued_count:  # "H100 x8"
                out.append(Tok("num", glued_count.group(1), m.start() + 1, m.end(), gap, unit="x"))
                continue
            glued_cue = _GLUED_CUE.fullmatch(word) if word[-1].isdigit() else None
            if glued_cue and glued_cue.group(1) in GLUED_KEYS:  # "seq2048", "ctx8192", "bs8", "ga4", "ep3": key, number
                cut = m.start() + len(glued_cue.group(1))
                out.append(Tok("word", glued_cue.group(1), m.start(), cut, gap))
                out.append(Tok("num", glued_cue.group(2), cut, m.end(), ""))
                continue
            glued_rank = _GLUED_R.fullmatch(word) if word[0] == "r" else None
            if glued_rank:  # "LoRA r16"
                out.append(Tok("word", "r", m.start(), m.start() + 1, gap))
                out.append(Tok("num", glued_rank.group(1), m.start() + 1, m.end(), ""))
                continue
            if (word in _SPACED_SCALES and len(out) >= 2 and out[-1].kind == "punct" and out[-1].text == "-"
                    and out[-2].kind == "num" and out[-2].scale is None and out[-2].unit is None
                    and not out[-2].spoken and out[-1].gap == "" and gap == ""):
                out.pop()  # "13-billion-parameter"
                out[-1].scale, out[-1].end = _SPACED_SCALES[word], m.end()
                continue
            if (last is not None and last.kind == "num" and last.scale is None and last.unit is None
                    and gap.strip() == "" and len(gap) <= 1 and word in _SPACED_SCALES
                    # a one-letter scale with a number of its own after it is a key ("seq 512 b 64": b is the batch)
                    and not (len(word) == 1 and _NUMBER_NEXT.match(text, m.end()))):
                if word == "mil" and text.startswith(" millones", m.end()):
                    continue  # "7 mil millones": the scale is the next word
                if word in ("millones", "millon") and last.text and out[-1].end < m.start() and \
                        text[out[-1].end:m.start()].strip() == "mil":
                    last.scale = "b"
                else:
                    last.scale = _SPACED_SCALES[word]
                last.end = m.end()
                continue
            if word == "millones" and last is not None and last.kind == "num" and last.scale is None:
                between = text[last.end:m.start()]
                if between.strip() == "mil":
                    last.scale, last.end = "b", m.end()
                    continue
            if (word in _BYTES or word in ("gigabytes", "megabytes", "terabytes")) and last is not None \
                    and last.kind == "num" and last.unit is None and last.scale is None and gap.strip() == "" \
                    and not (word == "mb" and _NUMBER_NEXT.match(text, m.end())):  # "seq 4096 mb 2": mb is the batch's key
                last.unit, last.end = "bytes", m.end()  # "20.6 GiB", "80 GB": memory, not a setting
                continue
            if (word in ("bit", "bits") and len(out) >= 2 and out[-1].kind == "punct" and out[-1].text == "-"
                    and out[-2].kind == "num" and out[-2].unit is None and out[-1].gap == "" and gap == ""):
                out.pop()  # "16-bit base", "4-bits": a width, never a setting
                out[-1].unit, out[-1].end = "bit", m.end()
                continue
            if word in WORD_NUMBERS:
                if last is not None and last.kind == "num" and not last.spoken and last.unit is None \
                        and last.scale is None and gap.strip() == "" and last.text == str(WORD_NUMBERS[word]):
                    last.end = m.end()  # "1 sola época", "1 single pass": the digit and its word are one number
                    continue
                out.append(Tok("num", word, m.start(), m.end(), gap, spoken=True))
                continue
            if word in ARTICLES:
                out.append(Tok("num", word, m.start(), m.end(), gap, spoken=True, article=True))
                continue
            if word == "x" and last is not None and last.kind == "num" and last.unit is None and last.scale is None:
                last.unit = "x"  # "8 x H100": the count of what follows
                last.end = m.end()
                continue
            out.append(Tok("word", word, m.start(), m.end(), gap))
            continue
        out.append(Tok(kind, m.group(kind), m.start(), m.end(), gap))
    return out


def value_of(tok: Tok, slot: str, lang: str) -> float:
    """The number a token stands for in ``slot``: k is 1024 in a length, 1000 in a count."""
    if tok.spoken:
        return float(ARTICLES.get(tok.text) or WORD_NUMBERS[tok.text])
    scale = {"k": "k", "m": "m", "b": "b", "t": "t"}.get(tok.scale or "")
    unit_word = {"k": "k", "m": "m", "b": "b", "t": "billones"}.get(scale or "")
    if slot == "seq":
        return num.seq_tokens(tok.text, unit_word, lang)
    if slot == "params":
        value = num.billions(tok.text, unit_word, lang)
        return value
    return num.count(tok.text, unit_word, lang)


# --- cues ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cue:
    words: tuple[str, ...]
    slot: str
    left: float  # strength when the cue stands before the number ("seq 2048"); 0: never
    right: float  # strength when it stands after ("16k context"); 0: never


def _cues(slot: str, left: float, right: float, *phrases: str) -> list[Cue]:
    """Cues of ``slot``; an abbreviation's period in a phrase ("eff. batch") is its own token, as the
    tokenizer reads it (``_TOKEN``: "." is punctuation), so the phrase matches as typed."""
    return [Cue(tuple(_ABBREV_PERIOD.sub(r"\1 .", p).split()), slot, left, right) for p in phrases]


_ABBREV_PERIOD = re.compile(r"(\w)\.(?=\s|$)")


_SEQ_HEADS = ("seq", "sequence", "context", "ctx", "token", "input")
# Items and rates per device or per step, each language with its own words ("samples per GPU", "muestras por
# dispositivo"). A step said with a device ("per step per GPU", "por paso y GPU") is folded into the device's rate by
# ``text.normalize`` (what one device takes in one step is its batch either way), so these stay short lists.
_ITEMS = {"en": ("sequences", "seqs", "samples", "examples"), "es": ("secuencias", "seqs", "muestras", "ejemplos")}
# "each device" with its preposition or not: "samples on each device", "on every GPU", "muestras en cada dispositivo",
# "por cada GPU" (the same per-device rate, HF TrainingArguments.per_device_train_batch_size)
_DEVICE_RATES = {"en": tuple(f"{per} {dev}" for per in ("per", "/", "each", "on each", "on every", "in each", "for each",
                                                         "every")
                             for dev in ("gpu", "device", "card")),
                 "es": tuple(f"{per} {dev}" for per in ("por", "/", "cada", "en cada", "por cada", "para cada")
                             for dev in ("gpu", "dispositivo", "tarjeta"))}
_STEP_RATES = {"en": tuple(f"{per} {step}" for per in ("per", "/", "each", "every") for step in ("step", "batch", "iteration")),
               "es": tuple(f"{per} {step}" for per in ("por", "/", "cada") for step in ("paso", "iteracion"))}
# Items per forward pass: what one device takes through the model at once is its micro-batch (HF
# TrainingArguments.per_device_train_batch_size; an accumulated step is several such passes): "8 samples per forward
# pass", "16 examples in each fwd pass", "4 muestras por pasada", "ejemplos por pasada hacia adelante". A pass over
# the data ("3 passes over the corpus", "2 pasadas por los datos") has no items before it: those are epochs.
_PASS_RATES = {"en": tuple(f"{per} {fwd}" for per in ("per", "/", "each", "every", "in each", "in one", "in a", "in every")
                           for fwd in ("forward pass", "forward", "fwd pass", "fwd", "forward step")),
               "es": tuple(f"{per} {fwd}" for per in ("por", "/", "cada", "en cada", "por cada", "en una")
                           for fwd in ("pasada", "pasada hacia adelante", "pasada forward", "pase hacia adelante",
                                       "forward"))}
_ITEMS_PER_PASS = tuple(f"{what} {rate}" for lang in _ITEMS for what in _ITEMS[lang] for rate in _PASS_RATES[lang])
_PER_DEVICE_RATES = tuple(dict.fromkeys(_DEVICE_RATES["en"] + _DEVICE_RATES["es"]))
_ITEMS_PER_DEVICE = tuple(f"{what} {rate}" for lang in _ITEMS for what in _ITEMS[lang] for rate in _DEVICE_RATES[lang])
_ITEMS_PER_STEP = tuple(f"{what} {rate}" for lang in _ITEMS for what in _ITEMS[lang] for rate in _STEP_RATES[lang])
_ID_STRENGTH = 5  # an identifier's word before its number ("job 88213"): weaker than any setting's cue beside it
# Strengths: 10 a cue that names the slot outright; 6-8 a usual but looser word; 3-4 a weak hint.
CUES: list[Cue] = [
    # every head word with every measure word: "seq len", "ctx length", "max context size", "sequence window"
    *_cues("seq", 10, 6, *(f"{pre}{head} {measure}" for pre in ("", "max ", "maximum ") for head in _SEQ_HEADS
                            for measure in ("len", "length", "lens", "lengths", "size", "window",
                                            # the length as a bound: "ctx cap of 6144", "context limit 8k", "seq ceiling"
                                            "cap", "limit", "ceiling")),
           *(f"{bound} {of} {head}" for bound in ("tope", "limite", "maximo") for of in ("de", "del", "de la")
             for head in ("contexto", "secuencia", "longitud")),
           "seq", "seqlen", "max seq", "max len", "max length", "maxlen", "block size", "cutoff len", "cutoff",
           "longitud de secuencia", "longitud de la secuencia", "longitud de contexto", "longitud del contexto",
           "largo de secuencia", "longitud", "secuencia", "sequence", "sequences capped at", "seqs capped at",
           "ventana", "ventana de contexto",
           "capped at", "max seq length",
           # the bound after its noun ("contexto tope de 2048", "secuencia máxima de 4096"), and a length the
           # samples are truncated to ("truncated at 2k tokens", "truncado a 1024 tokens"; HF tokenizers'
           # truncation=True, max_length=N cuts each sample at N tokens)
           *(f"{head} {bound} {of}" for head in ("contexto", "secuencia", "secuencias") for bound in (
               "tope", "limite", "maximo", "maxima", "maximos", "maximas") for of in ("de", "a")),
           *(f"{verb} {at}" for verb in ("truncated", "truncating", "truncate", "truncation") for at in ("at", "to")),
           *(f"{verb} {at}" for verb in ("truncado", "truncada", "truncados", "truncadas", "truncar", "truncando",
                                         "truncamos", "truncamiento") for at in ("a", "en"))),
    *_cues("seq", 9, 10, "context", "ctx", "context window", "contexto", "ventana de contexto", "ventana",
           "tokens de contexto", "de contexto", "tokens of context", "of context", "token context"),
    *_cues("seq", 7, 0, "sequences", "secuencias", "sequences of", "secuencias de"),
    # the window each sample is cut to: "sample windows of 3072", "training windows of 4k", "ventanas de 2048"
    *_cues("seq", 8, 0, "sample window", "sample windows", "training window", "training windows", "windows",
           "ventanas", "ventanas de muestra"),
    *_cues("seq", 0, 9, "length sequences", "tokens long", "token long", "long sequences",
           "tokens per sequence", "tokens por secuencia",
           *(f"{unit} {seqs}" for unit in ("token", "tokens", "tok", "toks") for seqs in ("sequences", "seqs", "samples",
                                                                                         "inputs", "windows"))),
    *_cues("seq", 3, 0, "at", "@", "a", "with", "con", "up to", "hasta"),
    *_cues("tokens", 0, 6.5, "tokens", "token", "toks", "tok", "de tokens", "tokens de entrenamiento",
           "training tokens"),
    # the data's tokens as a setting's name before its value, "tokens: 50M", "training tokens = 1.2B", "tokens de
    # entrenamiento: 300M" (a count of tokens with its scale; a bare "tokens 2048" beside a length cue stays the length's)
    *_cues("tokens", 6, 0, "tokens", "training tokens", "tokens de entrenamiento", "total tokens", "tokens totales"),
    *_cues("dataset", 9, 0, "dataset", "data set", "dataset of", "corpus", "corpus of", "datos", "datos de",
           "conjunto de datos", "dataset de", "un dataset de", "data of", "datasets of", "training on", "train on",
           "entrenar con"),
    # "over" is a preposition first ("over 2 GPUs", "run qlora over 90b model"): a weak hint of a dataset
    *_cues("dataset", 4, 0, "over"),
    *_cues("batch", 10, 3, "batch", "batch size", "batchsize", "bs", "bsz", "mbs", "micro batch", "microbatch",
           "micro batch size", "micro bs", "per device batch", "per device train batch size", "per device batch size",
           "per gpu batch", "per gpu batch size", "batch per device", "batch per gpu", "train micro batch size per gpu",
           "lote", "lotes", "micro lote", "microlote", "tamano de lote", "tamano del lote", "lote por gpu",
           "lote por dispositivo", "micro lote de", "a micro batch of",
           # the batch each device holds, said with "local" or "per ..." after it: "lote local 2", "batch size per gpu 4"
           *(f"{what} {where}" for what in ("batch", "batch size", "bs", "micro batch", "micro batch size", "lote",
                                            "micro lote", "tamano de lote", "tamano del lote")
             for where in ("local", *_PER_DEVICE_RATES)),
           "local batch", "local batch size", "local bs",
           # OpenRLHF's per-device batch (openrlhf/cli/train_sft.py: --micro_train_batch_size, "batch size per GPU";
           # its --train_batch_size is the global batch, below)
           "micro train batch size", "micro train batch",
           # the device before the batch word: "device batch 4", "per-device batch size 8", "gpu batch 2"
           *(f"{pre}{dev} {what}" for pre in ("", "per ") for dev in ("device", "gpu", "card")
             for what in ("batch", "batch size", "bs", "micro batch"))),
    # a one-letter key before its number in a terse command ("seq 512 b 64"): the batch, weakly (no scale: the
    # tokenizer leaves "b" alone when a number follows it)
    *_cues("batch", 6, 0, "b"),
    # terse keys before their number: "mb 2" (micro batch; "24 mb" after a number is a memory, read by the tokenizer),
    # "ga 8" / "gas 8" (gradient accumulation steps, DeepSpeed's "GAS")
    # Spanish shorthand for secuencia ("lora 7b sec 4096", "sec. 2048"), the key before its number
    *_cues("seq", 8, 0, "sec"),
    *_cues("batch", 0, 9, "per gpu", "per device", "por gpu", "por dispositivo", "/ gpu", "/ device", "per card",
           "por tarjeta",
           # items at a rate per device, the rate's step said or not, in either order and with either joint:
           # "samples per GPU", "samples per step per GPU", "muestras por paso y GPU", "ejemplos por GPU y paso"
           # (HF TrainingArguments.per_device_train_batch_size: the samples one device takes in one step)
           *_ITEMS_PER_DEVICE, *_ITEMS_PER_PASS),
    # items per step with no device: the step's batch over all devices ("64 samples per step", "muestras por paso")
    *_cues("global_batch", 0, 9, *_ITEMS_PER_STEP),
    *_cues("rank", 10, 6, "rank", "lora rank", "lora r", "rango", "rango lora", "rango de lora", "adapter rank",
           "rank of", "lora rank of"),
    *_cues("rank", 7, 0, "r"),
    # L, the sequence length as papers and configs write it ("L=4096", "L: 2048"): only as a key, touching its
    # equals sign or colon and then the number (``_KEY_ONLY``)
    *_cues("seq", 8, 0, "l"),
    # the adapters' dimension is their rank (PEFT LoraConfig.r: "Lora attention dimension (the 'rank')")
    *_cues("rank", 10, 0, "lora dim", "lora dimension", "adapter dim", "dimension lora", "dimension de lora",
           "dimension del adaptador"),
    # "3 ep", and the key before its value in a terse line or a pasted flag ("ep=5", "ep: 2", "eps 3")
    *_cues("epochs", 8, 7, "ep", "eps"),
    # a full pass over the data said as a sweep, a round or a walk through it ("5 sweeps over the data", "3 rounds
    # through the corpus", "2 recorridos del dataset", "3 barridos de los datos"): an epoch, its count before it
    *_cues("epochs", 0, 10, *(f"{noun}{over}" for noun in ("sweeps", "sweep", "full sweeps", "rounds", "round", "cycles")
                              for over in ("", *(f" {p} {d}" for p in ("over", "through", "of", "across", "on")
                                                 for d in ("the data", "the dataset", "the corpus", "the training set",
                                                           "the train set", "data", "dataset", "our data")))),
           # "4 trips through the set": a trip is said only with what it goes through (a "trip" alone is travel)
           *(f"{noun} {p} {d}" for noun in ("trips", "trip", "walks", "walk") for p in ("over", "through", "across")
             for d in ("the set", "the data", "the dataset", "the corpus", "the training set", "the train set")),
           *(f"{noun}{over}" for noun in ("recorridos", "recorrido", "barridos", "barrido", "pasadas completas")
             for over in ("", *(f" {p} {d}" for p in ("del", "de", "por", "sobre", "a")
                                for d in ("dataset", "corpus", "los datos", "el dataset", "el corpus", "datos",
                                          "conjunto de datos", "el conjunto de datos"))))),
    # "N times over/through the data", "N veces por el dataset": the count of passes; "times" alone stays unread
    *_cues("epochs", 0, 10, *(f"{t} {p} {d}" for t in ("times", "x") for p in ("over", "through", "across")
                              for d in ("the data", "the dataset", "the corpus", "the training set", "data", "dataset")),
           *(f"veces {p} {d}" for p in ("por", "sobre", "a", "de") for d in ("el dataset", "los datos", "el corpus",
                                                                          "dataset", "datos"))),
    # a count's head with the counted noun, either way round: "epoch count 3", "number of epochs 3", "número de épocas 3"
    *_cues("epochs", 10, 0, *(f"{noun} {head}" for noun in ("epoch", "epochs", "pass", "passes") for head in ("count", "number", "num")),
           *(f"{head} {noun}" for head in ("number of", "num of", "count of", "numero de", "cantidad de")
             for noun in ("epochs", "epoch", "passes", "epocas", "pasadas"))),
    *_cues("epochs", 6, 10, "epochs", "epoch", "epocas", "epoca", "pasadas", "pasada", "passes", "pass",
           "num epochs", "num train epochs", "passes over the data", "pass over the data", "pass through the data",
           "passes through the data", "pase", "pases", "pase por los datos", "pases por los datos"),
    # Spanish counts passes over the data as laps ("dar 3 vueltas al dataset"): an epoch noun after its count only
    # ("a la vuelta" is "on the way back", no count before it)
    *_cues("epochs", 0, 10, "vueltas", "vuelta", "vueltas al dataset", "vuelta al dataset", "vueltas a los datos",
           "vuelta a los datos", "vueltas al conjunto de datos", "vueltas completas"),
    *_cues("gpus", 10, 0, "world size", "world_size", "num gpus", "gpu count", "number of gpus", "numero de gpus"),
    *_cues("gpus", 5, 10, "gpus", "gpu", "cards", "card", "tarjetas", "tarjeta", "graficas", "grafica",
           "devices", "dispositivos", "accelerators", "aceleradores", "gpus de", "tarjetas de",
           # "en 3 placas A100" (a board: the card, in Spain and Latin America), "8 boards"
           "placas", "placa", "placas de", "boards"),
    # a count in an order form: "A10G GPU, qty 2", "pcie h100, quantity 4", "2 unidades de MI300X"
    *_cues("gpus", 8, 0, "qty", "quantity", "cantidad"),
    *_cues("gpus", 0, 7, "way"),
    # the processes of a data-parallel job, one per device (torchrun's ranks, a launcher's processes): "2 ranks on
    # B200", "8 processes", "4 procesos"; and data parallelism over a count ("data-parallel on 4 L40S", "paralelismo de
    # datos en 4 L4": the data there is no dataset)
    *_cues("gpus", 0, 7, "ranks", "ranks on", "processes", "procesos", "workers on"),
    *_cues("gpus", 6, 0, "data parallel on", "data parallel across", "data parallel over", "paralelismo de datos en",
           "paralelismo de datos sobre", "paralelismo de datos con", "data parallel", "paralelismo de datos"),
    *_cues("gpus", 0, 8, "of them", "de ellas", "de ellos", "of those", "of these", "de esas", "de esos", "de estas",
           "de estos"),  # "L4 24GB — 4 of them"  # "4-way B200", "an 8-way node": that many devices
    *_cues("gpus", 0, 6, "units", "unidades"),
    # an order form's pieces ("H100 (4 pcs)", "MI300X, 3 pieces"): as "units", that many of the card beside it
    *_cues("gpus", 0, 6, "pcs", "pieces", "piezas"),
    *_cues("nodes", 0, 10, "nodes", "node", "nodos", "nodo", "machines", "maquinas", "servers", "servidores"),
    *_cues("examples", 0, 10, "examples", "example", "samples", "sample", "rows", "conversations", "documents",
           "pairs", "instructions", "dialogues", "records", "chats", "messages", "prompts", "transcripts", "turns",
           "convos", "convo",
           "mensajes", "docs", "doc", "ejemplos", "muestras", "filas", "conversaciones",
           "documentos", "pares", "instrucciones", "dialogos", "registros", "training examples",
           "ejemplos de entrenamiento"),
    *_cues("examples", 0, 5, "sequences", "secuencias"),
    *_cues("seq_sized", 0, 6, "sequences", "secuencias", "seqs"),
    *_cues("params", 6, 10, "params", "param", "parameters", "parameter", "parametros", "parametro", "weights"),
    *_cues("params", 0, 8, "model", "llm", "modelo", "parameter model", "param model", "param llm",
           "parameter llm"),
    *_cues("params", 7, 0, "modelo de", "un modelo de", "llm de", "un llm de", "model of", "modelo"),
    *_cues("grad_accum", 10, 4, "gradient accumulation", "gradient accumulation steps", "grad accum",
           "grad accumulation", "accumulation steps", "acumulacion de gradientes", "acumulacion de gradiente",
           "gradient accumulation of", "grad acc"),
    # the word alone beside a batch ("micro-lote de 4 (acumulación 8)", "bs 2, accum 16")
    *_cues("grad_accum", 8, 0, "acumulacion", "accumulation", "accum", "grad accum of", "ga", "gas", "gacc"),
    *_cues("batch", 8, 0, "mb", "mbsz"),
    # the verb ("accumulating 8 steps", "accumulate over 4", "acumulando 16 pasos") and "N steps of accumulation":
    # stronger than "steps" alone (a count of steps read and left alone), which they contain
    *_cues("grad_accum", 11, 0, *(f"{verb}{over}" for verb in ("accumulating", "accumulate", "accumulates", "accumulated",
                                                               "acumulando", "acumular", "acumula", "acumulamos")
                                  for over in ("", " over", " across", " for", " durante", " en", " sobre"))),
    *_cues("grad_accum", 0, 11, "steps of accumulation", "accumulation steps", "steps of gradient accumulation",
           "pasos de acumulacion", "pasos de acumulacion de gradientes", "grad accumulation steps"),
    *_cues("global_batch", 10, 0, "train batch size", "global batch", "effective batch", "total batch", "lote global", "lote efectivo",
           "global batch size", "effective batch size", "batch global", "batch efectivo", "lote total", "total batch size",
           "global batch size of", "tamano de lote global", "tamano de lote total", "eff batch", "eff. batch", "global",
           "effective bs", "eff bs", "eff. bs", "eff. batch size", "lote ef.", "tot. batch"),
    # Numbers we read and leave alone: what they measure is not part of a memory, time or cost estimate.
    *_cues("ignore", 0, 10, "steps", "step", "pasos", "iterations", "iteraciones", "iters", "hours", "hour", "horas",
           "hora", "days", "day", "dias", "dia", "minutes", "minutos", "weeks", "semanas", "dollars", "dolares",
           "euros", "usd", "eur", "mins", "min", "h", "people", "personas", "users", "usuarios", "teams", "equipos",
           "languages", "idiomas", "experiments", "experimentos", "per epoch", "por epoca", "checkpoints kept",
           # an amount of compute spent, not a count of GPUs ("we burned 1,240 GPU-hours"; Spanish says "horas de GPU")
           # ("gpu - hours": the tokenizer reads the hyphen as its own token, as "eff ." above)
           *(f"gpu{dash} {unit}" for dash in ("", " -") for unit in ("hours", "hour", "hrs", "hr", "days", "day",
                                                                      "horas", "hora"))),
    # money written with its sign after the amount, as Spanish and most of Europe write it ("480 $ gastados", "300 €":
    # "€" is "eur" by now, right-ignored above), and a queue's depth and its jobs ("queue depth 12", "12 jobs queued",
    # "cola de 12 trabajos", "12 tareas en cola"): no setting of the job we size
    *_cues("ignore", 0, 10, "$", "gbp", "jobs", "trabajos", "tareas", "jobs queued", "queued", "in queue",
           "jobs in the queue", "trabajos en cola"),
    *_cues("ignore", 10, 0, "queue depth", "queue length", "queue size", "queue of", "queue", "cola de",
           "profundidad de cola", "profundidad de la cola", "longitud de la cola", "cola",
           "queue position", "position in the queue", "posicion en la cola", "backlog of", "backlog",
           "backlog de"),
    # work items counted after their number ("a backlog of 30 tickets", "12 incidencias abiertas"), and a sprint's or
    # a milestone's number before it ("sprint 14", "hito 3"): the team's planning, no setting
    *_cues("ignore", 0, 10, "tickets", "issues", "bugs", "prs", "incidencias", "incidentes", "tareas pendientes"),
    *_cues("ignore", _ID_STRENGTH, 0, "sprint", "milestone", "hito"),
    # a latency, a duration, a team and things that are not GPUs, after their number: "p95 latency 120 ms", "a 12-person
    # team", "4 people and 1 laptop", "somos 4 personas"
    *_cues("ignore", 0, 10, "ms", "milliseconds", "millisecond", "milisegundos", "seconds", "second", "segundos", "secs",
           "person", "persona", "engineers", "ingenieros", "members", "miembros", "devs", "laptop", "laptops", "portatil",
           "portatiles", "interns", "becarios"),
    # a model's quality, loss or score, its number on either side: "0.8 loss", "loss of 0.8", "0,8 de loss", "accuracy 71"
    *_cues("ignore", 9, 9, "loss", "eval loss", "train loss", "perplexity", "ppl", "accuracy", "f1", "bleu", "rouge",
           "score", "perdida", "exactitud"),
    # identifiers before their number, weakly ("job 88213", "run 3417", "ticket 2291", "PR 7105": "run 3 epochs" is the
    # epochs'), and durations and places in a run ("paso 312", "timeout 600", "latencia p95 de 120")
    # others of a kind, and who we are: "the other 3 are booked", "las otras 3 están reservadas", "somos 4"
    *_cues("ignore", 11, 0, "other", "others", "otras", "otros"),  # (stronger than the noun after: "the other 3 GPUs")
    *_cues("ignore", _ID_STRENGTH, 0, "somos", "we are", "there are"),
    *_cues("ignore", _ID_STRENGTH, 0, "job", "job id", "run", "run id", "ticket", "issue", "pr", "build", "pid", "id",
           # a planning period's number ("sprint 14", "milestone 3", "hito 2"): when, not what
           "sprint", "milestone", "hito",
           # a document's, an order's or a place's number ("invoice 88213", "factura n.º 88213", "PO 7781", "OC 7781",
           # "account 4471", "row 42", "fila 42", "floor 9", "incident 2093"): which one, no size
           "invoice", "factura", "n . o", "nro", "po", "oc", "order", "pedido", "account", "cuenta", "row", "fila",
           "sheet", "hoja", "page", "pagina", "floor", "piso", "room", "sala", "incident",
           "incidencia", "case", "caso", "ext"),
    # a calendar week's number ("on-call rota week 48", "guardia de la semana 48", "wk 12"): when, not what ("2 weeks"
    # is a duration, its number before: the right cue below); a team's size ("team of 6", "equipo de 6")
    *_cues("ignore", 10, 0, "week", "wk", "semana", "rota week", "team of", "equipo de", "a team of", "un equipo de"),
    # an evaluation's result ("last eval scored 71.2", "la última eval dio 71,2", "MMLU 64.3"): a score, no setting
    *_cues("ignore", 10, 0, "eval scored", "eval score", "evals scored", "scored", "eval dio", "evaluacion dio",
           "eval gave", "eval was", "mmlu", "gsm8k", "humaneval"),
    *_cues("ignore", 10, 0, "paso", "iteracion", "iteration", "timeout", "port", "puerto", "latency", "latencia", "p50",
           "p90", "p95", "p99"),
    # a date: a day beside its month ("Dec 1", "on March 3", "14 de nov", "el 3 de marzo"); "may" and "mar" are also a
    # verb and a noun, never listed
    *_cues("ignore", 9, 9, *(m for m in ("jan", "january", "feb", "february", "march", "apr", "april", "june", "july",
                                         "aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november",
                                         "dec", "december", "ene", "enero", "febrero", "marzo", "abr", "abril", "mayo",
                                         "junio", "julio", "agosto", "septiembre", "setiembre", "octubre",
                                         "noviembre", "dic", "diciembre"))),
    # the model's own widths are no adapter dimension: "hidden dim 4096", "head dim 128"
    *_cues("ignore", 11, 0, "hidden dim", "hidden size", "model dim", "head dim", "embedding dim", "intermediate size",
           "ffn dim", "d model"),
    *_cues("rank", 8, 0, "dim", "dimension"),  # "LoRA dim 128", "dimensión LoRA 8" once the method word was read
    *_cues("ignore", 10, 0, "lr", "learning rate", "warmup", "warmup steps", "seed", "$", "usd", "eur", "budget",
           "budget of", "presupuesto", "presupuesto de", "spend", "top", "step", "steps", "save steps",
           "logging steps", "eval steps", "max steps", "version", "v", "weight decay", "gastar", "pay", "pagar",
           # the optimizer's rates in Spanish ("tasa de aprendizaje 2e-4", "decaimiento de pesos 0,0", "proporción de
           # warmup 0,03") and a warm-up's share: no setting we size
           "tasa de aprendizaje", "ritmo de aprendizaje", "taza de aprendizaje", "decaimiento de pesos",
           "decaimiento de los pesos", "warmup ratio", "warm up ratio", "proporcion de warmup", "proporcion de warm up",
           "proporcion de calentamiento", "ratio de warmup",
           "python", "torch", "pytorch", "cuda", "transformers", "trl", "peft", "accelerate", "deepspeed", "vllm",
           "driver", "ubuntu", "nccl", "cudnn", "rocm", "gbp", "eur", "torchtune", "axolotl", "skypilot", "ray",
           "litgpt", "unsloth", "llamafactory", "bitsandbytes", "flash attn", "sky", "checkpoints kept",
           # a random seed and a model revision ("semilla 42", "(rev 905e356)", "revision=84788ea", "commit 3f2a9b1"):
           # identifiers, no setting we size
           "semilla", "random seed", "rev", "revision", "commit", "sha"),
]
# One-word keys of a setting that people glue to their number in a terse command ("full 7b seq2048", "ctx8192", "bs8
# ga4", "ep3", "rank16"): the key, then the number (names are placeholders by now, so "a100" or "l4" never reach here)
GLUED_KEYS = frozenset(c.words[0] for c in CUES if len(c.words) == 1 and c.slot not in ("ignore",) and c.left >= 6
                        and len(c.words[0]) >= 2)
# Every cue as its words joined by "_": a config key we do not list whose words are a cue
# ("per_device_batch_size=8", "micro_bs=4") is read as that cue (``rules._other_key``).
CUE_KEYS = frozenset("_".join(c.words) for c in CUES if c.slot != "ignore")


def cue_word(word: str) -> bool:
    """``word`` alone is a cue of a setting we read ("seq", "bs", "gpus", "r"): a key=value with it is that setting."""
    return any(c.slot != "ignore" and c.words == (word,) for c in _CUE_INDEX.get(word, ()))


def setting_word(word: str) -> bool:
    """``word`` alone names a setting we size ("seq", "rank", "gpus", "epochs", "lote"), not a model's size ("model"
    is said of many things), a count of examples (their size needs a length) nor a count we read and leave alone
    ("steps", "hours"); a weak left cue ("at", "con": "at 8k") is a preposition first."""
    return any(c.slot not in ("ignore", "params", "examples") and c.words == (word,) and max(c.left, c.right) >= 6
               for c in _CUE_INDEX.get(word, ()))


# One occurrence of a word binds one number: a phrase listed for the same slot on both sides ("steps"
# after a count and before a setting) is one cue with both strengths, not two.
_MERGED: dict[tuple[tuple[str, ...], str], Cue] = {}
for _cue in CUES:
    _old = _MERGED.get((_cue.words, _cue.slot))
    _MERGED[(_cue.words, _cue.slot)] = _cue if _old is None else Cue(
        _cue.words, _cue.slot, max(_old.left, _cue.left), max(_old.right, _cue.right))
_CUE_INDEX: dict[str, list[Cue]] = {}
for _cue in _MERGED.values():
    _CUE_INDEX.setdefault(_cue.words[0], []).append(_cue)
for _list in _CUE_INDEX.values():
    _list.sort(key=lambda c: -len(c.words))

# Words that may stand between a cue and its number ("context of 4096", "secuencia de la 2048").
_LEFT_FILL_WORDS = {"of", "de", "del", "la", "el", "is", "es", "at", "to", "around", "about", "approx", "from", "desde",
                    "approximately", "aprox", "unos", "unas", "roughly", "max", "maximum", "maximo", "maxima", "up",
                    "hasta", "set", "size", "len", "length", "a", "an", "be", "would", "será", "sera", "being",
                    "value", "valor", "tamano", "per", "por", "device", "gpu", "only", "solo", "just", "en", "in",
                    "the", "los", "las", "was", "were", "fue", "era", "fueron", "eran"}
# The adapters a setting belongs to, between the setting's word and its number: "rank of the lora 16",
# "rango del adaptador en 64" (free filler: they qualify the cue).
_QUALIFIERS = {"lora", "adapter", "adapters", "adaptador", "adaptadores"}
_LEFT_FILL_PUNCT = {":", "=", "(", "~", "-", "*", "."}
# Cue words people abbreviate with a period ("seq. 4096", "ctx. 8k", "num. epochs 3"): only after these is a "." filler.
_SINGULAR_EPOCH = {"epoch", "epoca", "pass", "pasada"}
# A pass named by its method ("una pasada de QLoRA", "a pass of LoRA", "a quick LoRA pass") is one run of that
# method, not a count of epochs; a pass over the data ("una pasada por los datos") still is one.
_PASS_METHODS = {"qlora", "lora", "dora", "sft", "finetune", "fine-tune", "finetuning", "fine-tuning", "ajuste", "full",
                 "ft", "peft"}


def _names_a_run(tok: Tok) -> bool:
    # the method word is already read and blanked out (kind "blank"), or still a word; a catalog model ("una pasada
    # de §M0§") names the run as much
    return tok.kind in ("blank", "name") or tok.text in _PASS_METHODS


def _pass_of_method(toks: list[Tok], ti: int, first: int, last: int) -> bool:
    """The cue ``toks[first..last]`` after the count ``toks[ti]`` is a pass of a method: "una pasada de QLoRA", "a pass
    of LoRA" (the method after "pass") or "a LoRA pass" (the method between the article and "pass")."""
    if toks[last].text not in ("pass", "pasada"):
        return False
    if first - ti > 1 and all(_names_a_run(t) for t in toks[ti + 1:first]):
        return True
    k = last + 1
    if k < len(toks) and toks[k].text in ("de", "of", "con", "with"):
        k += 1
    return k < len(toks) and _names_a_run(toks[k])


_KEY_ONLY = {("l",)}  # cues read only as "KEY=N" / "KEY:N"
_ABBREVIATIONS = {"seq", "ctx", "len", "max", "approx", "aprox", "num", "bs", "mbs", "lr", "eps", "ep", "r", "seqs", "sec"}
_RIGHT_FILL_WORDS = {"of", "de", "training", "entrenamiento", "total", "in", "en", "each", "cada", "lora", "long",
                     "the", "la", "el", "our", "nuestro", "nuestra", "sized", "big", "tuned", "sft", "base", "full",
                     "complete", "completas", "completos", "whole", "sola", "solo", "single", "unica", "unico"}
_RIGHT_FILL_PUNCT = {"-", "(", ")", "*"}
MAX_FILL = 3

# Which slots a number may fill, by its own unit.
_ALLOWED = {
    None: {"seq", "tokens", "dataset", "batch", "rank", "epochs", "gpus", "nodes", "examples", "grad_accum",
           "global_batch", "ignore"},
    "k": {"seq", "tokens", "dataset", "examples", "global_batch", "ignore"},
    "m": {"seq", "tokens", "dataset", "examples", "params", "ignore"},
    "b": {"tokens", "dataset", "examples", "params", "ignore"},
    "t": {"tokens", "dataset", "params", "ignore"},
    "x": {"gpus", "grad_accum"},  # "8x H100"; "grad accumulation x8"
    "%": {"ignore"},
    "bytes": {"ignore"},
    "bit": {"ignore"},
    "ordinal": {"ignore"},
    "glued": {"seq", "tokens", "dataset", "batch", "rank", "epochs", "gpus", "examples", "ignore"},
}
_SPOKEN_SLOTS = {"epochs", "gpus", "nodes", "batch", "rank", "ignore"}
# Left cues that only bind a number typed as a length ("at 8k", "@ 4096", "con 16k").
_WEAK_SEQ_LEFT = {("at",), ("@",), ("a",), ("with",), ("con",), ("up", "to"), ("hasta",)}


@dataclass(slots=True)
class Binding:
    slot: str
    tok: Tok
    value: float
    pos: int
    cue: tuple[str, ...] | None  # None: the number stood alone (its unit said what it is)
    cue_pos: int | None = None


@dataclass
class Slots:
    bindings: list[Binding] = field(default_factory=list)
    stray: list[Tok] = field(default_factory=list)  # numbers nothing explains: ask about them
    unreadable: list[tuple[str, str, int]] = field(default_factory=list)  # (field, typed value, position)
    gpu_counts: list[tuple[Tok, int]] = field(default_factory=list)  # (count, GPU placeholder index)


@dataclass(slots=True)  # a few per number per message
class _Edge:
    num: int  # index into the numbers list
    cue: int | None  # index into the cue occurrences; None: the number alone
    slot: str
    score: float
    gpu: int | None = None  # GPU placeholder index the count binds to


def _find_cues(toks: list[Tok]) -> list[tuple[int, int, Cue]]:
    """Cue occurrences (first token, last token, cue), longest first at each position, no overlaps."""
    out = []
    # each token's text where a cue may read it (a word, a punctuation mark, a number said in words), else None: a
    # cue's word is never None, so one comparison says both that the token may be read and that it is that word
    keys = [t.text if t.kind in ("word", "punct") or t.spoken else None for t in toks]
    size = len(toks)
    get = _CUE_INDEX.get
    i = 0
    while i < size:
        cues = get(keys[i]) if keys[i] is not None else None
        hit = None
        for cue in cues or ():  # (longest first; the first word is the index's key)
            words = cue.words
            n = len(words)
            if i + n > size:
                continue
            k = 1
            while k < n and keys[i + k] == words[k] and _gap_ok(toks[i + k].gap):
                k += 1
            if k == n:
                hit = (i, i + n - 1, cue)
                break
        if hit is not None:
            # several cues can share words ("context" seq, "sequences" seq or examples): keep each
            for cue in cues:
                n = len(cue.words)
                if n == hit[1] - hit[0] + 1 and cue.words == hit[2].words:
                    out.append((hit[0], hit[1], cue))
            i = hit[1] + 1
        else:
            i += 1
    return out


def _gap_ok(gap: str) -> bool:
    """``_CUE_GAP.fullmatch(gap)``: what may stand between two words of one cue (a space or nothing, the most
    common, answered without the regex)."""
    return gap == " " or not gap or _CUE_GAP.fullmatch(gap) is not None


# "a sequence of N tokens", "secuencia de N tokens", "context of N tokens": the noun, "of", the length in tokens.
_LENGTH_HEADS = {("sequence",), ("secuencia",), ("context",), ("contexto",), ("seq",), ("ctx",),
                 # the window a sample is cut to, in both languages ("una ventana de 2097152 tokens", "a window of")
                 ("window",), ("context", "window"), ("ventana",), ("ventana", "de", "contexto"),
                 ("sequence", "length"), ("context", "length"), ("longitud", "de", "contexto")}


def _length_of(toks: list[Tok], cue: tuple[int, int, "Cue"], ti: int) -> bool:
    """The cue is a length's noun joined to the number by "of"/"de" alone, and no number of its own stands right
    before it ("16384-token context 5,000,000 tokens" is a length, then a dataset)."""
    first, last, c = cue
    if c.words not in _LENGTH_HEADS or last + 2 != ti or toks[last + 1].text not in ("of", "de"):
        return False
    before = toks[first - 1] if first else None
    return not (before is not None and (before.kind == "num" and not before.article
                                        or before.kind == "word" and before.text in ("token", "tokens", "tok")))


def _fill_ok(toks: list[Tok], lo: int, hi: int, words: set[str], punct: set[str]) -> int | None:
    """Number of filler tokens strictly between lo and hi, or None if something else is there."""
    count = 0
    for k in range(lo + 1, hi):
        t = toks[k]
        if t.kind == "word" and t.text in _QUALIFIERS and words is _LEFT_FILL_WORDS:
            continue  # "rango de los adaptadores: 16": the adapters name whose rank, they do not stand apart
        if t.kind == "word" and t.text in words or t.kind == "punct" and t.text in punct:
            count += 1
            continue
        if t.text == ">" and words is _LEFT_FILL_WORDS and _arrow_head(toks, k, lo):
            continue  # "epochs -> 3", "épocas → 2" (→ is "->" by now), "rank => 16": the arrow's "-"/"=" counted once
        if t.kind == "num" and t.article and words is _LEFT_FILL_WORDS or t.kind == "blank" and words is _LEFT_FILL_WORDS:
            count += 1  # ("16 a node": an article between a number and a noun counts that noun itself: one)
            continue
        return None
    return count if count <= MAX_FILL else None


def _arrow_head(toks: list[Tok], k: int, lo: int) -> bool:
    """``toks[k]`` is the head of an arrow glued to its shaft ("->", "=>"; ``text.normalize`` writes "→" and "⇒" so):
    a key pointed at its value, as ":" or "=" join them ("epochs -> 3", "max ctx => 8k")."""
    t = toks[k]
    return (t.kind == "punct" and t.text == ">" and not t.gap and k - 1 > lo
            and toks[k - 1].kind == "punct" and toks[k - 1].text in ("-", "="))


def _plausible(slot: str, value: float) -> float:
    """A penalty for values unusual in a slot (never a veto: the spec's bounds decide that)."""
    if slot == "seq":
        if value > 1 << 20:
            return -6
        return 0.5 if value >= 128 and value == int(value) and int(value) & (int(value) - 1) == 0 else (
            0 if value >= 64 else -6)
    if slot == "batch":
        return 0 if 1 <= value <= 512 else -4
    if slot == "rank":
        return 0 if 1 <= value <= 1024 else -4
    if slot == "epochs":
        return 0 if 0 < value <= 20 else -4
    if slot in ("gpus", "nodes"):
        return 0 if 1 <= value <= 1024 and value == int(value) else -6
    if slot == "params":
        return 0 if 0 < value <= 1000 else -4
    if slot == "dataset":  # fewer tokens than a few dozen examples is not a training set ("dataset 16 sequences")
        return 0 if value >= 10_000 else -6
    return 0


def _value_ok(tok: Tok, slot: str, lang: str) -> float | None:
    if tok.unit == "glued" and slot in ("seq", "tokens", "dataset", "epochs", "examples"):
        pass
    allowed = _ALLOWED.get(tok.unit if tok.unit else tok.scale, _ALLOWED[None])
    if tok.unit in ("x", "%", "bytes", "bit", "ordinal"):
        allowed = _ALLOWED[tok.unit]
    if slot not in allowed:
        return None
    if tok.spoken and slot not in _SPOKEN_SLOTS:
        return None
    if tok.article and slot != "epochs":
        return None
    try:
        return value_of(tok, "seq" if slot == "seq" else "params" if slot == "params" else "count", lang)
    except (ValueError, OverflowError):
        return None


def resolve(toks: list[Tok], lang: str, gpu_names: list[int] | None = None) -> Slots:
    """Bind every number of ``toks`` to the slot its neighbours say (see the module docstring)."""
    nums = [i for i, t in enumerate(toks) if t.kind == "num"]
    cues = _find_cues(toks)
    edges: list[_Edge] = []
    for ni, ti in enumerate(nums):
        tok = toks[ti]
        if tok.in_url or ti and toks[ti - 1].kind == "punct" and toks[ti - 1].text == "#" and tok.gap == "":
            continue  # part of an address or an identifier: never a setting
        mine = len(edges)
        for ci, (first, last, cue) in enumerate(cues):
            if last < ti and cue.left:
                fill = _fill_ok(toks, last, ti, _LEFT_FILL_WORDS, _LEFT_FILL_PUNCT)
                side = cue.left
            elif first > ti and cue.right:
                fill = _fill_ok(toks, ti, first, _RIGHT_FILL_WORDS, _RIGHT_FILL_PUNCT)
                side = cue.right
            else:
                continue
            if fill is None:
                continue
            if cue.slot == "ignore" and last < ti and cue.left <= _ID_STRENGTH and (tok.scale or tok.unit):
                continue  # an identifier is a bare integer: "a LoRA run 15B-sized model" is a size
            if cue.slot == "ignore" and last < ti and (tok.spoken or any(toks[k].kind == "word" for k in range(last + 1, ti))):
                continue  # "top 5", "lr: 2e-4" bind what touches them; "on top of 33B" is an idiom, "steps one pass" two phrases
            if last < ti and any(toks[k].kind == "punct" and toks[k].text == "." and toks[k - 1].text not in _ABBREVIATIONS
                                 for k in range(last + 1, ti)):  # the period of an abbreviation: "longitud máx. 32.768"
                continue  # "seq. 4096" is an abbreviation; "... token dataset. 0.36B-parameter LLM" a new sentence
            if cue.words in _WEAK_SEQ_LEFT and not (tok.scale == "k" or _pow2(tok)):
                continue
            if cue.slot == "seq_sized":  # "2k sequences": a length when the number is one (a power of two up to 128k)
                length = value_of(tok, "seq", lang)
                if not (tok.scale == "k" or _pow2(tok)) or length > 131072 or int(length) & (int(length) - 1):
                    continue
            if cue.slot == "epochs" and last < ti and fill > 1:
                continue
            if cue.words in _KEY_ONLY and not (last + 2 == ti and toks[last + 1].kind == "punct"
                                               and toks[last + 1].text in ("=", ":") and toks[last + 1].gap == ""):
                continue
            if tok.article and (cue.words[-1] not in _SINGULAR_EPOCH or tok.text == "a" and lang == "es"):
                continue  # "an epoch", "una época": an article counts one of a singular noun ("a épocas 4": a preposition)
            if tok.article and first > ti and _pass_of_method(toks, ti, first, last):
                continue  # "una pasada de QLoRA", "a pass of LoRA", "a LoRA pass": a run of that method, not one epoch
            value = _value_ok(tok, "seq" if cue.slot == "seq_sized" else cue.slot, lang)
            if value is None:
                continue
            slot = "seq" if cue.slot == "seq_sized" else cue.slot
            # a colon or equals sign right after the cue joins a key to its value ("rango LoRA = 4"): no filler
            cost = fill - 1 if last < ti and fill and toks[last + 1].kind == "punct" and toks[last + 1].text in (":", "=") else fill
            score = side - 1.5 * cost + _plausible(slot, value) - 0.01 * abs(ti - (first if first > ti else last))
            if last < ti and cost == 0 and side >= 10:
                score += 0.25  # a word naming its slot outright, touching its number ("bsz 8 A10G"): before a count of the GPU after
            if score > 0:
                edges.append(_Edge(ni, ci, slot, score))
        if any(e.slot == "seq" and _length_of(toks, cues[e.cue], ti) for e in edges[mine:]):
            # "secuencia de 4 millones de tokens", "a sequence of 4096 tokens": the tokens word right after is the
            # length's unit, no token count of its own (a length beyond our limit is then asked about, not a dataset)
            edges[mine:] = [e for e in edges[mine:] if not (e.slot == "tokens" and cues[e.cue][0] == ti + 1)]
        edges += _label_edges(toks, cues, ni, ti, lang)
        edges += _gpu_edges(toks, ni, ti, lang)
        alone = _alone(tok, lang)
        if alone is not None:
            edges.append(_Edge(ni, None, alone[0], alone[1]))
    chosen = _match(len(nums), edges)
    out = Slots()
    for ni, ti in enumerate(nums):
        edge = chosen.get(ni)
        tok = toks[ti]
        if edge is None:
            if not tok.spoken and tok.unit not in ("bytes", "%", "bit", "ordinal", "glued") and not _part_of_something(toks, ti):
                out.stray.append(tok)
            continue
        slot = edge.slot
        kind = slot.removesuffix("_weak")
        value = value_of(tok, "seq" if kind == "seq" else "params" if kind == "params" else "count", lang)
        real = edge.cue is not None and edge.cue < GPU_CUE
        cue_words = cues[edge.cue][2].words if real else None
        cue_pos = toks[cues[edge.cue][0]].start if real else None
        if edge.gpu is not None:
            out.gpu_counts.append((tok, edge.gpu))
        out.bindings.append(Binding(slot, tok, value, tok.start, cue_words, cue_pos))
    weak = [b for b in out.bindings if b.slot == "seq_weak"]
    if weak and (len(weak) > 1 or any(b.slot in ("seq", "tokens") for b in out.bindings)):
        # a bare length is the length only alone: beside another length ("seq 1024 -> 4096", "at 2048 (typo: 1024)",
        # "2048 or 8192") it is a second value of it, settled as a number nothing explains (alternatives, hedges,
        # corrections, the thread's field)
        out.bindings = [b for b in out.bindings if b.slot != "seq_weak"]
        out.stray += [b.tok for b in weak]
        out.stray.sort(key=lambda t: t.start)
    _alternatives(toks, out, lang)
    _parallel_sources(toks, out, lang)
    _attributed(toks, out, lang)
    _sufficient(toks, out, lang)
    _counts_or_counts(toks, out, lang)
    _replaced(toks, out, lang)
    if out.stray:
        _withdrawn_repeats(toks, out, lang)
        _repeated_withdrawn(toks, out, lang)
    bound_cues = {e.cue for e in chosen.values() if e.cue is not None and e.cue < GPU_CUE}
    for ci, (first, last, cue) in enumerate(cues):
        if ci not in bound_cues and cue.slot in UNREADABLE_FIELDS and cue.left >= 6:
            typed = _unreadable_value(toks, last, first, strong=cue.left >= 10, slot=cue.slot)
            if typed is not None:
                out.unreadable.append((UNREADABLE_FIELDS[cue.slot], typed, toks[first].start))
    return out


# A labelled value: a key of a few words, then a colon or a table's cell wall, then the value ("epochs trained: 3",
# "| épocas entrenadas | 3 |", "| long. máx. de secuencia (tokens) | 6144 |"). The label names its field with one of
# the cues, whatever other words qualify it ("trained", "used", "entrenadas"), so the value is that cue's when it is
# the only field the label names; a parenthesis in the label is the value's unit ("(tokens)"), not a second field.
_LABEL_STOP = {",", ";", "\n", "|", ":", "=", "?", "!"}
_LABEL_SLOTS = {"seq", "seq_sized", "batch", "rank", "epochs", "gpus", "grad_accum", "global_batch", "tokens", "dataset",
                "ignore"}
_LABEL_WORDS = 6


def _label_edges(toks: list[Tok], cues: list[tuple[int, int, "Cue"]], ni: int, ti: int, lang: str) -> list[_Edge]:
    sep = ti - 1
    if sep < 1 or toks[sep].kind != "punct" or toks[sep].text not in (":", "|") or "\n" in toks[ti].gap \
            or toks[ti].article:
        return []
    lo, words = sep - 1, 0
    while lo >= 0 and not (toks[lo].kind == "punct" and (toks[lo].text in _LABEL_STOP or toks[lo].text == "."
                                                       and lo and toks[lo - 1].text not in _ABBREVIATIONS)):
        words += toks[lo].kind == "word"
        if toks[lo].kind == "num" and not toks[lo].article or words > _LABEL_WORDS:
            return []  # a number in the label ("3 epochs: 2 on ...") or prose, no key
        lo -= 1
    if toks[sep].text == "|" and not (lo >= 0 and toks[lo].text == "|"):
        return []  # a cell wall only between two cells of a row
    if lo + 1 >= sep or "\n" in toks[lo + 1].gap and toks[lo].text == "|":
        return []
    depth, inside = 0, set()
    for k in range(lo + 1, sep):
        if toks[k].text == "(":
            depth += 1
        elif toks[k].text == ")":
            depth = max(0, depth - 1)
        elif depth:
            inside.add(k)
    # (a label's words we read and leave alone are a rate or a measure, "learning rate", "tasa de aprendizaje": an
    # identifier's word or "other" is no key, "misread the ticket: 4096 tokens" says the length, "otros ajustes: ...")
    named = [(ci, c) for ci, (first, last, c) in enumerate(cues) if lo < first and last < sep and first not in inside
             and max(c.left, c.right) >= 6 and c.words not in _WEAK_SEQ_LEFT and (c.slot != "ignore" or c.left >= 9 and len(c.words) > 1)]
    slots = {"seq" if c.slot == "seq_sized" else c.slot for _, c in named}
    if len(slots) != 1 or not slots <= _LABEL_SLOTS:
        return []  # no field, two fields ("lote / GPU" is read by its own cues), or a number we leave alone
    slot = slots.pop()
    value = _value_ok(toks[ti], slot, lang)
    if value is None:
        return []
    ci = named[0][0]
    # (weaker than a cue touching the number: "otros ajustes: 2.200 millones de tokens" is a token count)
    return [_Edge(ni, ci, slot, 5.5 + _plausible(slot, value))]


# "seq 8192 or 4096", "on 2 or 4 A100s", "a 2048 o 4096", "rank 16 u 32": a number joined by "or" to a number bound
# to a slot is another value for that slot (the user has not chosen), never a stray nor a pick of the bound one: both
# are claimed, and two values for one field are a question back ("which one?", request._Assembler._two_values).
_OR = {"or", "o", "u"}


def _alternatives(toks: list[Tok], out: Slots, lang: str) -> None:
    if not out.stray:
        return
    bound = {b.tok.start: b for b in out.bindings}
    index = {t.start: i for i, t in enumerate(toks)}
    for tok in list(out.stray):
        ti = index[tok.start]
        for step in (1, -1):  # "2 or 4 A100s" (the bound one after), "seq 8192 or 4096" (before)
            j, k = ti + step, ti + 2 * step
            if not (0 <= k < len(toks)) or toks[k].kind != "num":
                continue
            joined = toks[j].kind == "word" and toks[j].text in _OR or toks[j].kind == "punct" and toks[j].text == "/" \
                and toks[j].gap == "" and toks[max(j, k) ].gap == "" and tok.scale == toks[k].scale  # "2048/4096"
            # "de 2 a 4 H100", "from 2 to 4 A100s", "entre 2 y 4": a span of two values, the user has not chosen one
            first = min(ti, k)
            spans = toks[first + 1].text in _TO | {"and", "y", "-"} and first > 0 and toks[first - 1].text in _FROM | {
                "between", "entre"} and (toks[first + 1].kind in ("word", "punct") or toks[first + 1].article)
            # "2-3 epochs", "2 to 3 epochs", "1 a 2 épocas": a range of one setting, said without "from"
            spans = spans or (toks[first + 1].text == "-" and toks[first + 1].gap == "" and toks[first + 2].gap == ""
                              or toks[first + 1].kind == "word" and toks[first + 1].text in ("to", "hasta")
                              or toks[first + 1].article and toks[first + 1].text == "a") \
                and tok.scale == toks[k].scale and not tok.spoken and not toks[k].spoken
            if not (joined or spans and first + 1 == j):
                continue
            partner = bound.get(toks[k].start)
            if partner is None:
                continue
            if _second_value(tok, partner, out, lang):
                break
        else:
            _hedged(toks, ti, tok, bound, out, lang)


def _second_value(tok: Tok, partner: Binding, out: Slots, lang: str) -> bool:
    """The stray number ``tok`` is a second value of ``partner``'s setting (an alternative, another source's value):
    it is claimed by that setting, under its cue, when it is a value the setting can take. Both values claimed, the
    assembler asks which one (request._Assembler)."""
    value = _value_ok(tok, partner.slot.removesuffix("_weak"), lang)
    if value is None:
        return False
    out.stray.remove(tok)
    out.bindings.append(Binding(partner.slot, tok, value, tok.start, partner.cue, partner.cue_pos))
    return True


# Two sources' values for one setting, the second said without its cue: "context 4096 per the ticket, 8192 per the
# notebook", "3 épocas en la cotización, 4 en la guía", "4 epochs in the quote, 2 in the lab sheet". The number after
# the comma repeats the first one's source preposition: it is a second value of the first one's setting (both are
# claimed, and two values for one field without a correction are asked about: request._Assembler, "which one?").
_SOURCE_WORDS = {"per", "in", "on", "from", "for", "according", "segun", "en", "de", "por", "para", "desde", "acorde"}
_PARALLEL_JOINS = {",", ";", "and", "y", "but", "pero", "while", "mientras", "vs", "versus", "whereas"}


def _parallel_sources(toks: list[Tok], out: Slots, lang: str) -> None:
    if not out.stray or not out.bindings:
        return
    index = {t.start: i for i, t in enumerate(toks)}
    by_end = sorted(out.bindings, key=lambda b: b.tok.start)
    for tok in list(out.stray):
        ti = index[tok.start]
        if ti + 1 >= len(toks) or toks[ti + 1].kind != "word" or toks[ti + 1].text not in _SOURCE_WORDS \
                or ti < 2 or toks[ti - 1].text not in _PARALLEL_JOINS:
            continue
        prep = toks[ti + 1].text
        for b in reversed(by_end):
            bi = index.get(b.tok.start)
            if bi is None or bi >= ti:
                continue
            # the first value, its cue's words after it if any ("3 épocas en ..."), then the same preposition, a short
            # source phrase and the join: nothing else, no number, between the two values
            k = bi + 1
            if b.cue is not None and b.cue_pos is not None and b.cue_pos > b.tok.start:
                k += len(b.cue)
            if k >= ti or toks[k].text != prep:
                break
            between = toks[k + 1:ti - 1]
            if between and between[-1].text == "," and toks[ti - 1].kind == "word":
                between = between[:-1]  # "lote 8 en la hoja, y 4 en el ticket": the comma before the join's word
            if len(between) > 6 or any(t.kind in ("num", "name") or t.text in _STOP for t in between):
                break
            _second_value(tok, b, out, lang)
            break


# "context 1024 in Ana's doc but 4096 in the PR", "2 epochs per my advisor, 4 per the README", "contexto 1024 según el
# doc de Marta y 2048 según el PR": two values of one setting, each credited to a source (a document, a person), and
# no correction between them. The second is that setting's other value (the user has not chosen: a question back,
# ``request._Assembler._two_values``), never a stray number of its own nor a pick of the first.
_CREDIT_WORDS = {"per", "segun", "according", "in", "en"}
_SOURCE_JOINS = {"but", "and", "y", "pero", "while", "whereas", "mientras", "vs", "versus", ",", ";", "-", "whilst"}


def _credited(toks: list[Tok], j: int, cue_words: set[str]) -> bool:
    """A source starts at ``toks[j]`` (after at most one word naming the setting: "1 épocas según")."""
    if j < len(toks) and toks[j].kind == "word" and toks[j].text in cue_words:
        j += 1
    return j < len(toks) and toks[j].kind == "word" and toks[j].text in _CREDIT_WORDS \
        and (toks[j].text != "according" or j + 1 < len(toks) and toks[j + 1].text == "to")


def _attributed(toks: list[Tok], out: Slots, lang: str) -> None:
    if not out.stray:
        return
    index = {t.start: i for i, t in enumerate(toks)}
    for tok in list(out.stray):
        ti = index[tok.start]
        before = [b for b in out.bindings if b.tok.start < tok.start and ti - index[b.tok.start] <= 12]
        if not before:
            continue
        partner = max(before, key=lambda b: b.tok.start)
        ki = index[partner.tok.start]
        cue_words = set(partner.cue or ()) | {"epochs", "epoch", "epocas", "epoca", "tokens"}
        if not (_credited(toks, ki + 1, cue_words) and _credited(toks, ti + 1, cue_words)):
            continue
        between = toks[ki + 1:ti]
        if any(t.kind == "num" and not t.article for t in between) or not any(
                t.text in _SOURCE_JOINS for t in between) or any(t.text in _CORRECTION_WORDS - {"i", "it", "that", "my"}
                                                                  for t in between):
            continue
        _second_value(tok, partner, out, lang)


# A number said to suffice, with no cue of its own, after a value of a setting: "3 épocas ... con 1 alcanza", "rank 64;
# 16 is enough", "4 GPUs, with 2 we're fine", "lote 8, con 4 basta", "seq 8192 — 4096 will do". It is the new value
# of the setting being discussed (the nearest value before it), replacing that one (only where the figure is one the
# setting can take: "seq 4096, 2 is enough" stays a number asked about).
_SUFFICE_AFTER = (("alcanza",), ("alcanzan",), ("basta",), ("bastan",), ("sobra",), ("sobran",), ("es", "suficiente"),
                  ("son", "suficientes"), ("nos", "alcanza"), ("nos", "alcanzan"), ("nos", "basta"), ("nos", "bastan"),
                  ("es", "bastante"), ("son", "bastantes"), ("va", "bien"), ("van", "bien"), ("vale",),
                  ("is", "enough"), ("are", "enough"), ("is", "plenty"), ("are", "plenty"), ("is", "sufficient"),
                  ("are", "sufficient"), ("suffices",), ("suffice",), ("will", "do"), ("would", "do"), ("should", "do"),
                  ("should", "be", "enough"), ("would", "be", "enough"), ("will", "be", "enough"), ("is", "fine"),
                  ("are", "fine"), ("we're", "fine"), ("we're", "good"), ("we", "are", "fine"), ("we", "are", "good"),
                  ("seran", "suficientes"), ("sera", "suficiente"), ("deberia", "alcanzar"),
                  ("deberian", "alcanzar"), ("deberia", "bastar"), ("deberian", "bastar"))


def _sufficient(toks: list[Tok], out: Slots, lang: str) -> None:
    if not out.stray or not out.bindings:
        return
    index = {t.start: i for i, t in enumerate(toks)}
    for tok in list(out.stray):
        ti = index.get(tok.start)
        if ti is None or tok.article or tok.unit is not None:
            continue
        after = [t.text for t in toks[ti + 1:ti + 4]]
        if not any(tuple(after[:len(f)]) == f for f in _SUFFICE_AFTER):
            continue
        before = [b for b in out.bindings if b.tok.start < tok.start]
        if not before:
            continue
        partner = max(before, key=lambda b: b.tok.start)
        pi = index.get(partner.tok.start)
        if pi is None or ti - pi > 16 or any(t.kind == "num" and not t.article for t in toks[pi + 1:ti]):
            continue
        kind = partner.slot.removesuffix("_weak")
        if kind == "params":
            continue  # (a model's size in its name, "qwen3-14b ... con 1 alcanza", is no setting a bare 1 replaces)
        value = _value_ok(tok, kind, lang)
        if value is None or _plausible(kind, value) < 0:
            continue
        out.stray.remove(tok)
        out.bindings.remove(partner)
        out.bindings.append(Binding(partner.slot, tok, value, tok.start, partner.cue, partner.cue_pos))


def _counts_or_counts(toks: list[Tok], out: Slots, lang: str) -> None:
    """A count said in words or with an article, joined by "or" to a GPU count: "one or two H100s", "una o dos 4090",
    "on a 4090 or two", "en una H100 o dos". The user has not chosen: both are claimed, and two values for the GPU
    count are a question back, never the larger one alone. ("a" counts one only here, beside the other count.)"""
    bound = {id(b.tok) for b in out.bindings}
    for b in [b for b in out.bindings if b.slot == "gpus"]:
        j = next((k for k, t in enumerate(toks) if t is b.tok), None)
        if j is None or j < 2 or not (toks[j - 1].kind == "word" and toks[j - 1].text in _OR):
            continue
        first = toks[j - 2]
        if first.kind == "num" and id(first) not in bound and (first.article or first.spoken):
            value = 1.0 if first.article else value_of(first, "count", lang)
            out.bindings.append(Binding("gpus", first, value, first.start, b.cue, b.cue_pos))
            bound.add(id(first))
    for j in range(2, len(toks) - 1):  # "a §G0§ or two": the article before the card, the count after "or"
        card, join, second, first = toks[j - 1], toks[j], toks[j + 1], toks[j - 2]
        if not (card.kind == "name" and card.text.startswith("§G") and join.kind == "word" and join.text in _OR
                and second.kind == "num" and second.spoken and not second.article and id(second) not in bound
                and first.kind == "num" and (first.article or first.spoken) and id(first) not in bound):
            continue
        for tok in (first, second):
            value = 1.0 if tok.article else value_of(tok, "count", lang)
            out.bindings.append(Binding("gpus", tok, value, tok.start, None))
            bound.add(id(tok))


# A second value after a hedge or a correction, with no cue of its own: "4 GPUs, maybe 8", "rank 16, quizás 32", "seq
# 2048, ah no, 4096", "lote 4... bueno no, 8", "seq 2048 -> 4096". It is the value before's field: a hedge leaves two
# values (a question back), a correction takes the later one (request._Assembler._two_values reads the correction), an
# arrow replaces the value before.
_HEDGES = {"maybe", "perhaps", "possibly", "probably", "quizas", "quiza", "tal", "vez", "lo", "mejor", "even", "incluso",
           "posiblemente", "probablemente", "or", "o", "u",
           # a fallback said with it: "seq 4096, y si no cabe 2048", "8 GPUs, or 16 if needed", "(or 8192 if it fits)"
           "if", "si", "not", "no", "else", "otherwise", "y", "and", "then", "entonces", "cabe", "fits", "fit", "doesn't",
           "doesnt", "needed", "necesario", "hace", "falta", "de", "contrario"}
_HEDGE_HEADS = {"maybe", "perhaps", "possibly", "probably", "quizas", "quiza", "vez", "mejor", "even", "incluso",
                "posiblemente", "probablemente", "or", "o", "u", "if", "si", "else", "otherwise", "needed", "necesario"}
_CORRECTION_WORDS = {"no", "nope", "sorry", "actually", "mean", "meant", "i", "wait", "perdon", "perdona", "digo", "sea",
                     "ah", "bueno", "espera", "rather", "oops", "correction", "make", "it", "that", "quise", "decir",
                     "queria", "mejor", "my", "bad", "scratch", "update", "edit", "typo", "errata", "oh", "uh", "hmm", "um",
                     # a value for this run after the last one's: "last time 2k seq, this time 4096", "esta vez 4096"
                     "this", "time", "esta", "que", "sean", "edito", "upd", "nvm", "fix",
                     # the note in the past participle ("seq 1024 (corrected: 4096)", "lote 4 (corregido: 8)")
                     "corrected", "revised", "amended", "corregido", "corregida", "revisado", "revisada"}


# After a value withdrawn, the verb that puts the new one in its place ("forget the 16, use 32", "scratch the 4096, go
# with 8192", "olvida el 4096, usa 2048", "quita el 8, pon 16"): only there, where the withdrawal says what it replaces.
_USE_INSTEAD = {"use", "take", "go", "with", "put", "set", "usa", "usad", "pon", "poned", "toma", "mete", "deja", "dejalo",
                "en", "a", "instead", "mejor"}


def _hedged(toks: list[Tok], ti: int, tok: Tok, bound: dict, out: Slots, lang: str) -> None:
    words: list[str] = []
    arrow = False
    j = ti - 1
    while j >= 0 and ti - j <= 7:
        t = toks[j]
        if t.kind == "num" and not t.article:
            break
        if t.kind == "name" and t.text.startswith("§G"):
            j -= 1  # the card a count counts: "on 2 H100s, sorry I meant 4"
            continue
        if t.kind == "word" or t.kind == "num" and t.article:
            words.append(t.text)
        elif t.kind == "punct" and t.text == ">" and j and toks[j - 1].text in ("-", "=") and t.gap == "":
            arrow = True
            j -= 1
        elif not (t.kind == "punct" and t.text in (",", ".", ":", ";", "-", "(", ")", "[", "]", "\n")):  # ("[edit: 8]")
            # (a line break is a pause as a comma is: a quoted line and the correction under it, "> 8 GPUs\nmake that
            # 16", "> lote 8\nque sea 4")
            return
        j -= 1
    partner = bound.get(toks[j].start) if j >= 0 else None
    withdrawn = None
    if partner is None:
        withdrawn = _withdrawn(toks, j, out, lang) if j >= 0 else None
        if withdrawn is None:
            return
        partner = withdrawn
    said = [w for w in words if w not in _CUE_INDEX]  # "4 GPUs, maybe 8": the value's own cue may stand between
    hedge = bool(said) and all(w in _HEDGES for w in said) and any(w in _HEDGE_HEADS for w in said)
    correction = bool(said) and all(w in _CORRECTION_WORDS or w in _HEDGES or withdrawn is not None and w in _USE_INSTEAD
                                    for w in said) and not hedge
    if not (hedge or correction or arrow and not words):
        return
    value = _value_ok(tok, partner.slot.removesuffix("_weak"), lang)
    if value is None or _plausible(partner.slot.removesuffix("_weak"), value) < 0:
        return  # "seq 4096 and 2": no length of 2; the number stays asked about
    out.stray.remove(tok)
    if withdrawn is not None:  # "scratch the 4096, make it 6144": the repeated value names the one withdrawn
        out.stray.remove(toks[j])
    if arrow or withdrawn is not None:
        out.bindings.remove(partner)
    out.bindings.append(Binding(partner.slot, tok, value, tok.start, partner.cue, partner.cue_pos))


# A value withdrawn by repeating it: "scratch the 4096, make it 6144", "forget the 16, use 32", "olvida el 6144, que
# sea 2048", "descarta los 4096, mejor 8192". The verb and an optional article stand right before a number that is
# not bound to a slot but repeats the value of one binding (the same figure read for that binding's slot: "ctx 1K
# ... scratch the 1024"); that binding is the one withdrawn, and the value after the correction replaces it.
_WITHDRAW = {"scratch", "scrap", "forget", "ignore", "drop", "ditch", "disregard", "olvida", "olvidad", "olvidate",
             "ignora", "ignorad", "descarta", "descartad", "quita", "quitad", "borra", "borrad", "tacha", "tachad"}
_WITHDRAW_ARTICLES = {"the", "that", "this", "el", "la", "lo", "los", "las", "ese", "esa", "eso", "del", "de"}


def _withdrawn(toks: list[Tok], j: int, out: Slots, lang: str) -> Binding | None:
    ref = toks[j]
    if ref.kind != "num" or ref not in out.stray:
        return None
    k = j - 1
    if k >= 0 and toks[k].kind == "word" and toks[k].text in _WITHDRAW_ARTICLES:
        k -= 1
    if not (k >= 0 and toks[k].kind == "word" and toks[k].text in _WITHDRAW):
        return None
    matches = [b for b in out.bindings if b.pos < ref.start
               and (_value_ok(ref, b.slot.removesuffix("_weak"), lang) == b.value or _same_length(ref, b, lang))]
    return matches[-1] if len({b.slot for b in matches}) == 1 else None  # none, or two fields with that figure: no pick


def _withdrawn_repeats(toks: list[Tok], out: Slots, lang: str) -> None:
    """A value withdrawn by repeating it, its replacement read with a cue of its own ("8K — forget the 8192, go with
    2048", "olvida el 4096, con 2048"): the repeated figure names the value withdrawn, no number of its own."""
    strays = {id(t) for t in out.stray}
    for j, tok in enumerate(toks):
        if id(tok) not in strays or j == 0 or toks[j - 1].text not in _WITHDRAW and toks[j - 1].text not in _WITHDRAW_ARTICLES:
            continue  # (the verb, or its article, stands right before the repeated figure)
        withdrawn = _withdrawn(toks, j, out, lang)
        if withdrawn is None or not any(b.slot == withdrawn.slot and b.pos > tok.start for b in out.bindings):
            continue
        out.stray.remove(tok)
        out.bindings.remove(withdrawn)


# The correction's own repeat of the old value ("scratch that, context is 4096 (not 32768)", "-- edit: 4096 tokens, I
# typed 5120 by mistake", "olvida eso, el contexto es 5120 (no 32768)", "-- corrijo: 12288 tokens, puse 5120 por
# error"): the figure after the negation or the slip's verb is the value said before and now replaced, no number of
# its own (the replacement itself is read by its cue, and the correction settles the two values).
_SLIP_BEFORE = {"not", "no", "typed", "wrote", "put", "puse", "escribi", "tipee", "meant", "dije", "said"}
_SLIP_AFTER = (("by", "mistake"), ("por", "error"), ("por", "equivocacion"), ("was", "a", "typo"), ("is", "a", "typo"),
               ("was", "wrong"), ("es", "un", "error"), ("era", "un", "error"), ("by", "accident"))


def _repeated_withdrawn(toks: list[Tok], out: Slots, lang: str) -> None:
    if not out.stray:
        return
    index = {t.start: i for i, t in enumerate(toks)}
    for tok in list(out.stray):
        j = index[tok.start]
        words = tuple(t.text for t in toks[j + 1:j + 4])
        # ("not"/"no" only in the aside's parenthesis, "(not 32768)": "3072, no 8192" is read by the negation rules)
        slip = j and toks[j - 1].text in _SLIP_BEFORE and (toks[j - 1].text not in ("not", "no") or j > 1
                                                           and toks[j - 2].text == "(") \
            or any(words[:len(a)] == a for a in _SLIP_AFTER)
        if not slip:
            continue
        for b in out.bindings:
            kin = {b.slot, "tokens"} if b.slot == "seq" else {b.slot}  # ("8192 tokens" replaces a length)
            if b.pos >= tok.start or not any(o.slot in kin and o.value != b.value and b.pos < o.pos < tok.start
                                               for o in out.bindings):
                continue
            try:
                same = value_of(tok, b.slot if b.slot in ("seq", "params") else "count", lang) == b.value
            except (ValueError, OverflowError):
                same = False
            if same:
                out.stray.remove(tok)
                break


def _same_length(ref: Tok, b: Binding, lang: str) -> bool:
    """The repeated figure and a count of tokens read before it are one length when both are read as lengths (k =
    1024): "clipped to 8K tok — scratch the 8192" repeats the 8K (its "tok" read as tokens first, 8,000 as a count)."""
    if b.slot not in ("tokens", "seq") or b.tok.scale != "k" or ref.scale is not None:
        return False
    try:
        return value_of(b.tok, "seq", lang) == value_of(ref, "seq", lang)
    except (ValueError, OverflowError):
        return False


# A value the same sentence withdraws in favour of another:
# - "2048 not 4096", "8192 instead of 4096", "2048, no 4096", "4096 en vez de 2048", "8k rather than 4k": the one
#   after the negation is the value the user does not mean (read and left alone);
# - "not 4096 but 8192", "no 2048 sino 4096": the one after "not" is withdrawn;
# - a change of one value, "switch from seq 2048 to 8192", "si pasamos de secuencia 2048 a 8192", "bump the rank from
#   8 to 16", "subir el lote de 4 a 8": the value after "to"/"a" replaces the one after "from"/"de" (a verb of change
#   must stand before it: without one, "de 4 a 8" may be a range, and stays two values, a question back).
_NEGATION_BEFORE = (("not",), ("instead", "of"), ("rather", "than"), ("en", "vez", "de"), ("en", "lugar", "de"),
                    ("y", "no"), ("and", "not"), ("no",))
_CHANGE_VERBS = {"switch", "switching", "go", "going", "move", "moving", "change", "changing", "increase", "increasing",
                 "bump", "bumping", "raise", "raising", "drop", "dropping", "reduce", "reducing", "cut", "cutting",
                 "grow", "extend", "shrink", "lower", "upgrade", "jump", "pasar", "pasamos", "pasa", "paso", "pasando",
                 "cambiar", "cambiamos", "cambia", "cambio", "subir", "subimos", "sube", "bajar", "bajamos", "baja",
                 "aumentar", "aumentamos", "aumenta", "reducir", "reducimos", "reduce", "ampliar", "ampliamos", "ir",
                 "vamos", "extender", "alargar", "recortar"}
_FROM = {"from", "de", "desde", "del"}
_TO = {"to", "a", "hasta", "al"}


def _kind(b: Binding) -> str:
    return b.slot.removesuffix("_weak")


def _replaced(toks: list[Tok], out: Slots, lang: str) -> None:
    if len([t for t in toks if t.kind == "num"]) < 2:
        return
    index = {t.start: i for i, t in enumerate(toks)}
    bound = {index[b.tok.start]: b for b in out.bindings}
    stray = {index[t.start]: t for t in out.stray}
    drop: set[int] = set()  # token indices of withdrawn numbers
    take: list[tuple[int, Binding]] = []  # (token index, the binding whose slot it takes)

    def wordlike(t: Tok) -> bool:
        return t.kind == "word" or t.kind == "num" and t.article  # "de 2048 a 8192": the preposition "a", no count

    def words(i: int, n: int, step: int) -> tuple[str, ...]:
        got = []
        j = i
        while len(got) < n and 0 <= j < len(toks):
            if wordlike(toks[j]):
                got.append(toks[j].text)
            elif not (toks[j].kind == "punct" and toks[j].text == ","):
                break
            j += step
        return tuple(got) if step > 0 else tuple(reversed(got))

    def next_num(i: int, limit: int = 6) -> int | None:
        for j in range(i + 1, min(len(toks), i + 1 + limit)):
            if toks[j].kind == "num" and not toks[j].article:
                return j
            # (a line wrapped after a comma, "seq is 12288,\nnot 3072", is the same sentence)
            if not (wordlike(toks[j]) or toks[j].kind == "punct" and (toks[j].text in (",", ":", "=") or toks[j].text == "\n"
                                                                      and toks[j - 1].text == ",")):
                return None
        return None

    for ai, a in bound.items():
        b_i = next_num(ai)
        if b_i is None:
            continue
        between = tuple(t.text for t in toks[ai + 1:b_i] if wordlike(t))
        b_bound = bound.get(b_i)
        same = b_i in stray or b_bound is not None and _kind(b_bound) == _kind(a)
        if not same:
            continue
        negation = next((n for n in _NEGATION_BEFORE if between[-len(n):] == n), None)
        if negation is not None and toks[b_i - 1].kind == "punct" and toks[b_i - 1].text in (",", ":", ";", "!", ".") \
                and toks[b_i - 2].kind == "word" and toks[b_i - 2].text == negation[-1]:
            negation = None  # "3 épocas, no, 2 épocas", "rank 8... no: 16": "no" and a pause is a correction
        if negation is not None and all(w in _CUE_INDEX or w in ("of", "de", "del") for w in between[:-len(negation)]):
            drop.add(b_i)  # "2048 not 4096", "16384 tokens of context rather than 4096": the later is withdrawn
            continue
        before = words(ai - 1, 3, -1)  # the words before A: "not 4096 but 8192", "from seq 2048 to 8192"
        cue_free = [w for w in before if w not in _CUE_INDEX]
        plain = tuple(w for w in between if w not in _CUE_INDEX)  # "not 4 GPUs but 8": the value's cue between
        if plain in (("but",), ("sino",), ("pero",)) and cue_free[-1:] in (["not"], ["no"]):
            drop.add(ai)  # "not seq 4096 but 8192"
            take.append((b_i, a))
            continue
        if between and between[-1] in _TO and len(between) <= 2:
            head = [t.text for t in toks[max(0, ai - 8):ai] if wordlike(t)]
            k = max((i for i, w in enumerate(head) if w in _FROM), default=None)
            if k is not None and all(w in _CUE_INDEX or w in _DETERMINERS or w in _FROM for w in head[k:]):
                if any(w in _CHANGE_VERBS for w in head[:k]):
                    drop.add(ai)  # "switch from seq 2048 to 8192": the first is the old value
                take.append((b_i, a))  # without a verb of change ("rank de 8 a 16"): two values, a question back
    for si in stray:  # "a 8 bits en vez de 4", "8-bit instead of 4": a number only withdrawn, next to a value a rule read
        negation = next((n for n in _NEGATION_BEFORE if len(n) > 1 and words(si - 1, len(n), -1) == n), None)
        before = si - len(negation) - 1 if negation else -1
        if negation and si not in drop and not (before >= 0 and toks[before].kind == "num" and not toks[before].article):
            drop.add(si)  # (after a number of its own, "4 instead of 2", the pair is the thread's to settle: request)
    if not drop and not take:
        return
    taken = {i for i, _ in take}
    out.bindings = [b for b in out.bindings if index[b.tok.start] not in drop and index[b.tok.start] not in taken]
    out.gpu_counts = [(t, g) for t, g in out.gpu_counts if index[t.start] not in drop]
    out.stray = [t for t in out.stray if index[t.start] not in drop and index[t.start] not in taken]
    for i, a in take:
        value = _value_ok(toks[i], _kind(a), lang)
        if value is not None:
            out.bindings.append(Binding(a.slot, toks[i], value, toks[i].start, a.cue, a.cue_pos))


# A slot word followed by a value nobody can read ("seq len: max", "batch: tbd", "rank ??"): the
# parser asks about that field instead of assuming its default.
UNREADABLE_FIELDS = {"seq": "seq_len", "batch": "micro_batch", "rank": "lora_rank", "epochs": "epochs",
                     "dataset": "dataset_tokens"}
# Spanish adjectives agree with their noun ("secuencia máxima", "lotes máximos"): every gender and number.
VAGUE = {"max", "maximum", "tbd", "unknown", "auto", "maximo", "maxima", "maximos", "maximas", "larga", "largo",
         "largas", "largos", "long", "longer", "huge", "big", "full", "whatever", "any", "lo", "el"}
# How much, said for a dataset after its key: "dataset: huge", "datos: muchísimos" (a word after "dataset:" is
# otherwise the data's name: "dataset: alpaca_en_demo").
_QUANTITY_WORDS = {"huge", "big", "massive", "large", "small", "tiny", "enormous", "lots", "tons", "plenty", "many",
                   "several", "few", "some", "enorme", "enormes", "muchos", "muchas", "muchisimos", "muchisimas",
                   "varios", "varias", "pocos", "pocas", "bastantes", "grande", "grandes", "pequeno", "pequenos",
                   "tbd", "unknown", "whatever", "varies"}
_STOP = {",", ";", "\n", "|", ")", "(", ".", "#"}
QUANTITY_WORDS = frozenset(_QUANTITY_WORDS)  # (read by rules._names_a_setting)


# "for context: ...", "para dar contexto: ...", "some background/context": the word as a common noun
# introducing prose, not the setting.
_IDIOM_BEFORE = {"for", "some", "more", "as", "give", "dar", "para", "como", "poco", "algo", "mas"}
# Cue words that are also common nouns opening a heading of prose ("Context: we are a support team ..."): after
# their colon only a vague word ("context: max", "contexto: lo que quepa") is a value said and unreadable.
_COMMON_NOUN_CUES = {"context", "contexto", "background"}
# A value is a few words before a stop ("max", "as long as possible", "lo que quepa"); more is a sentence.
MAX_VALUE_WORDS = 4
# A value said to be undecided, in a longer clause after the key ("rango: mi directora aún no lo decide", "rank: still
# waiting on the advisor, not decided", "épocas: pendiente de confirmar con Marta"): up to twice as many words.
_UNDECIDED = frozenset({"decided", "decide", "deciden", "decidido", "decidida", "undecided", "pending", "pendiente",
                        "tbd", "unknown", "desconocido", "confirmed", "confirmar", "confirmado", "definir", "definido",
                        "sure", "idea", "sabe", "sabemos", "know", "knows", "chosen", "elegido", "settled"})
# Words a vague value starts with ("as long as possible", "max that fits", "el máximo posible", "lo que quepa").
_VAGUE_HEADS = {"as", "max", "maximum", "maximo", "maxima", "whatever", "lo", "el", "la", "largest", "biggest", "tbd",
                # the article in every gender and number, as a Spanish free relative agrees with its noun ("épocas: las
                # que diga la guía", "lotes: los que quepan", like "lo que quepa")
                "las", "los",
                # a value by reference to one we cannot see ("context: same as prod", "rank: same as the last run",
                # "contexto: igual que en prod"): said, and asked for
                "same", "igual",
                "auto", "not", "aun", "todavia", "dunno", "unknown", "ni", "no", "por",
                # "batch: it depends on the GPU", "lote: depende de la GPU", "seq: depending on the data"
                "it", "depends", "depending", "depende", "dependiendo", "segun", "tan", "whichever", "cualquiera",
                # a stopping rule for a value: "epochs: until it converges", "épocas: hasta que converja"
                "until", "till", "hasta"}
# A switch's state, the answer to an on/off setting's key ("empaquetado de secuencias: sí")
_ON_OFF = {"yes", "no", "si", "on", "off", "true", "false", "enabled", "disabled", "activado", "activada",
           "desactivado", "desactivada"}
# "batch as big as fits", "seq as long as possible", "lote tan grande como quepa": a comparison standing for the value
_AS_AS = {("as", "as"), ("tan", "como")}
VAGUE_HEADS = frozenset(_VAGUE_HEADS)  # (read by rules._names_a_setting)
# "full-rank", "low-rank", "high-rank": the word as an adjective's head (the update's rank), no LoRA rank.
_RANK_ADJECTIVES = {"full", "low", "high", "lower", "higher", "reduced"}
_POLITE = {"thanks", "thank", "thx", "ty", "pls", "please", "gracias", "muchas", "porfa", "cheers"}


# Words before a slot word that make it a noun in prose ("the rank matters", "our context grows"), where the
# word after it is no value.
_DETERMINERS = {"the", "this", "that", "our", "my", "your", "its", "el", "la", "los", "las", "su", "mi", "nuestro",
                "nuestra", "este", "esta", "a", "an", "un", "una"}


def _unreadable_value(toks: list[Tok], last: int, first_cue: int | None = None, strong: bool = False,
                      slot: str | None = None) -> str | None:
    j = last + 1
    if j >= len(toks):
        return None
    first = toks[j]
    if first_cue is not None and first_cue > 0 and toks[first_cue - 1].kind == "word" \
            and toks[first_cue - 1].text in _IDIOM_BEFORE:
        return None
    if first_cue is not None and toks[first_cue].text == "rank":
        before = first_cue - 1
        if before > 0 and toks[before].kind == "punct" and toks[before].text == "-":
            before -= 1
        if before >= 0 and toks[before].kind == "word" and toks[before].text in _RANK_ADJECTIVES:
            return None  # "full-rank training", "low rank adaptation": a compound adjective, no rank of the adapters
    if slot == "dataset":
        # "dataset: alpaca_en_demo" names the data, "datos largo de contexto" is prose: only a word of quantity after
        # the key ("dataset: huge") is a size said vaguely
        if first.kind == "punct" and first.text in (":", "=") and j + 1 < len(toks) and toks[j + 1].kind == "word" \
                and toks[j + 1].text in _QUANTITY_WORDS:
            return toks[j + 1].text
        return None
    if first.kind == "punct" and first.text in (":", "="):
        k = j + 1
        if k + 1 < len(toks) and toks[k].text == "\n" and toks[k + 1].kind == "word" and toks[k + 1].text in _VAGUE_HEADS \
                and toks[k + 1].text not in ("el", "la", "las", "los", "lo", "as", "max"):
            k += 1  # "context:\nwhatever ana used": a line wrapped after the key's colon, the value on the next line
        typed: list[str] = []
        shown: list[str] = []  # as typed, with the spaces between
        while k < len(toks) and not (toks[k].kind == "punct" and toks[k].text in _STOP):
            tok = toks[k]
            if tok.kind in ("num", "name") and not tok.spoken or tok.kind == "blank":
                return None  # a number, a name, or words another rule read (a method, a GPU): not a vague value
            if tok.kind == "word" and slot is not None and (typed[0] if typed else tok.text) not in _VAGUE_HEADS \
                    and any(len(c.words) == 1 and c.slot not in (slot, "ignore") for c in _CUE_INDEX.get(tok.text, ())):
                return None  # "Contexto: dos tarjetas, ...", "context: just one epoch": another setting, said after a heading
            if typed and (tok.kind == "word" and tok.text in _POLITE or tok.kind == "punct" and tok.text in "?!"
                          and typed[-1] not in "?!"):
                break  # "lote: lo que quepa ¡gracias!", "context: ??? thanks": the value ends there
            if len(typed) == MAX_VALUE_WORDS and (typed[0] in _VAGUE_HEADS or _superlative(typed)):
                break  # "as big as possible by tomorrow": the value is what it starts as
            if len(typed) >= 2 * MAX_VALUE_WORDS:
                return None
            typed.append(tok.text)
            shown.append((tok.gap if len(shown) else "") + tok.text)
            k += 1
        if len(typed) > MAX_VALUE_WORDS and _UNDECIDED.isdisjoint(typed):
            return None  # a longer clause after the key is prose, unless it says the value is not decided yet
        if typed and first_cue is not None and first_cue == last and toks[first_cue].text in _COMMON_NOUN_CUES \
                and typed[0].isalpha() and typed[0] not in VAGUE and typed[0] not in _VAGUE_HEADS and not _superlative(typed) \
                and typed[0] not in _QUANTITY_WORDS:  # ("context: ???" is a value nobody can read: asked)
            return None  # "context: support-bot v3. we want ...", "contexto: bot de soporte": the common noun, prose
        if len(typed) == 1 and typed[0] in _ON_OFF:
            return None  # "empaquetado de secuencias: sí": an on/off setting's answer, no value of this one
        return "".join(shown) if typed else None
    if first.kind == "punct" and first.text == "?" and j + 1 < len(toks) and toks[j + 1].text == "?":
        return "??"
    if first.kind == "word" and j + 2 < len(toks) and toks[j + 1].kind == "word" and toks[j + 2].kind == "word" \
            and (first.text, toks[j + 2].text) in _AS_AS:
        return " ".join(t.text for t in toks[j:j + 4] if t.kind == "word")
    if first.kind == "word" and first.text in VAGUE:
        for k in range(j + 1, min(j + 3, len(toks))):
            if toks[k].kind == "num" and not toks[k].spoken:
                return None
        return first.text
    # "seq banana", "rank lots": a word that names the slot outright, then one word standing alone before the
    # clause ends. The user said a value for that setting; it cannot be read, so it is asked about, never dropped.
    if strong and first.kind == "word" and first.text not in _POLITE and (first_cue is None or first_cue == 0 or toks[first_cue - 1].text not in _DETERMINERS) \
            and (j + 1 == len(toks) or toks[j + 1].kind == "punct" and (toks[j + 1].text in _STOP or toks[j + 1].text in "?!")):
        return first.text
    return None


# A superlative after an article stands for the value ("batch: the biggest that doesn't crash", "seq: the longest we
# can afford", "lote: el más grande que aguante"): said, and unreadable; "context: the support bot" is prose.
_SUPERLATIVES = {"biggest", "largest", "longest", "highest", "most", "max", "maximum", "smallest", "lowest", "least",
                 "fewest", "shortest", "mas", "menor", "mayor", "maximo", "maxima", "minimo", "minima"}


def _superlative(typed: list[str]) -> bool:
    return len(typed) >= 2 and typed[0] in ("the", "el", "la", "lo", "los", "las") and typed[1] in _SUPERLATIVES


def _part_of_something(toks: list[Tok], ti: int) -> bool:
    """A number nobody bound that is still not a stray setting: part of a name we do not know
    ("gpt-4", "t5_3b": glued to a word by a hyphen), or a year ("in 2025")."""
    tok = toks[ti]
    prev = toks[ti - 1] if ti else None
    if prev is not None and prev.kind == "punct" and prev.text == "-" and tok.gap == "" and ti >= 2 \
            and toks[ti - 2].kind == "word" and prev.gap == "":
        return True
    if prev is not None and prev.kind == "punct" and prev.text == "#" and tok.gap == "":
        return True  # "PR #7105", "issue #12": an identifier
    nxt = toks[ti + 1] if ti + 1 < len(toks) else None
    if nxt is not None and nxt.kind == "punct" and nxt.text == "-" and nxt.gap == "" and ti + 2 < len(toks) \
            and toks[ti + 2].kind == "word" and toks[ti + 2].gap == "" and any(c.isdigit() for c in toks[ti + 2].text):
        return True  # "20241105-a7", "2291-rc1": an identifier glued to letters and digits ("2048-token" is a unit)
    if tok.in_url:
        return True
    if "." in tok.text and not tok.scale and not tok.unit and prev is not None and _after_model_paren(toks, ti):
        return True  # "a 1B Llama (3.2)", "el Qwen de 7B (el 2.5)": the release of the model just named
    if len(tok.text) > 1 and tok.text[0] == "0" and tok.text.isdigit():
        return True  # "01-ai", "007": a leading zero is an identifier's, no setting's
    if tok.text.count(".") >= 2:  # "0.6.1": a version
        return True
    if _in_date(toks, ti) or _hour(toks, ti) or _phone(toks, ti):
        return True
    if tok.unit == "x" and nxt is not None and nxt.kind == "num" and nxt.unit == "bytes":
        return True  # "2x 400Gb NICs", "4x 3.84TB NVMe": that many parts of that size, no GPU count
    # (2048, a power of two in the years' range, is the length people type most: asked about, never taken for a year)
    return bool(_YEAR.fullmatch(tok.text)) and tok.scale is None and tok.unit is None and tok.text != "2048"


def _date_run(toks: list[Tok], ti: int) -> list[Tok]:
    """The numbers joined to ``toks[ti]`` by "/" with nothing between ("20/05/2026", "03/15", "2048/4096")."""
    lo = ti
    while lo >= 2 and toks[lo - 1].kind == "punct" and toks[lo - 1].text == "/" and not toks[lo - 1].gap \
            and not toks[lo].gap and toks[lo - 2].kind == "num":
        lo -= 2
    hi = ti
    while hi + 2 < len(toks) and toks[hi + 1].kind == "punct" and toks[hi + 1].text == "/" and not toks[hi + 1].gap \
            and not toks[hi + 2].gap and toks[hi + 2].kind == "num":
        hi += 2
    return toks[lo:hi + 1:2]


def _in_date(toks: list[Tok], ti: int) -> bool:
    """A day and a month, and maybe a year, joined by "/" ("15/03", "03/15", "12/01/2025", "20/05/2026"): a date.
    Two parts are a date only when one is a day no month can be (13-31) or is typed with a leading zero, and the pair
    is not two powers of two ("8/16", "2048/4096" are alternatives of one setting, ``_alternatives``)."""
    run = _date_run(toks, ti)
    if len(run) not in (2, 3) or any(t.scale or t.unit or t.spoken or not t.text.isdigit() for t in run):
        return False
    day, month = int(run[0].text), int(run[1].text)
    if not (1 <= day <= 31 and 1 <= month <= 31 and min(day, month) <= 12):
        return False
    if len(run) == 3:
        return len(run[2].text) in (2, 4)
    if any(t.text[0] == "0" for t in run[:2]):
        return True
    both_pow2 = all(v & (v - 1) == 0 for v in (day, month))
    return max(day, month) > 12 and not both_pow2


# "son las 3 de la mañana", "desde las 8", "a las 11", "entre las 9 y las 11": an hour of the clock (Spanish counts
# them with "las", English glues "3am" / "9:30", read by the rules first)
_HOUR_BEFORE = {"son", "a", "desde", "hasta", "entre", "y", "sobre", "tipo", "antes", "despues", "eran", "las"}
_HOUR_AFTER = {"manana", "tarde", "noche", "madrugada"}


def _hour(toks: list[Tok], ti: int) -> bool:
    tok = toks[ti]
    if tok.scale or tok.unit or not tok.text.isdigit() or not 1 <= int(tok.text) <= 24 or ti < 1:
        return False
    if not (toks[ti - 1].kind == "word" and toks[ti - 1].text in ("las", "la")):
        return False
    before = toks[ti - 2].text if ti >= 2 and toks[ti - 2].kind == "word" else ""
    after = [t.text for t in toks[ti + 1:ti + 4] if t.kind == "word"]
    return before in _HOUR_BEFORE or len(after) >= 3 and after[:2] == ["de", "la"] and after[2] in _HOUR_AFTER


def _phone(toks: list[Tok], ti: int) -> bool:
    """A telephone number: "+" glued to a country code, then groups of digits apart by spaces or hyphens
    ("+1 415 555 0199", "+54 11 5555-0199"); "+2 GPUs" is one number, a change of a count."""
    j = ti
    while j >= 1 and toks[j - 1].kind in ("num", "punct") and (toks[j - 1].kind == "num" or toks[j - 1].text == "-") \
            and len(toks[j].gap) <= 1:
        j -= 1
    if not (j >= 1 and toks[j - 1].kind == "punct" and toks[j - 1].text == "+" and toks[j].kind == "num" and not toks[j].gap):
        return False
    k = j
    while k + 1 < len(toks) and toks[k + 1].kind in ("num", "punct") and (toks[k + 1].kind == "num" or toks[k + 1].text == "-") \
            and len(toks[k + 1].gap) <= 1:
        k += 1
    return sum(t.kind == "num" for t in toks[j:k + 1]) >= 3 and ti <= k


def _after_model_paren(toks: list[Tok], ti: int) -> bool:
    """The number opens a parenthesis right after a model's name, an article or "v" between ("§M0§ (3.2)",
    "§M0§ (el 2.5)", "§M0§ (v0.3)")."""
    j = ti - 1
    if j >= 0 and toks[j].kind == "word" and toks[j].text in ("el", "la", "the", "v", "version", "version"):
        j -= 1
    return j >= 1 and toks[j].kind == "punct" and toks[j].text == "(" and toks[j - 1].kind == "name" \
        and toks[j - 1].text.startswith(("§M", "§F"))


def _pow2(tok: Tok) -> bool:
    if tok.scale or tok.unit or tok.spoken or not _DIGITS.fullmatch(tok.text):
        return False
    v = int(tok.text)
    return v >= 256 and v & (v - 1) == 0


def _alone(tok: Tok, lang: str) -> tuple[str, float] | None:
    """What a number with no cue is by its unit alone: "13b" a size, "8k" a length; "4096" nothing."""
    if tok.spoken or tok.unit:
        return None
    if tok.scale in ("b", "t"):
        return "params", 4.0
    if tok.scale == "m":
        return "params_weak", 1.0
    if tok.scale == "k":
        return "seq", 2.0
    if bare_length(tok):
        # a bare power of two from 1024 to 128k after the model ("lora llama-2-13b 4096 ddp", "completo tinyllama 2048
        # en una 4090", "qlora mistral nemo 16.384") is the context length people type: no batch, rank or GPU count is
        # that large. Weakly, and only when no length is said otherwise (``sizes.read_slots``: else it is asked about).
        return "seq_weak", 1.0
    return None  # a bare integer ("full qwen3 0.6b 512", "llama 3 8b 64", "4k, 3000") says nothing of what it is: asked about


def bare_length(tok: Tok) -> bool:
    """A number typed as a power of two from 1024 to 131072, digits only or grouped by thousands ("4096", "16.384",
    "32,768"), with no unit or scale."""
    if tok.scale or tok.unit or tok.spoken or not _LENGTH_DIGITS.fullmatch(tok.text):
        return False
    v = int(tok.text.replace(",", "").replace(".", ""))
    return 1024 <= v <= 131072 and v & (v - 1) == 0


# Words between a count and the GPU it counts: "8 x H100", "8 of our H100s", "ocho de nuestras A100".
_COUNT_TO_GPU = {"x", "nvidia", "of", "de", "our", "the", "my", "these", "those", "nuestras", "nuestros", "las", "los",
                 "mis", "sus", "units", "unidades", "placas", "boards",
                 # the maker, the cloud or the architecture before the card's name: "4 AWS A10G", "2 Ada-gen L40S",
                 # "8 NVIDIA Hopper H100", "3 GCP L4", "4 AMD MI300X"
                 "amd", "aws", "gcp", "azure", "google", "ada", "gen", "hopper", "ampere", "blackwell", "lovelace",
                 "datacenter", "data", "center", "cloud", "rented", "alquiladas", "rentadas",
                 # the architecture said as a class or series ("8x Hopper-class H200", "2 Blackwell-series B200")
                 "class", "series", "clase", "serie", "generation", "generacion", "architecture", "arquitectura"}
# A GPU name is a cue of its own: one count binds to it ("r of 8 l40s x8": x8 is the count, 8 the rank).
GPU_CUE = 1_000_000


def _gpu_edges(toks: list[Tok], ni: int, ti: int, lang: str) -> list[_Edge]:
    """A count right before a GPU name ("8 H100", "8x H100", "ocho A100") or after it ("H100 x8")."""
    tok = toks[ti]
    out = []
    if tok.article:
        return _only_one(toks, ni, ti)
    value = _value_ok(tok, "gpus", lang)
    if value is None:
        return out
    nxt = ti + 1
    if ti and toks[ti - 1].kind == "punct" and toks[ti - 1].text == "(" and nxt < len(toks) \
            and toks[nxt].kind == "punct" and toks[nxt].text == ")":
        nxt += 1  # "(4) A100s", "(8) H100": a count in parentheses before the card, as a purchase list writes it
    while nxt < len(toks) and nxt - ti <= 4 and (toks[nxt].kind == "word" and toks[nxt].text in _COUNT_TO_GPU
                                                 or toks[nxt].kind == "punct" and toks[nxt].text in ("*", "-")):
        nxt += 1
    if nxt < len(toks) and toks[nxt].kind == "name" and toks[nxt].text.startswith("§G") \
            and not (tok.unit != "x" and bare_length(tok)):  # "full qwen3-0.6b 2048 l4": a length before the card
        gpu = int(toks[nxt].text[2:-1])
        strength = 11 if tok.unit == "x" else 10
        out.append(_Edge(ni, GPU_CUE + gpu, "gpus", strength - 0.5 * (nxt - ti - 1) + _plausible("gpus", value), gpu=gpu))
    prev = ti - 1
    after = tuple(t.text for t in toks[ti + 1:ti + 3])
    if prev >= 1 and toks[prev].kind == "punct" and toks[prev].text == "-" and toks[prev - 1].kind == "name" \
            and toks[prev - 1].text.startswith("§G") and after in (("of", "them"), ("en", "total"), ("in", "total")):
        gpu = int(toks[prev - 1].text[2:-1])  # "H200 141GB — 4 of them", "L4 24GB — 4 en total"
        out.append(_Edge(ni, GPU_CUE + gpu, "gpus", 11 + _plausible("gpus", value), gpu=gpu))
        return out
    if prev >= 0 and (toks[prev].kind == "punct" and toks[prev].text in ("*", "(") or toks[prev].kind == "word"
                      and toks[prev].text == "x"):
        prev -= 1  # "H100 * 8", "H100 x 8", "NVIDIA L40S (x2)"
    times = tok.unit == "x" or prev + 1 < ti and toks[prev + 1].text in ("x", "*")
    if times and prev >= 2 and toks[prev].kind == "punct" and toks[prev].text == ")" and toks[prev - 1].kind == "word" \
            and toks[prev - 2].kind == "punct" and toks[prev - 2].text == "(":
        prev -= 3  # "B200 (HGX) × 4", "H100 (SXM) x8": the card's form factor in parentheses, then its count
    if prev >= 0 and toks[prev].kind == "name" and toks[prev].text.startswith("§G") and times:
        gpu = int(toks[prev].text[2:-1])
        out.append(_Edge(ni, GPU_CUE + gpu, "gpus", (11 if tok.unit == "x" else 9) + _plausible("gpus", value), gpu=gpu))
    return out


# "an H200 and no more", "una H100 y ninguna más", "a 4090 and nothing else": the article counts the card after all
# (an article alone names a card and no count: "on an H100").
_NO_MORE = (("and", "no", "more"), ("and", "no", "other"), ("and", "no", "others"), ("and", "nothing", "else"),
            ("y", "ninguna", "mas"), ("y", "ninguno", "mas"), ("y", "nada", "mas"), ("y", "ninguna", "otra"),
            ("and", "that's", "it"), ("only",), ("alone",), ("sola",), ("solamente",),
            # the diminutive and the adjective after the card ("una H100 solita", "una L4 solitaria"), "on its own"
            ("solita",), ("solito",), ("solitaria",), ("solitario",), ("on", "its", "own"), ("by", "itself"),
            # the adjective of the only one and the close of a list ("una MI300X 192 GB única y ya", "un A10G único",
            # "una H100 y ya", "one L4, no more", "one A100 and nothing more")
            ("unica",), ("unico",), ("y", "ya"), ("no", "more"), ("nothing", "more"), ("and", "nothing", "more"),
            ("ni", "una", "mas"), ("ni", "uno", "mas"),
            # "una L40S y basta", "una H100, nada más", "a 4090 and that's enough": enough of the card, one ("y listo",
            # "that's it" close the whole request and count nothing: table5 labels "en una 4090 y listo" with no count)
            ("y", "basta"), ("nada", "mas"), ("and", "that's", "enough"))


_CARD_WORDS = {"pcie", "sxm", "sxm4", "sxm5", "nvl", "vram", "hbm3", "hbm3e", "hbm2e", "gddr6", "gddr6x", "memory", "memoria",
               "de", "with", "con", "ram",
               # the product line's own words after the name ("NVIDIA L4 Tensor Core", "MI300X accelerator", "H100 GPU") and
               "tensor", "core", "accelerator", "acelerador", "gpu", "card", "tarjeta",
               "ampere", "hopper", "ada", "lovelace", "blackwell"}  # its architecture ("A100 Ampere 80 GB")


def _only_one(toks: list[Tok], ni: int, ti: int) -> list[_Edge]:
    nxt = ti + 1
    while nxt < len(toks) and nxt - ti <= 4 and (toks[nxt].kind == "word" and toks[nxt].text in _COUNT_TO_GPU
                                                 or toks[nxt].kind == "punct" and toks[nxt].text == "-"):
        nxt += 1  # "una Ada-gen L40S", "an AWS A10G"
    if nxt >= len(toks) or toks[nxt].kind != "name" or not toks[nxt].text.startswith("§G"):
        return []
    j = nxt + 1
    if j < len(toks) and toks[j].kind == "punct" and toks[j].text == "(":  # "una 4090 (Ada, 24 GB) y ninguna más"
        close = next((k for k in range(j + 1, min(len(toks), j + 10)) if toks[k].text == ")"), None)
        j = close + 1 if close is not None else j
    while j < len(toks) and j - nxt <= 8 and (toks[j].kind == "punct" and toks[j].text in (")", "(", ",", "-")
                                               or toks[j].kind == "word" and toks[j].text in _CARD_WORDS
                                               or toks[j].kind == "num" and toks[j].unit == "bytes"):
        j += 1  # the card's form factor and memory: "una H100 80GB PCIe y ninguna más", "una L4, 24 GB VRAM y ..."
    # (a count word after the card is read as one here: "una B200 sola" has "sola" as a spoken number)
    words = tuple(t.text for t in toks[j:j + 4] if t.kind == "word" or t.spoken)[:3]
    if j >= len(toks) or toks[j].kind != "word" and not toks[j].spoken or not any(words[:len(p)] == p for p in _NO_MORE):
        return []
    gpu = int(toks[nxt].text[2:-1])
    return [_Edge(ni, GPU_CUE + gpu, "gpus", 10, gpu=gpu)]


def _match(n_nums: int, edges: list[_Edge]) -> dict[int, _Edge]:
    """Each number at most one edge, each cue at most one number: the most numbers bound, best
    edges first (Kuhn's augmenting paths with each number's edges tried in score order). A number
    takes a cue another number holds when that one can move to another edge of its own and the two
    scores together do not drop (against the edge the newcomer would otherwise get); with no other
    edge at all, any move that binds one more number is taken."""
    by_num: dict[int, list[_Edge]] = {}
    for e in edges:
        by_num.setdefault(e.num, []).append(e)
    for lst in by_num.values():
        lst.sort(key=lambda e: -e.score)
    cue_owner: dict[int, int] = {}
    chosen: dict[int, _Edge] = {}
    order = sorted(by_num, key=lambda n: -by_num[n][0].score)

    def attempt(n: int, seen: set[int]) -> bool:
        # best edge first: a free cue, or standing alone, or a cue whose number can move to another of
        # its own edges ("16k context ... 256 contexto": the cue goes to the number that needs it)
        edges = by_num[n]
        for i, e in enumerate(edges):
            if e.cue is None or e.cue not in cue_owner:
                chosen[n] = e
                if e.cue is not None:
                    cue_owner[e.cue] = n
                return True
            if e.cue in seen:
                continue
            seen.add(e.cue)
            holder = cue_owner[e.cue]
            fallback = next((f.score for f in edges[i + 1:] if f.cue is None or f.cue not in cue_owner), None)
            gain = None if fallback is None else e.score - fallback
            if _alternative(holder, e.cue, by_num) and attempt_move(holder, e.cue, seen, gain):
                cue_owner[e.cue] = n
                chosen[n] = e
                return True
        return False

    def attempt_move(holder: int, taken: int, seen: set[int], gain: float | None = None) -> bool:
        """Move ``holder`` off cue ``taken`` to another edge of its own, if it has one at all (and, when
        ``gain`` is given, only if the scores together do not drop: the newcomer's edge plus the holder's
        new one against the holder's old one plus the newcomer's next best)."""
        old = chosen.pop(holder)
        for e in by_num[holder]:
            if e.cue == taken:
                continue
            if gain is not None and e.score - old.score + gain < 0:
                continue
            if e.cue is None:
                chosen[holder] = e
                return True
            if e.cue in seen:
                continue
            seen.add(e.cue)
            other = cue_owner.get(e.cue)
            if other is None or attempt_move(other, e.cue, seen):
                cue_owner[e.cue] = holder
                chosen[holder] = e
                return True
        chosen[holder] = old
        return False

    for n in order:
        attempt(n, set())
    return chosen


def _alternative(holder: int, cue: int, by_num: dict[int, list[_Edge]]) -> bool:
    return any(e.cue != cue for e in by_num[holder])
