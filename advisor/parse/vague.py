"""Vague values: a field the user mentions with a quantity nobody can size ("a few epochs").

"a few epochs", "unas cuantas épocas", "a bunch of GPUs", "some data", "a big model", "long context"
each say that the user cares about a field and did not say its value. Sizing a default there would
answer a question nobody asked (the default is not what "a few" meant, and the answer would not even
list it as assumed: the user did speak of it), so the parser asks about that field instead
(``request._Assembler``: clarify code "unreadable", the question ``parse.clarify.vague.<field>``).

A vague phrase is a question only where the message says no value for that field elsewhere: "a big
model like Llama 3.1 70B", "long context (32k)", "a few GPUs, 4 H100s" describe a value they also
state, and are read as the value. A count people say exactly in words ("a couple of GPUs", "un par de
épocas": two, ``slots.WORD_NUMBERS``) is no vague value.

``find`` runs on the normalized text with names replaced by placeholders (``Scan.marked``): lower-case
ASCII, so "épocas" is "epocas" and "montón" is "monton".
"""

from __future__ import annotations

import re

# Quantifiers that count without a number, in both languages (Spanish in every gender). "how many GPUs?" asks,
# "too many epochs" judges, "twice as many GPUs" scales the thread's count (``relative``): none states a value. "some" counts only a plural ("some GPUs"; "some L40S card" is
# one card, which one unsaid: ``_SOME``).
_FEW = (r"(?<!how\s)(?<!too\s)(?<!so\s)(?<!as\s)(?:a\s+few|few|several|many|multiple|various|a\s+bunch\s+of|bunch\s+of|a\s+lot\s+of|lots\s+of"
        r"|plenty\s+of|a\s+handful\s+of|handful\s+of|a\s+number\s+of|a\s+ton\s+of|tons\s+of|loads\s+of|a\s+load\s+of"
        r"|unas\s+cuantas|unos\s+cuantos|unas\s+pocas|unos\s+pocos|pocas|pocos|varias|varios|algunas|algunos"
        r"|muchas|muchos|muchisimas|muchisimos|bastantes|un\s+monton\s+de|montones\s+de|un\s+punado\s+de)")
# Adjectives of size: a big model, a huge dataset, un modelo grande, un dataset enorme.
_BIG = r"(?:big|bigger|large|larger|huge|massive|giant|enormous|small|smaller|tiny|medium(?:[\s-]+sized)?|mid[\s-]*sized|decent[\s-]*sized)"
_GRANDE = r"(?:grande|grandes|enorme|enormes|gigante|pequeno|pequena|pequenos|chico|chica|mediano|mediana)"

_EPOCHS = r"(?:epochs?|passes|epocas?|pasadas)"
_SOME = r"\bsome\s+(?:more\s+)?(?:gpus|cards|devices|accelerators)\b"
# A count said with "-ish" or "or so" ("a couple-ish of GPUs", "4-ish GPUs" is a number the slots read): no count
_ISH = r"\b(?:a\s+)?(?:couple|few|handful)[\s-]*ish\s+(?:of\s+)?"
_GPUS = r"(?:(?:§G\d+§\s*)?(?:gpus?|cards?|tarjetas?|graficas?|devices|dispositivos|accelerators|aceleradores)|§G\d+§)"
_DATA = (r"(?:(?:training\s+)?data|datos(?:\s+de\s+entrenamiento)?|tokens?|(?:training\s+)?(?:examples|samples)|ejemplos|muestras"
         r"|(?:million|billion|millones)\s+(?:of\s+|de\s+)?tokens)")
_DATASET = r"(?:dataset|data\s*set|corpus|training\s+set|set\s+de\s+datos|conjunto\s+de\s+datos)"
_MODEL = r"(?:model|llm|network|modelo|red)"
# (a judgement of the length is no length either: "a decent context", "a reasonable sequence length", "un contexto
# decente", "un buen contexto")
_LONG = r"(?:(?:very\s+|really\s+|super\s+)?(?:long|longer|short|shorter|large|big|huge|decent|reasonable|generous))"
_SEQ = r"(?:context(?:\s+windows?|\s+lengths?)?|sequences?|seqs|inputs|prompts|documents|docs)"
_LARGO = r"(?:largos?|largas?|cortos?|cortas?|grandes?|extensos?|extensas?|decentes?|razonables?|generos[oa]s?|ampli[oa]s?)"
# "el dataset de siempre", "dataset: the usual", "our usual dataset", "the same data as always": a dataset named by habit,
# its size unsaid
_USUAL = (r"\b" + _DATASET + r"\s*(?::\s*|\s+is\s+|\s+es\s+)?(?:the\s+usual(?:\s+one)?|(?:the\s+)?same\s+as\s+(?:always|usual|before"
          r"|last\s+time)|(?:el\s+|lo\s+)?de\s+siempre|(?:el|la|los|las)\s+[a-z]+\s+de\s+siempre|the\s+usual\s+[a-z]+|el\s+habitual|el\s+mismo\s+(?:de\s+siempre|que\s+(?:siempre|antes)))\b"
          r"|\b(?:the|our)\s+usual\s+" + _DATASET + r"\b|\b(?:nuestro\s+|el\s+)?" + _DATASET + r"\s+habitual\b"
          r"|\b(?:the\s+)?same\s+(?:data|" + _DATASET + r")\s+as\s+(?:always|usual|before|last\s+time)\b"
          r"|\blos\s+(?:mismos\s+)?datos\s+de\s+siempre\b")
_SEQ_ES = r"(?:contextos?|secuencias?|ventanas?\s+de\s+contexto|entradas|documentos)"
# A piece of the data with no size ("on a chunk of our data", "a subset of the corpus", "sobre un pedazo de nuestros
# datos", "un trozo del dataset"): the user sizes the data by a part nobody can count
_DATA_PORTION = (r"\b(?:an?\s+)?(?:(?:big|small|large|good|decent)\s+)?(?:chunk|portion|slice|subset|fraction|piece)\s+of\s+"
                 r"(?:the\s+|our\s+|my\s+|their\s+)?(?:training\s+)?(?:data|" + _DATASET + r")\b"
                 r"|\b(?:una?\s+)?(?:pedazo|trozo|cacho|porcion|subconjunto|fraccion)\s+(?:de\s+(?:los\s+|nuestros\s+|mis\s+|sus\s+|el\s+)?|del\s+)"
                 r"(?:datos|" + _DATASET + r")\b")
# "the biggest batch that fits", "el lote más grande que quepa": the batch left to what fits, no value said
_MAX_BATCH = (r"\b(?:the\s+)?(?:largest|biggest|max(?:imum)?)\s+(?:micro[\s-]*)?(?:batch(?:\s+size)?|bs)\s+(?:that\s+|we\s+can\s+|which\s+)?"
              r"(?:fits?|possible|get|fit)\b"
              r"|\b(?:el\s+)?(?:micro[\s-]*)?(?:lote|batch)\s+mas\s+grande\s+(?:que\s+(?:quepa|entre|se\s+pueda|podamos)|posible)\b")

# A setting's key, its colon, then a quantity with no number ("GPUs: a bunch of them", "GPUs: unas cuantas",
# "tokens: a big chunk of the wiki dump", "tokens: un buen trozo del volcado", "epochs: a few"): the user states
# the field (the key says which) and its value, which nobody can size. The quantifier stands alone (the value
# ends at a stop, "of them" / "de ellas" at most after it), or names a part of something unsized ("a chunk of",
# "half of", "una parte de"); "GPUs: a few H100s" is the count phrase above, "tokens: 50M" a number.
_FEW_BARE = (_FEW + r"|a\s+lot|lots|plenty|a\s+ton|tons|loads|a\s+bunch|a\s+handful|un\s+monton|un\s+punado|some|bastantes"
             r"|unas|unos")
_PORTION = (r"(?:(?:an?|one|the)\s+)?(?:(?:big|good|large|huge|small|decent|fair|sizable|sizeable|healthy|major|tiny)\s+)?"
            r"(?:chunk|part|portion|slice|share|fraction|piece|subset)\s+of\b|(?:most|half|some)\s+of\s+(?!them\b)"
            r"|(?:(?:un|una|el|la)\s+)?(?:(?:buen|buena|gran|pequeno|pequena)\s+)?(?:trozo|pedazo|cacho|parte|porcion|fraccion"
            r"|subconjunto)\s+(?:de|del)\b|(?:la\s+)?(?:mayor\s+parte|mitad)\s+(?:de|del)\b")
# A count left to something else ("GPUs: as many as the budget allows", "GPUs: las que alcance el presupuesto",
# "épocas: las que diga la guía", "epochs: however many it takes", "GPUs: whatever fits"): a value said, none given.
_LEFT_TO = r"(?:as\s+(?:many|much)\s+as|however\s+(?:many|much)|whatever|(?:las|los)\s+que)\b"
_STATED_VAGUE = (r"[ \t]*[:=][ \t]*(?P<value>(?:" + _FEW_BARE + r")(?:\s+(?:of\s+)?them|\s+de\s+ell[ao]s)?"
                 r"(?=[ \t]*(?:$|[,;.|)(\n!?]|(?:and|but|or|y|pero|o)\s))|(?:" + _PORTION + "|" + _LEFT_TO + r")[^,;.|()\n!?]*)")
_KEY = {"num_gpus": r"\b(?:gpus|gpu\s+count|num[\s_]gpus|cards|tarjetas|graficas)",
        "dataset_tokens": r"\b(?:(?:training\s+)?tokens|(?:training\s+)?data|dataset|corpus|datos|tokens\s+de\s+entrenamiento)",
        "epochs": r"\b(?:epochs|epocas|passes|pasadas)"}

_VAGUE = {
    "epochs": re.compile(r"\b(?:" + _FEW + r"|some)\s+(?:more\s+)?" + _EPOCHS + r"\b"),
    "num_gpus": re.compile(r"\b" + _FEW + r"\s+" + _GPUS + r"(?![a-z])|\bmulti[\s-]*(?:gpu|node)\b|" + _SOME + "|" + _ISH + _GPUS),
    "dataset_tokens": re.compile(r"\b(?:" + _FEW + r"|some)\s+" + _DATA + r"\b|\b(?:an?\s+|the\s+|our\s+)?" + _BIG + r"\s+" + _DATASET + r"\b"
                                 r"|\b(?:un|el|nuestro)\s+" + _DATASET + r"\s+" + _GRANDE + r"\b"
                                 r"|\b(?:a\s+few|several|some|unos\s+cuantos|unos\s+pocos|varios)\s+(?:million|billion|millones)\b"
                                 r"|" + _DATA_PORTION + r"|" + _USUAL),
    "params_b": re.compile(r"\b(?:an?\s+|the\s+|our\s+|some\s+)" + _BIG + r"\s+(?:(?:open|base|custom|dense|instruct)\s+)?" + _MODEL + r"\b"
                           r"|\b(?:un|el|nuestro)\s+" + _MODEL + r"\s+" + _GRANDE + r"\b"),
    "seq_len": re.compile(r"\b" + _LONG + r"[\s-]+" + _SEQ + r"\b|\b" + _SEQ_ES + r"\s+(?:(?:muy|bien|super|re)\s+)?" + _LARGO + r"\b"
                          r"|\bun\s+buen\s+contexto\b"),
    "micro_batch": re.compile(_MAX_BATCH),
}
# A sufficiency frame standing for the count: "enough epochs to converge", "as many GPUs as it needs", "las épocas que
# hagan falta", "tantas GPUs como haga falta": a value said by what it must achieve, which nobody can read (asked)
_NEED = (r"(?:hagan?\s+falta|sean?\s+necesari[oa]s?|se\s+necesiten?|necesite|haga\s+falta|aguante|quepan?)")
for _name, _noun in (("epochs", _EPOCHS), ("num_gpus", _GPUS), ("dataset_tokens", _DATA)):
    # ("enough" only of epochs: "do we have enough GPUs for ...", "enough data to ...?" ask whether they suffice)
    _enough = r"|\b(?:enough|sufficient)\s+" + _noun + r"\s+(?:to|for|until)\b" if _name == "epochs" else ""
    _VAGUE[_name] = re.compile(_VAGUE[_name].pattern + _enough +
                               r"|\bas\s+many\s+" + _noun + r"\s+as\s+(?:it\s+|we\s+|you\s+)?(?:takes?|needs?|needed|necessary|required)\b"
                               r"|\b(?:las|los|tantas|tantos)\s+" + _noun + r"\s+(?:que|como)\s+" + _NEED + r"\b")
_STATED = {name: re.compile(key + _STATED_VAGUE) for name, key in _KEY.items()}
# The data named, then its size disowned in the same clause ("data: the Q2 export, no idea how big", "the support
# logs, size unknown", "datos: el export del T2, ni idea del tamaño", "el corpus legal, no sé cuántos tokens"): the
# user states the dataset and says they cannot size it; a default would answer for them
_SIZE_UNKNOWN = (r"(?:no\s+idea|not\s+sure|unsure|(?:i\s+)?(?:don'?t|do\s+not)\s+know|ni\s+idea|no\s+(?:se|sabemos|sabria))"
                 r"\s+(?:of\s+|about\s+|on\s+)?(?:how\s+(?:big|large|many\s+tokens|much)|(?:the\s+|its\s+)?size"
                 r"|(?:del|de\s+su|el)\s+tamano|(?:de\s+)?cuant[oa]s?(?:\s+tokens)?|(?:que\s+tan|cuan)\s+grande)\b"
                 r"|\b(?:size|tamano)\s+(?:unknown|tbd|desconocido|sin\s+saber)\b|\bunknown\s+size\b")
_DATA_UNSIZED = re.compile(r"(?:" + _KEY["dataset_tokens"] + r"|\b" + _DATASET + r")\b[^.;\n!?]{0,60}?(?P<value>" + _SIZE_UNKNOWN + r")")
# Only a word a rule would read as the field's noun makes the phrase about that field: "some context:" opens
# prose (a heading), "a few questions" counts nothing we size.
_NOT_AFTER = re.compile(r"\s*[:=]")


# A word every vague phrase has (its quantifier, size adjective or "multi"): a message with none of them, as most
# are, is not searched at all.
_TRIGGERS = frozenset("""few several some many multiple various bunch lot lots plenty handful number ton tons loads load
cuantas cuantos pocas pocos varias varios algunas algunos muchas muchos muchisimas muchisimos bastantes monton montones
punado big bigger large larger huge massive giant enormous small smaller tiny medium mid decent grande grandes enorme
enormes gigante pequeno pequena pequenos chico chica mediano mediana long longer short shorter largo largos larga largas
corto cortos corta cortas extenso extensos extensa extensas multi million billion millones ish largest biggest maximum
max mas reasonable generous decente decentes razonable razonables generoso generosa generosos generosas amplio amplia
amplios amplias buen usual siempre habitual same chunk part portion slice share fraction piece subset most half trozo
pedazo cacho parte porcion fraccion subconjunto mayor mitad unas unos however whatever las los enough sufficient tantas
tantos idea sure unsure know unknown desconocido sabemos sabria se""".split())
_WORD = re.compile(r"[a-z]+")


def find(text: str) -> list[tuple[str, str, int]]:
    """(field, the phrase as typed, its position) for every vague value in ``text``, in text order."""
    if _TRIGGERS.isdisjoint(_WORD.findall(text)):
        return []
    out = []
    for name, pattern in _VAGUE.items():
        for m in pattern.finditer(text):
            if name == "seq_len" and _NOT_AFTER.match(text, m.end()):
                continue  # "long context: ..." opens a note; "context: long" is the typed slots' (slots.VAGUE)
            out.append((name, m.group(0).strip(), m.start()))
    for m in _DATA_UNSIZED.finditer(text):
        out.append(("dataset_tokens", m.group("value").strip(), m.start()))
    for name, pattern in _STATED.items():
        for m in pattern.finditer(text):
            out.append((name, m.group("value").strip(), m.start()))
    return sorted(out, key=lambda item: item[2])
