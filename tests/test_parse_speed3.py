"""The third round of parser speed-ups gives what the plain code gives (no timing here: benchmarks/parse_speed.py).

- ``sizes._setting_before``: the gate on the last word of a cue skips only texts the search would not match;
- ``intents.is_persist_question``: the cues searched in another order give the same answer;
- ``prefilter.ascii_safe``: the string methods answer as ``_ASCII_SAFE.fullmatch`` does.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.catalog import Catalog
from advisor.parse import intents, prefilter, sizes
from advisor.parse.names import matcher_for
from advisor.parse.scan import Scan
from advisor.parse.text import clean, normalize
from tests import phrasings


def _setting_before_plain(text: str, pos: int) -> bool:
    """``sizes._setting_before`` as it was before the gate: the search alone."""
    m = sizes._SETTING_BEFORE.search(text, max(0, pos - 60), pos)
    return m is not None and (m.group("strict") is not None or m.group("number") is None)


def _marked(text: str, catalog: Catalog) -> str:
    normalized = normalize(clean(text))
    return Scan.of(normalized, matcher_for(catalog).find(normalized), short=False).marked


def test_the_setting_gate_skips_no_match_on_the_table():
    """At every position of every hand-written message (as the rules read it), the gated test is the search's."""
    catalog = Catalog.in_memory()
    checked = 0
    for entry in phrasings.load("tune")[:250]:
        text = _marked(entry["text"], catalog)
        for pos in range(len(text) + 1):
            scan = Scan.of(text, [], short=False)
            assert sizes._setting_before(scan, pos) == _setting_before_plain(text, pos), (text[:80], pos)
            checked += 1
    assert checked > 5000


_SETTING_PIECES = ["lote", "batch", "batch size", "micro_batch", "rank", "r", "epochs", "epocas", "gpus", "lora", "bs",
                   "4", "16", "2k", "dos", " ", "  ", "\n", "\t", ":", "=", " : ", "-", "_", ".", "$", "b", "of", "de",
                   "x", "ejemplos", "\x1c", "\u00a0", "§M0§", "\x01"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_SETTING_PIECES), max_size=25))
def test_the_setting_gate_skips_no_match_on_generated_text(pieces):
    text = "".join(pieces)
    scan = Scan.of(text, [], short=False)
    for pos in range(len(text) + 1):
        assert sizes._setting_before(scan, pos) == _setting_before_plain(text, pos), (text, pos)


def _persist_plain(text: str) -> bool:
    if not intents.QUESTION.search(text):
        return False
    return bool(intents.PERSIST_STORAGE.search(text) or (intents.PERSIST.search(text) and intents.PERSIST_WHEN.search(text)))


def test_the_persist_question_reads_alike_in_either_order():
    catalog = Catalog.in_memory()
    seen = set()
    for entry in phrasings.load("tune"):
        text = normalize(clean(entry["text"]))
        assert intents.is_persist_question(text) == _persist_plain(text), text[:80]
        seen.add(intents.is_persist_question(text))
        marked = _marked(entry["text"], catalog)
        assert intents.is_persist_question(marked) == _persist_plain(marked)
    assert seen == {True, False}  # the table asks it and does not


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["what", "should", "?", "keep", "persist", "after", "the", "gpu", "stops", "persistent",
                                 "storage", "que", "se", "guardar", "cuando", "apaga", " ", "\n", ".", "do i"]), max_size=20))
def test_the_persist_question_reads_alike_on_generated_text(pieces):
    text = " ".join(pieces)
    assert intents.is_persist_question(text) == _persist_plain(text)


@pytest.mark.parametrize("text", ["", "seq 4096", "seq 4096 \u00e9", "a\x1cb", "a\x1fb", "\x1b\x20\x7f", "\x80",
                                  "\u00a7M0\u00a7 x", "\u00a7\x1c", "\u00a7\u00e9", "\x01\x01", "\u00a6", "\u00a8", "\ufb01"])
def test_the_quick_ascii_check_is_the_regex_check(text):
    assert prefilter.ascii_safe(text) == (prefilter._ASCII_SAFE.fullmatch(text) is not None)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2100), max_size=12)
       | st.text(alphabet="ab \x1b\x1c\x1d\x1e\x1f\x20\x7f\x80\u00a6\u00a7\u00a8\u00e9\x01\n", max_size=12))
def test_the_quick_ascii_check_is_the_regex_check_on_generated_text(text):
    assert prefilter.ascii_safe(text) == (prefilter._ASCII_SAFE.fullmatch(text) is not None)


def _find_cues_plain(toks):
    """``slots._find_cues`` as it was: each cue's words checked with ``all`` and the gap regex."""
    from advisor.parse import slots

    out = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        key = tok.text if tok.kind in ("word", "punct") or tok.spoken else None
        hit = None
        for cue in slots._CUE_INDEX.get(key or "", ()):
            n = len(cue.words)
            if i + n > len(toks):
                continue
            if all((toks[i + k].kind in ("word", "punct") or toks[i + k].spoken) and toks[i + k].text == cue.words[k]
                   and (k == 0 or slots._CUE_GAP.fullmatch(toks[i + k].gap)) for k in range(n)):
                hit = (i, i + n - 1, cue)
                break
        if hit is not None:
            for cue in slots._CUE_INDEX.get(key or "", ()):
                n = len(cue.words)
                if n == hit[1] - hit[0] + 1 and cue.words == hit[2].words:
                    out.append((hit[0], hit[1], cue))
            i = hit[1] + 1
        else:
            i += 1
    return out


def test_the_cues_are_found_as_before_on_the_table():
    from advisor.parse import slots

    catalog = Catalog.in_memory()
    found = 0
    for entry in phrasings.load("tune") + phrasings.load("diagnosed"):
        toks = slots.tokenize(_marked(entry["text"], catalog))
        got = slots._find_cues(toks)
        assert got == _find_cues_plain(toks), entry["text"][:80]
        found += len(got)
    assert found > 300


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["seq", "len", "sequence", "length", "batch", "size", "micro", "per", "device", "train",
                                 "_", "-", ".", " ", "  ", " _ ", "\t", "eff", "lora", "rank", "r", "dos", "4", "2k",
                                 "epochs", "context", "window", "max", "tokens", ":", ",", "§G0§", "\x01", "de", "lote"]),
                max_size=30))
def test_the_cues_are_found_as_before_on_generated_text(pieces):
    from advisor.parse import slots

    toks = slots.tokenize("".join(pieces))
    assert slots._find_cues(toks) == _find_cues_plain(toks)


_NORMALIZE_PIECES = ["8", "4", "40", "4090", "x", "X", " x ", "×", "h100", "a100", "l4", "g", "gb", "GB", "40gb", " ", "  ",
                     "\n", "\t", "(", ")", ",", "de", "with", "w/", "7b", "b", "2025", "-", "03", ":", "17", "30", "5", "pm",
                     "am", "a las ", "las", " las ", "h", "class", "max_seq", "é", "\x1c"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NORMALIZE_PIECES), max_size=25))
def test_the_times_memory_and_date_gates_skip_no_match(pieces):
    """normalize skips the "x" substitutions without _TIMES_HINT, _GPU_MEMORY without _MEMORY_HINT and _DATE_TIME
    without _DATE_TIME_HINT: each match holds its hint, in the Unicode patterns and in their ASCII twins."""
    import advisor.parse.text as text_mod
    from advisor.parse.prefilter import ascii_twin

    text = "".join(pieces).lower()
    for form in ((lambda p: p), ascii_twin):
        for pattern in (text_mod._NAME_TIMES_COUNT, text_mod._COUNT_TIMES_NUMBER, text_mod._GLUED_COUNT):
            if form(pattern).search(text):
                assert form(text_mod._TIMES_HINT).search(text), (pattern.pattern, text)
        if form(text_mod._GPU_MEMORY).search(text):
            assert form(text_mod._MEMORY_HINT).search(text), text
        if form(text_mod._DATE_TIME).search(text):
            assert form(text_mod._DATE_TIME_HINT).search(text), text


def test_the_gates_skip_no_match_on_the_table():
    import advisor.parse.text as text_mod

    for entry in phrasings.load("tune") + phrasings.load("diagnosed"):
        text = entry["text"].lower()
        for pattern in (text_mod._NAME_TIMES_COUNT, text_mod._COUNT_TIMES_NUMBER, text_mod._GLUED_COUNT):
            assert not pattern.search(text) or text_mod._TIMES_HINT.search(text)
        assert not text_mod._GPU_MEMORY.search(text) or text_mod._MEMORY_HINT.search(text)
        assert not text_mod._DATE_TIME.search(text) or text_mod._DATE_TIME_HINT.search(text)


def _correct_plain(text, vocabulary, known, extra_known):
    """``fuzzy.correct`` as it was: the protected spans first, then each word."""
    import bisect

    from advisor.parse import fuzzy

    protected = [m.span() for m in fuzzy._PROTECTED_SPANS.finditer(text)]
    starts = [a for a, _ in protected]
    out, corrections, prev = [], [], 0
    for m in fuzzy._WORD.finditer(text):
        word = m.group()
        if word in vocabulary or word in known or word in extra_known or fuzzy._inflected(word, vocabulary):
            continue
        k = bisect.bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < protected[k][1]:
            continue
        found = fuzzy.closest(word, vocabulary, max_distance=1)
        if found is None or found.distance != 1 or not fuzzy._one_meaning(found.words):
            continue
        out += [text[prev:m.start()], found.words[0]]
        prev = m.end()
        corrections.append(fuzzy.Correction(word, found.words[0], found.confidence, m.start(), m.end()))
    out.append(text[prev:])
    return "".join(out), corrections


def test_typos_are_corrected_as_before_on_the_table():
    from advisor.parse import fuzzy, request

    catalog = Catalog.in_memory()
    extra = matcher_for(catalog).known_tokens
    corrected = 0
    texts = [normalize(clean(e["text"])) for e in phrasings.load("tune") + phrasings.load("diagnosed")]
    texts += ["qlroa https://huggingface.co/qlroa/finetnue-7b", "lora_r=16 qlroa_x finetnue", "a.b/qlroa finetnue"]
    for text in texts:
        got = fuzzy.correct(text, known=request._NOT_TYPOS, extra_known=extra)
        assert got == _correct_plain(text, fuzzy.METHOD_WORDS, request._NOT_TYPOS, extra), text[:80]
        corrected += bool(got[1])
    assert corrected >= 2  # (the table has few typos; the generated test below has many)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["qlroa", "finetnue", "lroa", "lora", "https://", "hf.co/", "org/", "x_", "_y", "=",
                                 "a.b", ".", "/", " ", "\n", "seq", "fulll", "adaptr", "é", "Qlroa"]), max_size=15))
def test_typos_are_corrected_as_before_on_generated_text(pieces):
    from advisor.parse import fuzzy

    text = "".join(pieces)
    assert fuzzy.correct(text) == _correct_plain(text, fuzzy.METHOD_WORDS, fuzzy.KNOWN, frozenset())


def _capitalized_plain(text):
    from advisor.parse import request

    letters = sum(map(len, request._LETTERS.findall(text)))
    if not letters or sum(map(len, request._UPPERS.findall(text))) > 0.6 * letters:
        return frozenset()
    return frozenset(w.lower() for w in request._CAPITALIZED.findall(text))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Pythia", "pythia", "QLORA", "qlora", " ", "12b", "É", "é", "ß", "Ǆ", "ǅ", "x", "Ab",
                                 ".", "\n", "LLAMA", "1", "ﬁ"]), max_size=15))
def test_capitalized_words_are_read_as_before(pieces):
    from advisor.parse import request

    text = "".join(pieces)
    assert request._capitalized(text) == _capitalized_plain(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" \t\r\f\v\x1c\x1f\u00a0\u2009\u3000\nab:-", max_size=30))
def test_collapsing_spaces_once_is_collapsing_them_per_line(text):
    """normalize collapses _SPACES over the whole text, then strips each line: the same lines as stripping each line,
    then collapsing it."""
    from advisor.parse.text import _SPACES

    per_line = [_SPACES.sub(" ", line.strip()) for line in text.split("\n")]
    once = [line.strip() for line in _SPACES.sub(" ", text).split("\n")]
    assert once == per_line


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NORMALIZE_PIECES + ["version", "size", "of", "the", "(", "in its", "m", "1.5", "batch_size",
                                                     "variant", "la", "el", "tamano", "en su"]), max_size=25))
def test_the_split_hints_are_the_hints_and_the_size_hint_skips_no_match(pieces):
    """normalize searches _TIMES_HINT and _DATE_TIME_HINT as one search per alternative (the same answer), and skips
    _SIZE_LINK without _SIZE_HINT (each match holds it)."""
    import advisor.parse.text as text_mod
    from advisor.parse.prefilter import ascii_twin

    text = " ".join(pieces).lower()
    for form in ((lambda p: p), ascii_twin):
        assert bool(form(text_mod._TIMES_HINT).search(text)) == bool(
            form(text_mod._TIMES_X).search(text) or form(text_mod._TIMES_DIGIT).search(text))
        assert bool(form(text_mod._DATE_TIME_HINT).search(text)) == bool(
            form(text_mod._DATE_DIGIT_HINT).search(text) or form(text_mod._CLOCK_LAS_HINT).search(text))
        if form(text_mod._SIZE_LINK).search(text):
            assert form(text_mod._SIZE_HINT).search(text), text


def test_the_size_hint_skips_no_match_on_the_table():
    import advisor.parse.text as text_mod

    matched = 0
    for entry in phrasings.load("tune") + phrasings.load("diagnosed"):
        text = entry["text"].lower()
        if text_mod._SIZE_LINK.search(text):
            matched += 1
            assert text_mod._SIZE_HINT.search(text), text
    for text in ("gemma 3 in its 27b size", "qwen3 en su version de 1.7b", "llama 3.3 (version 70b)", "falcon (7b version)",
                 "the 9b variant of gemma 2", "la variante de 32b de qwen3"):
        assert text_mod._SIZE_LINK.search(text) and text_mod._SIZE_HINT.search(text)


def test_every_word_the_tokenizer_reads_specially_is_special():
    """slots._tokenize appends a word outside _SPECIAL_WORDS (not opening with "x" or "r") without its checks: each
    check names its words, and every one of them is in the set."""
    import inspect

    from advisor.parse import slots

    source = inspect.getsource(slots._tokenize)
    named = set(re.findall(r'word (?:==|in) \(?"([a-z]+)"', source))
    named |= {w for group in re.findall(r'word in \(([^)]*)\)', source) for w in re.findall(r'"([a-z]+)"', group)}
    assert {"millones", "bit", "bits", "x", "gigabytes"} <= named
    assert named <= slots._SPECIAL_WORDS
    for table in ("_SPACED_SCALES", "_BYTES", "WORD_NUMBERS", "ARTICLES"):
        assert f"word in {table}" in source
        assert set(getattr(slots, table)) <= slots._SPECIAL_WORDS


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["8", "13", "-", "billion", "b", "mil", " millones", "millones", "x", "x8", "r16", "r",
                                 "gb", "GiB", "bit", "bits", "una", "sola", "1", "epoca", "two", "a", "an", " ", "",
                                 "rank", "xl", "run", "§G0§", "\x01", ",", "gigabytes", "4k", "2048tokens",
                                 "seq2048", "bs4", "ep3", "ctx8192", "ga8", "a100"]), max_size=20))
def test_the_tokenizer_reads_alike_with_the_plain_word_shortcut(pieces):
    from advisor.parse import slots

    text = " ".join(pieces)
    fast = [(t.kind, t.text, t.start, t.end, t.gap, t.scale, t.unit, t.spoken, t.article) for t in slots.tokenize(text)]
    saved = slots._SPECIAL_WORDS
    slots._SPECIAL_WORDS = _EVERY_WORD
    try:
        plain = [(t.kind, t.text, t.start, t.end, t.gap, t.scale, t.unit, t.spoken, t.article) for t in slots.tokenize(text)]
    finally:
        slots._SPECIAL_WORDS = saved
    assert fast == plain


class _EveryWord:
    """A set holding every word: the shortcut never taken (every word goes through the checks)."""

    def __contains__(self, word):
        return True


_EVERY_WORD = _EveryWord()
