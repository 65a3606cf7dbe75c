"""The working state of one parse: the text with what was already read blanked out, and the
claims ("seq_len = 8192, said at character 31") each rule makes.

Rules run in a fixed order (``advisor.parse.rules``). A rule that accepts a match blanks its span
so that later, looser rules (a bare "8k", a bare "13B") never read the same characters twice:
"8 x H100" is consumed as a GPU count before anything could take the 8 for a batch size.
Catalog names are replaced by placeholders first ("§G0§" for the first GPU found, "§M0§" for a
model, "§R0§" for a region) so rules can say "a number right before a GPU".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from advisor.parse.names import NameMatch
from advisor.parse.prefilter import needs

BLANK = "\x01"
# Upper case: rules read lower-case text, so no rule can take a placeholder for a word.
_PLACEHOLDER = {"model": "M", "gpu": "G", "region": "R", "family": "F", "unsure": "U"}


@dataclass
class Claim:
    field: str
    value: Any
    pos: int


@dataclass
class Scan:
    text: str  # normalized text with names replaced by placeholders; consumed spans blanked
    names: list[NameMatch]
    short: bool  # a few words only: a follow-up ("and full?", "¿y completo?")
    lang: str = "en"  # the message's language, for "1.200 millones" vs "1.200B"
    marked: str = ""  # the text with placeholders, before any rule blanked anything (for intent cues)
    claims: list[Claim] = field(default_factory=list)
    costs: dict[str, Any] = field(default_factory=dict)
    warnings: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    limits: list[tuple[str, float]] = field(default_factory=list)  # (field, value) beyond a limit
    excluded_gpus: set[int] = field(default_factory=set)
    bound_gpus: set[int] = field(default_factory=set)  # GPU placeholders already claimed with a count
    gpu_counts: dict[int, int] = field(default_factory=dict)
    examples: list[tuple[float, int]] = field(default_factory=list)  # example counts without a length
    example_lens: list[tuple[float, int]] = field(default_factory=list)  # "300 tokens per example", apart from a count
    example_seq: list[float] = field(default_factory=list)  # those lengths with k = 1024 ("4k tokens per sample")
    lora_settings: list[int] = field(default_factory=list)  # where "lora rank"/"lora_alpha" were read
    stray: list[Any] = field(default_factory=list)  # numbers nothing explains (slots.Tok): ask about them
    weak_sizes: list[Any] = field(default_factory=list)  # "350M" with no cue: a model size unless a model is named
    unreadable: list[tuple[str, str, int]] = field(default_factory=list)  # (field, what was typed, position)

    @classmethod
    def of(cls, normalized: str, names: list[NameMatch], short: bool, lang: str = "en") -> "Scan":
        parts: list[str] = []
        prev = 0
        counters: dict[str, int] = {}
        for match in names:
            letter = _PLACEHOLDER[match.kind]
            index = counters.get(letter, 0)
            counters[letter] = index + 1
            parts += [normalized[prev:match.start], f" §{letter}{index}§ "]
            prev = match.end
        parts.append(normalized[prev:])
        text = "".join(parts)
        return cls(text=text, names=names, short=short, lang=lang, marked=text)

    def of_kind(self, kind: str) -> list[NameMatch]:
        return [n for n in self.names if n.kind == kind]

    def claim(self, field_name: str, value: Any, pos: int) -> None:
        self.claims.append(Claim(field_name, value, pos))

    def warn(self, key: str, **fields: Any) -> None:
        if (key, fields) not in self.warnings:
            self.warnings.append((key, fields))

    def run(self, pattern: re.Pattern[str], handler: Callable[["Scan", re.Match[str]], bool | None]) -> None:
        """Apply ``handler`` to each match; blank the spans it accepts (returns anything but False).
        A pattern whose required words are all absent is skipped without running (``prefilter``)."""
        need = needs(pattern)
        if need is not None and not any(word in self.text for word in need):
            return
        accepted = [m.span() for m in list(pattern.finditer(self.text)) if handler(self, m) is not False]
        if accepted:
            chars = list(self.text)
            for start, end in accepted:
                chars[start:end] = BLANK * (end - start)
            self.text = "".join(chars)

    def search(self, pattern: str) -> bool:
        return re.search(pattern, self.text) is not None
