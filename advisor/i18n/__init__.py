"""The one message catalog: every sentence a person reads, in English and Spanish.

Messages live in small tables, one module per area (``answer``, ``notes``, ``parse``, ``faq``,
``bot``), each a dict ``{key: {"en": "...", "es": "..."}}`` using ``str.format`` fields. Code asks
for ``t(key, lang, **fields)``; it never builds user-facing sentences from literals of its own.
A test checks that every key has both languages and the same fields in each.
"""

from __future__ import annotations

import importlib
import pkgutil
import string
from typing import Any, Literal

Lang = Literal["en", "es"]
LANGS: tuple[Lang, ...] = ("en", "es")

_MESSAGES: dict[str, dict[str, str]] = {}
_LOADED = False


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    for info in pkgutil.iter_modules(__path__):  # type: ignore[name-defined]
        module = importlib.import_module(f"{__name__}.{info.name}")
        table = getattr(module, "MESSAGES", None)
        if table is None:
            continue
        for key, texts in table.items():
            if key in _MESSAGES:
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
