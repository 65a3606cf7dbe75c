"""The working state of one parse: the text with what was already read blanked out, and the
claims ("seq_len = 8192, said at character 31") each rule makes.

Rules run in a fixed order (``advisor.parse.rules``). A rule that accepts a match blanks its span
so that later, looser rules (a bare "8k", a bare "13B") never read the same characters twice:
"8 x H100" is consumed as a GPU count before anything could take the 8 for a batch size.
Catalog names are replaced by placeholders first ("§G0§" for the first GPU found, "§M0§" for a
model, "§R0§" for a region) so rules can say "a number right before a GPU". A rule's span may
contain a placeholder ("train all of §M0§'s weights" is the method): blanking keeps placeholders,
so the name is still read by the name rule; a rule that means a name is *not* asked for ("instead
of §G1§") says so in ``excluded_gpus`` / ``excluded_models``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from advisor.parse.names import NameMatch
from advisor.parse.prefilter import anchored_finditer, ascii_safe, ascii_twin, finder, needs

BLANK = "\x01"
# Upper case: rules read lower-case text, so no rule can take a placeholder for a word.
def _blank_keeping_names(span: str) -> str:
    out = []
    prev = 0
    for m in _NAME.finditer(span):
        out += [BLANK * (m.start() - prev), m.group()]
        prev = m.end()
    out.append(BLANK * (len(span) - prev))
    return "".join(out)


@functools.lru_cache(maxsize=8)
def _literals(patterns: tuple[re.Pattern[str], ...]) -> tuple[str, ...]:
    """Every literal some rule of ``patterns`` requires (``prefilter.needs``), once."""
    return tuple(sorted({w for p in patterns for w in (needs(p) or ())}))


# Each rule list (module constants of rules.py and sizes.py), prepared once: its literals and, per rule,
# the words one of which a match needs (``prefilter.needs``), so ``run_all`` skips a rule with one set test
# instead of a call (profiled: the calls were the parser's largest self time, most rules being absent).
_PREPARED: dict[int, tuple[list, tuple[str, ...], list]] = {}


def _prepared(rules: list) -> tuple["_LiteralFinder", list]:
    hit = _PREPARED.get(id(rules))
    if hit is None or hit[0] is not rules or len(hit[2]) != len(rules):
        # a rule may state its literals itself (a third item) where ``needs`` cannot read them from the
        # pattern: a sign glued to a digit ("+2 GPUs"), one character long, is below its MIN_LEN
        prepared = [(rule[0], rule[1], frozenset(rule[2]) if len(rule) > 2 else
                     frozenset(needs(rule[0])) if needs(rule[0]) is not None else None, finder(rule[0]),
                     ascii_twin(rule[0])) for rule in rules]
        stated = {w for rule in rules if len(rule) > 2 for w in rule[2]}
        hit = (rules, _LiteralFinder(tuple(sorted(set(_literals(tuple(rule[0] for rule in rules))) | stated))), prepared)
        _PREPARED[id(rules)] = hit
    return hit[1], hit[2]


class _LiteralFinder:
    """Which of a rule list's literals a text contains, in one pass: a trie of the literals as one
    pattern, looked for at every position (a lookahead, so matches may overlap); at each position it
    finds the longest literal there, and every literal inside a found one is present too (the longest
    literal at a literal's own start contains it). Profiled on the generated sets: half the time of one
    substring test per literal (about 280 of them), the same set every time."""

    def __init__(self, literals: tuple[str, ...]):
        self.literals = literals
        self._pattern = re.compile("(?=(" + _trie(literals) + "))") if literals else None
        self._inside = {b: frozenset(a for a in literals if a in b) for b in literals}

    def present(self, text: str) -> frozenset[str]:
        if self._pattern is None:
            return frozenset()
        inside = self._inside
        found: set[str] = set()
        for m in self._pattern.finditer(text):
            found |= inside[m.group(1)]
        return frozenset(found)


def _trie(words: tuple[str, ...]) -> str:
    """A pattern matching any of ``words``, as a trie (branches on one character at a time), longest first."""
    root: dict[str, dict] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return build(root)


_NAME = re.compile(r"§[MGRFU]\d+§")
_PLACEHOLDER = {"model": "M", "gpu": "G", "region": "R", "family": "F", "unsure": "U"}


@dataclass(slots=True)
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
    excluded_models: set[int] = field(default_factory=set)
    excluded_regions: set[int] = field(default_factory=set)  # "Paris, not Frankfurt": the region withdrawn
    bound_gpus: set[int] = field(default_factory=set)  # GPU placeholders already claimed with a count
    gpu_counts: dict[int, int] = field(default_factory=dict)
    examples: list[tuple[float, int]] = field(default_factory=list)  # example counts without a length
    example_lens: list[tuple[float, int]] = field(default_factory=list)  # "300 tokens per example", apart from a count
    example_seq: list[tuple[float, int]] = field(default_factory=list)  # those lengths with k = 1024 ("4k tokens per sample")
    sample_means: list[float] = field(default_factory=list)  # "avg length 300 tokens": a mean, not each one's
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

    def run(self, pattern: re.Pattern[str], handler: Callable[["Scan", re.Match[str]], bool | None],
            present: frozenset[str] | None = None) -> None:
        """Apply ``handler`` to each match; blank the spans it accepts (returns anything but False).
        A pattern whose required words are all absent is skipped without running (``prefilter``).
        ``present``: the literals of ``needs`` found in the text when the rules started (``run_all``):
        blanking only removes text, so a literal absent then is absent now."""
        need = needs(pattern)
        if need is not None:
            if present is not None:
                if present.isdisjoint(need):
                    return
            elif not any(word in self.text for word in need):
                return
        self._apply(ascii_twin(pattern) if ascii_safe(self.text) else pattern, handler, finder(pattern))

    def _apply(self, pattern: re.Pattern[str], handler: Callable[["Scan", re.Match[str]], bool | None],
               find: tuple[re.Pattern[str], bool] | None = None) -> None:
        # every match first, then the handlers (a handler never sees a text its own rule blanked)
        accepted = [m.span() for m in anchored_finditer(pattern, self.text, find) if handler(self, m) is not False]
        if accepted:
            text = self.text
            parts = []
            prev = 0
            for start, end in accepted:
                if start < prev:  # never: finditer's matches do not overlap
                    continue
                parts.append(text[prev:start])
                span = text[start:end]
                # names inside a span stay names
                parts.append(_blank_keeping_names(span) if "§" in span else BLANK * (end - start))
                prev = end
            parts.append(text[prev:])
            self.text = "".join(parts)

    def run_all(self, rules: list[tuple[re.Pattern[str], Callable[["Scan", re.Match[str]], bool | None]]]) -> None:
        """``run`` each rule in order, with one look for every rule's required literals first."""
        literals, prepared = _prepared(rules)
        present = literals.present(self.text)
        apply = self._apply
        # blanking writes BLANK (ASCII) only, and nothing else writes the text: safe now is safe to the end
        safe = ascii_safe(self.text)
        for pattern, handler, need, find, twin in prepared:
            if need is None or not present.isdisjoint(need):  # most rules need a word the message lacks
                apply(twin if safe else pattern, handler, find)

    def search(self, pattern: str) -> bool:
        return re.search(pattern, self.text) is not None
