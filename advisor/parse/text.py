"""From what a person typed in Slack to the plain text the parser reads.

``clean`` removes Slack markup (mentions, channel links, fences, emoji shortcodes, bold/italic
marks) but keeps what may carry a request: the text of links (a Hugging Face URL names a model)
and the inside of code blocks (a pasted Axolotl/TRL config names every setting).

``normalize`` then folds the text to lower-case ASCII (accents removed, so "épocas" and "epocas"
read alike; the language is detected on the cleaned text before this), unifies dashes, quotes and
multiplication signs, and rewrites GPU counts glued to a name ("8xH100" -> "8 x h100") while
keeping Mixtral names ("8x7b") whole.
"""

from __future__ import annotations

import html
import re
import unicodedata

from advisor.parse.prefilter import ascii_safe, ascii_twin

# Slack's own limit for one message is 40,000 characters; a request with a pasted training config
# is well under this. Longer text is a pasted log or file: we ask for the request instead.
MAX_MESSAGE_CHARS = 8000

_SLACK_SPECIAL = re.compile(r"<[@#!][^>\s]*>")  # <@U123>, <@U1|name>, <#C1|chan>, <!here>, <!subteam^S1>
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^>|\s]*)(?:\|([^>]*))?>")
_FENCE = re.compile(r"```")
# An emoji shortcode (":rocket:", ":100:"), never a model size between two colons ("llama3.1:70b: qlora", an
# Ollama tag followed by a colon), nor the middle field of a colon-separated value glued to words on both sides
# (SLURM's "--gres=gpu:h100:8": the GPU type; ``_emoji``).
_EMOJI_CODE = re.compile(r":(?!\d+(?:\.\d+)?[bmk]:)[a-z0-9_+\-']{1,40}:(?::skin-tone-\d:)?", re.IGNORECASE)
# (The underscore's form opens with the mark itself, so the regex engine skips ahead to the next "_" instead of
# trying every position: a pasted config has one in every key. "_" is a word character: ``(?<!\w_)`` looks at the
# character before it.)
_MARKS = re.compile(r"(?<![\w*~])[*~]+|[*~]+(?![\w*~])")
# Slack's strike-through ("~seq 2048~ seq 4096", "on ~a100~ h100"): what the writer struck out is withdrawn, so it
# is dropped before anything reads it; the value after it is the one they mean. Slack's mrkdwn reads "~text~" as
# strike-through only with no space just inside either mark and no word character just outside
# (https://api.slack.com/reference/surfaces/formatting#basics), so a lone "~2k tokens" (about 2k) is no strike.
_STRIKE = re.compile(r"(?<![\w~])~(?=[^\s~])([^~\n]{0,200}?[^\s~])~(?![\w~])")
_UNDERSCORES = re.compile(r"_(?:(?<!\w_)(?=\w)|(?<=\w_)(?!\w))")
_BACKTICK = re.compile(r"`")
_SUPERSCRIPTS = str.maketrans({"⁰": "^0", "¹": "^1", "²": "^2", "³": "^3", "⁴": "^4", "⁵": "^5",
                               "⁶": "^6", "⁷": "^7", "⁸": "^8", "⁹": "^9"})
_PUNCT = str.maketrans({"×": "x", "→": "->", "⇒": "=>", "➝": "->", "⟶": "->", "–": "-", "—": "-", "‐": "-", "‑": "-", "−": "-", "“": '"',
                        "”": '"', "‘": "'", "’": "'", "´": "'", "§": " ", "\u00a0": " ",
                        "\u202f": " ", "…": "...", "€": " eur ", "£": " gbp ",
                        # a check or ballot mark after a setting is its state ("grad ckpt ✗", "checkpointing ✓")
                        "✓": " on ", "✔": " on ", "☑": " on ", "✗": " off ", "✘": " off ", "☒": " off ",
                        "❌": " off ",
                        # the Greek letter LoRA's papers and PEFT's docs write for lora_alpha ("LoRA (r 16, α 32)")
                        "α": " alpha "})
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_NON_ASCII = re.compile(r"[^\x20-\x7e\n]")  # emoji, other scripts, control characters -> a space
# A bullet, a geometric shape or an emoji standing between two items of one line ("seq 2048 🔹 3 epochs", "rank 16 •
# 4 GPUs", "ctx 8k ▪ bf16"): a separator, as a comma (a space would run the items together: "3 epochs 16384 tok").
# (Bullets opening a line stay spaces: a list's markers.)
_BETWEEN_ITEMS = re.compile(r"(?<=[^\s])[ \t]*[\u2022\u2023\u2043\u2219\u25a0-\u25ff\u2600-\u26ff\u2b00-\u2bff"
                            r"\U0001f300-\U0001faff][\ufe0f\U0001f3fb-\U0001f3ff]*(?=[ \t]*[^\s])")
_BETWEEN_HINT = re.compile(r"[\u2022\u2023\u2043\u2219\u25a0-\u25ff\u2600-\u26ff\u2b00-\u2bff\U0001f300-\U0001faff]")
_DEVICE_UUID = re.compile(r"\(uuid:[ \t]*(?:gpu|mig)-[0-9a-f-]+\)")
_SPACES = re.compile(r"[ \t\r\f\v]+")
# Digits grouped by a no-break, narrow no-break or thin space ("16 384", the SI and RAE style): one number.
# A plain space is not read so: "batch 8 1024" is two numbers.
_SPACE_GROUPED = re.compile(r"(?<![\d.,])(\d{1,3})((?:[\u00a0\u202f\u2009]\d{3})+)(?![\d])")
# Digits grouped by "_" (Python's literal syntax, PEP 515: "32_768", "16_384"): one number. Only a number that
# starts a token and groups of exactly three, so config keys ("llama3_1_8b", "qwen2_5") are left as typed.
_UNDERSCORE_GROUPED = re.compile(r"(?<![\w.])(\d{1,3})((?:_\d{3})+)(?![\w]|\.\w)")  # a sentence's "." may follow
# A model's size said through a noun that links it to the family ("Gemma 3 in its 27B size", "Qwen3 en su versión
# de 1.7B", "Llama 3.3 (versión 70B)", "Falcon (7B version)", "the 9B variant of Gemma 2", "la variante de 32B de
# Qwen3"): the words between carry no setting, so they become the forms advisor/parse/names.py reads ("gemma 3 27b",
# "llama 3.3 (70b)", "the 9b of gemma 2", "el 32b de qwen3"). Only before a size in parameters (b, m).
_SIZE_WORD = r"(?:version|variant|variante|size|tamano|release)"
_PSIZE = r"(\d+(?:\.\d+)?\s?[bm])"
_SIZE_LINK = re.compile(
    r"\s(?:in\s+its|en\s+su)\s+(?:" + _SIZE_WORD + r"\s+(?:de\s+|of\s+)?)?" + _PSIZE + r"(?:\s+" + _SIZE_WORD + r")?\b"
    r"|\(\s*" + _SIZE_WORD + r"\s+(?:de\s+)?" + _PSIZE + r"\s*\)|\(\s*" + _PSIZE + r"\s+" + _SIZE_WORD + r"\s*\)"
    r"|\b(?:the|a)\s+" + _PSIZE + r"\s+" + _SIZE_WORD + r"\s+of\b"
    r"|\b(?:la|el)\s+" + _SIZE_WORD + r"\s+de\s+" + _PSIZE + r"\s+de\b")


# What every match of _SIZE_LINK holds: its size in parameters, a digit then "b" or "m", and no word character after it.
_SIZE_HINT = re.compile(r"\d\s?[bm](?!\w)")


def _size_link(m: re.Match[str]) -> str:
    size = next(g for g in m.groups() if g)
    if m.group(0).startswith("("):
        return f"({size})"
    if m.group(0).endswith(" of"):
        return f"the {size} of"
    if m.group(0).endswith(" de"):
        return f"el {size} de"
    return f" {size}"


# Two LoRA settings named as a pair and given as a pair ("r/alpha 32/64", "rank/alpha: 16/32", "alpha/r 64/32"): each
# name takes the number in its place (PEFT's LoraConfig(r=..., lora_alpha=...)), so the slots read "rank 32, alpha 64".
# The pair may be joined by ":" as a ratio is ("rank:alpha 128:256", "rango:alfa 4:8"): the same separator
# between the names and between the numbers.
_LORA_PAIR = re.compile(r"\b(r|rank|rango|lora[_ ]r|alpha|alfa|lora[_ ]alpha)\s*([/:])\s*(r|rank|rango|alpha|alfa|a)\s*(?:[:=]\s*|\s+)"
                        r"(\d+(?:\.\d+)?)\s*\2\s*(\d+(?:\.\d+)?)\b")


# "rank equal to 8", "rango igual a 4", "alpha set to 32": the words say "=", before a number
# (and a value held where it is set: "context window pinned at 12288", "r fixed at 16", "rango puesto en 16",
# "contexto establecido en 4096")
_EQUALS_WORDS = re.compile(r"\s+(?:is\s+)?(?:equal\s+to|equals|set\s+to|igual\s+a|fijad[oa]\s+en|(?:pinned|fixed|locked)\s+(?:at|to)"
                           r"|(?:puest[oa]|establecid[oa]|bloquead[oa])\s+en)\s+(?=\d)")


def _lora_pair(m: re.Match[str]) -> str:
    names = ["alpha" if n.startswith(("alpha", "alfa", "lora alpha", "lora_alpha")) or n == "a" else "rank"
             for n in (m.group(1), m.group(3))]
    if names[0] == names[1]:
        return m.group(0)  # "r/rank 8/16": not a pair of two settings
    lora = "lora " if m.group(1).startswith("lora ") else ""  # "lora r/alpha 16/32": the method word stays
    return f"{lora}{names[0]} {m.group(4)}, {names[1]} {m.group(5)}"


# (what follows the "x" is a name's shape, letters then digits then letters, "8xa100", "4xl40s", "2xrtx4090": a run
# id like "3xk9a2" in a link or a label is left as typed)
# "either 2048 or 4096", "o bien 2048 o bien 4096", "ya sea 2 o 4": the words that open a choice between two values,
# dropped so the values stand joined by "or"/"o" as "seq 2048 or 4096" does (two values: a question back,
# ``slots._alternatives``)
_EITHER = re.compile(r"\b(?:either|ya\s+sea|o\s+bien)\s+(?=[\d§a-z])(?=(?:\S+\s+){0,3}?(?:or|o|u)\s)")
_O_BIEN = re.compile(r"\bo\s+bien\b")
# "una época y media", "dos épocas y media", "1 and a half epochs", "one and a half passes": the count plus a half
_HALF_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "uno": 1, "una": 1, "un": 1, "dos": 2, "tres": 3, "cuatro": 4,
                "an": 1, "a": 1}
_AND_A_HALF = re.compile(r"\b(\d{1,2}|one|two|three|four|una?|uno|dos|tres|cuatro)\s+(epocas?|pasadas?|vueltas?)\s+y\s+media\b"
                         r"|\b(\d{1,2}|one|two|three|four|an?)\s+and\s+a\s+half\s+(epochs?|passes|pass)\b")


def _and_a_half(m: re.Match[str]) -> str:
    count, noun = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    whole = int(count) if count.isdigit() else _HALF_COUNTS[count]
    return f"{whole + 0.5:g} {noun if noun.endswith('s') else noun + ('es' if noun == 'pass' else 's')}"


# "r16 a32", "r=8 a=16": a LoRA rank glued to its key, then the alpha glued to "a" (the key's initial, as "r" is the
# rank's; PEFT LoraConfig(r, lora_alpha)): only right after a rank so written, where "a" can be nothing else
_RANK_ALPHA_GLUED = re.compile(r"\b(r\s?=?\s?\d{1,4})\s+a\s?=?\s?(\d{1,4})\b(?![.-]\d)")
# NVIDIA's A-series cards a rank may stand before ("r=4 A100 40 GB", "r 8 a10g"): a card, not an alpha
_A_CARDS = {"10", "30", "40", "100", "800", "2000", "4000", "4500", "5000", "6000"}


def _rank_alpha(m: re.Match[str]) -> str:
    return m.group(0) if m.group(2) in _A_CARDS else f"{m.group(1)} alpha {m.group(2)}"
_GLUED_COUNT = re.compile(r"\b(\d{1,4})\s*x\s*(?=[a-z]+\d*[a-z]*(?![a-z0-9]))")
# "4x4090" is four cards, "8x7b" / "8x22B" a Mixtral: a count unless the second number ends in b
# "A100 de 40 GB", "A100 with 40GB", "A100 (40GB)" -> "a100 40gb", the way catalog aliases write it
_GPU_MEMORY = re.compile(r"\b([a-z]{1,4}\d{2,4}[a-z]{0,2})\s*(?:\(\s*|,\s*|\s(?:de|with|con|w/)\s+)(\d{2,3})\s*gb?\b\s*\)?")
_HYPHEN_MEMORY = re.compile(r"\b(\d{1,4})-(gb|gib|g)\b")
# What every match of _NAME_TIMES_COUNT ("x" then a digit), _COUNT_TIMES_NUMBER (the same) and _GLUED_COUNT (a digit, spaces,
# "x") holds, and of _GPU_MEMORY (a digit, spaces, "g"): a text without it is left as it is by those substitutions,
# which try every position (most pasted configs have an "x" and a "g", few have either of these). Without the first
# hint none of the three matches, so none changes the text for the next.
_TIMES_HINT = re.compile(r"x\s*\d|\d\s*x")
# (written with one search per alternative where the alternatives open with a class: ``re`` skips ahead to a
# pattern's first literal or first character class, never to an alternation's that are not all literals,
# re/_compiler.py ``_get_charset_prefix``, so each search here looks only where a digit or an "x" stands)
_TIMES_X = re.compile(r"x\s*\d")
_TIMES_DIGIT = re.compile(r"\d\s*x")
_MEMORY_HINT = re.compile(r"\d\s*g")
_COUNT_TIMES_NUMBER = re.compile(r"\b(\d{1,4})\s*x\s*(\d+(?:\.\d+)?)(\s*b\b)?")
# "H100x8", "l4x4", "4090x2", "A100 40GBx4": a GPU name, then its count ("h100 x8")
# (a memory variant ends the name as "40gb", "40g" or "40gib": "A100-40Gx8")
_NAME_TIMES_COUNT = re.compile(r"\b([a-z]{1,3}\d{1,4}[a-z]{0,3}?|\d{2,3}g(?:i?b)?|(?<=\d )g(?:i?b)?|\d{4}|sxm\d?|pcie|ada)"
                               r"x(\d{1,4})\b(?!\s*b\b)")
# Spanish idioms with a number word that count nothing: "mil gracias" (thanks a lot) is not "x 1000".
# ISO dates ("deadline 2025-03-01") and clock times ("by 5pm", "a las 17h", "17:30"): no setting in them.
# (a log's clock has its seconds and their fraction, "02:12:44,512" as Python's logging prints asctime, "14:05:09.331")
# (and an ISO 8601 timestamp, the date and its time joined by "T": "2026-01-02T03:04:05.678Z", "...T03:04:05+01:00")
_DATE_TIME = re.compile(r"\b(?:19|20)\d{2}-\d{2}-\d{2}(?:t\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:z|[+-]\d{2}:?\d{2})?)?\b|(?<![\w.:])\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,6})?)?(?![\w:])|\b\d{1,2}\s?(?:am|pm)\b"
                        r"|\ba\s+las\s+\d{1,2}(?:h|:\d{2})?\b")
# What every match of _DATE_TIME contains, one per alternative: "\d-\d\d-\d" in a date (YYYY-MM-DD; a model's
# "llama-3.1-8b" has no such run), "\d:\d\d" in a clock time, a digit then "am"/"pm", "las" between spaces then a
# digit ("a las 17h"; "class" is no hint): a text with none of them has no date or time, and _DATE_TIME (which tries
# every position) is not run.
_DATE_TIME_HINT = re.compile(r"\d(?:-\d\d-\d|:\d\d|\s?[ap]m)|\slas\s+\d")
_DATE_DIGIT_HINT = re.compile(r"\d(?:-\d\d-\d|:\d\d|\s?[ap]m)")  # _DATE_TIME_HINT, one search per alternative
_CLOCK_LAS_HINT = re.compile(r"\slas\s+\d")  # (see _TIMES_X)
# A rate per device with its step said too, in either order and with either joint ("per step per GPU", "por
# paso y GPU", "per GPU per iteration", "por GPU y por paso") -> "per gpu": what one device takes in one step is
# its batch (HF TrainingArguments.per_device_train_batch_size) whether or not the step is named.
_RATE_PER = r"(?:per|por|each|every|cada|/)"
_RATE_STEP = r"(?:steps?|iterations?|iters?|pasos?|iteracion(?:es)?)"
_RATE_DEV = r"(?:gpus?|devices?|cards?|dispositivos?|tarjetas?)"
_STEP_AND_DEVICE = re.compile(
    r"\b(?P<per>" + _RATE_PER + r")\s*(?:" + _RATE_STEP + r"\s*(?:(?:and|y|&)\s+)?(?:" + _RATE_PER + r"\s*)?(?P<dev>" + _RATE_DEV + r")"
    r"|(?P<dev2>" + _RATE_DEV + r")\s*(?:(?:and|y|&)\s+)?(?:" + _RATE_PER + r"\s*)?" + _RATE_STEP + r")\b")
# A step named by what it updates ("per optimizer step", "per training step", "per gradient update", "por paso
# del optimizador", "por paso de optimización") is the step: the items one optimizer step takes (HF Trainer: one
# optimizer.step() per gradient_accumulation_steps micro-batches) are the global batch.
_QUALIFIED_STEP = re.compile(
    r"\b(?P<per>per|each|every|/)\s*(?:optimi[sz]er|optimi[sz]ation|training|gradient|weight|update)[\s_-]+(?:steps?|updates?)\b"
    r"|\b(?P<por>por|cada)\s+(?:paso|actualizacion)\s+(?:del?\s+)?(?:optimizador|optimizacion|entrenamiento|gradiente)\b")
_IDIOMS = re.compile(r"\bmil\s+(?=gracias|disculpas|perdones|besos)")
# "mil millones de tokens" with no digit before it: a thousand million, the Spanish billion (RAE: "millardo"), so the
# number the tokenizer reads is 1000 with its scale word ("7 mil millones" has its digit and is read as typed).
# With a number word before it ("dos mil millones"), that many thousand millions.
_MIL_MILLONES = re.compile(r"\b(?:(un|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez)\s+)?mil\s+millones\b")
_SPOKEN_ES = {"un": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10}


def _mil_millones(m: re.Match[str]) -> str:
    before = m.string[:m.start()].rstrip()
    if before[-1:].isdigit():
        return m.group(0)  # "7 mil millones", "1,2 mil millones": the tokenizer reads the digits with both scale words
    return f"{_SPOKEN_ES.get(m.group(1), 1) * 1000} millones"


# A number spelled out in words with hundreds, thousands or tens and units ("dos mil cuarenta y ocho", "cuatro mil
# noventa y seis", "quinientos doce", "treinta y dos", "two thousand forty-eight", "one thousand twenty four"): the
# number in digits, read as typed digits are. A single word ("dos", "four") is left to the slots' own word numbers.
_ONES_ES = {"un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
            "nueve": 9, "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15, "dieciseis": 16,
            "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiuno": 21, "veintiun": 21,
            "veintidos": 22, "veintitres": 23, "veinticuatro": 24, "veinticinco": 25, "veintiseis": 26, "veintisiete": 27,
            "veintiocho": 28, "veintinueve": 29}
_TENS = {"treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90,
         "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_HUNDREDS_ES = {"cien": 100, "ciento": 100, "doscientos": 200, "trescientos": 300, "cuatrocientos": 400, "quinientos": 500,
                "seiscientos": 600, "setecientos": 700, "ochocientos": 800, "novecientos": 900}
_ONES_EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
            "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
            "eighteen": 18, "nineteen": 19}
_SPOKEN_VALUES = {**_ONES_ES, **_ONES_EN, **_TENS, **_HUNDREDS_ES, "hundred": -100, "mil": -1000, "thousand": -1000}
_SPOKEN_WORD = r"(?:" + "|".join(sorted(_SPOKEN_VALUES, key=len, reverse=True)) + r")"
_SPOKEN_RUN = re.compile(r"\b" + _SPOKEN_WORD + r"(?:(?:\s+(?:y|and)\s+|\s+|-)" + _SPOKEN_WORD + r")+\b(?!\s+millon)")
_SPOKEN_HINT = re.compile(r"\b(?:mil|thousand|hundred|" + "|".join([*_HUNDREDS_ES, *_TENS]) + r")\b")


# A GPU's name as voice-to-text writes it: its letter, then its number in words ("four h cien", "two a one hundreds",
# "eight l forty s cards", "ocho l cuarenta s"), or a card said as two tens the way people say "4090" ("forty ninety",
# "cuarenta noventa", "thirty ninety"): written back as the name ("h100", "a100s", "l40s", "4090"). The letter form
# only after a count of the cards (a bare "a cien" / "a one hundred" is an article or "to a hundred"), the tens
# form where nothing but a card can be meant: a count before it or a card's noun after it.
_VOICE_LETTER_NUMBER = {"one hundred": "100", "a hundred": "100", "hundred": "100", "cien": "100", "two hundred": "200",
                        "doscientos": "200", "forty": "40", "cuarenta": "40", "ten": "10", "diez": "10"}
_VOICE_COUNT = r"(?:\d{1,3}|" + "|".join(sorted({*_ONES_ES, *_ONES_EN} - {"un", "uno"}, key=len, reverse=True)) + r")"
_VOICE_GPU = re.compile(r"\b(" + _VOICE_COUNT + r")\s+([ahlb])\s+(one\s+hundred|a\s+hundred|two\s+hundred|hundred|cien|doscientos"
                        r"|forty|cuarenta|ten|diez)(s?)(?:\s+(s)(?=\s|$|[,.;!?)]))?\b")
_VOICE_TENS = {"thirty": "30", "forty": "40", "fifty": "50", "treinta": "30", "cuarenta": "40", "cincuenta": "50",
               "ninety": "90", "noventa": "90", "eighty": "80", "ochenta": "80", "seventy": "70", "setenta": "70"}
_VOICE_CARD = re.compile(r"\b(?:(" + _VOICE_COUNT + r")\s+)?(thirty|forty|fifty|treinta|cuarenta|cincuenta)\s+"
                         r"(ninety|noventa|eighty|ochenta|seventy|setenta)(s?)\b(?=(\s+(?:cards?|gpus?|tarjetas?|graficas?)\b)?)")


def _voice_gpu(m: re.Match[str]) -> str:
    number = _VOICE_LETTER_NUMBER[" ".join(m.group(3).split())]
    return f"{m.group(1)} {m.group(2)}{number}{m.group(5) or ''}{m.group(4)}"


def _voice_card(m: re.Match[str]) -> str:
    if m.group(1) is None and m.group(5) is None:
        return m.group(0)  # "forty ninety" alone: two numbers, maybe no card
    return (f"{m.group(1)} " if m.group(1) else "") + _VOICE_TENS[m.group(2)] + _VOICE_TENS[m.group(3)] + m.group(4)


# A fraction of a scale said in words: "a quarter of a billion", "half a million", "three quarters of a billion",
# Spanish "medio millón", "un cuarto de millón", "un cuarto de mil millones": written as the decimal before the scale
# ("0.25 billion"), which the numbers read. (A third has no exact decimal, and is left as typed.)
_FRACTION_OF_SCALE = re.compile(r"\b(?:(?:a|one)\s+(quarter)\s+of\s+a|(half)\s+(?:of\s+)?a|(?:a|one)\s+(half)\s+of\s+a"
                                r"|(three)\s+quarters\s+of\s+a)\s+(million|billion|trillion)\b"
                                r"|\b(?:(medio)|un\s+(cuarto)\s+de|(tres)\s+cuartos\s+de)\s+(millon|mil\s+millones)\b")
_FRACTIONS = {"quarter": "0.25", "half": "0.5", "three": "0.75", "medio": "0.5", "cuarto": "0.25", "tres": "0.75"}


def _fraction_of_scale(m: re.Match[str]) -> str:
    word = next(g for g in m.groups()[:4] + m.groups()[5:8] if g)
    scale = m.group(5) or ("million" if m.group(9) == "millon" else "billion")
    return f"{_FRACTIONS[word]} {scale}"


def _spoken_number(m: re.Match[str]) -> str:
    words = re.split(r"\s+(?:y|and)\s+|\s+|-", m.group(0))
    if not any(w in _TENS or w in _HUNDREDS_ES or _SPOKEN_VALUES[w] < 0 for w in words):
        return m.group(0)  # "dos tres", "one two": no compound number
    total = current = 0
    last = None
    for w in words:
        v = _SPOKEN_VALUES[w]
        if v == -1000:
            total += max(current, 1) * 1000
            current = 0
        elif v == -100:
            current = max(current, 1) * 100
        elif last is not None and 0 < last < 10 and v < 100:
            return m.group(0)  # two units in a row ("dos tres"): a list, not one number
        else:
            current += v
        last = v
    return str(total + current)


def clean(text: str) -> str:
    """Slack markup removed; letters, accents and line breaks kept."""
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _SLACK_SPECIAL.sub(" ", text)
        text = _SLACK_LINK.sub(_link, text)
    if "`" in text:
        text = _FENCE.sub("\n", text)
        text = _BACKTICK.sub(" ", text)
    if ":" in text:
        text = _EMOJI_CODE.sub(_emoji, text)
    if "~" in text:
        text = _STRIKE.sub(" ", text)
    if "*" in text or "~" in text:
        text = _MARKS.sub(" ", text)
    if "_" in text:
        text = _UNDERSCORES.sub(" ", text)
    if "/" in text and "(" in text:
        text = _PART_COUNTER.sub(" ", text)
    if "+1" in text:
        text = _PLUS_ONE.sub(" ", text)
    if "[" in text:
        text = _PROMPT_NUMBER.sub(r"\1 ", text)
    if ")" in text or "." in text:
        text = _LIST_MARKER.sub(_list_marker, text)
    return text.strip()


# "1) lora for qwen2.5 7b\n2) seq 4096", "1. ...", "(2) ...": a list item's number opening a line (after any
# mention or quote mark) says where the item stands in the list, no setting; so does the "1)" that opens a list
# after a phrase's colon or comma ("For the record: 1) ...", "Por si acaso, 1) ..."), outside any parenthesis
# ("(lora, epochs: 1) on ..." closes one). Only one or two digits, then ")" (or "." opening a line) and a space: "4096
# tokens", "8x H100", "1.5b", "2.048" and "seq 2048 (1)" are never markers.
_LIST_MARKER = re.compile(r"(?m)(^[ \t>]*|[:,][ \t]+(?=1\)))(?:\d{1,2}[.)]|\(\d{1,2}\))(?=[ \t]+\S)")


def _list_marker(m: re.Match[str]) -> str:
    if m.group(1)[:1] in (":", ","):  # a list opened after a phrase starts at "1)"
        before = m.string[:m.start()]
        if before.count("(") > before.count(")"):
            return m.group(0)  # inside a parenthesis ("(contextos de 8k, épocas: 1) ..."): a value closing it
    return m.group(1) + " "


def _emoji(m: re.Match[str]) -> str:
    text, start, end = m.string, m.start(), m.end()
    if start and end < len(text) and (text[start - 1].isalnum() or text[start - 1] == "_") and (text[end].isalnum()):
        return m.group(0)  # "gpu:h100:8": a field between two others
    return " "


# "+1" opening a line (after any mention): the chat idiom for "I agree / me too", no count of anything.
# Only "+1": another signed number ("+2 GPUs") is a change nobody here reads, left for the slots to ask about.
# ("+1 GPU" closing its clause is an increment, read in a thread: "+1 gpu advice for ..." is still agreement)
# ("+1, on 4 H100s please": a comma or period after it is punctuation; before a digit, "+1,5" / "+1.5", a number)
_PLUS_ONE = re.compile(r"(?m)^([ \t]*)\+1(?!\d|[.,]\d)(?!\s*(?:more\s+|extra\s+)?(?:gpus?|cards?|tarjetas?|graficas?|devices?"
                       r"|epochs?|[eé]pocas?)\s*(?:[^\w\s]|$|(?:and|y|then|please|instead|por\s+favor)\b))")


# A notebook's prompt opening a line ("In [14]: spec = dict(...)", "Out[14]: {...}", IPython's and Jupyter's
# console): the cell's execution count, no setting. The line after it is read as any other.
_PROMPT_NUMBER = re.compile(r"(?im)^([ \t>]*)(?:in|out)[ \t]*\[\d+\][ \t]*:")


# A bare number in a link's label ("<https://wandb.ai/...|run 42>", "<...|PR 1234>") names what the link points
# to, no setting; a label on a Hub link ("<https://huggingface.co/...|Llama 3 8B>") is a model's name, kept whole.
_LABEL_NUMBER = re.compile(r"(?<![\w.,])\d+(?![\w.,])")


def _link(m: re.Match[str]) -> str:
    label = m.group(2) or ""
    if label and "huggingface.co" not in m.group(1) and "hf.co" not in m.group(1):
        label = _LABEL_NUMBER.sub(" ", label)
    return f" {m.group(1)} {label} "


# "(1/2) ...", "(2/3)": which part of a long message this is, no setting
_PART_COUNTER = re.compile(r"(?<![\w/])\(\s*\d{1,2}\s*/\s*\d{1,2}\s*\)")


def _as_typed(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return pattern


def normalize(text: str) -> str:
    """Lower-case ASCII with unified punctuation; one space between words, lines and their
    indentation kept. (Each substitution runs only where the characters it needs are present: a
    long pasted config is the slowest message the parser sees.)"""
    # a pasted YAML config keeps each line's indentation (what is nested under "fsdp_config:"), as
    # typed: spaces and tabs only, before anything else becomes a space
    indents = [len(line) - len(line.lstrip(" \t")) for line in text.split("\n")]
    if not text.isascii():
        if "\u00a0" in text or "\u202f" in text or "\u2009" in text:  # every grouped number has one of its spaces
            text = _SPACE_GROUPED.sub(lambda m: m.group(1) + re.sub(r"\D", "", m.group(2)), text)
        text = text.translate(_SUPERSCRIPTS).translate(_PUNCT)
        if _BETWEEN_HINT.search(text):
            text = _BETWEEN_ITEMS.sub(" , ", text)
        text = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
        text = _NON_ASCII.sub(" ", text)
    text = text.lower()
    if "uuid" in text:  # a device's UUID ("(UUID: GPU-ccbed397-20b0)", nvidia-smi -L): its hex digits are no name
        text = _DEVICE_UUID.sub("(uuid: gpu-0)", text)  # ("...-20b0" read "20b" as a size); rules._SMI_LINE reads it
    # the patterns' ASCII twins where they read the text alike (``prefilter.ascii_safe``: after the branch above
    # the text is printable ASCII; typed as ASCII it is safe unless it holds one of \x1c-\x1f), a third faster
    fast = ascii_twin if ascii_safe(text) else _as_typed
    if "_" in text:
        text = fast(_UNDERSCORE_GROUPED).sub(lambda m: m.group(1) + m.group(2).replace("_", ""), text)
    if ("version" in text or "variant" in text or "size" in text or "tamano" in text or "release" in text) \
            and fast(_SIZE_HINT).search(text):  # (a config's "batch_size" has the word, rarely a size in parameters)
        text = fast(_SIZE_LINK).sub(_size_link, text)
    if ("/" in text or ":" in text) and ("r" in text or "alpha" in text or "alfa" in text):
        text = fast(_LORA_PAIR).sub(_lora_pair, text)
    if "equal" in text or "igual" in text or "set to" in text or "fijad" in text or "ed at" in text or "ed to" in text \
            or "o en" in text or "a en" in text:
        text = fast(_EQUALS_WORDS).sub(" = ", text)
    if ("quarter" in text or "half" in text or "medio" in text or "cuarto" in text) and ("illi" in text or "illo" in text):
        text = _FRACTION_OF_SCALE.sub(_fraction_of_scale, text)
    if "mil " in text:
        text = fast(_IDIOMS).sub("muchas ", text)
        text = fast(_MIL_MILLONES).sub(_mil_millones, text)
    if _SPOKEN_HINT.search(text) or " cien" in text or "hundred" in text or " ten" in text or " diez" in text:
        if " h " in text or " a " in text or " l " in text or " b " in text:
            text = _VOICE_GPU.sub(_voice_gpu, text)
        text = _VOICE_CARD.sub(_voice_card, text)
        text = _SPOKEN_RUN.sub(_spoken_number, text)
    if (":" in text or "-" in text or "am" in text or "pm" in text or "las " in text) and (
            fast(_DATE_DIGIT_HINT).search(text) or fast(_CLOCK_LAS_HINT).search(text)):  # _DATE_TIME_HINT
        text = fast(_DATE_TIME).sub(" ", text)
    if "per " in text or "por " in text or "/" in text or "each " in text or "cada " in text:
        if "step" in text or "update" in text or "paso" in text or "actualizacion" in text:
            text = fast(_QUALIFIED_STEP).sub(lambda m: f"{m.group('per')} step" if m.group("per") else f"{m.group('por')} paso", text)
        text = fast(_STEP_AND_DEVICE).sub(lambda m: f"{m.group('per')} {m.group('dev') or m.group('dev2')}", text)
    if " a" in text and "r" in text:
        text = fast(_RANK_ALPHA_GLUED).sub(_rank_alpha, text)
    if "media" in text or "half" in text:
        text = fast(_AND_A_HALF).sub(_and_a_half, text)
    if "either" in text or "bien" in text or "ya sea" in text:
        text = fast(_EITHER).sub("", text)
        text = fast(_O_BIEN).sub("o", text)
    if "x" in text and (fast(_TIMES_X).search(text) or fast(_TIMES_DIGIT).search(text)):  # _TIMES_HINT
        text = fast(_NAME_TIMES_COUNT).sub(r"\1 x\2", text)
        text = fast(_COUNT_TIMES_NUMBER).sub(_split_count, text)
        text = fast(_GLUED_COUNT).sub(r"\1 x ", text)
    if "-g" in text:  # "A100 80-GB", "a 24-GiB card": a memory spelled as a compound adjective is the memory
        text = fast(_HYPHEN_MEMORY).sub(r"\1\2", text)
    if "g" in text and fast(_MEMORY_HINT).search(text):
        text = fast(_GPU_MEMORY).sub(r"\1 \2gb ", text)  # after "8xA100" is "8 x a100", so "8xA100 (40GB)" is the 40 GB card
    # runs of spaces collapsed in one pass over the text, not one per line: collapsing and stripping a line commute
    # (what strip removes is whitespace before and after it either way; _SPACES never matches "\n")
    split = _SPACES.sub(" ", text).split("\n")
    if len(split) != len(indents):  # never: every substitution above keeps line breaks
        indents = [0] * len(split)
    lines = [" " * indent + line.strip() for indent, line in zip(indents, split)]
    lines = [line for line in lines if line.strip()]
    return "\n".join(_unwrapped(lines) if len(lines) > 1 else lines)


# Prose a client wrapped at a width ("bloques de 4096\ntokens", "8 samples on\neach device", "2 sweeps over\nthe
# data"): a line runs on into the next, flush with a word, when it cannot end there: it ends with a word that only
# joins ("on", "the", "de", "cada", "and"), or with a number whose unit or noun the next line starts with and no
# number of its own ("16384\ntokens, ...", "3\nmillones de tokens"; "de 2,7B\nsecuencias de 4096 tokens" is a new
# item), or the next line starts with such a word. A config's or a list's line ("key: value", "- item", "1) item",
# "| cell |", a command's "--flag") never joins.
_JOINING_WORDS = frozenset(
    "of de del on en over the la el los las a an un una unos unas each cada per por with con and y to in at for para "
    "sobre across through from desde entre e o or u than que al my our your nuestro nuestra nuestros nuestras su sus "
    "this these those este esta estos estas is are es son be bien either".split())
_LAST_WORD = re.compile(r"([a-z]+|\d[\d.,]*[kmb]?)$")
_FIRST_WORD = re.compile(r"[a-z]+|\d")
_FIRST_CLAUSE_DIGIT = re.compile(r"^[^,;]*?\d")
_STRUCTURED = re.compile(r"^\s|^[\"'{\[]?[a-z_][a-z0-9_.\-]*[\"']?\s*[:=]\s*\S*\s*,?$|^(?:[-*#|>@]|\d+[).](?:\s|$)|--)"
                         r"|\\$|```|[{}\[\]]\s*,?$")


def _setting_key(word: str) -> bool:
    from advisor.parse.slots import GLUED_KEYS

    return word in GLUED_KEYS or word == "r"


def _unwrapped(lines: list[str]) -> list[str]:
    out = [lines[0]]
    for line in lines[1:]:
        last = out[-1]
        tail = _LAST_WORD.search(last)
        head = _FIRST_WORD.match(line)
        word_tail = tail is not None and not tail.group(1)[0].isdigit()
        joins = tail is not None and head is not None and not _STRUCTURED.search(line) \
            and not _STRUCTURED.search(last) and (
                word_tail and tail.group(1) in _JOINING_WORDS or head.group(0) in _JOINING_WORDS
                or not word_tail and head.group(0).isalpha() and not _FIRST_CLAUSE_DIGIT.match(line)
                # a setting's key, then its number on the next line: "rank\n8 LoRA weights", "Wait, seq\n1024"
                or word_tail and head.group(0).isdigit() and _setting_key(tail.group(1)))
        if joins:
            out[-1] = last + " " + line
        else:
            out.append(line)
    return out


def _split_count(m: re.Match[str]) -> str:
    if m.group(3):  # 8x7b: a mixture-of-experts name, leave it
        return m.group(0)
    return f"{m.group(1)} x {m.group(2)}"


def words(text: str) -> list[str]:
    """Words of normalized text (for language detection and intent cues)."""
    return re.findall(r"[a-z]+(?:'[a-z]+)?", text)
