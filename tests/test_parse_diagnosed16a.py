"""Mechanisms behind the failures of round 15's hand-written set (tests/heldout/table5.py, "diagnosed-table5"), issue #13.

Each class is tested with phrasings written for this file, in both languages, not copied from the set: the fix
is the mechanism, so other words, orders and near forms must pass too; and a near form that must NOT be read
sits beside each class."""

import pytest

from tests.phrasings import parsed_and_said as _said


# --- an ordinal before a setting's word names a phase ("the first pass:"), so the count after it is the data's ----

@pytest.mark.parametrize("text,tokens", [
    ("second pass: 50k rows of 1k tokens, lora qwen2.5-7b", 50_000_000),
    ("lora qwen2.5-7b; for the final pass 10k samples of ~2k tokens", 20_000_000),
    ("en la segunda pasada, 50 mil filas de 1k tokens, lora qwen2.5-7b", 50_000_000),
    ("lora qwen2.5-7b, la última pasada: 10 mil muestras de unos 2k tokens", 20_000_000),
])
def test_a_numbered_phase_before_a_count_of_examples_is_no_epoch_word(text, tokens, catalog):
    result, said = _said(text, catalog)
    assert said.get("dataset_tokens") == tokens and "seq_len" not in said and "epochs" not in said, (result.intent, said)


@pytest.mark.parametrize("text,epochs", [
    ("lora qwen2.5-7b at 4k, passes: 3", 3),
    ("lora qwen2.5-7b a 4k, pasadas: 3", 3),
])
def test_the_setting_word_without_an_ordinal_still_takes_its_number(text, epochs, catalog):
    result, said = _said(text, catalog)
    assert said.get("epochs") == epochs, (result.intent, said)


# --- GPU-hours are compute spent, not a count of GPUs ------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "we used 300 GPU hours last month. lora qwen2.5-7b at 4k",
    "about 500 gpu-hrs so far; lora qwen2.5-7b at 4k",
    "usamos 40 GPU-horas el trimestre pasado; lora qwen2.5-7b a 4k",
    "llevamos 2.000 horas de GPU este año, lora qwen2.5-7b a 4k",
])
def test_gpu_hours_are_no_gpu_count(text, catalog):
    result, said = _said(text, catalog)
    assert "num_gpus" not in said and said.get("seq_len") == 4096, (result.intent, said)


@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k on 8 GPUs for 10 hours",
    "lora qwen2.5-7b a 4k en 8 GPUs durante 10 horas",
    "lora qwen2.5-7b 4k 8 gpu h100",
])
def test_a_gpu_count_beside_hours_is_still_read(text, catalog):
    result, said = _said(text, catalog)
    assert said.get("num_gpus") == 8, (result.intent, said)
