"""Matching what people type to catalog ids ("Llama-3.1-8B-Instruct" -> "llama-3.1-8b")."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable

# Suffixes that name a variant of the same architecture (instruction-tuned, chat, packaging).
_VARIANT_WORDS = {
    "instruct", "chat", "hf", "it", "base", "sft", "dpo", "rlhf", "preview", "awq", "gptq",
    "gguf", "bnb", "4bit", "8bit", "fp16", "bf16", "model", "pt",
}
# Words that name the vendor or a product line but do not tell GPUs or models apart.
_NOISE_WORDS = {"nvidia", "geforce", "amd", "meta", "the", "a", "an", "single", "one"}


def tokens(text: str) -> list[str]:
    """Lower-case words of a name: org prefix dropped, separators unified."""
    text = text.strip().lower()
    if "/" in text:
        text = text.rsplit("/", 1)[1]
    text = re.sub(r"[\s_]+", "-", text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    return [t for t in text.split("-") if t]


@functools.lru_cache(maxsize=8192)  # a pure function of the text; the parser looks the same names up in every message
def normal(text: str) -> str:
    """The canonical spelling: words joined by '-', variant and noise words dropped."""
    words = [t for t in tokens(text) if t not in _NOISE_WORDS]
    while len(words) > 1 and words[-1] in _VARIANT_WORDS:
        words.pop()
    # drop variant words in the middle too ("llama-3.1-8b-instruct-2407" -> keep date, drop instruct)
    words = [w for i, w in enumerate(words) if i == 0 or w not in _VARIANT_WORDS]
    return "-".join(words)


def compact(text: str) -> str:
    """The spelling with separators removed ("llama 3.1 8b" and "llama3.1-8b" -> "llama3.18b")."""
    return normal(text).replace("-", "")


def keys(name: str) -> set[str]:
    """Every key under which ``name`` should be found."""
    return {name.lower(), normal(name), compact(name)}


class NameIndex:
    """Looks ids up by any alias, then by compact spelling; suggests close matches on a miss."""

    def __init__(self, entries: Iterable[tuple[str, Iterable[str]]]):
        self._by_key: dict[str, str] = {}
        self._labels: dict[str, str] = {}
        for ident, aliases in entries:
            for alias in [ident, *aliases]:
                for key in keys(alias):
                    if key:
                        self._by_key.setdefault(key, ident)
                        self._labels.setdefault(key, ident)

    def get(self, text: str) -> str | None:
        n = normal(text)
        for key in (text.lower().strip(), n, n.replace("-", "")):  # the last is ``compact(text)``
            if key in self._by_key:
                return self._by_key[key]
        # plurals people type ("H100s", "4090s")
        if n.endswith("s") and n[:-1] in self._by_key:
            return self._by_key[n[:-1]]
        return None

    def suggest(self, text: str, n: int = 3) -> list[str]:
        target = normal(text)
        close = difflib.get_close_matches(target, list(self._by_key), n=12, cutoff=0.5)
        out: list[str] = []
        for key in close:
            ident = self._by_key[key]
            if ident not in out:
                out.append(ident)
        return out[:n]
