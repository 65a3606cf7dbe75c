"""English or Spanish, per message, robust for three-word follow-ups ("y con LoRA", "what about 16k?").

A message votes with its function words and its spelling: "¿", "¡", "ñ" and accented vowels are
Spanish; each word found in only one language's list below counts one for it (the short, common
words that decide a follow-up, like "y", "con", "and", "with", count double). Technical words
("LoRA", "batch", "tokens", GPU and model names) are shared and do not vote. A tie (for example
"QLoRA 70B 4090") goes to the caller's hint (the thread's language), else English.
"""

from __future__ import annotations

import unicodedata

from advisor.parse.text import words

Lang = str  # "en" | "es"

_ES_MARKS = "¿¡ñÑáéíóúÁÉÍÓÚü"

_ES_STRONG = {"y", "con", "el", "la", "los", "las", "del", "que", "en", "para", "sobre", "sin", "una",
              "puedo", "podemos", "quiero", "cuanto", "cuesta", "mejor", "hola", "ayuda", "epocas",
              "epoca", "lote", "contexto", "ajuste", "completo", "rango", "empezar", "nuevo"}
_EN_STRONG = {"and", "with", "the", "what", "about", "can", "on", "without", "instead", "how",
              "of", "to", "help", "start", "over", "epochs", "epoch", "is", "we", "please"}
_ES = _ES_STRONG | {
    "de", "al", "lo", "un", "unos", "unas", "es", "son", "por", "o", "u", "si", "tambien", "pero",
    "ahora", "como", "cual", "cuales", "cuantas", "cuantos", "cuanta", "hacer", "modelo", "modelos",
    "tarjeta", "tarjetas", "mil", "millones", "ejemplos", "datos", "secuencia", "secuencias",
    "longitud", "tamano", "mismo", "misma", "vez", "lugar", "otra", "otro", "favor", "ejecuciones",
    "fallidas", "guardar", "debe", "deberia", "persistir", "apaga", "apagar", "despues", "cuando",
    "mas", "menos", "usar", "usando", "entrenar", "entrenamiento", "fino", "necesito", "necesitamos",
    "tengo", "tenemos", "tienen", "hay", "gracias", "dame", "cuales", "puede", "se", "seria",
    "costaria", "tarda", "tardaria", "cuantas", "horas", "muestras", "precio", "precios", "lista",
    "nuestro", "nuestra", "este", "esta", "esto", "ese", "eso", "desde", "cero", "olvida",
    "borra", "reiniciar", "capas", "todas", "todos", "parametros", "pesos", "activaciones",
    "desactivado", "activado", "fallos", "reintentos", "almacenamiento", "meses", "conservar",
    "queda", "quedarse", "piloto", "nodos", "nodo", "afinar", "ajustar", "ajustes", "lineales",
    "atencion", "solo", "cuantizacion", "cuantizado", "dia", "dias", "ya",
    "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "dieciseis", "quiero", "queremos",
    "afinamos", "entrenamos", "gradientes", "rango", "lote", "contexto", "ejemplo", "tamano",
    "opcion", "barata", "barato", "rapida", "rapido", "cual", "conviene", "sale", "detiene", "apaga",
    "guardo", "pierde", "persistente", "necesito", "filas", "conversaciones", "promedio", "media",
    "millones", "parametros", "mil", "tarda", "cuesta",
    # replies in a thread ("vale, entiendo", "bueno, pues sí"): no English word is spelled so
    "vale", "entiendo", "bueno", "claro", "pues", "muy", "bien", "vamos", "entonces",
}
_EN = _EN_STRONG | {
    "for", "in", "at", "an", "do", "does", "it", "i", "you", "our", "my", "me", "using", "use",
    "run", "runs", "want", "would", "could", "should", "if", "or", "which", "better", "model",
    "models", "examples", "data", "sequence", "length", "size", "same", "but", "now", "try",
    "let's", "lets", "give", "this", "that", "these", "failed", "assume", "keep", "save", "stops",
    "stop", "persist", "after", "need", "cost", "costs", "train", "training", "much", "many",
    "long", "take", "hours", "samples", "price", "prices", "list", "have", "has", "are", "will",
    "thanks", "hi", "hello", "hey", "again", "reset", "forget", "layers", "all", "parameters",
    "weights", "off", "turn", "disable", "enable", "cards", "nodes", "node", "each", "per", "only",
    "just", "months", "storage", "pilot", "gpus", "fit", "fits", "there", "from", "scratch",
    "context", "rank", "sized", "than", "rather", "cheaper", "faster", "also", "too",
    "two", "three", "four", "five", "six", "seven", "eight", "sixteen", "option", "cost", "does",
    "rows", "conversations", "average", "averaging", "million", "billion", "thousand", "shut",
    "down", "files", "lose", "back", "up", "instance", "should", "fine", "tune", "tuning",
}

_TIE_DEFAULT: Lang = "en"
_ACCENTS = str.maketrans("áéíóúüñÁÉÍÓÚÜÑ", "aeiouunAEIOUUN")


def _fold(text: str) -> str:
    """Lower-case words with accents removed: all the vote needs (``text.normalize`` does much more)."""
    text = text.translate(_ACCENTS).replace("\u2019", "'").lower()
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode() if not text.isascii() else text


def detect_language(text: str, hint: str | None = None) -> Lang:
    """``"es"`` or ``"en"`` for one message (``hint`` breaks ties, e.g. the thread's language)."""
    text = text[:4000]
    # two votes per Spanish mark (each mark one character): counted by str.count, not a Python loop per character
    es = 0 if text.isascii() else 2 * sum(map(text.count, _ES_MARKS))
    en = 0
    for word in words(_fold(text)):
        in_es, in_en = word in _ES, word in _EN
        if in_es and not in_en:
            es += 2 if word in _ES_STRONG else 1
        elif in_en and not in_es:
            en += 2 if word in _EN_STRONG else 1
    if es > en:
        return "es"
    if en > es:
        return "en"
    return hint if hint in ("en", "es") else _TIE_DEFAULT
