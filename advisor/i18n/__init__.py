"""The one message catalog: every sentence a person reads, in English and Spanish.

Messages live in small tables, one module per area (``answer``, ``notes``, ``parse``, ``faq``,
``bot``), each a dict ``{key: {"en": "...", "es": "..."}}`` using ``str.format`` fields. Code asks
for ``t(key, lang, **fields)``; it never builds user-facing sentences from literals of its own.
A test checks that every key has both languages and the same fields in each.

Figures arrive formatted in the message's language (``advisor.i18n.numbers``: Babel, CLDR
locales en_US and es_ES): a template never formats a number itself ("{x:.1f}") nor writes its
own percent sign or currency symbol; tests/test_locale.py renders every key in both languages and
rejects the other locale's separators.

One Spanish vocabulary (es_ES, the locale whose CLDR data formats the numbers); every Spanish
message uses these terms and tests/test_locale.py rejects the others:

    ===============================  =================================  ======================
    concept (English)                Spanish                            not
    ===============================  =================================  ======================
    cost                             coste                              costo
    accepted checkpoint              punto de control aceptado          checkpoint aceptado
    checkpoint (saved weights)       punto de control                   checkpoint
    gradient checkpointing           gradient checkpointing (the        punto de control de
                                     technique's name, as in the        gradientes
                                     libraries' flags)
    micro-batch                      micro-lote                         micro-batch
    batch / effective batch          lote / lote efectivo               batch
    dataset                          conjunto de datos                  dataset
    sequence length                  longitud de secuencia; secuencia   seq
    GPU count                        número de GPUs; N GPUs             las GPU
    fine-tune / full fine-tune       ajuste fino / ajuste fino completo fine-tuning
    throughput                       rendimiento                        throughput
    pilot (a measured run)           piloto                             pilot
    run                              ejecución                          run
    fits / does not fit              cabe / no cabe                     encaja
    usable (memory)                  utilizable(s)                      usable
    planning window                  ventana de planificación           ventana de planeación
    GPU-hours                        GPU-horas                          horas GPU
    ===============================  =================================  ======================

Names stay as their projects write them (LoRA, QLoRA, FSDP, DDP, AdamW, bf16, tokens, MFU).
"""

from __future__ import annotations

import importlib
import pkgutil
import string
import threading
from typing import Any, Literal

Lang = Literal["en", "es"]
LANGS: tuple[Lang, ...] = ("en", "es")

_MESSAGES: dict[str, dict[str, str]] = {}
_LOADED = False
_LOCK = threading.Lock()  # the bot's worker threads may ask for the first message at once


def _load() -> None:
    if _LOADED:
        return
    with _LOCK:
        if not _LOADED:
            _load_tables()


def _load_tables() -> None:
    global _LOADED
    for info in pkgutil.iter_modules(__path__):  # type: ignore[name-defined]
        module = importlib.import_module(f"{__name__}.{info.name}")
        table = getattr(module, "MESSAGES", None)
        if table is None:
            continue
        for key, texts in table.items():
            if key in _MESSAGES:  # two modules claim one key: a bug, not a race (we hold the lock)
                raise RuntimeError(f"message key {key!r} defined twice (in {info.name})")
            _MESSAGES[key] = texts
    _LOADED = True


def t(key: str, lang: str = "en", /, **fields: Any) -> str:
    """The message ``key`` in ``lang`` (English when the language is unknown)."""
    _load()
    texts = _MESSAGES[key]
    template = texts.get(lang) or texts["en"]
    return template.format(**fields)


def has(key: str) -> bool:
    _load()
    return key in _MESSAGES


def messages() -> dict[str, dict[str, str]]:
    _load()
    return dict(_MESSAGES)


def fields_of(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
