"""The chat parser against the phrasing table (tests/phrasings.py: its tuning split and the round-3
held-out split, diagnosed in round 4) and its contracts.

Phrasings held out from the parser's authors are never run here; benchmarks/parse_accuracy.py
prints the diagnosed sets (the generator's splits up to ``diagnosed9``, and
tests/data/phrasings_fresh.json as "table/diagnosed-fresh")."""

import pytest

from advisor.errors import ParseError
from advisor.parse import CONTRACT_KEYS, detect_language, parse_message
from advisor.parse import numbers as num
from advisor.parse.text import MAX_MESSAGE_CHARS
from advisor.spec import MAX_SEQ_LEN, SpecRequest
from tests import phrasings

PHRASINGS = phrasings.load("tune") + phrasings.load("diagnosed")
RESULT_KEYS = {"intent", "faq", "params", "gpus", "gpu_counts", "clarify_code", "warning_codes"}


def _parse(entry, catalog):
    previous = SpecRequest(**entry["previous"]) if "previous" in entry else None
    return parse_message(entry["text"], catalog, previous=previous)


def test_the_table_is_large_and_bilingual():
    langs = [e["lang"] for e in PHRASINGS]
    assert len(PHRASINGS) >= 150 and langs.count("es") >= 60 and langs.count("en") >= 60
    assert sum("previous" in e for e in PHRASINGS) >= 40


def test_each_phrasing_keeps_the_split_its_hash_gives():
    entries = phrasings.load()
    assert all(e["split"] == phrasings.split_of(e["text"]) for e in entries)
    assert 0.2 < sum(e["split"] == "diagnosed" for e in entries) / len(entries) < 0.4


@pytest.mark.parametrize("entry", PHRASINGS, ids=[e["text"][:50] for e in PHRASINGS])
def test_phrasing(entry, catalog):
    result = _parse(entry, catalog)
    expected = entry["expected"]
    assert result.lang == entry["lang"]
    assert result.intent == expected.get("intent", "estimate")
    request = result.request.model_dump()
    for key, value in expected.items():
        if key == "warning_codes":
            assert set(value) <= set(result.warning_codes)
        elif key in RESULT_KEYS:
            assert getattr(result, key) == value, key
        else:
            assert request[key] == value, key
    said_keys = set(result.delta.said())
    unexpected = {k for k in CONTRACT_KEYS if k in said_keys and k not in expected}
    assert not unexpected, f"understood {unexpected} that the text did not say"


@pytest.mark.parametrize("text,lang", [
    ("what about 16k?", "en"), ("¿y con 16k?", "es"), ("y con LoRA", "es"), ("con 3 épocas", "es"),
    ("and on the 4090?", "en"), ("on H100s instead", "en"), ("y en Fráncfort", "es"),
    ("A100 o H100?", "es"), ("A100 or H100?", "en"), ("QLoRA 70B 4090", "en"),
])
def test_language_of_short_messages(text, lang):
    assert detect_language(text) == lang


def test_a_tie_goes_to_the_thread_language():
    assert detect_language("QLoRA 70B 4090", hint="es") == "es"
    assert detect_language("QLoRA 70B 4090 please", hint="es") == "en"


@pytest.mark.parametrize("raw,unit,kind,expected", [
    ("2,048", None, "seq", 2048), ("2.048", None, "seq", 2048), ("4", "k", "seq", 4096),
    ("128", "k", "seq", 131072), ("1", "m", "seq", 1048576), ("1.5", "k", "seq", 1536),
    ("50", "m", "count", 50e6), ("1.2", "b", "count", 1.2e9), ("200", "k", "count", 200e3),
    ("200", "mil", "count", 200e3), ("7", "mil millones", "params", 7.0), ("1,5", "b", "params", 1.5),
    ("350", "m", "params", 0.35), ("10^9", None, "count", 1e9), ("1e9", None, "count", 1e9),
])
def test_numbers_follow_each_fields_convention(raw, unit, kind, expected):
    fn = {"seq": num.seq_tokens, "count": num.count, "params": num.billions}[kind]
    assert fn(raw, unit) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("raw,lang,expected", [
    ("1.200", "es", 1200e6), ("1.200", "en", 1.2e6), ("1,200", "en", 1200e6), ("1,5", "es", 1.5e6),
])
def test_three_digits_before_a_unit_follow_the_language(raw, lang, expected):
    assert num.count(raw, "millones" if lang == "es" else "m", lang) == pytest.approx(expected)


def test_absurd_numbers_stay_finite():
    assert num.parse_number("10^999") == num.HUGE
    assert num.parse_number("9" * 400) == num.HUGE


@pytest.mark.parametrize("text,code", [("", "empty"), ("   ", "empty"), ("🚀🔥", "empty"), ("<@U123> :tada:", "empty"),
                                       ("qlora " * (MAX_MESSAGE_CHARS // 5), "too_long")])
def test_unreadable_messages_raise_a_parse_error_with_an_example(text, code, catalog):
    with pytest.raises(ParseError) as info:
        parse_message(text, catalog)
    assert info.value.code == code and info.value.example


def test_a_spanish_error_is_in_spanish(catalog):
    with pytest.raises(ParseError) as info:
        parse_message("¿y " + "ñ" * (MAX_MESSAGE_CHARS + 1), catalog)
    assert "caracteres" in str(info.value)


def test_a_limit_names_the_bound_in_the_question(catalog):
    result = parse_message("lora llama 3 8b at seq 1000000000", catalog)
    assert result.intent == "clarify" and f"{MAX_SEQ_LEN:,}" in result.question
    assert result.request.seq_len is None


def test_every_example_in_a_question_parses_to_a_request(catalog):
    for entry in PHRASINGS:
        result = _parse(entry, catalog)
        if result.intent == "clarify" and result.clarify_code not in ("number", "followup_empty"):
            again = parse_message(result.example, catalog)
            assert again.intent == "estimate", (entry["text"], result.example)
