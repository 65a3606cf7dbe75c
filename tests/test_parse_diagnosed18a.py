"""Mechanisms behind the failures of round 15's hand-written set (tests/heldout/table5.py, "diagnosed-table5"), issue #13.

Each class is tested with phrasings written for this file, in both languages, not copied from the set: the fix
is the mechanism, so other words, orders and near forms must pass too; and a near form that must NOT be read
sits beside each class."""

import pytest

from tests.phrasings import parsed_and_said as _said


# --- a number in a sentence of its own that says nothing we size is the story, not a setting -------------------

@pytest.mark.parametrize("text", [
    "Our office moved to floor 9 last month. lora qwen2.5-7b at 4k on an L40S",
    "Standup got moved to 10, sorry for the noise; full fine-tune of llama-3.2-1b at 2k",
    "We scored 83,4 on the internal eval, nobody cares. qlora mistral 7b v0.3 at 4k",
    "Budget line 7710 (cost center 51) covers it: lora gemma-2-9b 4k, 2 epochs",
    "La reunión pasó al piso 9 el mes pasado. lora de qwen2.5-7b a 4k en una L40S",
    "El daily se movió a las 10, perdón el ruido; ajuste completo de llama-3.2-1b a 2k",
    "Sacamos 83,4 en la evaluación interna, da igual. qlora de mistral 7b v0.3 a 4k",
    "La partida 7710 (centro de coste 51) lo cubre: lora de gemma-2-9b a 4k, 2 épocas",
])
def test_a_number_in_a_sentence_about_something_else_is_not_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "estimate" and result.clarify_code is None, (result.intent, result.clarify_code, said)
    assert not {"num_gpus", "micro_batch", "lora_rank"} & set(said), said


@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k. 24.",                 # a sentence of one bare number: a setting nobody named
    "lora qwen2.5-7b at 4k, then 24 please",      # in the request's own sentence
    "on floor 9 we have r pinned at 32. lora qwen2.5-7b at 4k",  # a setting's word beside it, joined oddly
    "lora de qwen2.5-7b a 4k. 24.",
    "lora de qwen2.5-7b a 4k, y 24 porfa",
    "en el piso 9 tenemos el rango fijado en 32. lora de qwen2.5-7b a 4k",
])
def test_a_bare_number_beside_the_request_or_a_setting_word_is_still_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "number", (result.intent, result.clarify_code, said)


def test_a_percentage_written_with_a_space_is_no_setting(catalog):
    for text in ("lora qwen2.5-7b a 4k, el 40 % más barato", "lora qwen2.5-7b at 4k, 40 % cheaper"):
        result, said = _said(text, catalog)
        assert result.clarify_code != "number", (text, result.intent, said)


# --- a typo of a setting's key right before its number is that key ------------------------------------------------

@pytest.mark.parametrize("text,field,value", [
    ("lora qwen2.5-7b at 4k, rabk 8", "lora_rank", 8),          # a neighbouring key (b beside n)
    ("lora qwen2.5-7b at 4k, rannk 8", "lora_rank", 8),         # a letter typed twice
    ("lora qwen2.5-7b at 4k, epohcs: 3", "epochs", 3),          # two letters swapped
    ("lora qwen2.5-7b at 4k, batcj 2", "micro_batch", 2),
    ("lora de qwen2.5-7b a 4k, ranfo 8", "lora_rank", 8),
    ("lora de qwen2.5-7b a 4k, epocaz 3", "epochs", 3),
    ("lora de qwen2.5-7b a 4k, lptes 2", "micro_batch", 2),
])
def test_a_typo_of_a_setting_key_before_a_number_is_read_as_the_key(text, field, value, catalog):
    result, said = _said(text, catalog)
    assert said.get(field) == value, (result.intent, said)


@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k, rack 8",            # a word of its own, one key away from nothing we read
    "lora qwen2.5-7b at 4k, past 3 weeks",      # "pass" is prose too: never a typo's target
    "lora de qwen2.5-7b a 4k, pasa 3 veces",
])
def test_an_ordinary_word_before_a_number_is_no_typo_of_a_key(text, catalog):
    result, said = _said(text, catalog)
    assert not {"lora_rank", "epochs", "micro_batch"} & set(said), (result.intent, said)
