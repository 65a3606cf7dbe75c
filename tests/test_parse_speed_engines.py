"""The parser's speed engines give what the plain ones give (no timing here: benchmarks/parse_speed.py).

- ``prefilter.starts`` / ``scan.anchored_finditer``: a rule is matched only where one of the strings all its
  matches begin with stands; the matches must be exactly ``finditer``'s, for every rule of the parser on the
  texts the rules really see and on generated texts made of the rules' own literals;
- ``names.Matcher``: aliases narrowed by their second token are the aliases the full walk would try, in order;
  the remembered first look per word does not change what a second message finds.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.catalog import Catalog
from advisor.parse import parse_message
from advisor.parse.names import matcher_for
from advisor.parse.prefilter import starts
from advisor.parse.request import _EARLY, _LATE
from advisor.parse.scan import Scan, anchored_finditer, ascii_safe, ascii_twin, finder
from tests import phrasings

RULES = [rule[0] for rule in [*_EARLY, *_LATE]]


def _same(pattern: re.Pattern[str], text: str) -> None:
    """What the parser runs (the ASCII twin on a safe text, anchored) finds what finditer finds."""
    want = [(m.span(), m.groups()) for m in pattern.finditer(text)]
    run = ascii_twin(pattern) if ascii_safe(text) else pattern
    got = [(m.span(), m.groups()) for m in anchored_finditer(run, text, finder(pattern))]
    assert got == want, (pattern.pattern[:80], text[:120])


@pytest.mark.parametrize("pattern, expected", [
    (r"\bfoo\b|bar", {"foo", "bar"}),
    (r"(?:x\s*)?y", {"x", "y"}),
    (r"(?<![\w.])(?:lora|qlora)_r\b", {"lora_r", "qlora_r"}),
    (r"[+-]\d", {"+", "-"}),
    (r"(?:ab|c)+d", {"ab", "c"}),
    (r"(?=a)abc", {"abc"}),
])
def test_starts_reads_the_literals_every_match_begins_with(pattern, expected):
    assert set(starts(re.compile(pattern))) == expected


@pytest.mark.parametrize("pattern", [r"\d+k", r"a*", r"(?:foo)?", r"(?i)foo", r"(?i:foo)bar", r"\bfoo|\w+", r"\A",
                                     r"[a-z]+", r".foo"])
def test_starts_says_nothing_where_a_match_may_begin_anywhere(pattern):
    assert starts(re.compile(pattern)) is None


def test_every_rule_matches_as_finditer_does_on_what_the_rules_see():
    """Each rule on the text it is given during real parses of the hand-written table (names placeholdered,
    earlier rules' spans blanked): anchored_finditer's matches are finditer's, span and groups."""
    catalog = Catalog.in_memory()
    seen: list[tuple[re.Pattern[str], str]] = []
    original = Scan._apply

    def record(self, pattern, handler, find=None):
        seen.append((pattern, self.text))
        return original(self, pattern, handler, find)

    Scan._apply = record
    try:
        for entry in phrasings.load("tune")[:400]:
            parse_message(entry["text"], catalog)
    finally:
        Scan._apply = original
    assert len({p for p, _ in seen}) > 30
    with_starts = [(p, t) for p, t in seen if finder(p) is not None]
    assert len(with_starts) > len(seen) // 2  # most rules are anchored
    for pattern, text in seen:
        _same(pattern, text)


# Texts built from the rules' own first strings, glued and repeated in every order (overlaps such as "nono",
# a string right after a blank or a placeholder, none at all), with the characters the rules care about around.
_PIECES = sorted({s for p in RULES for s in (starts(p) or ())} | {" ", "\n", ":", "=", "-", "_", "\x01", "§G0§", "8",
                                                                  "4096", "2k", "b", "s", ",", ".", "x", "(", ")"})


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40))
def test_every_rule_matches_as_finditer_does_on_generated_text(pieces):
    text = "".join(pieces)
    for pattern in RULES:
        _same(pattern, text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab 1_\t\n\x01\x1c\x1f\x7f§é·²\u00a0"), max_size=30))
def test_the_ascii_twin_matches_alike_on_every_safe_text(text):
    """\\w, \\d, \\s and \\b read a safe text's characters alike in both modes; an unsafe one is never given to the twin."""
    for source in (r"\w+", r"\d+", r"\s+", r"\b\w", r"\W+", r"\S+", r"\D+", r"(?<![\w.])\w+\b"):
        pattern = re.compile(source)
        if ascii_safe(text):
            assert [m.span() for m in ascii_twin(pattern).finditer(text)] == [m.span() for m in pattern.finditer(text)]
    assert ascii_safe(text) == all(ord(c) < 0x80 and c not in "\x1c\x1d\x1e\x1f" or c == "§" for c in text)


def test_many_misses_hand_over_to_finditer_with_the_same_matches():
    """A text full of a rule's first string where the rule does not match: past the miss budget the rest is
    scanned by finditer from where the look stopped."""
    pattern = re.compile(r"\blora(?=\s+rank)\s+rank\s+(\d+)")
    text = "lora_r " * 200 + "lora rank 16 " + "xlora rank 4 " * 3 + "lora rank 8"
    _same(pattern, text)
    assert [m.group(1) for m in anchored_finditer(pattern, text, finder(pattern))] == ["16", "8"]


def test_overlapping_first_strings_are_each_tried():
    pattern = re.compile(r"aba|bab")
    assert finder(pattern)[1]  # "aba" and "bab" overlap: found with search, one position after another
    _same(pattern, "ababab")
    _same(re.compile(r"(?:no|not|nota)\s+x"), "nota x not x no x nonot x")


def test_aliases_narrowed_by_second_token_are_the_walk_in_order():
    matcher = matcher_for(Catalog.in_memory())
    seconds = {a.toks[1] for aliases in matcher._by_first.values() for a in aliases if len(a.toks) > 1} | {"zzz"}
    for first, aliases in matcher._by_first.items():
        assert matcher._narrowed(first, [first]) == [a for a in aliases if len(a.toks) <= 2]
        for second in seconds:
            want = [a for a in aliases if len(a.toks) <= 2 or a.toks[1] == second]
            assert matcher._narrowed(first, [first, second]) == want


def test_the_remembered_first_look_changes_no_later_message():
    catalog = Catalog.in_memory()
    texts = ["qlora mistrl 7b seq 2048 on 2 h100s", "lora qwen 2.5 7b instruct", "fine tune llama 3.1 8b",
             "full qwen3 0.6b 512", "lora mstrl 7b", "qlora Pythia 12b"]
    first = [parse_message(t, catalog).to_json() for t in texts]
    again = [parse_message(t, catalog).to_json() for t in reversed(texts)]
    assert again[::-1] == first
    fresh = Catalog.in_memory()  # a new matcher, nothing remembered
    assert [parse_message(t, fresh).to_json() for t in texts] == first


_TEXT_PIECES = ["8", "4096", "x", "h100", " ", "\n", "  ", "\t", "\x1c", "\x1f", "é", "§M0§", "\x01", "-", "_", ":", "/",
                "7b", "gb", "40", "version", "size", "de", "mil", "millones", "per", "gpu", "step", "rank", "alpha",
                "r", "2025-03-01", "17:30", "5pm", "lora", "a100", "(", ")", "32_768", "equal to", "B", "K", "ﬁ"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_TEXT_PIECES), max_size=30))
def test_normalize_and_the_tokenizers_read_alike_with_and_without_the_twins(pieces):
    """``normalize``, ``names.tokenize`` and ``slots.tokenize`` give the same with the ASCII twins as with the
    patterns as written (the check forced off), on texts with and without the characters that make a text unsafe."""
    import advisor.parse.names as names
    import advisor.parse.slots as slots
    import advisor.parse.text as text_mod

    text = "".join(pieces)
    fast = (text_mod.normalize(text), [(t.text, t.start, t.end, t.gap) for t in names.tokenize(text)],
            [(t.kind, t.text, t.start, t.end, t.scale, t.unit) for t in slots.tokenize(text)])
    saved = (text_mod.ascii_safe, names.ascii_safe, slots.ascii_safe)
    text_mod.ascii_safe = names.ascii_safe = slots.ascii_safe = lambda _text: False
    try:
        slow = (text_mod.normalize(text), [(t.text, t.start, t.end, t.gap) for t in names.tokenize(text)],
                [(t.kind, t.text, t.start, t.end, t.scale, t.unit) for t in slots.tokenize(text)])
    finally:
        text_mod.ascii_safe, names.ascii_safe, slots.ascii_safe = saved
    assert fast == slow


def _intent_patterns():
    import advisor.parse.intents as intents
    from advisor.parse.prefilter import Anchored

    return [v for v in vars(intents).values() if isinstance(v, Anchored)]


def test_the_intent_cues_search_as_re_does_on_the_table():
    """Every intent cue's anchored ``search`` gives ``re``'s match (span and groups) on every hand-written message,
    as the intent checks read it (names placeholdered) and as typed."""
    from advisor.parse.names import matcher_for as matcher
    from advisor.parse.text import clean, normalize

    catalog = Catalog.in_memory()
    cues = _intent_patterns()
    assert len(cues) > 10
    for entry in phrasings.load("tune")[:300]:
        normalized = normalize(clean(entry["text"]))
        marked = Scan.of(normalized, matcher(catalog).find(normalized), short=False).marked
        for text in (marked, entry["text"]):
            for cue in cues:
                want, got = cue._pattern.search(text), cue.search(text)
                assert (want and (want.span(), want.groups())) == (got and (got.span(), got.groups()))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["what", "which", "gpus", "models", "?", " ", "\n", "reset", "ok, ", "after", "stop",
                                 "keep", "§G0§", "§G1§", " or ", "can i", "é", "\x1c", "list", "lista de", "de",
                                 "persistent storage", "cheaper", "."]), max_size=25))
def test_the_intent_cues_search_as_re_does_on_generated_text(pieces):
    text = "".join(pieces)
    for cue in _intent_patterns():
        want, got = cue._pattern.search(text), cue.search(text)
        assert (want and (want.span(), want.groups())) == (got and (got.span(), got.groups()))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["http", "https", "://", "www", ".", "com", "co", "io", "/", "a", "-", " ", "4090",
                                 "wiki", "example", ":", "hf"]), max_size=20))
def test_a_link_is_only_where_its_hint_is(pieces):
    """The links' hints (names._LINK_HINT, slots._URL_HINT) are in every text a link is found in: the gate skips
    no link."""
    import advisor.parse.names as names
    import advisor.parse.slots as slots

    text = "".join(pieces)
    for link, hint in ((names._LINK, names._LINK_HINT), (slots._URL, slots._URL_HINT)):
        if link.search(text):
            assert hint.search(text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["2025", "-", "03", "01", ":", "17", "30", "5", "pm", "am", " ", "a las ", "las", "h",
                                 "\n", "x", "1", "2", ".", "\u00a0", "384", "16", "\u202f", "\u2009", "é"]), max_size=20))
def test_the_date_and_grouped_number_gates_skip_no_match(pieces):
    """normalize skips _DATE_TIME where its hint is absent and _SPACE_GROUPED where none of its spaces is: no match is
    lost (each match holds what its gate looks for)."""
    import advisor.parse.text as text_mod

    text = "".join(pieces)
    if text_mod._DATE_TIME.search(text.lower()):
        assert text_mod._DATE_TIME_HINT.search(text.lower())
    if text_mod._SPACE_GROUPED.search(text):
        assert any(c in text for c in "\u00a0\u202f\u2009")
