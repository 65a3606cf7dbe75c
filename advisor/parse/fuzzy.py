"""Typos: edit distance with a confidence, and when to correct, when to ask.

People type "qlroa", "finetnue", "mistrl 7b", "lama 3.1", "H1OO". A word we do not know that is
one edit (insertion, deletion, substitution, or two neighbours swapped: Damerau's optimal string
alignment) from exactly one word of a vocabulary is read as that word, and the answer says so
("read 'mistrl' as 'mistral'"). Two edits away, or one edit from several words, is a question:
"did you mean ...?" with the closest words. Confidence is ``1 - distance / len(word)``.

What is never corrected: words of either language's ordinary vocabulary (``KNOWN``: "when" is not
"qwen", "gamma" is not "gemma"), words of four letters or fewer except for a swap of two
neighbours ("lroa" is "lora"; "tone" is not "tune"), and anything inside a URL or a hub id.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from advisor.parse.prefilter import ascii_safe, ascii_twin


def damerau(a: str, b: str, limit: int = 3) -> int:
    """Optimal string alignment distance; anything above ``limit`` is returned as ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
            best = min(best, cur[j])
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def is_swap(a: str, b: str) -> bool:
    """``a`` is ``b`` with two neighbouring letters swapped."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


@dataclass(frozen=True)
class Match:
    typed: str
    words: tuple[str, ...]  # the closest words, best first
    distance: int

    @property
    def confidence(self) -> float:
        return round(1 - self.distance / max(len(self.typed), len(self.words[0])), 3)

    @property
    def sure(self) -> bool:
        """One edit from exactly one word: read it as that word."""
        return self.distance == 1 and len(self.words) == 1


def closest(word: str, vocabulary: frozenset[str] | set[str], *, max_distance: int = 2) -> Match | None:
    """The vocabulary words closest to ``word`` (None: nothing within ``max_distance``, or ``word``
    is itself in the vocabulary). Answers are remembered: a chat repeats its words."""
    if word in vocabulary:
        return None
    return _closest(word, vocabulary if isinstance(vocabulary, frozenset) else frozenset(vocabulary), max_distance)


@functools.lru_cache(maxsize=50_000)
def _closest(word: str, vocabulary: frozenset[str], max_distance: int) -> Match | None:
    best: list[str] = []
    best_d = max_distance + 1
    for cand in vocabulary:
        if abs(len(cand) - len(word)) > max_distance or cand[0] != word[0] and not is_swap(word[:2], cand[:2]):
            continue  # people rarely mistype the first letter; skipping those keeps this fast
        d = damerau(word, cand, max_distance)
        if d > max_distance:
            continue
        if d < best_d:
            best, best_d = [cand], d
        elif d == best_d:
            best.append(cand)
    if not best:
        return None
    if min(len(word), len(best[0])) <= 4 and not (best_d == 1 and (is_swap(word, best[0]) or len(best[0]) >= 5)):
        return None  # short words: only a swap ("lroa"), or a letter missing from a longer word ("lama")
    return Match(word, tuple(sorted(best)), best_d)


# Words of ordinary English and Spanish (and of fine-tuning talk) near one of our vocabulary
# words: they are what they are, never a typo of ours.
KNOWN = frozenset("""
a an the and or of to in on at by for with from as is are was were be been it its this that these those there here
when then than what which who how why where will would could should can may might must do does did done have has
had not no yes all any some each every both few more most other such only own same so too very just also into over
under again further once about above below between through during before after up down out off new old first last
long great little right big high small large next early young important public bad able free full fine line mine
nine wine dine file fire find final fines tone tones tuna tunes tuned tuner train trains trained trainer training
turn turns turned turning
rank ranks range ranges ranked rang bank tank batch batches match patch watch catch botch token tokens taken
context contexts contest contents content sequence sequences frequency epoch epochs gamma memo
queen when then than hello help model models modal modes medal mode data date gate rate late flora loro lord lore
glory florida complete completed completely compete competent comple total totally entire entirely whole
parameter parameters perimeter adapter adapters adaptor adaptors adapted cost costs post most host ghost
gpu gpus card cards node nodes run runs fit fits ask asks task tasks test tests best rest guest
el la los las un una unos unas de del al lo que en con por para sin sobre entre hasta desde como cuando donde
quien cual cuales cuanto cuanta cuantos cuantas muy mas menos mucho poco todo toda todos todas otro otra mismo misma
este esta estos estas ese esa eso esto aqui alli ahora hoy ayer mañana bien mal si no pero porque aunque tambien
ajustes ajusta ajustar ajustado ajustada completa completo completos completas competo entera entero total
entrenar entrenado entrenada entrenamos entrena entrenan afinar afina afinado afinada afinamos
modelo modelos datos dato lote lotes rango rangos contexto secuencia secuencias epoca epocas tarjeta tarjetas
cuesta cuestan costo coste precio precios hora horas dia dias mes meses año años
deepspeed zero torchtune axolotl unsloth liger peft trl transformers accelerate torchrun fsdp ddp megatron vllm
nemo nvidia geforce ampere hopper blackwell lovelace instinct pytorch torch cuda triton flash eager sdpa ollama
huggingface hugging face llamafactory factory config yaml json paged adamw adam bitsandbytes
mixta mixto mixed mezcla mixtas mixtos precision precisión
fft sft dpo orpo rlhf grpo kto ppo simpo cpt lora qlora dora peft full bits bit bytes tokens steps total
custom internal instruct instruction chat base pretrained merged distilled quantized coder coding math uncensored
open dense moe local own newer bigger smaller larger similar generic typical standard reasoning vision multilingual
model models modelo modelos llm llms network weights pesos parametros parameters params version variant
propio propia nuestro nuestra interno interna grande pequeño pequeno mediano
want wants wanted need needs needed estimate estimates estimating estimated train trains trained running run runs
tune tunes use uses using used fit fits try tries trying plan plans planning rent renting cost compare comparing
check checking size sizing budget get give make making does doing have having going thinking wondering considering
evaluate evaluating launch launching start starting team teams company project job jobs task please pls thanks
would could should might must will shall can may maybe perhaps about around roughly approx something anything
quiero queremos quieren necesito necesitamos necesitan usar usamos usando probar probamos correr alquilar estimar
calcular tenemos tengo tienen hacer haciendo pensando planeamos vamos podemos puedo puede cuanto cuánto costaria
entrenamos afinamos ajustamos ajusto entreno afino lanzar lanzamos empezar sobre unos unas algo alrededor
falla fallan fallar fallaron fallo fallos fallas fallen gracias disculpas
quantize quantise quantizes quantizing quantization devices precision
turned turn turns turning switched switch kept left
""".split())

# The words a typo may be read as: method words and the words that say what a number is.
METHOD_WORDS = frozenset("""
qlora lora finetune finetuning finetuned fine tune tuning tuned full fully parameter parameters params
complete completo completa ajuste afinamiento afinado entrenamiento reentrenamiento entrenar afinar
adapters adaptadores adapter adaptador peft quantized cuantizado cuantizada
context contexto sequence secuencia secuencias epochs epoch epocas epoca batch micro tokens examples ejemplos
samples muestras gradient checkpointing rango rank fsdp deepspeed
microbatch microlote minibatch vueltas length longitud
""".split())

# Words that mean the same to the parser: a typo close to several of them is still sure.
_SAME = [frozenset(g.split()) for g in ("completo completa complete", "epoch epochs epoca epocas",
                                         "secuencia secuencias sequence", "finetune finetuning finetuned",
                                         "tune tuning tuned", "adapter adapters", "adaptador adaptadores",
                                         "parameter parameters params", "sample samples", "example examples")]


def _one_meaning(words: tuple[str, ...]) -> bool:
    return len(words) == 1 or any(set(words) <= g for g in _SAME)


_PROTECTED_SPANS = re.compile(r"https?://\S+|\b[\w.-]+/[\w.-]+\b|\b[a-z0-9_]+_[a-z0-9_]+\b|\b[a-z][a-z0-9]*[_.][a-z0-9_.]*=\S+")
_WORD = re.compile(r"(?<![\w.])[a-z]{4,}(?![\w])")


def _inflected(word: str, vocabulary: frozenset[str]) -> bool:
    """A plural or singular of a vocabulary word ("entrenamientos", "adaptador") is that word, not a typo."""
    plural = word.endswith("s") and not word.endswith("ss") and (
        word[:-1] in vocabulary or word.endswith("es") and word[:-2] in vocabulary)
    return plural or word + "s" in vocabulary or word + "es" in vocabulary


@dataclass(frozen=True)
class Correction:
    typed: str
    word: str
    confidence: float
    start: int
    end: int


# A word right before a number ("ranl 16", "epoches: 2"): the number says the word is a setting's key.
_NUMBER_NEXT = re.compile(r"[ \t]*[:=]?[ \t]*\d")


def _keyed(word: str, text: str, end: int, keys: frozenset[str]) -> Match | None:
    """A typo of a setting's key before its number: one edit of any kind from exactly one key (of one meaning), a
    four-letter key too ("ranl 16", "reank 32" are "rank"; "epoches 2" is "epochs", not a plural of "epoch"), where
    a word alone must be longer or a swap (``_closest``): the number beside it is what makes the key sure."""
    if not keys or not _NUMBER_NEXT.match(text, end):
        return None
    near = tuple(sorted(k for k in keys if abs(len(k) - len(word)) <= 1 and k[0] == word[0] and damerau(word, k, 1) == 1
                        and (len(k) >= 5 or len(word) > len(k) or is_swap(word, k) or _neighbour_key(word, k))))
    return Match(word, near, 1) if near and _one_meaning(near) else None


# A QWERTY keyboard's rows: a finger slips to a key beside the one it meant ("ranl" for "rank": l is beside k).
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS = {c: {r[j] for j in (i - 1, i + 1) if 0 <= j < len(r)} for r in _ROWS for i, c in enumerate(r)}


def _neighbour_key(typed: str, word: str) -> bool:
    """``typed`` is ``word`` with one letter replaced by the key beside it on a QWERTY row: the one substitution a
    four-letter key is read through ("rack", "rant", "love" are words of their own, one key away from nothing)."""
    if len(typed) != len(word):
        return False
    diff = [(a, b) for a, b in zip(typed, word) if a != b]
    return len(diff) == 1 and diff[0][0] in _NEIGHBOURS.get(diff[0][1], ())


def correct(text: str, vocabulary: frozenset[str] = METHOD_WORDS, known: frozenset[str] = KNOWN,
            extra_known: frozenset[str] | set[str] = frozenset(),
            keys: frozenset[str] = frozenset()) -> tuple[str, list[Correction]]:
    """``text`` (normalized) with every sure typo of a vocabulary word replaced, and the corrections. ``keys``:
    settings' words a typo right before a number is read as (``_keyed``)."""
    safe = ascii_safe(text)  # the patterns' ASCII twins read such a text alike (``prefilter.ascii_safe``)
    # the protected spans are looked for only when a word would be corrected (rarely: the look tries every position of
    # a pasted config); ``closest`` is a pure function, so asking it first changes nothing but the time
    protected: list[tuple[int, int]] | None = None
    starts: list[int] = []
    out: list[str] = []
    corrections: list[Correction] = []
    prev = 0
    for m in (ascii_twin(_WORD) if safe else _WORD).finditer(text):
        word = m.group()
        if word in vocabulary or word in known or word in extra_known or word in keys:
            continue
        found = _keyed(word, text, m.end(), keys)
        if found is None and _inflected(word, vocabulary):
            continue
        found = found or closest(word, vocabulary, max_distance=1)
        if found is None or found.distance != 1 or not _one_meaning(found.words):
            continue
        if protected is None:
            protected = [p.span() for p in (ascii_twin(_PROTECTED_SPANS) if safe else _PROTECTED_SPANS).finditer(text)]
            starts = [a for a, _ in protected]
        k = bisect.bisect_right(starts, m.start()) - 1  # spans do not overlap: the one starting last before
        if k >= 0 and m.start() < protected[k][1]:
            continue
        out += [text[prev:m.start()], found.words[0]]
        prev = m.end()
        corrections.append(Correction(word, found.words[0], found.confidence, m.start(), m.end()))
    out.append(text[prev:])
    return "".join(out), corrections
