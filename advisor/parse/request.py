"""``parse_message``: one chat message (and the thread's last request) in, a ``ParseResult`` out.

Steps: clean Slack markup; detect the language; fold to lower-case ASCII; find catalog names;
run the word rules then the number rules (``rules``, ``quantities``, ``sizes``); settle the
claims (one value per field, a warning where the text gave two); decide the intent
(``intents``); merge a follow-up into the previous request.

Errors: the only exception is ``advisor.errors.ParseError``, for an empty message (code
"empty") and one longer than ``text.MAX_MESSAGE_CHARS`` (code "too_long"); its message is in the
message's language and ``example`` is a message that works. Everything else the user can type,
ambiguous or contradictory or out of range, gives a result: ``intent="clarify"`` with a question
and a working example, or the value taken plus a warning that says so.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from advisor.catalog import Catalog
from advisor.errors import ParseError
from advisor.i18n import t
from advisor.parse import describe, external, fuzzy, intents, pasted, relative, slots, vague
from advisor.parse.lang import _EN as _EN_WORDS
from advisor.parse.lang import _ES as _ES_WORDS
from advisor.parse.lang import detect_language
from advisor.parse.names import NameMatch, matcher_for
from advisor.parse.numbers import HUGE
from advisor.parse.quantities import _bounds, within
from advisor.parse.result import ParseResult
from advisor.parse.rules import LATE_RULES, WORD_RULES, flags_to_pairs
from advisor.parse.scan import _PLACEHOLDER, Scan
from advisor.parse.sizes import LATE_NUMBER_RULES, NUMBER_RULES, read_slots
from advisor.parse.text import MAX_MESSAGE_CHARS, clean, normalize
from advisor.spec import ARCH_OVERRIDES, DEFAULTS, MAX_SEQ_LEN, SpecRequest

# Words in a message up to which a bare "full" / "completo" is read as the method ("and full?").
SHORT_MESSAGE_WORDS = 6
# A named model and a typed size further apart than this are worth a warning (the model is used).
SIZE_MISMATCH = 0.15
EXAMPLE_MODEL = "llama-3.1-8b"
_A100 = {"a100-80gb", "a100-40gb"}
_H100 = {"h100-sxm", "h100-pcie"}
_FAQ_FIELDS = {"gpu", "num_gpus", "model", "params_b"}
# A correction between two values of one field: the later one is what the user means ("seq 2048, actually
# 4096", "lote 4, perdón, 8"). Without one, two values are a question back ("which one?"), never a pick.
_CORRECTION = re.compile(
    r"\b(?:actually|i\s+mean|i\s+meant|sorry|correction|make\s+(?:it|that)|scratch\s+that|wait|oops|rather|no\s+wait"
    r"|my\s+bad|typo|should\s+(?:be|read|say|have\s+said)|let\s+me\s+correct|on\s+second\s+thought|change\s+(?:that|it)\s+to"
    r"|en\s+realidad|mejor|perdon|perdona|digo|quiero\s+decir|quise\s+decir|queria\s+decir|quise\s+poner|corrijo|correccion"
    r"|rectifico|mas\s+bien|o\s+sea|espera|esperad|me\s+equivoque|error\s+mio|fe\s+de\s+erratas|pensandolo\s+mejor"
    # an edit note and a value for this run against the last one's ("(edit: rank 32)", "(errata: secuencia 3072)",
    # "last time 2k, this time 4096", "la otra vez a 2k, esta vez a 4096", "lote 8, bueno, que sea lote 4")
    r"|edit|edited|editado|edito|errata|erratum|update|updated|upd|fix|fixed|nvm|never\s*mind|this\s+time|esta\s+vez"
    r"|que\s+sean?|bueno|mejor\s+dicho"
    # the same note said in the past participle ("[corrected: seq 4096]", "(revised: ctx 8k)", "[corregido: ctx 2048]",
    # "(corregida: secuencia 4096)", "amended: rank 32")
    r"|corrected|revised|amended|corregido|corregida|revisado|revisada|enmendado|enmendada"
    # the first value owned as a misreading ("ugh, misread the ticket: 4096 tokens, not 2048", "I misspoke",
    # "perdón, leí mal el ticket", "copié mal la cifra", "me confundí")
    r"|misread|misheard|misspoke|misremembered|misquoted|mistyped|lei\s+mal|entendi\s+mal|copie\s+mal|escribi\s+mal"
    r"|me\s+confundi"
    # the first value withdrawn between the two ("8K — forget the 8192, go with 2048", "olvida el 4096, con 2048")
    r"|scratch|forget|disregard|olvida|olvidate|descarta|tacha)\b"
    r"|(?:^|[\s,;.(])(?:no|nope)\s*[,:.!]"
    # an arrow between two values of one field, each with its cue ("rank 16 → rank 8", "lote 4 => lote 8"): the old
    # value, then the new one (normalize writes "→" as "->")
    r"|->|=>")
# A change of what is asked between a model and a later size ("now the PM wants the 72B one", "this time the 14B",
# "ahora queremos el de 72B", "esta vez el de 14B", "switch to the 3B")
_SWITCH = re.compile(r"\b(?:now|instead|this\s+time|switch\w*\s+to|move\s+to|go\s+(?:with|for)|upgrad\w*\s+to|bump\w*\s+to"
                     r"|ahora|en\s+cambio|esta\s+vez|cambia\w*\s+(?:a|al)|pasa\w*\s+(?:a|al)|sub\w*\s+(?:a|al))\b")
# A pasted config's setting line ("bf16: true", "  lora_r = 16", "--lora_r 16" after flags_to_pairs).
# A line with one value only: "Ask: plain LoRA of ..." is a prose label, not a setting.
_CONFIG_LINE = re.compile(r"(?m)^[ \t]*[\"']?[a-z_][a-z0-9_.]*[\"']?[ \t]*[:=][ \t]*\S+[ \t]*,?$")
# Fields whose two values are no contradiction: the 4-bit type (NF4 and double quant said together).
_MANY_VALUED = {"quant"}
# Words of the parser's own vocabulary: never read as a typo of a model name.
_VOCABULARY = frozenset(w for cue in slots.CUES for w in cue.words) | fuzzy.METHOD_WORDS | _EN_WORDS | _ES_WORDS
# Words never corrected as a typo: ordinary words and the parser's own cue words ("param" is a word of
# its own, not a typo of "params").
_NOT_TYPOS = fuzzy.KNOWN | _VOCABULARY
# The one-word keys of a setting before its number ("rank", "epochs", "lote", "contexto"): what a typo right before a
# number is read as (``fuzzy.correct``'s keys); four letters or more, as every typo ``fuzzy`` reads
# (the settings the "which number?" question names, and epochs; a key that is also an ordinary word of prose, "pass" /
# "pase", is never a typo's target: "past 3 weeks" is no epoch count)
_SETTING_KEYS = frozenset(c.words[0] for c in slots.CUES if len(c.words) == 1 and len(c.words[0]) >= 4 and c.left >= 6
                          and c.words[0].isalpha() and c.slot in ("seq", "batch", "rank", "epochs", "grad_accum")
                          and not c.words[0].startswith("pas"))

# A value that shows what to type when a stated value could not be read: one for every field a rule
# can find unreadable (``scan.unreadable``: the typed slots' UNREADABLE_FIELDS, the config keys in
# rules._config, the length distribution in sizes._len_range). tests/test_parse_clarify.py renders the
# question for each, in both languages.
_EXAMPLE_VALUES: dict[str, Any] = {
    "seq_len": 4096, "micro_batch": 4, "lora_rank": 16, "lora_alpha": 32, "lora_dropout": 0.05, "epochs": 3,
    "dataset_tokens": 50_000_000, "num_gpus": 2, "length_distribution": {"min": 200, "max": 2048, "mean": 600}}
UNREADABLE_FIELDS = frozenset(_EXAMPLE_VALUES)
# "2048 not 4096", "2048, no 4096", "8 instead of 4", "16 en vez de 8": the later number is withdrawn
_NEGATED_BETWEEN = re.compile(r"\s*,?\s*(?:not|no|instead\s+of|rather\s+than|en\s+vez\s+de|en\s+lugar\s+de|y\s+no)\s+")
# A negation right before the second of two values ("the 27B, not the 9B", "el de 3B, no el de 1B", "rank 16 instead
# of rank 8"): what the user does not mean, the first value is (``_two_values``)
# ("y si no cabe 4096", "if not, 4096" are a fallback, a second value asked about: only an article or the field's own
# cue may stand between the negation and the value)
_NEGATED_AFTER = re.compile(r"[\s,;(]+(?<!\bif\s)(?<!\bsi\s)(?:not|no|instead\s+of|rather\s+than|en\s+vez\s+de|en\s+lugar\s+de|y\s+no)\s+"
                            r"(?:the\s+|(?:el|la|los|las)(?:\s+de)?\s+|de\s+)?(?:(?:rank|rango|r|seq|sequence|secuencia|context"
                            r"|contexto|ctx|batch|lote|bs|epochs?|epocas?)\s+)?$")
_CHANGED_BETWEEN = re.compile(r"\s*(?:->|=>|to|a|hasta)\s*")
# A follow-up that is only a count a run is done with ("and with 4?", "¿y con 4?", "¿y si lo hacemos con cuatro?",
# "and with 2 more?"): ``_Assembler._with_count``. At most one node's GPUs (8 on the HGX / DGX boxes the catalog
# rents): a bigger bare number ("¿y con 64?") is as likely a rank or a batch, and is asked about.
# The end of a sentence the user dismisses: "... but that doesn't matter", "..., irrelevant I know", "... pero eso no
# importa", "..., da igual", "..., no viene al caso" (what it said is no value of this job)
_DISMISSED = re.compile(r"(?:,\s*|\s+)(?:but\s+|pero\s+)?(?:that|this|eso|esto)\s+(?:doesn'?t|does\s+not|no)\s+"
                        r"(?:matter|importa|viene\s+al\s+caso)\b"
                        r"|,\s*(?:(?:totally\s+|completely\s+)?irrelevant(?:\s+i\s+know)?|da\s+igual|no\s+importa"
                        r"|no\s+viene\s+al\s+caso)\s*(?=[.:;!?\n]|$)")
# A sentence about an earlier job, not this one ("The run from 2026-10-02 took 19.5h on 8 L40S.", "Vendor B's quote was 4
# H100 for 60 hours", "the previous provider billed 212 GPU-hours on H100", "El job 88213 del 03/11 tardó 22 horas en 8
# L40S", "la última corrida en 4 A10G nos salió carísima"): a verb in the past tense and a word that points at another
# run, time or party, both before anything that turns to this job (``_PAST_TURN``). Its cards, counts and regions are
# that job's (table6's convention: a previous run's or a quote's GPUs are not this job's); ``_Assembler._past_runs``.
# (Ambiguous forms are left out: Spanish "uso", "necesito", "llevo" are present tense too.)
_PAST_VERB = re.compile(
    r"\b(?:took|ran|was|were|cost|billed|charged|quoted|used|needed|required|lasted|finished|completed|crashed|oomed"
    r"|died|burned|burnt|spent|consumed|trained|estimated|had|got|came\s+(?:to|out)|did|made|paid|rented|booked|tried"
    r"|launched|pagamos|alquilamos|probamos|lanzamos"
    r"|tardo|tardamos|tardaron|duro|corrio|corrimos|corrieron|usamos|usaron|utilizamos|costo|salio|facturo|facturaron"
    r"|cobro|cobraron|cotizo|cotizaron|era|eran|fue|fueron|estaba|necesitamos|gastamos|gasto|entrenamos|entreno"
    r"|consumio|peto|usaba|usabamos|corria|tardaba|hicimos|tuvimos|teniamos)\b")
_PAST_REF = re.compile(
    r"\b(?:previous|prior|earlier|former|old|last\s+(?:time|run|job|one|attempt|week|month|year|spring|summer|fall"
    r"|autumn|winter|quarter|sprint|night)|the\s+run\s+from|(?:run|job)\s+(?:from|#?\d+)|vendor|provider|supplier"
    r"|quote|invoice|yesterday|ago|back\s+in|anterior|previ[oa]|pasad[oa]|ultim[oa]|viej[oa]|otra\s+(?:nube|vez"
    r"|empresa|cuenta)|proveedor|cotizacion|factura|corrida|job\s+#?\d+|ayer|hace\s+(?:un|una|dos|tres|\d+)"
    # a month the job ran in, with the past verb ("we trained it in March", "en marzo hicimos un LoRA")
    r"|(?:in|en)\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|enero"
    r"|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre))\b")
# What turns from that job to this one inside the sentence: "this time", "now", "here", a modal or a wish ("can we",
# "we'd", "queremos", "haríamos"), "but", a question
_PAST_TURN = re.compile(
    r"\b(?:this\s+time|now|here|instead|but|would|will|can|could|should|want|wanna|let'?s|we'd|we'll|i'd"
    r"|esta\s+vez|ahora|aca|aqui|pero|queremos|quiero|hariamos|haria|podemos|podriamos|vamos|necesito)\b|\?")
# Where a sentence ends for ``_past_runs``: a period, "!", "?" or ";" before a space, or a line break (a parenthesis,
# "(job 771203)", stays inside its sentence)
_PAST_END = re.compile(r"[.!?;](?=\s|$)|\n")
_REQUEST_FIELDS = frozenset({"model", "method", "params_b"})
_PAST_CLAUSE = re.compile(r",(?=\s)|\||\s[-—–]+\s")
_PAST_FIELDS = frozenset({"gpu", "num_gpus", "gpus_per_node", "num_nodes", "visible_gpus", "region"})
# A card's memory in its catalog id ("a100-40gb") and a memory said alone as the card ("the 80GB one", "la de 80GB")
_MEMORY_IN_ID = re.compile(r"-(\d{2,3})gb$")
_MEMORY_SAID = re.compile(r"\b(?:the|la|el|una?|one)\s+(?:de\s+|with\s+|con\s+)?(\d{2,3})\s*(?:gb|g)\b")
# Where a sentence ends, for ``_Assembler._asides`` (a period, a colon, ... before a space; a line break; a
# parenthesis either way), a catalog name's placeholder, and a word of prose (not a number's glued unit: "2nd").
_ASIDE_END = re.compile(r"[.!?;:](?=\s|$)|[\n()]")


def _same_number(value: Any, other: Any) -> bool:
    try:
        return float(value) == float(other)
    except (TypeError, ValueError, OverflowError):
        return False


def _sentence_cuts(text: str) -> list[int]:
    """Where each sentence of ``text`` starts (``_ASIDE_END``), then ``len(text) + 1``: sentence ``i`` is
    ``text[cuts[i]:cuts[i + 1]]``, and the one holding position ``pos`` is ``bisect_right(cuts, pos) - 1``."""
    return [0, *(m.end() for m in _ASIDE_END.finditer(text)), len(text) + 1]
_NAME_MARK = re.compile(r"§[MGRF]\d+§")  # (a name we are unsure of, "llamame", is no name said)
_ASIDE_WORD = re.compile(r"(?<![\w§])[a-z][a-z']*")
# A setting's key before a colon and a value of words ("GPUs: a bunch of them", "tokens: a big chunk of the dump").
# Words that are a setting's value or join one to the next, never prose around the request (``_asides``).
# (a switch's state said as a word, "grad-ckpt: enabled, and 10 too", and the "too" / "también" that adds a number to
# the list, are no prose either)
_VALUE_WORDS = frozenset({"yes", "no", "si", "true", "false", "on", "off", "and", "or", "enabled", "disabled", "activado",
                          "activada", "desactivado", "desactivada", "apagado", "apagada", "encendido", "encendida", "too",
                          "also", "tambien"})
_UNREAD_KEY = re.compile(r"(?<![\w§])([a-z]+)[ \t]*:[ \t]*(?=[a-z])([^\n.;:!?|()]*)")
_WITH_COUNT = re.compile(r"^\W*(?:and\s+|y\s+|e\s+)?(?:(?:what|how)\s+about\s+|que\s+tal\s+|(?:y\s+)?(?:si\s+)?lo\s+hacemos\s+"
                         r"|if\s+we\s+(?:do|run)\s+it\s+|(?:can|could)\s+we\s+(?:do\s+it\s+|run\s+it\s+)?)?(?:with|con)\s+"
                         r"(?:only\s+|just\s+|solo\s+)?(?P<n>[a-z0-9]+)(?P<more>\s+(?:more|extra|mas))?\W*$")
_WITH_COUNT_MAX = 8
# The bot's last answer quoted in a thread: "your answer said", "you suggested", "the bot gave", "en tu respuesta salen",
# "me dijiste", "el bot recomendó"
_QUOTED = re.compile(r"\b(?:your\s+(?:last\s+)?(?:answer|reply|estimate|suggestion|recommendation)|you\s+(?:said|suggested"
                     r"|recommended|picked|proposed|gave)|the\s+bot\s+(?:said|suggested|recommended|gave|picked)"
                     r"|tu\s+(?:ultima\s+)?(?:respuesta|estimacion|sugerencia|recomendacion)|(?:me\s+)?dijiste|sugeriste"
                     r"|recomendaste|propusiste|el\s+bot\s+(?:dijo|dio|sugirio|recomendo|propuso))\b")
_THREAD_FIELDS = (("seq_len", "seq"), ("micro_batch", "count"), ("lora_rank", "count"), ("num_gpus", "count"),
                  ("epochs", "count"), ("lora_alpha", "count"), ("gradient_accumulation_steps", "count"))
# The size inside a catalog id ("qwen2.5-7b", "llama-3.1-8b", "gemma-2-9b"): the thread's series at another size
_SIZE_IN_ID = re.compile(r"-\d+(?:\.\d+)?b(?=$|-)")
# A release said alone in a thread ("v0.1 of the model", "la v0.1"), and a catalog id's release ("mistral-7b-v0.3")
_VERSION_SAID = re.compile(r"(?<![\w.])v(\d+(?:\.\d+)?)\b(?!\.\d)")
_VERSION_IN_ID = re.compile(r"-v\d+(?:\.\d+)?$")
# A field only a vague phrase leaves unsaid ("a big model", ``advisor.parse.vague``): its example in the question.
_VAGUE_EXAMPLE_VALUES: dict[str, Any] = {"params_b": 7}


def _example_setting(name: str) -> Any:
    """The value an example message gives ``name`` (a length distribution is a model, not a number)."""
    value = _EXAMPLE_VALUES[name] if name in _EXAMPLE_VALUES else _VAGUE_EXAMPLE_VALUES[name]
    if name == "length_distribution":
        from advisor.spec import LengthDistribution

        return LengthDistribution(**value)
    return value


def unreadable_question(name: str, typed: str, lang: str, vague: bool = False) -> str:
    """The question back for a value of ``name`` the user typed (``typed``) and the parser could not
    read, with an example of the setting phrased as ``describe`` phrases it (each field has its own
    template arguments: "on 2 GPUs" takes a count, a length range three numbers). A vague value ("a
    few epochs", ``advisor.parse.vague``) gets its field's own question ("How many epochs?")."""
    example = describe.setting_phrase(name, _example_setting(name), lang, display=True)
    key = f"parse.clarify.vague.{name}" if vague else "parse.clarify.unreadable"
    return t(key, lang, field=t(f"parse.field.{name}", lang), typed=typed.strip(), example=example)


_EARLY = [*WORD_RULES, *NUMBER_RULES]
_LATE = [*LATE_NUMBER_RULES, *LATE_RULES]


def parse_message(text: str, catalog: Catalog, *, previous: SpecRequest | None = None,
                  lang_hint: str | None = None) -> ParseResult:
    """Understand one message. ``previous``: the thread's request, for follow-ups; ``lang_hint``:
    the thread's language, used when a message has no words of either ("QLoRA 70B 4090")."""
    cleaned = pasted.header_rows(clean(text if isinstance(text, str) else ""))  # a sheet's header + row: key: value lines
    lang = detect_language(cleaned, lang_hint)
    if len(cleaned) > MAX_MESSAGE_CHARS:
        raise ParseError(t("parse.error.too_long", lang, length=f"{len(cleaned):,}", limit=f"{MAX_MESSAGE_CHARS:,}",
                           example=t("parse.example.estimate", lang)),
                         example=t("parse.example.estimate", lang), code="too_long")
    outside = external.find(cleaned, catalog)  # hub ids the catalog lacks, pasted config.json
    normalized = flags_to_pairs(normalize(external.blank(cleaned, outside)))
    normalized, components = pasted.torchtune_components(pasted.nemo_recipes(pasted.annotated_defaults(pasted.desc_values(pasted.flatten_json(normalized)))))
    if not re.search(r"[a-z0-9?]", normalized):
        raise ParseError(t("parse.error.empty", lang, example=t("parse.example.estimate", lang)),
                         example=t("parse.example.estimate", lang), code="empty")
    matcher = matcher_for(catalog)
    normalized, corrections = fuzzy.correct(normalized, known=_NOT_TYPOS, extra_known=matcher.known_tokens,
                                            keys=_SETTING_KEYS)
    names = matcher.find(normalized, known=_VOCABULARY, capitalized=_capitalized(cleaned))
    scan = Scan.of(normalized, names, short=len(normalized.split()) <= SHORT_MESSAGE_WORDS, lang=lang)
    for field_name, value, pos in components:  # pasted torchtune components, read before the rules
        scan.claim(field_name, value, pos)
    tt_config = pasted.torchtune_config_model(normalized) if "tune" in normalized else None
    if tt_config is not None:  # "--config mistral/7B_full": the model torchtune's config loads
        ident, start, end = tt_config
        scan.claim("model", ident, start)
        scan.excluded_models.update(i for i, m in enumerate(scan.of_kind("model")) if start <= m.start < end)
    scan.run_all(_EARLY)
    read_slots(scan)
    scan.run_all(_LATE)
    for c in corrections:
        scan.warn("parse.warn.typo", typed=c.typed, word=c.word)
    for e in outside:
        scan.claim("model", e.ref, e.start)

    result = _Assembler(scan, catalog, lang, previous, normalized).result()
    configs = {e.ref: e.config for e in outside if e.config is not None}
    return replace(result, configs=configs) if configs else result


def _decimal(tok: Any, lang: str) -> bool:
    """A number with a fraction and no unit ("61.3", "0,71"): no length, batch, rank or GPU count, what the "which
    number?" question offers."""
    if tok.scale or tok.unit or tok.spoken or not any(c in tok.text for c in ".,"):
        return False
    try:
        return not float(slots.value_of(tok, "count", lang)).is_integer()
    except (ValueError, OverflowError):
        return False


def _capitalized(text: str) -> frozenset[str]:
    """Words typed with a capital inside lower-case text ("qlora Pythia 12b"): names, by how people
    write them (nothing when the whole message is in capitals)."""
    if text.islower():  # no upper-case letter at all, so no capitalized word (``_CAPITALIZED`` opens with [A-Z])
        return frozenset()
    if text.isascii():  # a letter is [A-Za-z] there, an upper-case one [A-Z]: counted by deleting them (bytes.translate)
        raw = text.encode("ascii")
        letters = len(raw) - len(raw.translate(None, _ASCII_LETTERS))
        uppers = len(raw) - len(raw.translate(None, _ASCII_UPPERS)) if letters else 0
    else:
        # counted as the lengths of runs (each letter is in exactly one run): the same counts as one match per letter,
        # without a list of every letter of a pasted config
        letters = sum(map(len, _LETTERS.findall(text)))
        uppers = sum(map(len, _UPPERS.findall(text))) if letters else 0
    if not letters or uppers > 0.6 * letters:
        return frozenset()
    return frozenset(w.lower() for w in _CAPITALIZED.findall(text))


_LETTER = re.compile(r"[^\W\d_]")
_UPPER = re.compile(r"[A-ZÁÉÍÓÚÑÜ]")
_LETTERS = re.compile(_LETTER.pattern + "+")
_UPPERS = re.compile(_UPPER.pattern + "+")
_CAPITALIZED = re.compile(r"(?<![\w.])[A-Z][A-Za-z]{2,}")
_ASCII_UPPERS = bytes(range(ord("A"), ord("Z") + 1))
_ASCII_LETTERS = _ASCII_UPPERS + _ASCII_UPPERS.lower()


class _Assembler:
    """Settles the claims of one scan into a delta, then decides the intent."""

    def __init__(self, scan: Scan, catalog: Catalog, lang: str, previous: SpecRequest | None, normalized: str):
        self.scan, self.catalog, self.lang, self.previous = scan, catalog, lang, previous
        self.normalized = normalized
        self.warnings: list[tuple[str, dict[str, Any]]] = list(scan.warnings)
        self.family: NameMatch | None = None
        self.family_size: NameMatch | None = None  # a family at a size the catalog lacks: asked about
        self.gpus: list[str] = []
        self.conflicts: list[tuple[str, list[Any]]] = []  # (field, its values) said twice with no correction
        self._dismissed()
        self._past_runs()
        self.fields = self._settle()
        self._memory_corrected()
        self._named_by_thread()
        self._quoted_from_thread()
        self._with_count()
        self._asides()
        self.delta = self._delta()
        self.relative_unknown: list[str] = []  # increments with no count to add to: asked about
        self._increments()
        self.vague = self._vague()  # "a few epochs", "some data": fields mentioned without a value, asked about

    # --- one value per field ----------------------------------------------------------------

    def _settle(self) -> dict[str, Any]:
        values: dict[str, list[Any]] = {}
        at: dict[str, list[int]] = {}  # where each value of a field was first said
        self._claimed_at: dict[str, list[list[int]]] = {}  # every place each value of a field was said
        for claim in sorted(self.scan.claims, key=lambda c: c.pos):
            bucket = values.setdefault(claim.field, [])
            if claim.value not in bucket:
                bucket.append(claim.value)
                at.setdefault(claim.field, []).append(claim.pos)
                self._claimed_at.setdefault(claim.field, []).append([])
            self._claimed_at[claim.field][bucket.index(claim.value)].append(claim.pos)
        per_node, nodes = values.pop("gpus_per_node", []), values.pop("num_nodes", [])
        visible = values.pop("visible_gpus", [])
        if per_node and "num_gpus" not in values:  # torchrun --nproc_per_node 8 --nnodes 2: 16 GPUs
            values["num_gpus"] = [per_node[0] * (nodes[0] if nodes else 1)]
        if visible and "num_gpus" not in values:  # CUDA_VISIBLE_DEVICES=0,1 and no launcher's count: what it sees
            values["num_gpus"] = [visible[0] * (nodes[0] if nodes else 1)]
        fsdp_gc = values.pop("gc_fsdp", [])
        if fsdp_gc:  # fsdp_config: activation_checkpointing decides; the trainer's own flag is off for it
            values["gradient_checkpointing"] = [fsdp_gc[0]]
        weak_method = values.pop("method_weak", [])
        if weak_method and "method" not in values and (self.previous is None or self.previous.method == "full"):
            # "lora rank 16 on phi-4": LoRA, as nothing else says; in a thread on a full fine-tune ("¿y con LoRA
            # rango 32?") too: a full fine-tune has no adapters for the setting to belong to
            values["method"] = weak_method[:1]
        # "+2 GPUs", "una GPU menos": changes of a count, settled against the thread's request (``_increments``)
        self.increments = {k.removeprefix("increment_"): sum(v) for k, v in list(values.items()) if k.startswith("increment_")}
        for k in [k for k in values if k.startswith("increment_")]:
            values.pop(k)
        self.gpus = self._stated_variant(list(values.pop("gpu", [])))
        families = values.pop("family", [])
        self.unsure: list[NameMatch] = list(values.pop("unsure", []))
        fields: dict[str, Any] = {}
        if set(values.get("method", [])) == {"lora", "qlora"}:  # "LoRA ... in 4 bits" is QLoRA
            values["method"] = ["qlora"]
        for name, vals in values.items():
            fields[name] = vals[0]
            if len(vals) > 1 and name not in _MANY_VALUED:
                fields[name] = self._two_values(name, vals, at.get(name, []))
        if self.gpus:
            fields["gpu"] = self.gpus[0]
            if len(self.gpus) > 1:
                where = [m.start for m in self.scan.names if m.kind == "gpu" and m.ident in self.gpus]
                fields["gpu"] = self._two_values("gpu", self.gpus, sorted(where)[:len(self.gpus)])
        self._families(fields, families)
        self._typo_notes(fields)
        self._weak_sizes(fields)
        self._model_and_size(fields)
        if fields.get("method") in ("lora", "full"):
            fields.pop("quant", None)
        elif len(values.get("quant", [])) > 1:
            self._conflict("quant", values["quant"])
        self._examples(fields)
        return fields

    def _dismissed(self) -> None:
        """A sentence the user dismisses as it ends ("we have 3 free cards but that doesn't matter:", "tenemos 3
        tarjetas libres pero eso no importa:", "the node has 2x 400Gb NICs, irrelevant I know.", "99,2 % de
        disponibilidad, da igual."): what it says is no value of this job; its claims are dropped."""
        text = self.scan.marked
        found = list(_DISMISSED.finditer(text))
        if not found:
            return
        cuts = _sentence_cuts(text)
        spans = []
        for m in found:
            start = cuts[bisect.bisect_right(cuts, m.start()) - 1]
            if not any(start <= c.pos < m.start() and c.field in ("model", "method", "params_b") for c in self.scan.claims):
                spans.append((start, m.start()))  # (the request's own sentence is never dismissed whole)
        self.scan.claims = [c for c in self.scan.claims if not any(a <= c.pos < b for a, b in spans)]
        self.scan.stray = [tok for tok in self.scan.stray if not any(a <= tok.start < b for a, b in spans)]

    def _past_runs(self) -> None:
        """"The run from 2026-10-02 took 19.5h on 8 L40S. This time: LoRA phi-4 ... on H200", "El proveedor viejo nos
        facturó 180 horas de GPU en H100. Acá haríamos LoRA ...": a sentence about an earlier job (``_PAST_REF`` before
        ``_PAST_TURN``, and a ``_PAST_VERB``) says that job's values. The cards, counts and regions of its past verb's
        clause are dropped, with that clause's other numbers (hours, prices); a value of another field is dropped
        where the rest of the message says that field again ("We trained a LoRA on Llama 3.1 8B back in March ...
        This time it's a full fine-tune of the same model": full; the model stays). A sentence that names the model
        or method while nothing else does is this job's own story, and stays ("Run 7 OOMed on a single 4090 doing
        QLoRA on Mistral 7B; how much memory does it need?")."""
        text = self.scan.marked
        if not _PAST_VERB.search(text) or not _PAST_REF.search(text):
            return
        cuts = [0, *(m.end() for m in _PAST_END.finditer(text)), len(text)]
        claims = self.scan.claims
        hardware, said_again = [], []
        for a, b in zip(cuts, cuts[1:]):
            turn = _PAST_TURN.search(text, a, b)
            end = turn.start() if turn else b
            if not _PAST_REF.search(text, a, end) or not _PAST_VERB.search(text, a, end):
                continue
            outside = {c.field for c in claims if not a <= c.pos < end}
            if not outside & _REQUEST_FIELDS and any(a <= c.pos < end and c.field in _REQUEST_FIELDS for c in claims):
                continue
            # the clause of the past verb, in a list of items ("GPU util was 63% last time, data-parallel on 2 L40S":
            # the cards of the next item are this job's)
            # (a comma inside a parenthesis stays in the clause the parenthesis is part of: "We trained a LoRA ... back
            # in March (run 2024-03-14-a, 6 hours on 2 A100s)")
            clauses = [a, *(m.end() for m in _PAST_CLAUSE.finditer(text, a, end)
                            if text.count("(", a, m.start()) <= text.count(")", a, m.start())), end]
            hardware += [(x, y) for x, y in zip(clauses, clauses[1:]) if _PAST_VERB.search(text, x, y)]
            said_again += [(c, a, end) for c in claims if a <= c.pos < end and c.field in outside]
        if not hardware and not said_again:
            return
        inside = lambda pos: any(a <= pos < b for a, b in hardware)  # noqa: E731
        again = {id(c) for c, _, _ in said_again}
        self.scan.claims = [c for c in claims if not (c.field in _PAST_FIELDS and inside(c.pos) or id(c) in again)]
        self.scan.stray = [tok for tok in self.scan.stray if not inside(tok.start)]
        for m in _NAME_MARK.finditer(text):
            if m.group(0).startswith("§G") and inside(m.start()):
                self.scan.gpu_counts.pop(int(m.group(0)[2:-1]), None)

    def _memory_corrected(self) -> None:
        """"on A100 40GB — correction, the 80GB one", "en A100 de 40GB — corrijo, la de 80GB": a correction that names
        only a memory size names the same card with that memory (the catalog's variant of its id), not a card of its
        own; the answer says which was taken. Only where the catalog has that variant."""
        gpu = self.fields.get("gpu")
        if not isinstance(gpu, str) or len(self.gpus) != 1 or not _MEMORY_IN_ID.search(gpu):
            return
        text = self.scan.marked
        at = [m.end() for m in _NAME_MARK.finditer(text) if m.group(0).startswith("§G")]
        if not at:
            return
        fix = _CORRECTION.search(text, at[-1])
        said = _MEMORY_SAID.search(text, fix.end()) if fix else None
        if said is None:
            return
        variant = _MEMORY_IN_ID.sub(f"-{said.group(1)}gb", gpu)
        card = self.catalog.find_gpu(variant)
        if variant == gpu or card is None or card.id != variant:
            return
        self.warnings.append(("parse.warn.corrected", {"field": t("parse.field.gpu", self.lang),
                                                       "taken": card.display_name, "dropped": self._gpu_name(gpu)}))
        self.fields["gpu"] = variant
        self.gpus = [variant]

    def _named_by_thread(self) -> None:
        """"sorry, I meant 2048 not 4096", "perdón, quería decir 2048, no 4096" in a thread whose sequence length is
        4096: the withdrawn number is the thread's value of one field, which names the field of the meant one. Only
        where exactly one of the thread's fields has that value; otherwise both numbers stay asked about."""
        previous = self.previous
        if len(self.scan.stray) < 2:
            return
        if previous is None:
            self._named_by_message()
            return
        toks = sorted(self.scan.stray, key=lambda t: t.start)
        for a, b in zip(toks, toks[1:]):
            between = self.scan.marked[a.end:b.start]
            if _CHANGED_BETWEEN.fullmatch(between):  # "4096 -> 8192", "de 4096 a 8192": the thread's value, then the new
                a, b = b, a
            elif not _NEGATED_BETWEEN.fullmatch(between):
                continue
            named = [(name, kind) for name, kind in _THREAD_FIELDS if getattr(previous, name, None) is not None
                     and slots.value_of(b, kind, self.lang) == getattr(previous, name)]
            if len(named) != 1 or named[0][0] in self.fields:
                continue
            name, kind = named[0]
            value = slots.value_of(a, kind, self.lang)
            self.fields[name] = int(value) if float(value).is_integer() and name != "epochs" else value
            self.scan.stray = [t for t in self.scan.stray if t is not a and t is not b]
            return

    def _named_by_message(self) -> None:
        """"context window pinned at 2k ... hmm actually 4096, not 2048", "ventanas de 2k tokens ... bueno, en realidad
        8192, no 2048": the withdrawn number is a value this message gave one field earlier (read with its cue), which
        names the field of the meant one, as the thread's value does in ``_named_by_thread``. Only where exactly one
        field said before the pair has that value; otherwise both numbers stay asked about."""
        toks = sorted(self.scan.stray, key=lambda t: t.start)
        for a, b in zip(toks, toks[1:]):
            if not _NEGATED_BETWEEN.fullmatch(self.scan.marked[a.end:b.start]):
                continue
            named = [(name, kind) for name, kind in _THREAD_FIELDS if name in self.fields
                     and min((p for ps in self._claimed_at.get(name, []) for p in ps), default=a.start) < a.start
                     and slots.value_of(b, kind, self.lang) == self.fields[name]]
            if len(named) != 1:
                continue
            name, kind = named[0]
            value = slots.value_of(a, kind, self.lang)
            value = int(value) if float(value).is_integer() and name != "epochs" else value
            if not within(name, value):
                continue  # past the spec's bounds: left stray, asked about
            dropped = self._show(name, self.fields[name])
            self.fields[name] = value
            self.warnings.append(("parse.warn.corrected", {"field": t(f"parse.field.{name}", self.lang),
                                                           "taken": self._show(name, value), "dropped": dropped}))
            self.scan.stray = [tok for tok in self.scan.stray if tok is not a and tok is not b]
            return

    def _with_count(self) -> None:
        """"and with 4?", "¿y con 4?", "¿y si lo hacemos con cuatro?", "what about with 8?": in a thread, a bare small
        count that a run is done *with*, and nothing else said, is the GPU count (the hardware a run is done with; a
        length, a rank or a batch is said with its word); "and with 2 more?" / "¿y con 2 más?" changes it by that much
        (asked about where the thread has no count, as any increment is)."""
        if self.previous is None or self.fields or len(self.scan.stray) > 1:
            return
        m = _WITH_COUNT.match(self.scan.marked.strip())
        if m is None:
            return
        if self.scan.stray:
            value = slots.value_of(self.scan.stray[0], "count", self.lang)
        else:
            value = slots.WORD_NUMBERS.get(m.group("n"))
        if not value or not float(value).is_integer() or not 1 <= value <= _WITH_COUNT_MAX:
            return
        if m.group("more"):
            self.increments["num_gpus"] = self.increments.get("num_gpus", 0) + int(value)
        else:
            self.fields["num_gpus"] = int(value)
        self.scan.stray = []

    def _asides(self) -> None:
        """A number in a sentence of its own that says nothing we size, beside another that does ("Team of 6,
        deadline April 2nd. We want to qlora Qwen2.5-72B ...", "Tío, llevo desde las 8 con esto. Ajuste completo de
        ...", "(account 4471-22)", "El clúster tenía 99,2 % de disponibilidad, da igual. ¿qlora de ...?") is the
        story around the request (a team, a date, an id, a score), not a setting: no "which number" question about
        it. A sentence here ends at ". ", "!", "?", ";", ": " or a line break, and a parenthesis is one of its own;
        it says something we size when it holds a name (model, GPU, region, family) or a value read. Only prose
        (two words or more; one in a parenthesis: "(PO 7781)") and only where another sentence holds the request:
        "lora qwen2.5-7b. 24." and a thread's "what about 64?" still ask."""
        stray = self.scan.stray
        if not stray or not self.scan.claims:
            return
        text = self.scan.marked
        if any(slots.setting_word(m.group(1)) and not any(c.isdigit() for c in m.group(2))
               for m in _UNREAD_KEY.finditer(text)):
            return  # "GPUs: a bunch of them", "tokens: a big chunk": a setting said, its value unread; asked about
        cuts = _sentence_cuts(text)
        said = {bisect.bisect_right(cuts, c.pos) - 1 for c in self.scan.claims if c.field != "unsure"}
        said |= {bisect.bisect_right(cuts, m.start()) - 1 for m in _NAME_MARK.finditer(text)}
        aside = []
        for tok in stray:
            seg = bisect.bisect_right(cuts, tok.start) - 1
            start, end = cuts[seg], cuts[seg + 1]
            found = _ASIDE_WORD.findall(text, start, end)
            if seg in said and not (_decimal(tok, self.lang) and sum(len(w) > 1 for w in found) >= 2):
                continue  # (a decimal in prose, "the eval went from 61.3 to 64.8 with the adapter", is no count we ask)
            if any(slots.setting_word(w) for w in found):
                continue  # "r pinned at 32": the setting's word is there, its number joined in a way we do not read
            if _CORRECTION.search(text, start, end) or _SWITCH.search(text, start, end):
                continue  # "; perdón, 4096, no 2048": a correction of a value said before, asked about where unclear
            # (an on/off value and a conjunction are no prose: after a key's colon, "packing: yes, and 96",
            # "activaciones con checkpoint: sí, y 24", the colon cuts the key's own value from it, and the number
            # after it is the user's, asked about)
            words = sum(len(w) > 1 and w not in _VALUE_WORDS for w in found)
            if words >= 2 or words == 1 and start and text[start - 1] == "(":
                aside.append(tok)
        if aside:
            self.scan.stray = [tok for tok in stray if tok not in aside]

    def _quoted_from_thread(self) -> None:
        """"your answer said 2 GPUs; can we try 1?", "en tu respuesta salen 2 GPUs; ¿probamos con 1?": a value quoted
        from the bot's last answer (``_QUOTED``) is the thread's, not a new one, and it names the field of the one
        number after it nothing else explains. Only where the quoted value is the thread's own value of that field."""
        previous = self.previous
        if previous is None or len(self.scan.stray) != 1:
            return
        quote = _QUOTED.search(self.scan.marked)
        tok = self.scan.stray[0]
        if quote is None or tok.start < quote.end():
            return
        for name, kind in _THREAD_FIELDS:
            if name not in self.fields or self.fields[name] != getattr(previous, name, None):
                continue
            value = slots.value_of(tok, kind, self.lang)
            if not value or value == self.fields[name]:
                return
            self.fields[name] = int(value) if float(value).is_integer() and name != "epochs" else value
            self.scan.stray = []
            return

    def _source_at(self, pos: int) -> str:
        """What kind of line ``pos`` is on: a pasted config's ``key: value`` line, a comment line of a pasted
        config ("# learning rate: torchtune's recipe value"), or prose."""
        text = self.scan.marked
        line = text[text.rfind("\n", 0, pos) + 1:text.find("\n", pos) if "\n" in text[pos:] else len(text)]
        if self._has_config and line.lstrip().startswith("#"):
            return "comment"
        return "config" if _CONFIG_LINE.match(line) else "prose"

    @functools.cached_property
    def _has_config(self) -> bool:
        return len(_CONFIG_LINE.findall(self.scan.marked)) >= 2

    def _two_values(self, name: str, vals: list[Any], where: list[int]) -> Any:
        """Two values said for one field: the later one where a correction stands before it ("seq 2048,
        actually 4096"), else the first, kept only until the question back asks which (``conflicts``).
        In a pasted config, its comment lines are notes about it (a value there yields to a setting), and two
        of its own keys for one field ("dtype: bfloat16" and "bf16: true") are the config's, read in the
        rules' order with a warning, not a contradiction of the user's."""
        places = self._claimed_at.get(name) if name != "gpu" else None
        sources = [{self._source_at(pos) for pos in where_said} for where_said in places] if places else None
        if sources and len(sources) == len(vals):
            kept = [i for i, src in enumerate(sources) if src != {"comment"}]
            if kept and len(kept) < len(vals):
                vals, where = [vals[i] for i in kept], [where[i] for i in kept] if len(where) == len(sources) else where
                sources = [sources[i] for i in kept]
                if len(vals) == 1:
                    return vals[0]
            if all(src <= {"config", "comment"} for src in sources):
                self._conflict(name, vals)
                return vals[0]
        if len(vals) == 2 == len(where) and where[0] < where[1] \
                and _NEGATED_AFTER.search(self.scan.marked, where[0], where[1]):
            return vals[0]  # "I meant the 27B, not the 9B", "es el de 3B, no el de 1B": the later value is withdrawn
        # (before the corrections: "the 27B rather than the 9B" is no "or rather")
        if len(where) == len(vals) and where[-2] < where[-1] \
                and _CORRECTION.search(self.scan.marked, where[-2], where[-1]):
            shown = [self._show(name, v) for v in vals]
            self.warnings.append(("parse.warn.corrected", {"field": t(f"parse.field.{name}", self.lang),
                                                           "taken": shown[-1], "dropped": shown[-2]}))
            return vals[-1]
        quoted = self._quoted_other(name, vals, where)
        if quoted is not None:
            return quoted
        self.conflicts.append((name, vals))
        self._conflict(name, vals)
        return vals[0]

    def _quoted_other(self, name: str, vals: list[Any], where: list[int]) -> Any:
        """"el bot recomendó 2 GPUs; ¿y con 8?", "you said 4096 context, what about 8192?": of two values, the one
        quoted from the bot's last answer (after ``_QUOTED``, equal to the thread's value) is the thread's; the other
        is the new one."""
        old = getattr(self.previous, name, None) if self.previous is not None else None
        quote = _QUOTED.search(self.scan.marked) if old is not None and len(vals) == 2 == len(where) else None
        if quote is None or vals.count(old) != 1:
            return None
        i = vals.index(old)
        return vals[1 - i] if where[i] >= quote.start() else None

    def _conflict(self, name: str, vals: list[Any]) -> None:
        shown = [self._show(name, v) for v in vals]
        self.warnings.append(("parse.warn.conflict", {
            "field": t(f"parse.field.{name}", self.lang), "values": describe.join_options(shown, self.lang),
            "taken": shown[0]}))

    def _show(self, name: str, value: Any) -> str:
        try:  # a value past the spec's bounds is shown as said (it is reported by _delta), never raised on
            items = describe.phrases(SpecRequest(**{name: value}), self.lang, self.catalog) if name in SpecRequest.model_fields else []
        except ValidationError:
            items = []
        return items[0] if items else str(value)

    def _families(self, fields: dict[str, Any], families: list[NameMatch]) -> None:
        if "model" in fields or not families:
            return
        fam = families[0]
        if fam.size_b is not None and "params_b" not in fields:
            # "Falcon3-7B", "Gemma 2 4B": a family the catalog has, at a size it lacks. A generic model of
            # that size is not that model (its layers, heads and vocabulary are the family's): ask, naming
            # the family's nearest catalog sizes and the Hub id route (``_clarify_family_size``)
            self.family_size = fam
        elif fam.sized and fam.candidates:
            fields["model"] = fam.candidates[0]
            names = [self._model_name(c) for c in fam.candidates]
            typed = self.normalized[fam.start:fam.end]
            self.warnings.append(("parse.warn.family_pick", {
                "typed": typed, "options": describe.join_options(names, self.lang), "taken": names[0]}))
        elif fam.candidates and "params_b" not in fields:
            self.family = fam

    def _model_name(self, ident: str) -> str:
        model = self.catalog.find_model(ident)
        return model.display_name if model else ident

    def _typo_notes(self, fields: dict[str, Any]) -> None:
        """Say how a typo in a name was read ("read 'mistrl 7b' as Mistral 7B v0.3")."""
        for match in self.scan.names:
            if match.typed and match.kind == "model" and fields.get("model") == match.ident:
                self.warnings.append(("parse.warn.typo_name", {
                    "typed": self.normalized[match.start:match.end], "name": self._model_name(match.ident)}))
            elif match.typed and match.kind == "family" and self.family is match:
                self.warnings.append(("parse.warn.typo", {"typed": match.typed, "word": match.word}))
            elif match.typed and match.kind == "family" and fields.get("model") in match.candidates:
                self.warnings.append(("parse.warn.typo", {"typed": match.typed, "word": match.word}))

    def _weak_sizes(self, fields: dict[str, Any]) -> None:
        """"350M" with no word after it is a model size only when no model is named; beside a
        named model it is some other count we cannot tell (tokens? examples?): ask."""
        if not self.scan.weak_sizes or "model" not in fields:
            return
        weak = {tok.start for tok in self.scan.weak_sizes}
        sizes = [c for c in self.scan.claims if c.field == "params_b"]
        if sizes and all(c.pos in weak for c in sizes):
            fields.pop("params_b", None)
            self.scan.stray += self.scan.weak_sizes

    def _model_and_size(self, fields: dict[str, Any]) -> None:
        if "model" not in fields or "params_b" not in fields:
            return
        size = fields.pop("params_b")
        model = self.catalog.find_model(fields["model"])
        sibling = self._sibling_at(fields["model"], size)
        if sibling is not None:
            # "the 7B Qwen2.5 worked; now the PM wants the 72B one": a size said after the model, apart from it, of a
            # model of the same series the catalog has, names that sibling where a change or correction stands between
            # them (as a correction of any value does, ``_two_values``); without one, the message names two models
            models = [c.pos for c in self.scan.claims if c.field == "model"]
            sizes = [c.pos for c in self.scan.claims if c.field == "params_b"]
            if models and sizes and max(models) < min(sizes) and (
                    _CORRECTION.search(self.scan.marked, max(models), min(sizes))
                    or _SWITCH.search(self.scan.marked, max(models), min(sizes))):
                self.warnings.append(("parse.warn.corrected", {"field": t("parse.field.model", self.lang),
                                                               "taken": self._model_name(sibling),
                                                               "dropped": self._model_name(fields["model"])}))
                fields["model"] = sibling
                return
            self.conflicts.append(("model", [fields["model"], sibling]))
            self._conflict("model", [fields["model"], sibling])
            return
        if model is not None and model.params_total and abs(model.params_total / 1e9 - size) > SIZE_MISMATCH * size:
            self.warnings.append(("parse.warn.model_and_size", {
                "model": model.display_name, "size": f"{size:g}", "actual": f"{model.params_total / 1e9:.1f}"}))

    def _sibling_at(self, ident: str, size: float) -> str | None:
        """The catalog model of ``ident``'s series at ``size`` billion parameters ("qwen2.5-7b" at 72: "qwen2.5-72b"),
        by exact id only; None where it is ``ident`` itself or the catalog lacks it."""
        if _SIZE_IN_ID.search(ident) is None:
            return None
        sibling = _SIZE_IN_ID.sub(lambda m: f"-{size:g}b", ident, count=1)
        if sibling == ident:
            return None
        model = self.catalog.find_model(sibling)
        return model.id if model is not None and model.id == sibling else None

    def _examples(self, fields: dict[str, Any]) -> None:
        lens = self.scan.example_lens
        seq = self.scan.example_seq
        means = self.scan.sample_means
        if means and not self.scan.examples and "length_distribution" not in fields \
                and "length_distribution" in SpecRequest.model_fields and 0 < means[0] <= MAX_SEQ_LEN:
            # "avg sample length 700 tokens" with no count of samples: how long they are (advisor.spec.LengthDistribution);
            # with a count ("50,000 samples, avg 700 tokens each") the pair is the dataset's size instead
            fields["length_distribution"] = {"mean": means[0]}
        if lens and not self.scan.examples and seq and all(float(v).is_integer() for v, _ in seq):
            # "4096 tokens per example" without a count: the length (k = 1024). Said beside another length ("seq
            # 16384 ... no, perdón: 2048 tokens por muestra", "max 8192 tokens per sample, actually max 16384 tokens
            # per sample"), it is a second value of the length, settled like any other two (a correction between
            # them takes the later, else a question back), never silently dropped for the first
            said = [(int(v), p) for v, p in seq]
            if "seq_len" in fields and not any(name == "seq_len" for name, _ in self.conflicts):
                first = min((p for p in self._claimed_at.get("seq_len", [[]])[0]), default=None)
                if first is not None:
                    said.append((fields["seq_len"], first))
            said.sort(key=lambda x: x[1])
            vals: list[int] = []
            where: list[int] = []
            for v, p in said:
                if v not in vals:
                    vals.append(v)
                    where.append(p)
            fields["seq_len"] = vals[0] if len(vals) == 1 else self._two_values("seq_len", vals, where)
        if not self.scan.examples or "dataset_tokens" in fields:
            return
        examples, at = self.scan.examples[0]
        if lens and float(examples).is_integer():  # "1.5M examples; 300 tokens each"
            # the length said right after the count is its length ("10k rows, ~2000 tokens each"); another
            # per-sample length ("16k tokens per sample") is then the sequence length
            after = [x for x in lens if x[1] > at]
            length, where = min(after, key=lambda x: x[1]) if after else lens[-1]
            fields["dataset_tokens"] = int(min(examples * length, HUGE))
            other = [v for v, p in seq if p != where]
            if other and "seq_len" not in fields and float(other[0]).is_integer():
                fields["seq_len"] = int(other[0])
            return
        seq = fields.get("seq_len") or (self.previous.seq_len if self.previous else None)
        shown = describe.number(examples, self.lang)
        if seq and examples * seq >= 1 and float(examples).is_integer():
            fields["dataset_tokens"] = int(examples * seq)
            self.warnings.append(("parse.warn.examples_at_seq", {"examples": shown, "seq": describe.number(seq, self.lang)}))
        else:
            self.warnings.append(("parse.warn.examples_need_length", {"examples": shown}))

    def _increments(self) -> None:
        """"+2 GPUs", "two more epochs" in a thread: the thread's value plus two. A value the thread never
        fixed has nothing said to add to (a GPU count was the recommender's pick per GPU; epochs were the
        documented default, an assumption the answer listed, not the user's): ask for the total
        (``relative_unknown``), as tables 5 and gen15 label "one more epoch" / "dos épocas más" there. A
        value said outright in the same message ("4 GPUs") wins over an increment."""
        for name, change in self.increments.items():
            if getattr(self.delta, name) is not None:
                continue
            base = getattr(self.previous, name) if self.previous is not None else None
            if base is None or base + change < 1:
                self.relative_unknown.append(name)
                continue
            value = base + change
            self.delta = self.delta.model_copy(update={name: int(value) if float(value).is_integer() else value})

    def _delta(self) -> SpecRequest:
        known = SpecRequest.model_fields  # (read once: pydantic's accessor is a descriptor call each time)
        fields = {k: v for k, v in self.fields.items() if k in known}
        costs = dict(self.scan.costs) or None
        while True:
            try:
                return SpecRequest(**fields, costs=costs)
            except ValidationError as exc:  # a bound the rules did not know: report it, drop the value
                for err in exc.errors():
                    name = str(err["loc"][0]) if err.get("loc") else ""
                    if name in fields:
                        self.scan.limits.append((name, fields.pop(name)))
                    else:
                        costs = None

    # --- what kind of message ----------------------------------------------------------------

    def result(self) -> ParseResult:
        text, delta = self.scan.marked, self.delta
        said = list(delta.said())
        named_model = delta.model is not None or delta.params_b is not None
        if intents.is_reset(self.normalized):
            if not said:
                return self._make("reset", delta, delta)
            if not (self.previous is not None and not named_model and intents.is_scratch(text)):
                self.previous = None  # "start over: QLoRA llama 70b" is a fresh request ("scratch that, 8k" corrects)
        elif not said and intents.is_help(self.normalized):
            return self._make("help", delta, delta)
        if self.scan.limits:
            return self._clarify_limit()
        if self.scan.unreadable:
            return self._clarify_unreadable()
        unsure = self._unsure(delta)
        if unsure is not None:
            return self._clarify_unsure(unsure)
        # (each intent's cheap test first: the cues' regexes over a pasted config cost more than the rest of this
        # method; every test is a pure function of the text, so the order changes no answer)
        faq_fields = set(said) <= _FAQ_FIELDS
        if faq_fields and intents.is_persist_question(self.normalized):
            return self._make("faq", delta, delta, faq="what_persists", params=self._faq_params(delta))
        if not said and not self.gpus and intents.is_gpu_choice(self.normalized):
            return self._make("faq", delta, delta, faq="gpu_choice", params={"gpus": []})
        catalog_q = intents.catalog_question(text) if not named_model and not delta.method else None
        if catalog_q is not None:
            params = {**catalog_q, **({"gpu": self.gpus[0]} if self.gpus else {})}
            return self._make("catalog", delta, delta, params=params)
        if len(self.gpus) >= 2 and intents.compared_gpus(text):
            return self._compare()
        if self.gpus and faq_fields and intents.is_can_i(text) and (
                self.previous is None or named_model or intents.names_generic_model(self.normalized)):
            return self._make("faq", delta, delta, faq="can_i_gpu", params=self._faq_params(delta))
        if self.conflicts:
            return self._clarify_conflict()
        if self.relative_unknown:
            return self._clarify_relative()
        if self.previous is not None and (intents.has_followup_cue(self.normalized) or not named_model
                                          or delta.method is None):
            return self._followup()
        if self.family_size is not None and not named_model:
            return self._clarify_family_size()
        if self.family is not None and not named_model:
            return self._clarify_family(delta)
        # (a number in a message that speaks of nothing we size, "¿dónde está la sala de reuniones 3?", is no setting
        # to ask about; a short one, "what about 64?", is)
        if self._stray_number() is not None and (said or intents.about_training(text) or len(self.normalized.split()) <= 4):
            return self._clarify_number(delta)
        if not said:
            return self._clarify("nothing", delta, t("parse.clarify.nothing", self.lang))
        if set(said) <= {"gpu", "num_gpus", "region"} and intents.is_chatter(self.normalized):
            # a card named in talk about people ("did anyone book the H100s?"): no request, and nothing for the thread
            self.delta = SpecRequest()
            return self._clarify("nothing", self.delta, t("parse.clarify.nothing", self.lang))
        if not named_model:
            return self._clarify("model", delta, t("parse.clarify.model", self.lang))
        return self._make("estimate", delta, delta)

    def _followup(self) -> ParseResult:
        assert self.previous is not None
        unscaled = {k: v for k, v in relative.unscaled(self.normalized, self.previous).items()
                    if getattr(self.delta, k) is None}
        if unscaled:  # "el doble de GPUs" where the thread has no count: ask for the total
            self.relative_unknown.extend(unscaled)
            self.relative_factors = unscaled
            return self._clarify_relative()
        times = relative.multiplied(self.normalized)
        if times:  # "el lote por 4": the 4 the slots read beside the batch is the factor, not the batch
            self.delta = self.delta.model_copy(update={k: None for k in times})
            self.scan.stray = []
        scaled = {k: v for k, v in relative.changes(self.normalized, self.previous).items()
                  if getattr(self.delta, k) is None}
        if scaled:  # "double the context": a change like "seq 16384", checked against the spec's bounds
            try:
                self.delta = self.delta.model_copy(update=scaled)
                SpecRequest.model_validate(self.delta.model_dump())
                self.scan.stray = []  # ("make the context 2x": the 2 is the factor, not a number of its own)
            except ValidationError:
                self.delta = self.delta.model_copy(update={k: None for k in scaled})
        self._sibling_size()
        self._sibling_version()
        merged = merge(self.previous, self.delta)
        goal = intents.goal(self.normalized)
        if goal is not None and self.delta.gpu is None:  # "cheaper option?": rank every GPU again
            merged = merged.model_copy(update={"gpu": None, "num_gpus": self.delta.num_gpus})
            return self._make("followup", merged, self.delta, params={"goal": goal})
        if self.family_size is not None and self.delta.model is None and self.delta.params_b is None:
            return self._clarify_family_size()
        if not self.delta.said():
            if self.family is not None:
                return self._clarify_family(merged)
            if self._stray_number() is not None:
                return self._clarify_number(merged)
            if intents.is_thanks(self.normalized):  # "thanks! 👍": nothing asked, nothing to change
                return self._clarify("nothing", merged, t("parse.clarify.nothing", self.lang))
            return self._clarify("followup_empty", merged, t("parse.clarify.followup_empty", self.lang),
                                 example=t("parse.example.followup", self.lang))
        self._thread_value_named()
        if self._stray_number() is not None:
            # a number nothing explains beside a change ("and lora, 16", "8 GPUs\n16"): asked about, as in a new
            # request, never dropped while the rest is answered
            return self._clarify_number(merged)
        return self._make("followup", merged, self.delta)

    def _thread_value_named(self) -> None:
        """"rank 16 is enough, drop it from 64", "con rango 16 alcanza, bajalo de 64" in a thread whose rank is 64: a
        number left over beside a change of one field, equal to the thread's value of that same field, is the value
        changed from, not a new one (only fields this message changes, so "lora, 16" still asks)."""
        previous = self.previous
        if previous is None or not self.scan.stray:
            return
        changed = [(name, kind) for name, kind in _THREAD_FIELDS
                   if getattr(self.delta, name, None) is not None and getattr(previous, name, None) is not None]
        self.scan.stray = [tok for tok in self.scan.stray if not any(
            _same_number(slots.value_of(tok, kind, self.lang), getattr(previous, name)) for name, kind in changed)]

    def _sibling_size(self) -> None:
        """"what if it's the 14b?", "go with the 4b instead", "¿y si es el de 14b?" in a thread on Qwen2.5 7B: a bare
        size there is the thread's model series at that size (Qwen2.5 14B) where the catalog has it, the way a person
        reads it, not a generic model of that size with another architecture. Elsewhere it stays a size."""
        previous = self.previous
        if previous is None or previous.model is None or self.delta.params_b is None or self.delta.model is not None:
            return
        size = self.delta.params_b
        sibling = _SIZE_IN_ID.sub(lambda m: f"-{size:g}b", previous.model, count=1)
        if sibling == previous.model or _SIZE_IN_ID.search(previous.model) is None:
            return
        model = self.catalog.find_model(sibling)
        if model is not None and model.id == sibling:  # that id exactly, never a near name the finder offers
            self.delta = self.delta.model_copy(update={"model": model.id, "params_b": None})

    def _sibling_version(self) -> None:
        """"use v0.1 of the model", "usa la v0.1 del modelo" in a thread on Mistral 7B v0.3: the thread's model at
        that release, where the catalog has it."""
        previous = self.previous
        if previous is None or previous.model is None or self.delta.model is not None or self.delta.params_b is not None:
            return
        said = _VERSION_SAID.search(self.normalized)
        if said is None or _VERSION_IN_ID.search(previous.model) is None:
            return
        release = _VERSION_IN_ID.sub(f"-v{said.group(1)}", previous.model, count=1)
        model = self.catalog.find_model(release)
        if model is not None and model.id == release and release != previous.model:
            self.delta = self.delta.model_copy(update={"model": model.id})

    def _compare(self) -> ParseResult:
        base = self.delta.model_copy(update={"gpu": None})
        request = merge(self.previous, base).model_copy(update={"gpu": None}) if self.previous is not None else base
        counts = {self._gpu_at(i): n for i, n in self.scan.gpu_counts.items()}
        # "8 A100s or 4 H100s" is the comparison itself, not a contradiction
        fields = {t("parse.field.num_gpus", self.lang), t("parse.field.gpu", self.lang)}
        self.warnings = [w for w in self.warnings if not (w[0] == "parse.warn.conflict" and w[1]["field"] in fields)]
        if len(set(counts.values())) > 1 or counts and len(counts) < len(set(self.gpus)):
            # counts that differ, or a count for only some of the GPUs ("two H100s or one H200", "¿dos H100 o basta con
            # una H200?"): no one count for the request; each GPU keeps its own (``gpu_counts``)
            request = request.model_copy(update={"num_gpus": None})
            base = base.model_copy(update={"num_gpus": None})
        if request.model is None and request.params_b is None:
            faq = "a100_or_h100" if (set(self.gpus) & _A100 and set(self.gpus) & _H100 and len(self.gpus) == 2) else "gpu_choice"
            return self._make("faq", request, base, faq=faq, params={"gpus": list(self.gpus)}, gpus=self.gpus)
        return self._make("compare", request, base, gpus=self.gpus, gpu_counts=counts)

    def _gpu_at(self, index: int) -> str:
        return self.scan.of_kind("gpu")[index].ident or ""

    def _faq_params(self, delta: SpecRequest) -> dict[str, Any]:
        keys = ("gpu", "num_gpus", "model", "params_b")
        return {k: getattr(delta, k) for k in keys if getattr(delta, k) is not None}

    # --- questions back ------------------------------------------------------------------------

    def _clarify_limit(self) -> ParseResult:
        lines = []
        for name, value in self.scan.limits:
            lines.append(t("parse.clarify.limit", self.lang, field=t(f"parse.field.{name}", self.lang).capitalize(),
                           value=describe.number(value, self.lang) if isinstance(value, (int, float)) and abs(value) < 1e15
                           else f"{value:.3g}" if isinstance(value, float) else str(value),
                           bounds=self._bounds_text(name)))
        request = merge(self.previous, self.delta) if self.previous is not None else self.delta
        return self._clarify("limit", request, " ".join(lines))

    def _bounds_text(self, name: str) -> str:
        lo, hi, lo_open, hi_open = _bounds(name)
        key = "parse.bounds.above" if lo_open else "parse.bounds.below" if hi_open else "parse.bounds.range"
        return t(key, self.lang, lo=describe.number(lo, self.lang), hi=describe.number(hi, self.lang))

    def _stray_number(self) -> str | None:
        """A number nothing explains ("what about 64?", "llama 3 8b 64"): the user meant a setting
        we cannot tell, so we ask instead of leaving it out (``advisor.parse.slots``)."""
        if not self.scan.stray:
            return None
        tok = min(self.scan.stray, key=lambda t: t.start)
        return self.scan.marked[tok.start:tok.end].strip() or tok.text

    def _unsure(self, delta: SpecRequest) -> NameMatch | None:
        """A name we could not read for sure, where nothing else names that thing."""
        for match in self.unsure:
            is_gpu = match.word == "gpu"
            if is_gpu and delta.gpu is None or not is_gpu and delta.model is None and delta.params_b is None:
                return match
        return None

    def _clarify_unsure(self, match: NameMatch) -> ParseResult:
        is_gpu = match.word == "gpu"
        names = [self._gpu_name(c) if is_gpu else self._model_name(c) for c in match.candidates[:6]]
        key = "parse.clarify.unknown_model" if match.word == "unknown" else "parse.clarify.did_you_mean"
        if not names:  # nothing in the catalog is close: no empty "did you mean ?", say what would work
            key = "parse.clarify.unknown_gpu_none" if is_gpu else "parse.clarify.unknown_model_none"
        question = t(key, self.lang, typed=self.normalized[match.start:match.end].strip(),
                     options=describe.join_options(names, self.lang))
        request = merge(self.previous, self.delta) if self.previous is not None else self.delta
        example = describe.example_message(request.model_copy(update={("gpu" if is_gpu else "model"): match.candidates[0]}),
                                           self.lang) if match.candidates else None
        return self._clarify("did_you_mean", request, question, example=example)

    def _stated_variant(self, gpus: list[str]) -> list[str]:
        """A card's memory variant stated by a pasted machine type ("a2-highgpu-8g": A100 40 GB; "ml.p4d.24xlarge"),
        beside the card's bare name ("accelerator_type: NVIDIA_TESLA_A100", "(8x A100)"): one card, the variant the
        type states. The bare name said no memory (its catalog id's memory is the catalog's reading of a bare "A100",
        not the user's), so it is no second value against the type's. Only where the stated variant came from no
        name at all (a rule's claim) and every bare one is the same card with another memory; two cards both named,
        or a memory typed in either name ("A100 80GB"), stay two values (a question back)."""
        if len(gpus) < 2:
            return gpus
        named = {m.ident for m in self.scan.names if m.kind == "gpu" and m.ident in gpus}
        bare = set()
        for m in self.scan.names:
            if m.kind == "gpu" and m.ident in gpus:
                memory = _MEMORY_IN_ID.search(m.ident)
                if memory is None or memory.group(1) in self.normalized[m.start:m.end]:
                    return gpus  # a name that says its memory (or has none in its id): the user's own value
                bare.add(m.ident)
        kept = [g for g in gpus if g not in named]
        cards = {_MEMORY_IN_ID.sub("", g) for g in kept}
        if len(kept) != 1 or not bare or any(_MEMORY_IN_ID.sub("", b) not in cards for b in bare):
            return gpus
        return kept

    def _gpu_name(self, ident: str) -> str:
        gpu = self.catalog.find_gpu(ident)
        return gpu.display_name if gpu else ident

    def _vague(self) -> set[int]:
        """Vague values (``advisor.parse.vague``) for fields the message gives no value: each is asked about as
        an unreadable value of its own field, with a question that says what the phrase lacks."""
        fields, at = self.fields, set()
        asked = {u[0] for u in self.scan.unreadable}  # a value a rule already found unreadable ("num_gpus: several")
        for name, typed, pos in vague.find(self.scan.marked):
            if name in fields or name in asked or name == "num_gpus" and "num_gpus" in self.increments \
                    or name == "dataset_tokens" and self.scan.examples or name == "seq_len" and self.scan.example_seq \
                    or name == "params_b" and ("model" in fields or self.family is not None or self.family_size is not None
                                               or self.scan.of_kind("unsure") or self.scan.of_kind("family")):
                continue  # "a big model like Llama 3.1 70B", "long context (32k)": the value is said too
            self.scan.unreadable.append((name, self._unmark(typed), pos))
            at.add(pos)
        return at

    def _unmark(self, text: str) -> str:
        """``text`` of ``Scan.marked`` with each name's placeholder written back as it was typed."""
        if "§" not in text:
            return text
        by_kind: dict[str, list[NameMatch]] = {}
        for match in self.scan.names:
            by_kind.setdefault(match.kind, []).append(match)
        kinds = {letter: kind for kind, letter in _PLACEHOLDER.items()}

        def back(m: re.Match[str]) -> str:
            found = by_kind.get(kinds.get(m.group(1), ""), [])
            i = int(m.group(2))
            return self.normalized[found[i].start:found[i].end] if i < len(found) else m.group(0)
        return " ".join(re.sub(r"§([A-Z])(\d+)§", back, text).split())

    def _clarify_unreadable(self) -> ParseResult:
        name, typed, pos = self.scan.unreadable[0]
        question = unreadable_question(name, typed, self.lang, vague=pos in self.vague)
        request = merge(self.previous, self.delta) if self.previous is not None else self.delta
        return self._clarify("unreadable", request, question,
                             example=self._example(request.model_copy(update={name: _example_setting(name)})))

    def _clarify_conflict(self) -> ParseResult:
        """Two values for one field and no word saying which is the correction: ask which, with the
        values as typed back, instead of sizing one of them."""
        name, vals = self.conflicts[0]
        shown = [self._gpu_name(v) if name == "gpu" else self._show(name, v) for v in vals]
        question = t("parse.clarify.conflict", self.lang, field=t(f"parse.field.{name}", self.lang),
                     options=describe.join_options(shown, self.lang))
        self.warnings = [w for w in self.warnings if w[0] != "parse.warn.conflict"]  # the question says it
        # neither value is kept: the thread's request holds what was said once, and the answer says which
        self.delta = self.delta.model_copy(update={n: None for n, _ in self.conflicts if n in SpecRequest.model_fields})
        request = merge(self.previous, self.delta) if self.previous is not None else self.delta
        example = None
        if name in SpecRequest.model_fields and (request.model is not None or request.params_b is not None):
            example = describe.example_message(request.model_copy(update={name: vals[-1]}), self.lang)  # one value, said once
        return self._clarify("conflict", request, question, example=example)

    def _clarify_relative(self) -> ParseResult:
        """"+2 GPUs" with no count to add to (a first message, or a thread whose GPU count the
        recommender chose): ask for the total instead of reading the change as the count."""
        name = self.relative_unknown[0]
        factor = getattr(self, "relative_factors", {}).get(name)
        change = self.increments[name] if factor is None else 1
        question = t("parse.clarify.relative", self.lang, field=t(f"parse.field.{name}", self.lang),
                     change=f"{change:+g}" if factor is None else f"×{factor:g}")
        request = merge(self.previous, self.delta) if self.previous is not None else self.delta
        example = describe.example_message(request.model_copy(update={name: max(2, abs(int(change)) + 1)}), self.lang) \
            if request.model is not None or request.params_b is not None else None
        return self._clarify("relative", request, question, example=example)

    def _clarify_number(self, request: SpecRequest) -> ParseResult:
        value = self._stray_number() or ""
        question = t("parse.clarify.number", self.lang, value=value)
        return self._clarify("number", request, question,
                             example=t("parse.say.lora_rank", self.lang, value=value) if value.isdigit()
                             else t("parse.say.seq_len", self.lang, value=value))

    def _clarify_family_size(self) -> ParseResult:
        """"Falcon3-7B" when the catalog's Falcons are 7B-less: say so, name the family's catalog models
        nearest in size, and offer the Hub id (read into an architecture, ``advisor.hub``) or a generic
        model of that size, said on purpose ("a 7B model")."""
        fam = self.family_size
        assert fam is not None and fam.size_b is not None
        size = fam.size_b
        kin = sorted((m for m in self.catalog.models() if m.family == fam.family and m.params_total and m.id != "tiny-test"),
                     key=lambda m: (abs(m.params_total / 1e9 - size), -m.params_total))
        # the nearest smaller and the nearest larger first (what would fit either way), then the next nearest
        below = [m for m in kin if m.params_total / 1e9 < size][:1]
        above = [m for m in kin if m.params_total / 1e9 > size][:1]
        near = list({m.id: m for m in [*below, *above, *kin]}.values())[:3]
        typed = self.normalized[fam.start:fam.end].strip()
        question = t("parse.clarify.family_size" if near else "parse.clarify.family_size_none", self.lang, typed=typed,
                     family=fam.family.title(), size=f"{size:g}",
                     options=describe.join_options([m.display_name for m in near], self.lang))
        request = merge(self.previous, self.delta) if self.previous is not None else self.delta
        example = describe.example_message(request.model_copy(update={"model": near[0].id}), self.lang) if near else None
        return self._clarify("family_size", request, question, example=example)

    def _clarify_family(self, request: SpecRequest) -> ParseResult:
        assert self.family is not None
        names = [self._model_name(c) for c in self.family.candidates[:6]]
        question = t("parse.clarify.family", self.lang, family=self.family.family.title(),
                     options=describe.join_options(names, self.lang))
        example = describe.example_message(request.model_copy(update={"model": self.family.candidates[0]}), self.lang)
        return self._clarify("family", request, question, example=example)

    def _clarify(self, code: str, request: SpecRequest, question: str, example: str | None = None) -> ParseResult:
        return self._make("clarify", request, self.delta, question=question, clarify_code=code,
                          example=example or self._example(request))

    def _example(self, request: SpecRequest) -> str:
        fixes = {name: DEFAULTS[name].value if name in DEFAULTS else _bounds(name)[1]
                 for name, _ in self.scan.limits if name in SpecRequest.model_fields}
        request = SpecRequest(**{**request.said(), **fixes})
        if not request.said():
            return t("parse.example.estimate", self.lang)
        if request.model is None and request.params_b is None:
            model = self.catalog.find_model(EXAMPLE_MODEL) or self.catalog.models()[0]
            request = request.model_copy(update={"model": model.id})
        return describe.example_message(request, self.lang)

    def _make(self, intent: str, request: SpecRequest, delta: SpecRequest, **extra: Any) -> ParseResult:
        warnings = [t(key, self.lang, **fields) for key, fields in self.warnings]
        return ParseResult(lang=self.lang, intent=intent, request=request, delta=delta, said=list(delta.said()),
                           warnings=warnings, warning_codes=[key for key, _ in self.warnings], **extra)


def merge(previous: SpecRequest, delta: SpecRequest) -> SpecRequest:
    """``previous`` with what ``delta`` says, keeping the request coherent: a new model drops the
    old size and architecture overrides (and vice versa), and LoRA or full drops a 4-bit quant."""
    merged = previous.merged(delta)
    clear: dict[str, Any] = {}
    if delta.model is not None:
        clear["params_b"] = None
    if delta.params_b is not None and delta.model is None:
        clear["model"] = None
    if delta.model is not None or delta.params_b is not None:
        clear.update({k: None for k in ARCH_OVERRIDES if getattr(delta, k) is None})
    if delta.method in ("lora", "full") and delta.quant is None:
        clear.update(quant=None, double_quant=None)
    return merged.model_copy(update=clear) if clear else merged
